/**
 * Long-horizon stability of the incremental state of real policies, read back from their snapshots
 * and compared with a fresh recomputation (ml-matrix) from the same data. One arm takes every update
 * (the worst case for drift). 10^5 rounds in CI, 10^6 with ROUTEKIT_LONG=large; PAK-UCB grows
 * O(n^2) per arm, so it runs 400 / 1,500 updates. COSMOS keeps every opened answer (its index loss has no
 * sufficient statistics), so its long run checks the Sherman-Morrison inverses and sums against the stored
 * samples.
 */
import { LinUCBDisjoint } from "@routekit/classic";
import type { Json } from "@routekit/core";
import { decodeAt, longHorizon } from "@routekit/core/testing";
import { PakUcb, RffUcb } from "@routekit/kernel-ucb";
import { OfuMnlPlus } from "@routekit/mnl";
import { Cosmos, OneShot } from "@routekit/pandora";
import { costLcb, rewardUcb, StageRoute } from "@routekit/stageroute";
import { Matrix } from "ml-matrix";
import { describe, expect, it } from "vitest";
import { lowerFrom, refCholesky, refInverse, relErr, symFromPacked, symFromUpper, unitStream } from "./reference.js";

const T = longHorizon(100_000, 1_000_000);
const N = longHorizon(400, 1500);
const TOL = 1e-9;

function vecErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < b.length; i++) {
    num += ((a[i] as number) - (b[i] as number)) ** 2;
    den += (b[i] as number) ** 2;
  }
  return Math.sqrt(num / den);
}

