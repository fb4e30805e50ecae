/**
 * Float32Array input (embedding models and ONNX / transformers.js runtimes return it) is widened exactly: a
 * cascade fed Float32Array contexts and answer features plays and learns exactly as its twin fed the same values
 * as Float64Arrays.
 */
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { Cosmos } from "../src/index.js";

const make = () =>
  new Cosmos({ arms: ["mini", "standard", "frontier"], contextDim: 2, outputDim: 2, rewardParameter: [1, 0], seed: 3 });

describe("Float32Array contexts and output features", () => {
  it("open the same boxes, deploy the same answers and end in the same snapshot as their Float64Array widening", () => {
    const P = make();
    const Q = make();
    const rng = Rng.fromSeed(11);
    const opened: string[] = [];
    for (let i = 0; i < 60; i++) {
      const x32 = Float32Array.of(rng.uniform() * 2 - 1, rng.uniform() * 2 - 1);
      const eP = P.begin(Float64Array.from(x32));
      const eQ = Q.begin(x32);
      for (let sP = P.next(eP), sQ = Q.next(eQ); "query" in sP; sP = P.next(eP), sQ = Q.next(eQ)) {
        expect(sQ).toEqual(sP);
        const y32 = Float32Array.of(rng.uniform(), rng.uniform());
        const cost = 0.01 * (1 + (opened.length % 3));
        P.observe(eP, sP.query, Float64Array.from(y32), cost);
        Q.observe(eQ, sP.query, y32, cost);
        opened.push(sP.query);
      }
      const chosen = P.choose(eP);
      expect(Q.choose(eQ)).toBe(chosen);
      const reward = rng.uniform() < 0.5 ? 1 : 0;
      P.feedback(eP, reward);
      Q.feedback(eQ, reward);
    }
    expect(new Set(opened).size).toBe(3);
    expect(JSON.stringify(Q.toJSON())).toBe(JSON.stringify(P.toJSON()));
    const ctx = Float32Array.of(0.25, -0.5);
    expect(Q.optimisticIndices(ctx)).toEqual(P.optimisticIndices(Float64Array.from(ctx)));
    expect(Q.estimatedIndex("mini", ctx)).toBe(P.estimatedIndex("mini", Float64Array.from(ctx)));
  });
});

describe("parameter vectors given as typed arrays", () => {
  it("rewardParameter as a Float64Array or Float32Array is the same policy as the plain array (was INVALID_ARGUMENT)", () => {
    const plain = JSON.stringify(make().toJSON());
    const opts = { arms: ["mini", "standard", "frontier"], contextDim: 2, outputDim: 2, seed: 3 };
    expect(JSON.stringify(new Cosmos({ ...opts, rewardParameter: Float64Array.of(1, 0) }).toJSON())).toBe(plain);
    expect(JSON.stringify(new Cosmos({ ...opts, rewardParameter: Float32Array.of(1, 0) }).toJSON())).toBe(plain);
    // Other typed arrays stay refused, and the typed arrays get the plain array's checks.
    expect(() => new Cosmos({ ...opts, rewardParameter: Int8Array.of(1, 0) as never })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
    expect(() => new Cosmos({ ...opts, rewardParameter: Float64Array.of(1, Number.NaN) })).toThrow(
      expect.objectContaining({ code: "NON_FINITE" }),
    );
    expect(() => new Cosmos({ ...opts, rewardParameter: Float32Array.of(1) })).toThrow(
      expect.objectContaining({ code: "DIMENSION_MISMATCH" }),
    );
  });
});
