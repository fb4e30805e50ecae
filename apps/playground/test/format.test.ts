import { describe, expect, it } from "vitest";
import { pm } from "../src/format.js";

describe("pm (mean ± se)", () => {
  it("shows the standard error when seeds differ", () => {
    expect(pm({ mean: 0.5, se: 0.01 })).toBe("0.500 ± 0.0100");
    expect(pm({ mean: 0, se: 1e-20 })).toBe("0.00 ± 1.00e-20");
  });
  it("hides a standard error that is only rounding in the sums (the best single model in a replay)", () => {
    expect(pm({ mean: 0.7213, se: 2.05e-15 })).toBe("0.721");
    expect(pm({ mean: 0.7213, se: 0 })).toBe("0.721");
  });
  it("prints NaN and infinite values as a dash", () => {
    expect(pm({ mean: Number.NaN, se: Number.NaN })).toBe("-");
  });
});
