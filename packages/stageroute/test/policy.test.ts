import { type ArmDecision, isRouteKitError, learnedState, Rng } from "@routekit/core";
import { arenaSim2025 } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { RatioGreedy, StageOracle, StageRoute, type StageRouteOptions, stageValue } from "../src/index.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

function arena(L: number, M: number) {
  const env = arenaSim2025({ oracle: stageValue, stageLength: L, maxDeployed: M });
  const options: StageRouteOptions = {
    arms: env.initialArms,
    budget: 2,
    maxDeployed: M,
    stageLength: L,
    maxShare: env.maxShares,
    costUnit: 1,
    minCost: 0.1,
    maxCost: 50,
  };
  return { env, options };
}

/** Plays `policy` on `env` for T rounds (arrivals added), calling `each` before every select. */
function play(
  env: ReturnType<typeof arenaSim2025>,
  policy: StageRoute | RatioGreedy | StageOracle,
  T: number,
  seed: number,
  each?: (t: number) => void,
): { arms: string[]; reward: number; cost: number } {
  env.reset(Rng.fromSeed(seed));
  const arms: string[] = [];
  let reward = 0;
  let cost = 0;
  for (let t = 0; t < T; t++) {
    const round = env.next(t);
    for (const a of round.arrivals ?? []) policy.addArm(a);
    each?.(t);
    const d = policy.select();
    const fb = env.pull(d.arm);
    policy.update(d, fb);
    arms.push(d.arm);
    reward += env.expectedReward(d.arm);
    cost += fb.cost ?? 0;
  }
  return { arms, reward, cost };
}