describe("policy state after a long stream", () => {
  it(`COSMOS (learned reward) V_a^-1, P_a, Phi^-1 and sum r phi after ${T} episodes`, () => {
    const dx = 3;
    const d = 3;
    const m = dx + 1;
    const p = new Cosmos({ arms: ["only"], contextDim: dx, outputDim: d });
    const ctx = unitStream("cosmos-context", dx, "concentrated");
    const out = unitStream("cosmos-output", d, "concentrated");
    const V = new Float64Array(m * m);
    for (let i = 0; i < m; i++) V[i * m + i] = 1;
    const P = new Float64Array(d * d);
    const Phi = new Float64Array(d * d);
    for (let i = 0; i < d; i++) Phi[i * d + i] = 1;
    const b = new Float64Array(d);
    for (let t = 0; t < T; t++) {
      const x = ctx();
      const w = out();
      const r = 0.5 + 0.5 * Math.sin(t);
      p.learn({
        v: 1,
        kind: Cosmos.kind,
        protocol: "cascade",
        id: `e${t}`,
        decision: { context: [...x], queried: [{ arm: "only", features: [...w], cost: 0.05 }], chosen: "only" },
        feedback: { reward: r },
      });
      const psi = [1, ...x];
      for (let i = 0; i < m; i++) for (let j = i; j < m; j++) V[i * m + j] += psi[i] * psi[j];
      for (let i = 0; i < d; i++) {
        b[i] += r * w[i];
        for (let j = i; j < d; j++) {
          P[i * d + j] += w[i] * w[j];
          Phi[i * d + j] += w[i] * w[j];
        }
      }
    }
    const st = p.toJSON().state as Json;
    const Vinv = decodeAt(st, ["boxes", 0, "Vinv"]);
    const errV = relErr(symFromUpper(Vinv, m), refInverse(symFromUpper(V, m)));
    const PhiInv = decodeAt(st, ["reward", "PhiInv"]);
    const errPhi = relErr(symFromUpper(PhiInv, d), refInverse(symFromUpper(Phi, d)));
    console.log(`[long] cosmos T=${T}: V^-1 rel err ${errV.toExponential(2)}, Phi^-1 ${errPhi.toExponential(2)}`);
    expect(errV).toBeLessThan(TOL);
    expect(errPhi).toBeLessThan(TOL);
    expect(relErr(symFromUpper(decodeAt(st, ["boxes", 0, "P"]), d), symFromUpper(P, d))).toBeLessThan(TOL);
    expect(vecErr(decodeAt(st, ["reward", "b"]), b)).toBeLessThan(TOL);
  });

  it(`cascade one-shot baseline A^-1 (psi with intercept) after ${T} episodes`, () => {
    const dx = 3;
    const m = dx + 1;
    const p = new OneShot({ arms: ["only"], contextDim: dx, outputDim: 1 });
    const ctx = unitStream("one-shot-context", dx, "concentrated");
    const A = new Float64Array(m * m);
    for (let i = 0; i < m; i++) A[i * m + i] = 1;
    for (let t = 0; t < T; t++) {
      const x = ctx();
      p.learn({
        v: 1,
        kind: OneShot.kind,
        protocol: "cascade",
        id: `e${t}`,
        decision: { context: [...x], queried: [{ arm: "only", features: [0.5], cost: 0.05 }], chosen: "only" },
        feedback: { reward: 0.5 + 0.5 * Math.sin(t) },
      });
      const psi = [1, ...x];
      for (let i = 0; i < m; i++) for (let j = i; j < m; j++) A[i * m + j] += psi[i] * psi[j];
    }
    const st = p.toJSON().state as Json;
    const err = relErr(symFromUpper(decodeAt(st, ["states", 0, "Ainv"]), m), refInverse(symFromUpper(A, m)));
    console.log(`[long] one-shot A^-1 T=${T}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
  });

  it(`LinUCB (disjoint) A^-1 and theta after ${T} updates`, () => {
    const d = 4;
    const p = new LinUCBDisjoint({ arms: ["only"], contextDim: d, seed: 1 });
    const next = unitStream("linucb", d, "concentrated");
    const A = new Float64Array(d * d);
    for (let i = 0; i < d; i++) A[i * d + i] = 1;
    const b = new Float64Array(d);
    for (let t = 0; t < T; t++) {
      const x = next();
      const r = 0.5 + 0.5 * Math.sin(t);
      p.update(p.select(x), { reward: r });
      for (let i = 0; i < d; i++) {
        b[i] += r * x[i];
        for (let j = i; j < d; j++) A[i * d + j] += x[i] * x[j];
      }
    }
    const st = p.toJSON().state as Json;
    const Ainv = decodeAt(st, ["arms", 0, "Ainv"]);
    const ref = refInverse(symFromUpper(A, d));
    const err = relErr(symFromUpper(Ainv, d), ref);
    console.log(`[long] linucb A^-1 T=${T}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
    const bb = decodeAt(st, ["arms", 0, "b"]);
    expect(vecErr(bb, b)).toBeLessThan(TOL);
  });

  it(`RFF-UCB A^-1 and theta after ${T} updates`, () => {
    const d = 3;
    const p = new RffUcb({ arms: ["only"], contextDim: d, frequencies: 4, seed: 2, normalizeContext: false });
    const F = p.numFeatures;
    const next = unitStream("rff", d, "isotropic");
    const A = new Float64Array(F * F);
    for (let i = 0; i < F; i++) A[i * F + i] = p.ridge;
    const b = new Float64Array(F);
    const phi = new Float64Array(F);
    for (let t = 0; t < T; t++) {
      const x = next();
      const r = 0.5 + 0.5 * Math.cos(t);
      p.update(p.select(x), { reward: r });
      p.features.map(x, phi);
      for (let i = 0; i < F; i++) {
        b[i] += r * phi[i];
        for (let j = i; j < F; j++) A[i * F + j] += phi[i] * phi[j];
      }
    }
    const st = p.toJSON().state as Json;
    const ref = refInverse(symFromUpper(A, F));
    const err = relErr(symFromPacked(decodeAt(st, ["arms", 0, "state", "Ainv"]), F), ref);
    const theta = decodeAt(st, ["arms", 0, "state", "theta"]);
    const thetaRef = ref.mmul(Matrix.columnVector(Array.from(b))).to1DArray();
    const tErr = vecErr(theta, thetaRef);
    console.log(`[long] rff-ucb A^-1 T=${T}: rel err ${err.toExponential(2)}, theta ${tErr.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
    expect(tErr).toBeLessThan(TOL);
  });

  it(`PAK-UCB (K + alpha I)^-1 and a = Q v after ${N} updates of one arm`, () => {
    const d = 3;
    const p = new PakUcb({ arms: ["only"], contextDim: d, seed: 3, normalizeContext: false });
    const next = unitStream("pak", d, "concentrated");
    const X: Float64Array[] = [];
    const v: number[] = [];
    for (let t = 0; t < N; t++) {
      const x = next().slice();
      const r = 0.5 + 0.4 * Math.sin(3 * t);
      p.update(p.select(x), { reward: r });
      X.push(x);
      v.push(r);
    }
    const st = p.toJSON().state as Json;
    const Q = decodeAt(st, ["arms", 0, "state", "Q"]);
    const K = new Matrix(N, N);
    for (let i = 0; i < N; i++)
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < d; k++) s += ((X[i] as Float64Array)[k] - (X[j] as Float64Array)[k]) ** 2;
        K.set(i, j, Math.exp(-s / 2) + (i === j ? p.ridge : 0));
      }
    const ref = refInverse(K);
    expect(Q.length).toBe((N * (N + 1)) / 2); // packed upper triangle
    const err = relErr(symFromPacked(Q, N), ref);
    const a = decodeAt(st, ["arms", 0, "state", "a"]);
    const aErr = vecErr(a, ref.mmul(Matrix.columnVector(v)).to1DArray());
    console.log(`[long] pak-ucb Q n=${N}: rel err ${err.toExponential(2)}, a ${aErr.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
    expect(aErr).toBeLessThan(TOL);
  });

  it(`OFU-MNL+ Cholesky factor of H after ${T / 10} updates vs H rebuilt from the iterates`, () => {
    const d = 3;
    const K = 3;
    const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset: "practical" });
    const next = unitStream("mnl", d, "isotropic");
    const lambda = p.config.ridge;
    const H = new Float64Array(d * d);
    for (let i = 0; i < d; i++) H[i * d + i] = lambda;
    const n = 5;
    const f = new Float64Array(n * d);
    const rounds = T / 10;
    for (let t = 0; t < rounds; t++) {
      for (let i = 0; i < n; i++)
        f.set(
          next().map((x) => x * 0.9),
          i * d,
        );
      const dec = p.select({ features: f, numItems: n, maxSize: K });
      const choice = t % 4 === 3 || dec.items.length === 0 ? null : (dec.items[t % dec.items.length] as number);
      p.update(dec, { choice });
      if (dec.items.length === 0) continue;
      // H_{t+1} = H_t + G_t(w_{t+1}) on this round's offered items (Algorithm 1 of Lee & Oh).
      const w = decodeAt(p.toJSON().state as Json, ["w"]);
      const z = dec.items.map((i) => w.reduce((s, wk, k) => s + wk * f[i * d + k], 0));
      const m = Math.max(0, ...z);
      const den = Math.exp(-m) + z.reduce((s, zi) => s + Math.exp(zi - m), 0);
      const pr = z.map((zi) => Math.exp(zi - m) / den);
      const xbar = new Float64Array(d);
      dec.items.forEach((it, c) => {
        for (let k = 0; k < d; k++) xbar[k] += pr[c] * f[it * d + k];
      });
      for (let a = 0; a < d; a++)
        for (let bb = a; bb < d; bb++) {
          let s = -xbar[a] * xbar[bb];
          dec.items.forEach((it, c) => {
            s += pr[c] * f[it * d + a] * f[it * d + bb];
          });
          H[a * d + bb] += s;
        }
    }
    const L = decodeAt(p.toJSON().state as Json, ["L"]);
    const err = relErr(lowerFrom(L, d), refCholesky(symFromUpper(H, d)));
    console.log(`[long] ofu-mnl+ chol(H) T=${rounds}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
  });

  it(`StageRoute running sums and cached bounds after ${T} updates`, () => {
    // Two models (one deployed at a time); the running sums are compared with compensated sums and
    // the cached bounds with a fresh computation from the snapshot's statistics.
    const p = new StageRoute({
      arms: ["only", "idle"],
      budget: 1,
      maxDeployed: 1,
      stageLength: 1000,
      costUnit: 0.3,
      seed: 1,
    });
    let kr = 0;
    let cr = 0;
    let kc = 0;
    let cc = 0;
    const add = (s: number, c: number, x: number): [number, number] => {
      const y = x - c;
      const t = s + y;
      return [t, t - s - y];
    };
    for (let t = 0; t < T; t++) {
      const d = p.select();
      const reward = 0.5 + 0.5 * Math.sin(t);
      const cost = 0.2 + 0.1 * Math.cos(t * 0.7);
      p.update(d, { reward, cost });
      if (d.arm !== "only") continue;
      [kr, cr] = add(kr, cr, reward);
      [kc, cc] = add(kc, cc, cost / 0.3);
    }
    const arms = (p.toJSON().state as { arms: { id: string; n: number; sr: number; sc: number }[] }).arms;
    const only = arms.find((a) => a.id === "only") as { n: number; sr: number; sc: number };
    const errR = Math.abs(only.sr - kr) / kr;
    const errC = Math.abs(only.sc - kc) / kc;
    console.log(
      `[long] stageroute sums T=${T} (n=${only.n}): rel err reward ${errR.toExponential(2)}, cost ${errC.toExponential(2)}`,
    );
    expect(errR).toBeLessThan(TOL);
    expect(errC).toBeLessThan(TOL);
    const st = p.stats("only");
    expect(st.ucb).toBe(rewardUcb(only.sr, only.n, 0.2, "mean", 1));
    expect(st.lcb / 0.3).toBeCloseTo(costLcb(only.sc, only.n, 0.2, "mean", 0, 0, Number.POSITIVE_INFINITY), 15);
  });
});
