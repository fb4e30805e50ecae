/**
 * Context-free arm policies given a `contextDim` (so that a gateway or a comparison can pass every policy the
 * same contexts) record `context: null` in their decision events; `learn` must take those events, or
 * `update == learn` fails and a replica or `routekit train` refuses every event of such a policy.
 */
import { EpsilonGreedy, RandomPolicy, ThompsonBernoulli, ThompsonGaussian, UCB1 } from "@routekit/classic";
import { type ArmPolicy, learnedState, Rng } from "@routekit/core";
import { RatioGreedy, StageRoute } from "@routekit/stageroute";
import { describe, expect, it } from "vitest";

const D = 3;
const arms = ["a", "b", "c"];
const cases: [string, () => ArmPolicy, boolean][] = [
  ["classic/ucb1", () => new UCB1({ arms, seed: 1, contextDim: D }), false],
  ["classic/epsilon-greedy", () => new EpsilonGreedy({ arms, seed: 1, contextDim: D, epsilon: 0.3 }), false],
  // Fractional rewards as pseudo-counts: the default Bernoulli trick draws from the policy's stream, which a
  // learner replaying events does not share.
  [
    "classic/thompson-bernoulli",
    () => new ThompsonBernoulli({ arms, seed: 1, contextDim: D, fractionalRewards: "fractional" }),
    false,
  ],
  ["classic/thompson-gaussian", () => new ThompsonGaussian({ arms, seed: 1, contextDim: D }), false],
  ["classic/random", () => new RandomPolicy({ arms, seed: 1, contextDim: D }), false],
  [
    "stageroute/stage-route",
    () => new StageRoute({ arms, seed: 1, contextDim: D, budget: 1, maxDeployed: 2, stageLength: 20 }),
    true,
  ],
  [
    "stageroute/ratio-greedy",
    () => new RatioGreedy({ arms, seed: 1, contextDim: D, budget: 1, maxDeployed: 2, stageLength: 20 }),
    true,
  ],
];

describe.each(cases)("%s with contextDim > 0", (_name, make, costs) => {
  it("learns its own decision events (context: null) exactly as update does", () => {
    const live = make();
    const learner = make();
    const rng = Rng.fromSeed(9);
    for (let t = 0; t < 60; t++) {
      const d = live.select([rng.normal(), rng.normal(), rng.normal()]);
      const reward = rng.uniform();
      const feedback = costs ? { reward, cost: 0.5 * rng.uniform() } : { reward };
      const event = JSON.parse(JSON.stringify({ ...live.decisionRecord(d), feedback }));
      expect(event.decision.context).toBeNull();
      live.update(d, feedback);
      learner.learn(event);
    }
    expect(JSON.stringify(learnedState(learner.toJSON()))).toBe(JSON.stringify(learnedState(live.toJSON())));
  });

  it("still refuses an event whose context has the wrong length", () => {
    const p = make();
    const d = p.select([1, 2, 3]);
    const event = { ...p.decisionRecord(d), feedback: { reward: 1, cost: 0.1 } };
    expect(() => p.learn({ ...event, decision: { ...event.decision, context: [1, 2] } })).toThrow(
      expect.objectContaining({ code: "INVALID_EVENT" }),
    );
  });
});
