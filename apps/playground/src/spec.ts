import {
  type ArmEnvironment,
  type AssortmentEnvironment,
  type Experiment,
  isRouteKitError,
  type Json,
  Rng,
} from "@routekit/core";
import { CliFailure, UsageError } from "./errors.js";
import { numberText } from "./number-text.js";
import type {
  AnyEnvironment,
  EnvInfo,
  EnvironmentEntry,
  FamilyRegistry,
  Params,
  ParamValue,
  PolicyEntry,
} from "./registry/types.js";

/**
 * Everything needed to rebuild an experiment from names and parameters: plain JSON, so it crosses into
 * worker threads (`worker-plan.ts`) and is written next to the results for reproduction.
 */
/** Most seeds of one experiment (CLI, config files, API): every run's results are kept; 200,000 ran out of memory. */
export const MAX_SEEDS = 10_000;

/**
 * Most points kept per series (CLI, config files, API): each run keeps points x metrics numbers, so memory grows with
 * them (--points 3,000,000 on 2 seeds ran out of memory at 4.5 GB after 220 s).
 */
export const MAX_POINTS = 100_000;

export interface RunSpec {
  readonly environment: { readonly name: string; readonly params: Params };
  readonly policies: readonly { readonly label: string; readonly policy: string; readonly params: Params }[];
  readonly seeds: readonly number[];
  readonly horizon: number;
  /** Points kept per series. */
  readonly points: number;
}

function names(xs: readonly { name: string }[]): string {
  return xs.map((x) => x.name).join(", ") || "none registered";
}

export function findEnvironment(reg: FamilyRegistry, name: string): EnvironmentEntry {
  const e = reg.environments.find((x) => x.name === name);
  if (!e) throw new UsageError(`unknown environment "${name}" (known: ${names(reg.environments)})`);
  return e;
}

export function findPolicy(reg: FamilyRegistry, name: string): PolicyEntry {
  const p = reg.policies.find((x) => x.name === name);
  if (!p) throw new UsageError(`unknown policy "${name}" (known: ${names(reg.policies)})`);
  return p;
}

/** Converts a command-line string to the type of the parameter's default. */
export function coerceParam(where: string, key: string, raw: ParamValue, defaults: Params): ParamValue {
  // Own keys only: "toString", "constructor" and "__proto__" are not parameters.
  if (!Object.hasOwn(defaults, key)) {
    const keys = Object.keys(defaults);
    throw new UsageError(
      `${where} has no parameter "${key}" (parameters: ${keys.length > 0 ? keys.join(", ") : "none"})`,
    );
  }
  const def = defaults[key] as ParamValue;
  if (typeof def === "number") {
    // Decimal or exponent notation, finite: "0x10", "0b1", "" and "Infinity" are refused (Number() read them).
    const x = numberText(raw);
    if (Number.isNaN(x)) throw new UsageError(`${where}.${key} must be a number, got ${JSON.stringify(raw)}`);
    return x;
  }
  if (typeof def === "boolean") {
    if (raw === true || raw === "true") return true;
    if (raw === false || raw === "false") return false;
    throw new UsageError(`${where}.${key} must be true or false, got ${JSON.stringify(raw)}`);
  }
  // A word-valued default whose alternatives are numbers ("env", "none"): a config file's number (budget: 3,
  // searchNodeLimit: 2000) is the string the command line would give; the entry checks it as it checks that.
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  if (typeof raw !== "string") throw new UsageError(`${where}.${key} must be a string, got ${JSON.stringify(raw)}`);
  return raw;
}

/** Defaults overridden by `overrides` (each checked against the defaults' keys and types). */
export function mergeParams(where: string, defaults: Params, overrides: Params = {}): Params {
  const out: Params = { ...defaults };
  for (const [k, v] of Object.entries(overrides)) {
    Object.defineProperty(out, k, { value: coerceParam(where, k, v, defaults), enumerable: true, writable: true });
  }
  return out;
}