describe("stage bookkeeping", () => {
  it("stages start every L selects: 40 stages for L = 250, T = 10^4; 73 for T = 36,497, L = 500", () => {
    const { env, options } = arena(250, 6);
    const p = new StageRoute({ ...options, seed: 1 });
    const stages: number[] = [];
    play(env, p, 10_000, 1, (t) => {
      if (t % 250 === 1) stages.push(p.deployment?.stage ?? -1);
    });
    expect(stages).toEqual([...Array(40).keys()]);
    expect(p.rounds).toBe(10_000);
    // The 10,000th feedback already deployed stage 40's set (for the next query).
    expect(p.stage).toBe(40);
    const q = new StageRoute({ arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 500 });
    let deployments = 0;
    let last = -1;
    for (let t = 0; t < 36_497; t++) {
      const d = q.select();
      if (q.deployment && q.deployment.stage !== last) {
        last = q.deployment.stage;
        deployments++;
      }
      q.update(d, { reward: 0.5, cost: 0.5 });
    }
    expect(deployments).toBe(73);
    expect(q.stage).toBe(72);
    expect(q.rounds - 72 * 500).toBe(497);
  });

  it("padding fills the slots by highest UCB, then fewest plays, then the tie-break order", () => {
    // a: 50 plays at 0.7, b: 1 play at 1, e: 5 plays at 1, d: 50 plays at 0.1, c: unplayed. Three slots.
    const plays: [string, number, number][] = [
      ["a", 50, 0.7],
      ["b", 1, 1],
      ["e", 5, 1],
      ["d", 50, 0.1],
    ];
    const total = plays.reduce((s, [, n]) => s + n, 0);
    // e is listed before c, so arrival order alone would pad with e.
    const p = new StageRoute({
      arms: ["a", "b", "e", "d", "c"],
      budget: 1,
      maxDeployed: 2,
      stageLength: total,
      tieBreak: "index",
    });
    for (const [arm, n, reward] of plays) {
      for (let i = 0; i < n; i++) {
        p.learn({
          v: 1,
          kind: "log",
          protocol: "arm",
          id: `x${i}`,
          decision: { arm, context: null },
          feedback: { reward, cost: 0.5 },
        });
      }
    }
    // b, e and c have UCB 1 and cost bound c1 = 0: the relaxation routes everything to b (first by arrival); the
    // one padding slot goes to c (no plays) rather than e (5 plays).
    expect(p.stats("b").ucb).toBe(1);
    expect(p.stats("e").ucb).toBe(1);
    expect(p.stats("a").ucb).toBeLessThan(1);
    expect(p.deployment?.stage).toBe(1);
    expect(p.deployedArms).toEqual(["b", "c"]);
    expect(p.routing()).toEqual({ b: 1, c: 0 });
  });

  it("a model arriving mid-stage is deployable only from the next boundary", () => {
    const p = new StageRoute({ arms: ["a", "b"], budget: 1, maxDeployed: 3, stageLength: 100, seed: 3 });
    for (let t = 0; t < 150; t++) {
      if (t === 30) p.addArm("c");
      const d = p.select();
      if (t >= 30 && t < 100) expect(d.arm).not.toBe("c");
      if (t < 100) expect(p.deployedArms).not.toContain("c");
      p.update(d, { reward: 0.5, cost: 0.5 });
    }
    expect(p.deployedArms).toContain("c");
  });

  it("optimism: a newly arrived model is deployed at its first boundary (ArenaSim, L <= 500, M_max 3 and 6)", () => {
    for (const [L, M] of [
      [250, 6],
      [500, 6],
      [250, 3],
      [500, 3],
    ] as const) {
      const { env, options } = arena(L, M);
      // Check directly at each arrival boundary.
      const q = new StageRoute({ ...options, seed: 5 });
      env.reset(Rng.fromSeed(5));
      for (let t = 0; t < 6000; t++) {
        const round = env.next(t);
        for (const a of round.arrivals ?? []) q.addArm(a);
        const d = q.select();
        if (round.arrivals) for (const a of round.arrivals) expect(q.deployedArms, `L=${L} M=${M} t=${t}`).toContain(a);
        q.update(d, env.pull(d.arm));
      }
    }
  });

  it("invariants on every routed round: sum p = 1, p <= alpha, chosen in D_k, |D_k| <= M_max, D_k in pool, l.p <= b when ok", () => {
    for (const [L, M] of [
      [250, 6],
      [500, 3],
    ] as const) {
      const { env, options } = arena(L, M);
      const p = new StageRoute({ ...options, seed: 6 });
      env.reset(Rng.fromSeed(6));
      let poolAtBoundary: string[] = [];
      for (let t = 0; t < 2500; t++) {
        const round = env.next(t);
        for (const a of round.arrivals ?? []) p.addArm(a);
        if (t % L === 0) poolAtBoundary = [...p.arms];
        const d = p.select();
        const dep = p.deployedArms;
        expect(dep.length).toBeLessThanOrEqual(M);
        for (const a of dep) expect(poolAtBoundary).toContain(a);
        expect(dep).toContain(d.arm);
        const routing = p.routing();
        let sum = 0;
        let lcost = 0;
        for (const [a, q] of Object.entries(routing)) {
          sum += q;
          expect(q).toBeLessThanOrEqual(p.stats(a).maxShare + 1e-12);
          lcost += q * p.stats(a).lcb;
        }
        expect(Math.abs(sum - 1)).toBeLessThan(1e-9);
        if (p.routeStatus === "ok") expect(lcost).toBeLessThanOrEqual(2 + 1e-9);
        p.update(d, env.pull(d.arm));
      }
    }
  });
});

