/**
 * Long-horizon drift of HPG's incremental state: the subspace eigen-update of the mirror matrix
 * (rank-one update, soft-threshold projection onto the nuclear ball, periodic re-orthonormalisation)
 * against the dense reference (full eigendecomposition every step) on the same stream, with the ball
 * active most of the time. 2 x 10^4 steps in CI, 2 x 10^5 with ROUTEKIT_LONG=large.
 */
import { longHorizon } from "@routekit/core/testing";
import { DenseMirrorIterate, MirrorIterate } from "@routekit/hpg";
import { describe, expect, it } from "vitest";
import { unitStream } from "./reference.js";

const T = longHorizon(20_000, 200_000);

describe("HPG mirror iterate after a long stream", () => {
  it(`subspace form = dense reference after ${T} steps (d = 6, radius 2, beta = radius / d)`, () => {
    const d = 6;
    const fast = new MirrorIterate({ dim: d, beta: 2 / d, radius: 2 });
    const dense = new DenseMirrorIterate({ dim: d, beta: 2 / d, radius: 2 });
    const next = unitStream("hpg", d, "concentrated");
    let active = 0;
    let worst = 0;
    for (let t = 0; t < T; t++) {
      const q = next();
      const rho = 0.3 * Math.sin(0.7 * t) + 0.15;
      fast.step(q, rho);
      dense.step(q, rho);
      if (dense.lastThreshold > 0) active++;
      if (t % 1000 === 999) {
        const W = fast.toDense();
        for (let i = 0; i < d * d; i++) worst = Math.max(worst, Math.abs((W[i] as number) - (dense.W[i] as number)));
      }
    }
    expect(active).toBeGreaterThan(T / 2);
    expect(worst).toBeLessThan(1e-9);
    expect(fast.eig.orthogonalityError()).toBeLessThan(1e-12);
    expect(fast.nuclearNorm()).toBeLessThanOrEqual(2 + 1e-9);
  });
});
