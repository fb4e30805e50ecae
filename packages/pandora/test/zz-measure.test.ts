import { appendFileSync } from "node:fs";
import { runOne } from "@routekit/core";
import { envA, envB } from "@routekit/environments";
import { it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade } from "../src/index.js";

const arms = ["box1", "box2", "box3"];
const A = { arms, contextDim: 2, outputDim: 4, indexLink: "linear" as const };
const B = { arms, contextDim: 2, outputDim: 3, indexLink: "tanh" as const, rewardLink: "logistic" as const };
function measure(label: string, env: () => any, mk: () => any, T: number, seeds: number[]) {
  const rows = seeds.map((seed) =>
    runOne(
      {
        protocol: "cascade",
        environment: env,
        policies: [{ label, create: mk }],
        seeds: [seed],
        horizon: T,
        points: T / 500,
      },
      0,
      seed,
    ),
  );
  const at = (t: number) => rows.map((r) => r.series.regret[r.series.t.indexOf(t)]!);
  const ms = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
    return `${m.toFixed(1)}±${sd.toFixed(1)}`;
  };
  const q = rows.reduce((s, r) => s + r.final.queriesPerRound!, 0) / rows.length;
  const line =
    `${label} [${seeds.length} seeds] ` +
    [500, 1000, 2000, 4000, 8000]
      .filter((t) => t <= T)
      .map((t) => `${t}:${ms(at(t))}`)
      .join(" ") +
    ` q=${q.toFixed(2)} wall=${(rows.reduce((s, r) => s + r.wallMs, 0) / rows.length / 1000).toFixed(1)}s`;
  appendFileSync("/tmp/pz/measure.txt", `MEASURE ${line}\n`);
}
const S10 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
it("measure", () => {
  measure(
    "A known s=0.5",
    envA,
    () => new Cosmos({ ...A, rewardParameter: [1, 0, 0, 0], exploration: 0.5, horizon: 4000 }),
    4000,
    S10,
  );
  measure(
    "A known s=1.0",
    envA,
    () => new Cosmos({ ...A, rewardParameter: [1, 0, 0, 0], exploration: 1, horizon: 4000 }),
    4000,
    S10,
  );
  measure(
    "A greedy known",
    envA,
    () => new Cosmos({ ...A, rewardParameter: [1, 0, 0, 0], exploration: 0, horizon: 4000 }),
    4000,
    S10,
  );
  measure("A one-shot", envA, () => new OneShot({ ...A }), 4000, S10);
  measure("A query-all", envA, () => new QueryAll({ ...A, rewardParameter: [1, 0, 0, 0] }), 4000, S10);
  measure("A threshold 0.7", envA, () => new ThresholdCascade({ ...A, rewardParameter: [1, 0, 0, 0] }), 4000, S10);
  measure(
    "A learned s=0.25 geometric",
    envA,
    () => new Cosmos({ ...A, exploration: 0.25, horizon: 8000, refit: "geometric" }),
    8000,
    S10,
  );
  measure("A learned s=0.5 exact", envA, () => new Cosmos({ ...A, exploration: 0.5, horizon: 4000 }), 4000, [0, 1, 2]);
  measure(
    "A learned s=0.5 geometric",
    envA,
    () => new Cosmos({ ...A, exploration: 0.5, horizon: 4000, refit: "geometric" }),
    4000,
    S10,
  );
  measure(
    "A learned s=0.25 exact",
    envA,
    () => new Cosmos({ ...A, exploration: 0.25, horizon: 4000 }),
    4000,
    [0, 1, 2],
  );
  measure(
    "B known s=0.5 geometric",
    envB,
    () => new Cosmos({ ...B, rewardParameter: [1.5, -1, 0.5], exploration: 0.5, horizon: 4000, refit: "geometric" }),
    4000,
    [0, 1, 2, 3, 4],
  );
  measure(
    "B known s=0.5 exact",
    envB,
    () => new Cosmos({ ...B, rewardParameter: [1.5, -1, 0.5], exploration: 0.5, horizon: 4000 }),
    4000,
    [0, 1],
  );
}, 3600000);
