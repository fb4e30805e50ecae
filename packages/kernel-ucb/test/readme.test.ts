import { describe, expect, it } from "vitest";
import { RffUcb } from "../src/index.js";

describe("README example", () => {
  it("learns that model-a is better when embedding[0] > 0", () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const router = new RffUcb({ arms: ["model-a", "model-b"], contextDim: 4, seed: 1 });
    for (let t = 0; t < 500; t++) {
      const embedding = Float64Array.from({ length: 4 }, () => random() - 0.5);
      const decision = router.select(embedding);
      const reward = (embedding[0] as number) > 0 === (decision.arm === "model-a") ? 0.9 : 0.1;
      router.update(decision, { reward });
    }
    const [a, b] = router.predict(Float64Array.of(1, 0, 0, 0));
    expect(a?.mean).toBeGreaterThan(0.75);
    expect(b?.mean).toBeLessThan(0.3);
    const back = RffUcb.fromJSON(JSON.parse(JSON.stringify(router.toJSON())));
    expect(back.predict(Float64Array.of(1, 0, 0, 0))).toEqual(router.predict(Float64Array.of(1, 0, 0, 0)));
  });
});