/** Parses `key=value` (or `prefix.key=value` when `prefixed`) assignments. */
export function parseAssignment(s: string, prefixed: boolean): { target?: string; key: string; value: string } {
  const eq = s.indexOf("=");
  const lhs = eq < 0 ? "" : s.slice(0, eq).trim();
  const value = eq < 0 ? "" : s.slice(eq + 1);
  if (!prefixed) {
    if (lhs === "") throw new UsageError(`expected key=value, got "${s}"`);
    return { key: lhs, value };
  }
  const dot = lhs.lastIndexOf(".");
  if (dot <= 0 || dot === lhs.length - 1) throw new UsageError(`expected policy.key=value, got "${s}"`);
  return { target: lhs.slice(0, dot), key: lhs.slice(dot + 1), value };
}

/**
 * Checks a spec against the registry (names exist, protocols match, parameters exist and have the right types,
 * seeds/horizon are sane) and returns it with every parameter filled in from the defaults.
 */
export function resolveSpec(reg: FamilyRegistry, spec: RunSpec): RunSpec {
  const env = findEnvironment(reg, spec.environment.name);
  const envParams = mergeParams(`environment ${env.name}`, env.defaults, spec.environment.params);
  if (spec.policies.length === 0) throw new UsageError("no policies given");
  const labels = new Set<string>();
  const policies = spec.policies.map((p) => {
    const entry = findPolicy(reg, p.policy);
    if (entry.protocol !== env.protocol) {
      throw new UsageError(
        `policy "${entry.name}" plays the ${entry.protocol} protocol but environment "${env.name}" serves ${env.protocol}` +
          ` (${env.protocol} policies: ${names(reg.policies.filter((x) => x.protocol === env.protocol))})`,
      );
    }
    if (labels.has(p.label))
      throw new UsageError(`policy label "${p.label}" is used twice; give each run a distinct label`);
    labels.add(p.label);
    return { label: p.label, policy: entry.name, params: mergeParams(p.label, entry.defaults, p.params) };
  });
  if (!Number.isInteger(spec.horizon) || spec.horizon < 1) {
    throw new UsageError(`horizon must be an integer >= 1, got ${spec.horizon}`);
  }
  if (spec.seeds.length === 0 || !spec.seeds.every((s) => Number.isInteger(s))) {
    throw new UsageError("seeds must be a non-empty list of integers");
  }
  if (!Number.isInteger(spec.points) || spec.points < 2 || spec.points > MAX_POINTS) {
    throw new UsageError(`points must be an integer in [2, ${MAX_POINTS}], got ${spec.points}`);
  }
  if (spec.seeds.length > MAX_SEEDS) throw new UsageError(`at most ${MAX_SEEDS} seeds, got ${spec.seeds.length}`);
  return {
    environment: { name: env.name, params: envParams },
    policies,
    seeds: [...spec.seeds],
    horizon: spec.horizon,
    points: spec.points,
  };
}

function envInfo(env: AnyEnvironment, protocol: EnvInfo["protocol"], horizon: number): EnvInfo {
  if (protocol === "assortment") {
    return { protocol, arms: [], dim: (env as AssortmentEnvironment).contextDim, horizon, env };
  }
  const e = env as ArmEnvironment;
  return { protocol, arms: [...e.initialArms], dim: e.contextDim, horizon, env };
}

/**
 * Awaits each policy entry's `prepare` (see PolicyEntry) with its resolved parameters: what every thread that builds
 * the spec's policies (this one, each worker) does first. A failure (e.g. MISSING_DEPENDENCY) passes through.
 */
export async function prepareSpec(reg: FamilyRegistry, input: RunSpec): Promise<void> {
  const spec = resolveSpec(reg, input);
  for (const p of spec.policies) await findPolicy(reg, p.policy).prepare?.(p.params);
}

