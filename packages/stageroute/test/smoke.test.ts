import { runExperiment } from "@routekit/core";
import { arenaSim2025 } from "@routekit/environments";
import { it } from "vitest";
import { RatioGreedy, StageOracle, StageRoute, stageValue } from "../src/index.js";

it("smoke", () => {
  for (const [L, M] of [
    [250, 6],
    [500, 3],
  ] as const) {
    const env = () => arenaSim2025({ oracle: stageValue, stageLength: L, maxDeployed: M });
    const e0 = env();
    const means = Object.fromEntries(e0.models.map((m) => [m.id, { reward: m.reward, cost: m.cost }]));
    const common = {
      budget: 2,
      maxDeployed: M,
      stageLength: L,
      maxShare: e0.maxShares,
      costUnit: 1,
      minCost: 0.1,
      maxCost: 50,
    };
    const t0 = Date.now();
    const res = runExperiment({
      protocol: "arm",
      environment: env,
      seeds: [0, 1, 2],
      horizon: 10_000,
      policies: [
        { label: "stageroute", create: ({ rng }) => new StageRoute({ arms: e0.initialArms, rng, ...common }) },
        { label: "greedy", create: ({ rng }) => new RatioGreedy({ arms: e0.initialArms, rng, ...common }) },
        { label: "oracle", create: ({ rng }) => new StageOracle({ arms: e0.initialArms, rng, ...common, means }) },
      ],
    });
    console.log(
      L,
      M,
      Date.now() - t0,
      "ms",
      res.summary
        .map(
          (s) =>
            `${s.policy}: regret ${s.regret.mean.toFixed(1)} (${s.regret.std.toFixed(1)}) cost ${s.costPerRound.mean.toFixed(3)}`,
        )
        .join(" | "),
    );
  }
});
