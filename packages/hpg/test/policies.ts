import type { Rng } from "@routekit/core";
import { EuclideanPg, Exp3, Hpg, LogLinearPg, ParameterFreeHpg, type RouterBase, UniformRouter } from "../src/index.js";

export type AnyRouter = RouterBase<{ readonly uid: number }> & { toJSON(): unknown };
export type Maker = (opts: {
  arms: string[];
  contextDim: number;
  seed?: number;
  rng?: Rng;
  horizon?: number;
}) => AnyRouter;

/** Every router of the package, with a static fromJSON. */
export const routers: [string, Maker, (s: unknown) => AnyRouter][] = [
  ["hpg", (o) => new Hpg({ ...o, maxRank: 3 }) as unknown as AnyRouter, (s) => Hpg.fromJSON(s) as unknown as AnyRouter],
  ["hpg-exact", (o) => new Hpg(o) as unknown as AnyRouter, (s) => Hpg.fromJSON(s) as unknown as AnyRouter],
  [
    "parameter-free",
    (o) => new ParameterFreeHpg(o) as unknown as AnyRouter,
    (s) => ParameterFreeHpg.fromJSON(s) as unknown as AnyRouter,
  ],
  [
    "euclidean-pg",
    (o) => new EuclideanPg(o) as unknown as AnyRouter,
    (s) => EuclideanPg.fromJSON(s) as unknown as AnyRouter,
  ],
  [
    "log-linear-pg",
    (o) => new LogLinearPg(o) as unknown as AnyRouter,
    (s) => LogLinearPg.fromJSON(s) as unknown as AnyRouter,
  ],
  ["exp3", (o) => new Exp3(o) as unknown as AnyRouter, (s) => Exp3.fromJSON(s) as unknown as AnyRouter],
  [
    "uniform",
    (o) => new UniformRouter(o) as unknown as AnyRouter,
    (s) => UniformRouter.fromJSON(s) as unknown as AnyRouter,
  ],
];