describe("determinism, snapshots, events", () => {
  it("the same seed gives the same trajectory; the tie-break rule changes only tie-decided choices", () => {
    const a = arena(250, 6);
    const b = arena(250, 6);
    const r1 = play(a.env, new StageRoute({ ...a.options, seed: 7 }), 3000, 7);
    const r2 = play(b.env, new StageRoute({ ...b.options, seed: 7 }), 3000, 7);
    expect(r2.arms).toEqual(r1.arms);
    // Six unplayed models (all tied), caps 1, three slots: the relaxation puts all traffic on the first
    // by arrival; the two padding slots are tie-decided (arrival order, or the seeded shuffle).
    const arms = ["a", "b", "c", "d", "e", "f"];
    const sets = new Set<string>();
    for (let seed = 0; seed < 10; seed++) {
      const opts = { arms, budget: 1, maxDeployed: 3, stageLength: 10, seed };
      expect(new StageRoute({ ...opts, tieBreak: "index" }).deployedArms).toEqual(["a", "b", "c"]);
      const random = new StageRoute(opts).deployedArms;
      expect(random).toContain("a");
      expect(random).toHaveLength(3);
      sets.add(random.join());
    }
    expect(sets.size).toBeGreaterThan(3);
  });

  it("a snapshot taken mid-stage with pending decisions continues exactly", () => {
    for (const Ctor of [StageRoute, RatioGreedy] as const) {
      const { env, options } = arena(250, 6);
      const p = new Ctor({ ...options, seed: 8, budgetMode: "paced", horizon: 2000 });
      play(env, p, 1130, 8);
      const pending: ArmDecision[] = [p.select(), p.select()];
      const q = Ctor.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
      expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
      for (const x of [p, q]) {
        x.update(pending[1] as ArmDecision, { reward: 0.3, cost: 1.5 });
        x.update((pending[0] as ArmDecision).id, { reward: 1, cost: 0.2 });
      }
      for (let t = 0; t < 700; t++) {
        const d1 = p.select();
        const d2 = q.select();
        expect(d2).toEqual(d1);
        p.update(d1, { reward: 0.5, cost: 1 });
        q.update(d2, { reward: 0.5, cost: 1 });
      }
      expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
    }
  });

  it("update equals learn of the decision record, bit for bit; learn accepts events of another kind", () => {
    const { options } = arena(250, 6);
    const p = new StageRoute({ ...options, seed: 9 });
    const q = StageRoute.fromJSON(p.toJSON());
    for (let t = 0; t < 600; t++) {
      const d = p.select();
      q.select();
      const fb = { reward: (t % 7) / 7, cost: 0.1 + (t % 5) };
      const ev = { ...p.decisionRecord(d), feedback: fb };
      expect(ev.decision.propensity).toBe(d.propensity);
      p.update(d, fb);
      q.learn(JSON.parse(JSON.stringify(ev)));
      q.discard(d.id);
    }
    expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
    q.learn({
      v: 1,
      kind: "classic/ucb1",
      protocol: "arm",
      id: "x",
      decision: { arm: "gpt-4o", context: null },
      feedback: { reward: 1, cost: 3 },
    });
    expect(q.stats("gpt-4o").plays).toBe(p.stats("gpt-4o").plays + 1);
    expect(
      code(() =>
        q.learn({
          v: 1,
          kind: "k",
          protocol: "arm",
          id: "x",
          decision: { arm: "gpt-4o", context: null },
          feedback: { reward: 1 },
        }),
      ),
    ).toBe("INVALID_EVENT");
  });

  it("replicas that select differently but learn the same events in order have the same learned state", () => {
    const { options } = arena(100, 3);
    const a = new StageRoute({ ...options, seed: 21 });
    const b = new StageRoute({ ...options, seed: 21 });
    const learned = (p: StageRoute) => JSON.stringify(learnedState(p.toJSON()));
    for (let t = 0; t < 700; t++) {
      const d = a.select();
      if (t % 3 === 0) b.discard(b.select()); // b serves other traffic too
      const ev = { ...a.decisionRecord(d), feedback: { reward: (t % 5) / 5, cost: 0.5 + (t % 3) } };
      a.update(d, ev.feedback);
      b.learn(JSON.parse(JSON.stringify(ev)));
      if (t === 350) b.addArm("gemini-2.0-flash");
      if (t === 350) a.addArm("gemini-2.0-flash");
    }
    expect(learned(b)).toBe(learned(a));
    expect(b.deployedArms).toEqual(a.deployedArms);
  });

  it("the oracle routes each stage with the fixed optimal routing and earns V(b, M_tau) per query", () => {
    const { env, options } = arena(500, 6);
    const means = Object.fromEntries(env.models.map((m) => [m.id, { reward: m.reward, cost: m.cost }]));
    const o = new StageOracle({ ...options, means, seed: 10 });
    env.reset(Rng.fromSeed(10));
    env.next(0);
    o.select();
    const r = o.routing();
    let v = 0;
    for (const [a, q] of Object.entries(r)) v += q * (means[a]?.reward ?? 0);
    expect(v).toBeCloseTo(0.3847, 4);
    expect(code(() => o.addArm("unknown-model"))).toBe("INVALID_ARGUMENT");
    const back = StageOracle.fromJSON(JSON.parse(JSON.stringify(o.toJSON())));
    expect(back.routing()).toEqual(r);
  });
});

