// A trivial arm environment and policy: what remains of a round's cost is the runner's own.
// Also an experiment module for runExperimentInWorkers (buildExperiment).

const ARMS = ["a", "b", "c", "d"];
const MEANS = { a: 0.1, b: 0.2, c: 0.3, d: 0.4 };

export class ConstantEnvironment {
  name = "bench/constant";
  contextDim = 4;
  initialArms = ARMS;
  context = new Float64Array(4);
  round = { context: this.context };
  feedback = { reward: 0.5, cost: 0.01 };
  reset() {}
  next() {
    return this.round;
  }
  expectedReward(arm) {
    return MEANS[arm];
  }
  expectedCost() {
    return 0.01;
  }
  oracleReward() {
    return 0.4;
  }
  bestFixedArm() {
    return "d";
  }
  bestFixedReward() {
    return 0.4;
  }
  isOptimal(arm) {
    return arm === "d";
  }
  pull() {
    return this.feedback;
  }
}

/** Round-robin over the arms; returns preallocated decisions; no learning. */
export class RoundRobin {
  kind = "bench/round-robin";
  protocol = "arm";
  contextDim = 4;
  arms = ARMS;
  pendingDecisions = 0;
  i = 0;
  decisions = ARMS.map((arm, k) => ({ id: `d${k}`, arm }));
  addArm() {}
  removeArm() {}
  select() {
    this.i = (this.i + 1) & 3;
    return this.decisions[this.i];
  }
  update() {}
  toJSON() {
    return { format: "routekit/snapshot", version: 1, kind: this.kind, kindVersion: 1, state: {} };
  }
}

export function buildExperiment(spec) {
  return {
    protocol: "arm",
    environment: () => new ConstantEnvironment(),
    policies: [{ label: "round-robin", create: () => new RoundRobin() }],
    seeds: spec.seeds,
    horizon: spec.horizon,
  };
}
