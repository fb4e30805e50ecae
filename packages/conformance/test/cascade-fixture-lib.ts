/**
 * Snapshot fixtures for cascade policies (see fixture-lib.ts for the idea): episodes are opened and
 * driven in an interleaved order, a snapshot is taken while some are mid-episode, and the
 * continuation's exact inputs, outputs and final snapshot are recorded.
 */
import { type CascadePolicy, decodeF64, encodeF64, Rng, type Snapshot } from "@routekit/core";

export const CASCADE_FIXTURE_FORMAT = "routekit/conformance-cascade-fixture";

export type CascadeStepInput =
  | { op: "begin"; context: string }
  | { op: "next" | "choose"; episode: string }
  | { op: "observe"; episode: string; arm: string; features: string; cost: number }
  | { op: "feedback"; episode: string; reward: number };

export interface CascadeFixture {
  format: typeof CASCADE_FIXTURE_FORMAT;
  version: 1;
  policy: string;
  kind: string;
  snapshot: Snapshot;
  steps: CascadeStepInput[];
  /** JSON of every output (episode ids, next steps, chosen boxes), in order. */
  outputs: string[];
  finalSnapshot: Snapshot;
}

/** Plays steps; returns the outputs as JSON. */
export function playCascade(p: CascadePolicy, steps: readonly CascadeStepInput[]): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (s.op === "begin") out.push(JSON.stringify(p.begin(decodeF64(s.context, "context"))));
    else if (s.op === "next") out.push(JSON.stringify(p.next(s.episode)));
    else if (s.op === "choose") out.push(JSON.stringify(p.choose(s.episode)));
    else if (s.op === "observe") p.observe(s.episode, s.arm, decodeF64(s.features, "features"), s.cost);
    else if (s.op === "feedback") p.feedback(s.episode, s.reward);
  }
  return out;
}

interface OpenEp {
  id: string;
  awaiting: string | null;
  observed: number;
  stopped: boolean;
  chosen: boolean;
}

/** Generates `rounds` interleaved steps with up to 3 open episodes; open episodes carry over. */
export function generateCascade(p: CascadePolicy, seed: string, rounds: number, open: OpenEp[] = []) {
  const rng = Rng.fromSeed(seed);
  const steps: CascadeStepInput[] = [];
  const run = (s: CascadeStepInput): string | undefined => {
    steps.push(s);
    return playCascade(p, [s])[0];
  };
  for (let t = 0; t < rounds; t++) {
    if (open.length < 3 && (open.length === 0 || rng.uniform() < 0.4)) {
      const id = JSON.parse(
        run({ op: "begin", context: encodeF64(rng.fillNormal(new Float64Array(p.contextDim), 0, 0.5)) }) as string,
      );
      open.push({ id, awaiting: null, observed: 0, stopped: false, chosen: false });
      continue;
    }
    const e = open[rng.int(open.length)] as OpenEp;
    if (e.chosen) {
      run({ op: "feedback", episode: e.id, reward: rng.uniform() < 0.6 ? 1 : 0 });
      open.splice(open.indexOf(e), 1);
    } else if (e.stopped) {
      run({ op: "choose", episode: e.id });
      e.chosen = true;
    } else if (e.awaiting !== null) {
      const f = Float64Array.from({ length: p.outputDim }, () => rng.uniform());
      run({
        op: "observe",
        episode: e.id,
        arm: e.awaiting,
        features: encodeF64(f),
        cost: Math.round(rng.uniform() * 100) / 1000,
      });
      e.awaiting = null;
      e.observed++;
    } else {
      const step = JSON.parse(run({ op: "next", episode: e.id }) as string) as { query?: string };
      if (step.query !== undefined) e.awaiting = step.query;
      else e.stopped = true;
    }
  }
  return { steps, open };
}

export function makeCascadeFixture(name: string, create: () => CascadePolicy): CascadeFixture {
  const p = create();
  const warm = generateCascade(p, `${name}:warmup`, 120);
  // snapshot mid-episode: make sure an episode is open (an empty open list always begins one)
  if (warm.open.length === 0) warm.steps.push(...generateCascade(p, `${name}:open`, 1, warm.open).steps);
  const snapshot = JSON.parse(JSON.stringify(p.toJSON())) as Snapshot;
  const cont = generateCascade(p, `${name}:continuation`, 120, warm.open);
  const fresh = create();
  playCascade(fresh, warm.steps);
  const outputs = playCascade(fresh, cont.steps);
  return {
    format: CASCADE_FIXTURE_FORMAT,
    version: 1,
    policy: name,
    kind: p.kind,
    snapshot,
    steps: cont.steps,
    outputs,
    finalSnapshot: JSON.parse(JSON.stringify(fresh.toJSON())) as Snapshot,
  };
}
