/** Random DeployOPT inputs shared by the branch-and-bound and external-solver tests. */
import type { Rng } from "@routekit/core";

export function shuffled(rng: Rng, n: number): Int32Array {
  const o = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = o[i] as number;
    o[i] = o[j] as number;
    o[j] = t;
  }
  return o;
}

/**
 * A pool where better models cost more. Caps: `rate` 0.05 with one model in ten (at random) 0.5, as on
 * rate-limited pools; `small` from {0.05, 0.1, 0.25, 0.5}; `mixed` from {0.1, 0.2, 0.25, 1/3, 0.5}, one
 * model at 1. Values: kind 0 continuous; 1 on a coarse grid (exact ties); 2 near-ties (a few ulps apart);
 * 3 duplicated models (identical cost, reward and cap).
 */
export function pool(rng: Rng, n: number, kind: number, caps: "rate" | "small" | "mixed") {
  const x = Array.from({ length: n }, () => rng.uniform());
  let u = x.map((v) => 0.2 + 0.7 * v + 0.05 * rng.uniform());
  let c = x.map((v) => 0.05 + 3 * v * v + 0.1 * rng.uniform());
  const small = [0.05, 0.1, 0.25, 0.5];
  const mixed = [0.1, 0.2, 0.25, 1 / 3, 0.5];
  const a = Array.from({ length: n }, (_, i) =>
    caps === "rate"
      ? rng.uniform() < 0.1
        ? 0.5
        : 0.05
      : caps === "small"
        ? (small[rng.int(small.length)] as number)
        : i === 1
          ? 1
          : (mixed[rng.int(mixed.length)] as number),
  );
  if (kind === 1) {
    u = u.map((v) => Math.round(v * 8) / 8);
    c = c.map((v) => Math.round(v * 6) / 6);
  } else if (kind === 2) {
    const base = c[0] as number;
    const ub = u[0] as number;
    for (let i = 0; i < n; i++) {
      if (rng.uniform() < 0.5) c[i] = base * (1 + (rng.int(5) - 2) * Number.EPSILON);
      if (rng.uniform() < 0.5) u[i] = ub * (1 + (rng.int(5) - 2) * Number.EPSILON);
    }
  } else if (kind === 3) {
    for (let i = 2; i < n; i++) {
      if (rng.uniform() < 0.4) {
        const j = rng.int(i);
        u[i] = u[j] as number;
        c[i] = c[j] as number;
        a[i] = a[j] as number;
      }
    }
  }
  return { u, c, a };
}
