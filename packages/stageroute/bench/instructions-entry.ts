// Solves RouteOPT `solves` times on the bench's random instances (4,096 of them, cycled) after a fixed
// warm-up, with the Newton solver or the 0.x breakpoint search: bench/instructions.sh runs it under valgrind
// with 0 and with N solves and divides the difference by N. Usage: solve.mjs newton|breakpoints <n> <solves>
import { Rng } from "@routekit/core";
import { BreakpointSolver } from "../src/route-breakpoints.js";
import { RouteSolver } from "../src/route-lp.js";

const which = process.argv[2];
const n = Number(process.argv[3]);
const solves = Number(process.argv[4]);
const rng = Rng.fromSeed("bench");
const K = 4096;
const inst = Array.from({ length: K }, () => ({
  u: Float64Array.from({ length: n }, () => 0.3 + 0.7 * rng.uniform()),
  c: Float64Array.from({ length: n }, () => 0.1 + 2.9 * rng.uniform()),
  a: Float64Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0.4)),
}));
const solver = which === "newton" ? new RouteSolver(n) : new BreakpointSolver(n);
const out = new Float64Array(n);
for (let i = 0; i < 20_000 + solves; i++) {
  const x = inst[i & (K - 1)] as (typeof inst)[number];
  solver.solve(x.u, x.c, x.a, n, 1, out);
}