describe("feedback and fallback", () => {
  it("feedback for a model no longer deployed still counts", () => {
    const p = new StageRoute({
      arms: ["a", "b"],
      budget: 1,
      maxDeployed: 1,
      stageLength: 10,
      tieBreak: "index",
      seed: 11,
    });
    const first = p.select();
    const held = first.arm;
    let other = "";
    for (let t = 1; t < 30; t++) {
      const d = p.select();
      if (d.arm !== held) other = d.arm;
      p.update(d, { reward: d.arm === held ? 0 : 1, cost: 0.5 });
      if (other && !p.deployedArms.includes(held)) break;
    }
    expect(p.deployedArms).not.toContain(held);
    const before = p.stats(held).plays;
    p.update(first, { reward: 1, cost: 0.5 });
    expect(p.stats(held).plays).toBe(before + 1);
  });

  it("an optimistically deployed expensive model makes the budget infeasible mid-stage: cheapest-fill fallback, caps kept", () => {
    const p = new StageRoute({
      arms: ["pricey", "cheap"],
      budget: 1,
      maxDeployed: 2,
      stageLength: 1000,
      maxShare: { pricey: 0.5, cheap: 0.5 },
      minCost: 0.1,
      costUnit: 1,
      seed: 12,
    });
    for (let t = 0; t < 200; t++) {
      const d = p.select();
      p.update(d, { reward: d.arm === "pricey" ? 0.9 : 0.5, cost: d.arm === "pricey" ? 10 : 0.5 });
    }
    expect(p.fallbackRounds).toBeGreaterThan(100);
    expect(p.routeStatus).toBe("infeasible-budget");
    expect(p.routing()).toEqual({ pricey: 0.5, cheap: 0.5 });
  });

  it("paced mode routes with the budget left over the rounds left", () => {
    const p = new StageRoute({
      arms: ["x", "y"],
      budget: 1,
      maxDeployed: 2,
      stageLength: 50,
      budgetMode: "paced",
      horizon: 100,
      costUnit: 1,
      seed: 13,
    });
    let spent = 0;
    for (let t = 0; t < 100; t++) {
      const d = p.select();
      const c = d.arm === "x" ? 2 : 0.2;
      spent += c;
      p.update(d, { reward: d.arm === "x" ? 0.9 : 0.3, cost: c });
    }
    expect(p.totalCost).toBeCloseTo(spent, 12);
    expect(spent / 100).toBeLessThanOrEqual(1.05);
  });

  it("removing a deployed model re-routes over the rest, or re-deploys when the rest cannot carry all traffic", () => {
    const p = new StageRoute({
      arms: ["a", "b", "c"],
      budget: 1,
      maxDeployed: 2,
      stageLength: 100,
      maxShare: 0.6,
      seed: 14,
    });
    p.select();
    const dep = p.deployedArms;
    expect(dep).toHaveLength(2);
    p.removeArm(dep[0] as string);
    const d = p.select();
    expect(d.arm).not.toBe(dep[0]);
    expect(p.deployedArms).toHaveLength(2);
    expect(code(() => p.removeArm(p.arms[0] as string))).toBe("INFEASIBLE_BUDGET");
  });
});

