// Without the optional peer `highs`, highsDeploySolver() is the same typed error as @routekit/mnl's assortment LP.
import { ErrorCode, isRouteKitError } from "@routekit/core";
import { afterAll, expect, it, vi } from "vitest";

vi.doMock("highs", () => {
  throw new Error("Cannot find package 'highs'");
});
// Test files may share a worker: leave the real highs to the files after this one.
afterAll(() => {
  vi.doUnmock("highs");
  vi.resetModules();
});

it("highsDeploySolver() without highs installed rejects with MISSING_DEPENDENCY naming the package; { highs } needs no import", async () => {
  // A fresh module: another test file in this worker may have loaded HiGHS through it already.
  vi.resetModules();
  const { highsDeploySolver } = await import("../src/highs.js");
  const err = await highsDeploySolver().catch((e: unknown) => e);
  expect(isRouteKitError(err, ErrorCode.MissingDependency), String(err)).toBe(true);
  expect((err as Error).message).toMatch(/npm install highs/);
  const given = { solve: () => ({ Status: "Infeasible", Columns: {} }) };
  const solver = await highsDeploySolver({ highs: given });
  const one = Float64Array.of(1);
  expect(solver.solve({ n: 1, reward: one, cost: one, cap: one, budget: 0.5, slots: 1 })).toBeNull();
});