/** `prepareSpec` for one policy of a log command (`train`, `evaluate`): its defaults overridden by `overrides`. */
export async function preparePolicy(reg: FamilyRegistry, name: string, overrides: Params = {}): Promise<void> {
  const entry = findPolicy(reg, name);
  await entry.prepare?.(mergeParams(`policy ${entry.name}`, entry.defaults, overrides));
}

/**
 * Turns a (resolved or not) spec into a core Experiment. Policy factories read the run's own environment from
 * core's factory context (`ctx.env`, already reset). One environment is built right away so data problems (e.g. a
 * bad replay file) surface before any run starts; it names the experiment (`environmentName`, so core never builds
 * one just for its name) and is handed, untouched, to the first run, so a costly environment (prompt pool, replay
 * table) is built once per run and never more.
 */
export function buildExperimentFrom(reg: FamilyRegistry, input: RunSpec): Experiment {
  const spec = resolveSpec(reg, input);
  const envEntry = findEnvironment(reg, spec.environment.name);
  const entries = spec.policies.map((p) => findPolicy(reg, p.policy));
  // An environment that reads a data file reports problems with the file (exit 1); any other library error
  // here comes from a parameter value the user gave, which is bad usage (exit 2).
  const readsData = Object.hasOwn(envEntry.defaults, "data");
  let spare: AnyEnvironment | undefined = fromUserParams(
    `environment ${envEntry.name}`,
    spec.environment.params,
    () => envEntry.create(spec.environment.params),
    readsData,
  );
  // Each policy is built once here from the user's parameters, so a bad value is a usage error before any run
  // (or worker) starts, not a failure in the middle of one.
  // Policies may read the environment (the one-arm oracle asks for the best arm), so it is reset first; the runner
  // resets it again with the run's own stream, and reset re-derives all of an environment's state from its stream.
  fromUserParams(`environment ${envEntry.name}`, spec.environment.params, () =>
    spare?.reset(Rng.fromSeed("routekit:parameter-check")),
  );
  const probeInfo = envInfo(spare, envEntry.protocol, spec.horizon);
  spec.policies.forEach((p, i) => {
    fromUserParams(`policy ${p.label}`, p.params, () =>
      (entries[i] as PolicyEntry).create(p.params, { rng: Rng.fromSeed(0), seed: 0, info: probeInfo }),
    );
  });
  const environmentName = spare.name;
  const environment = (): AnyEnvironment => {
    const fresh = spare ?? envEntry.create(spec.environment.params);
    spare = undefined;
    return fresh;
  };
  return {
    protocol: envEntry.protocol,
    environment,
    environmentName,
    policies: spec.policies.map((p, i) => ({
      label: p.label,
      create: ({ rng, seed, env }: { rng: Rng; seed: number; env: AnyEnvironment }) =>
        (entries[i] as PolicyEntry).create(p.params, {
          rng,
          seed,
          info: envInfo(env, envEntry.protocol, spec.horizon),
        }),
    })),
    seeds: spec.seeds,
    horizon: spec.horizon,
    points: spec.points,
  } as Experiment;
}

/**
 * Runs a constructor fed by user parameters: a RouteKitError (bad option value) or a RangeError (a size too large
 * to allocate, e.g. `dim: 1e9`) becomes a UsageError naming `where` and its parameters. A CliFailure (a data
 * problem) passes through.
 */
export function fromUserParams<T>(where: string, params: Params, build: () => T, dataErrors = false): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof CliFailure || e instanceof UsageError) throw e;
    const given = JSON.stringify(params);
    if (isRouteKitError(e)) {
      if (dataErrors) throw new CliFailure(e.message);
      throw new UsageError(`${where} ${given}: ${e.message}`);
    }
    if (e instanceof RangeError) {
      throw new UsageError(`${where} ${given}: a parameter value is too large to allocate (a size beyond memory)`);
    }
    throw e;
  }
}

/** A JSON copy of a spec (what workers receive and what results record). */
export function specToJson(spec: RunSpec): Json {
  return JSON.parse(JSON.stringify(spec)) as Json;
}