describe("large pools", () => {
  it("50 models with caps 0.2 and 5 slots route without any LP library (branch-and-bound at each boundary)", () => {
    const ids = Array.from({ length: 50 }, (_, i) => `m${i}`);
    const quality = ids.map((_, i) => 0.2 + (0.7 * i) / 49);
    const price = ids.map((_, i) => 0.1 + 3 * (i / 49) ** 2);
    const p = new StageRoute({
      arms: ids,
      budget: 1,
      costUnit: 1,
      maxDeployed: 5,
      stageLength: 200,
      maxShare: 0.2,
      minCost: 0.1,
      priorCost: 2,
      seed: 4,
    });
    const rng = Rng.fromSeed(4);
    const methods = new Set<string>();
    for (let t = 0; t < 3000; t++) {
      const d = p.select();
      const i = Number(d.arm.slice(1));
      p.update(d, { reward: rng.uniform() < (quality[i] as number) ? 1 : 0, cost: price[i] as number });
      methods.add(p.deployment?.method ?? "");
      expect(p.deployedArms.length).toBeLessThanOrEqual(5);
    }
    expect([...methods]).toContain("branch-and-bound");
  });
});

describe("bad input: typed errors, state unchanged", () => {
  const base = { arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 10 };
  it("options", () => {
    expect(code(() => new StageRoute({ ...base, maxShare: 0 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, maxShare: 1.5 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, maxShare: Number.NaN }))).toBe("NON_FINITE");
    expect(code(() => new StageRoute({ ...base, maxShare: { a: 2 } }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, maxDeployed: 0 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, budget: -1 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, budget: Number.POSITIVE_INFINITY }))).toBe("NON_FINITE");
    expect(code(() => new StageRoute({ ...base, stageLength: 2.5 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, budgetMode: "lp" as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => new StageRoute({ ...base, budgetMode: "paced" }))).toBe("INVALID_ARGUMENT");
    expect(code(() => new StageRoute({ ...base, costUnit: 0 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, exploration: -1 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StageRoute({ ...base, budget: undefined as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => new StageRoute({ ...base, maxShare: 0.4 }))).toBe("INFEASIBLE_BUDGET");
    expect(code(() => new StageRoute({ ...base, arms: ["a", "b", "c"], maxShare: 0.4, maxDeployed: 2 }))).toBe(
      "INFEASIBLE_BUDGET",
    );
    expect(
      code(() => new StageRoute({ ...base, arms: ["a", "b", "c"], maxShare: 0.4, maxDeployed: 3 })),
    ).toBeUndefined();
  });

  it("feedback, decisions, arms", () => {
    const p = new StageRoute({ ...base, seed: 15 });
    const d = p.select();
    const snap = JSON.stringify(p.toJSON());
    for (const fb of [
      { reward: 0.5, cost: -1 },
      { reward: Number.NaN, cost: 1 },
      { reward: 1.5, cost: 1 },
      { reward: -0.1, cost: 1 },
      { reward: 0.5, cost: Number.POSITIVE_INFINITY },
      { reward: 0.5 },
    ]) {
      expect(code(() => p.update(d, fb))).toMatch(/OUT_OF_RANGE|NON_FINITE|INVALID_ARGUMENT/);
      expect(JSON.stringify(p.toJSON())).toBe(snap);
    }
    expect(code(() => p.update("d999", { reward: 0.5, cost: 1 }))).toBe("UNKNOWN_DECISION");
    expect(code(() => p.update("nonsense", { reward: 0.5, cost: 1 }))).toBe("UNKNOWN_DECISION");
    expect(code(() => p.addArm("c", { maxShare: 0 }))).toBe("OUT_OF_RANGE");
    expect(code(() => p.addArm("a"))).toBe("DUPLICATE_ARM");
    expect(JSON.stringify(p.toJSON())).toBe(snap);
    p.update(d, { reward: 0.5, cost: 1 });
    expect(code(() => p.update(d, { reward: 0.5, cost: 1 }))).toBe("DECISION_ALREADY_USED");
  });

  it("a boundary that cannot deploy throws and leaves the policy unchanged", () => {
    const p = new StageRoute({ arms: [], budget: 1, maxDeployed: 2, stageLength: 10, maxShare: 0.3, seed: 16 });
    p.addArm("a");
    const snap = JSON.stringify(p.toJSON());
    expect(code(() => p.select())).toBe("INFEASIBLE_BUDGET");
    expect(JSON.stringify(p.toJSON())).toBe(snap);
    p.addArm("b", { maxShare: 1 });
    expect(p.select().arm).toMatch(/a|b/);
  });
});
