/**
 * Snapshot fixtures: a policy is played for a while (leaving decisions pending), snapshotted, then
 * played further. The fixture stores the snapshot, the continuation's exact inputs and the
 * decisions and final snapshot the code produced when the fixture was made. Replaying it with
 * today's code must give the same decisions and the same final snapshot, bit for bit.
 */
import { type ArmPolicy, type AssortmentPolicy, decodeF64, encodeF64, Rng, type Snapshot } from "@routekit/core";
import type { ArmPolicySpec, AssortmentPolicySpec } from "@routekit/core/testing";

export const FIXTURE_FORMAT = "routekit/conformance-fixture";
export const FIXTURE_VERSION = 1;

export type Step =
  | { op: "select"; context?: string; features?: string; numItems?: number; maxSize?: number; revenues?: string }
  | { op: "update"; decision: string; reward?: number; cost?: number; choice?: number | null }
  | { op: "add" | "remove"; arm: string };

export interface Fixture {
  format: typeof FIXTURE_FORMAT;
  version: number;
  policy: string;
  kind: string;
  snapshot: Snapshot;
  steps: Step[];
  /** JSON of each select's decision, in order. */
  decisions: string[];
  /** JSON of the policy's snapshot after the last step. */
  finalSnapshot: Snapshot;
}

type AnyPolicy = ArmPolicy | AssortmentPolicy;

/** Plays `steps` on `p`, returning the decisions (as JSON). Throws on any error. */
export function play(p: AnyPolicy, steps: readonly Step[]): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (s.op === "select") {
      if (p.protocol === "arm") out.push(JSON.stringify(p.select(s.context ? decodeF64(s.context, "ctx") : undefined)));
      else
        out.push(
          JSON.stringify(
            p.select({
              features: decodeF64(s.features, "features"),
              numItems: s.numItems as number,
              maxSize: s.maxSize as number,
              revenues: s.revenues ? decodeF64(s.revenues, "revenues") : undefined,
            }),
          ),
        );
    } else if (s.op === "update") {
      if (p.protocol === "arm")
        p.update(
          s.decision,
          s.cost === undefined ? { reward: s.reward as number } : { reward: s.reward as number, cost: s.cost },
        );
      else p.update(s.decision, { choice: s.choice ?? null });
    } else if (s.op === "add") (p as ArmPolicy).addArm(s.arm);
    else (p as ArmPolicy).removeArm(s.arm);
  }
  return out;
}

/**
 * Generates steps interactively (decision ids come from the policy): `rounds` selects, each decision
 * settled 0..3 selects later (some never), occasional arm arrivals/departures for arm policies.
 * Decisions still pending at the end are returned so a continuation can settle them late.
 */
export function generate(
  p: AnyPolicy,
  seed: string,
  rounds: number,
  carried: string[] = [],
  costs?: readonly [number, number],
): { steps: Step[]; pending: string[] } {
  const rng = Rng.fromSeed(seed);
  const steps: Step[] = [];
  const pending = [...carried];
  let next = 0;
  const run = (s: Step) => {
    steps.push(s);
    const [d] = play(p, [s]);
    if (d) pending.push((JSON.parse(d) as { id: string; items?: number[] }).id);
    return d;
  };
  const items = new Map<string, number[]>();
  for (let t = 0; t < rounds; t++) {
    if (p.protocol === "arm") {
      if (t % 17 === 16) run({ op: "add", arm: `late-${seed}-${next++}` });
      if (t % 23 === 22 && p.arms.length > 2) run({ op: "remove", arm: p.arms[1] as string });
      const ctx = p.contextDim ? rng.fillNormal(new Float64Array(p.contextDim), 0, 0.6) : undefined;
      run({ op: "select", ...(ctx ? { context: encodeF64(ctx) } : {}) });
    } else {
      const n = 2 + rng.int(5);
      const f = rng.fillNormal(new Float64Array(n * p.contextDim), 0, 0.4);
      const rev = rng.uniform() < 0.5 ? Float64Array.from({ length: n }, () => rng.uniform()) : undefined;
      const d = run({
        op: "select",
        features: encodeF64(f),
        numItems: n,
        maxSize: 1 + rng.int(Math.min(n, 3)),
        ...(rev ? { revenues: encodeF64(rev) } : {}),
      }) as string;
      const dec = JSON.parse(d) as { id: string; items: number[] };
      items.set(dec.id, dec.items);
    }
    while (pending.length > 3 || (pending.length > 0 && rng.uniform() < 0.4)) {
      const id = pending.splice(rng.int(pending.length), 1)[0] as string;
      if (p.protocol === "arm") {
        const reward = Math.round(rng.uniform() * 1000) / 1000;
        // Policies that learn costs get one in their range, derived from the reward (no extra draw).
        const cost = costs ? costs[0] + reward * (costs[1] - costs[0]) : undefined;
        run({ op: "update", decision: id, reward, ...(cost === undefined ? {} : { cost }) });
      } else {
        const its = items.get(id) ?? [];
        const k = rng.int(its.length + 1);
        run({ op: "update", decision: id, choice: k === its.length ? null : (its[k] as number) });
      }
    }
  }
  return { steps, pending };
}

export function makeFixture(name: string, create: () => AnyPolicy, costs?: readonly [number, number]): Fixture {
  const p = create();
  const warm = generate(p, `${name}:warmup`, 40, [], costs);
  const snapshot = JSON.parse(JSON.stringify(p.toJSON())) as Snapshot;
  const cont = generate(p, `${name}:continuation`, 40, warm.pending, costs);
  const decisions = cont.steps.filter((s) => s.op === "select").length;
  // The reference run never stops: warm-up and continuation on one fresh policy.
  const fresh = create();
  play(fresh, warm.steps);
  const out = play(fresh, cont.steps);
  if (out.length !== decisions) throw new Error("decision count mismatch");
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    policy: name,
    kind: p.kind,
    snapshot,
    steps: cont.steps,
    decisions: out,
    finalSnapshot: JSON.parse(JSON.stringify(fresh.toJSON())) as Snapshot,
  };
}

export function armCreate(spec: ArmPolicySpec): () => ArmPolicy {
  return () => spec.create({ seed: 11, arms: ["arm-0", "arm-1", "arm-2"] });
}

export function assortmentCreate(spec: AssortmentPolicySpec): () => AssortmentPolicy {
  return () => spec.create({ seed: 11 });
}

export function fixtureFile(name: string): string {
  return `${name.replace(/[^a-z0-9]+/gi, "_")}.json`;
}
