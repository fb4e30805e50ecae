/**
 * What the CLI knows about: policies, environments and scenarios, each family contributing its own
 * file in this folder. Everything here is plain data plus factories, so a worker thread can rebuild
 * an experiment from names and parameters alone.
 */
import type {
  ArmEnvironment,
  ArmPolicy,
  AssortmentEnvironment,
  AssortmentPolicy,
  CascadeEnvironment,
  CascadePolicy,
  Protocol,
  Rng,
} from "@routekit/core";
import type { ReferenceValue } from "../reference.js";

export type ParamValue = number | string | boolean;
export type Params = Record<string, ParamValue>;

/** What a policy factory learns about the environment it will play. */
export interface EnvInfo {
  readonly protocol: Protocol;
  /** Arm ids live at round 0 (arm and cascade protocols). */
  readonly arms: readonly string[];
  /** Context length (arm, cascade) or item feature dimension (assortment). */
  readonly dim: number;
  /** Planned horizon (some theory presets need T). */
  readonly horizon: number;
  /** The environment instance (read-only use: e.g. the one-arm oracle asks for the best arm). */
  readonly env: ArmEnvironment | AssortmentEnvironment | CascadeEnvironment;
  /**
   * For a policy built for a log (no environment; `env` throws when read): the cascade boxes' output
   * feature length, from the log's first event.
   */
  readonly outputDim?: number;
}

export type AnyPolicy = ArmPolicy | AssortmentPolicy | CascadePolicy;
export type AnyEnvironment = ArmEnvironment | AssortmentEnvironment | CascadeEnvironment;

export interface PolicyEntry {
  /** Registry name, kebab-case, e.g. "ucb1", "pak-ucb", "ofu-mnl-plus". */
  readonly name: string;
  readonly protocol: Protocol;
  /** Package that implements it, e.g. "@routekit/classic". */
  readonly family: string;
  /** Paper it comes from, e.g. "003 (Hu, Leung, Farnia, ICML 2025)"; omit for textbook baselines. */
  readonly paper?: string;
  /** One line for `routekit list`. */
  readonly description: string;
  /** Every tunable parameter with its default; `--param name.key=value` overrides them. */
  readonly defaults: Params;
  /**
   * Asynchronous preparation for `create`, which is synchronous: loads what the parameters need (e.g. a
   * WebAssembly solver) and keeps it at module level for `create`. Awaited with the run's parameters before any
   * policy is built, in this thread and in each worker thread (every run path, `train` and `evaluate` included).
   * It must be idempotent: it is called once per policy of a spec, and a module is loaded once per thread.
   */
  prepare?(params: Params): Promise<void>;
  /**
   * The second argument of the policy class's `fromJSON` for this snapshot (e.g. StageRoute's `{ deploySolver }`,
   * loaded asynchronously when the snapshot names HiGHS); undefined when fromJSON needs none. Awaited by
   * `evaluate --snapshot` before restoring.
   */
  restoreOptions?(snapshot: unknown): Promise<unknown>;
  /**
   * The policy class's `fromJSON`, for entries whose defaults cannot build a policy without their environment
   * (`evaluate --snapshot` otherwise builds one from the defaults to find the class).
   */
  fromJSON?(snapshot: unknown, options?: unknown): AnyPolicy;
  create(params: Params, ctx: { readonly rng: Rng; readonly seed: number; readonly info: EnvInfo }): AnyPolicy;
}

export interface EnvironmentEntry {
  readonly name: string;
  readonly protocol: Protocol;
  readonly family: string;
  readonly paper?: string;
  readonly description: string;
  readonly defaults: Params;
  /** A fresh environment; the runner resets it with a seed-derived stream. */
  create(params: Params): AnyEnvironment;
}

/** A named reproduction of a paper experiment: `routekit run <name>`. */
export interface ScenarioEntry {
  readonly name: string;
  readonly protocol: Protocol;
  readonly paper?: string;
  /** What it reproduces, e.g. "Fig. 1 (left): regret vs t, K = 5, uniform revenues". */
  readonly description: string;
  readonly environment: { readonly name: string; readonly params?: Params };
  readonly policies: readonly { readonly label: string; readonly policy: string; readonly params?: Params }[];
  readonly seeds: number;
  readonly horizon: number;
  /** Metrics to plot, in order; default ["regret", "o2b", "opr"]. */
  readonly metrics?: readonly ("regret" | "o2b" | "opr" | "cost" | "reward" | "usPerRound" | "queriesPerRound")[];
  /** Target numbers from the paper or an independent rerun, printed next to the results for comparison. */
  readonly reference?: string;
  /**
   * The reference's numbers in structured form (policy label, metric, value, the reference's seed count):
   * each run prints them beside RouteKit's means with a z score and a "within noise" verdict.
   */
  readonly referenceValues?: readonly ReferenceValue[];
  /**
   * Scenarios that form one paper figure share a group name (e.g. "mnl-fig1-uniform" for K = 5, 10, 15):
   * `routekit run <group>` runs every member and draws one combined figure, a panel per member in registry order.
   * Must not equal any scenario's name.
   */
  readonly group?: string;
  /** This member's panel title in the group's combined figure, e.g. "K = 10" (default: the scenario name). */
  readonly panel?: string;
}

export interface FamilyRegistry {
  readonly policies: readonly PolicyEntry[];
  readonly environments: readonly EnvironmentEntry[];
  readonly scenarios: readonly ScenarioEntry[];
}
