// Writes src/unrolled.generated.ts: the two hot loops of the MNL policies with the feature index
// unrolled for d = 1..MAX_D (run: node scripts/gen-unrolled.mjs). Each kernel performs exactly the
// floating-point operations of the generic loop it replaces, in the same order (sums start at 0 and
// add terms in index order), so both give identical bits; a unit test checks it for every d.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MAX_D = 8;
const range = (n) => Array.from({ length: n }, (_, i) => i);

function utilities(d) {
  const ks = range(d);
  const loadW = ks.map((k) => `const w${k} = w[${k}] as number;`).join(" ");
  const loadM = ks
    .flatMap((k) => range(d - k).map((j) => `const m${k}_${k + j} = M[${k * d + k + j}] as number;`))
    .join(" ");
  const loadX = ks.map((k) => `const x${k} = f[o + ${k}] as number;`).join(" ");
  const mean = `0 + ${ks.map((k) => `x${k} * w${k}`).join(" + ")}`;
  const off = (k) =>
    k === d - 1
      ? "0"
      : `(0 + ${range(d - k - 1)
          .map((j) => `m${k}_${k + 1 + j} * x${k + 1 + j}`)
          .join(" + ")})`;
  const q = `0 + ${ks.map((k) => `x${k} * (m${k}_${k} * x${k} + 2 * ${off(k)})`).join(" + ")}`;
  return `function utilities${d}(f: Float64Array, n: number, w: Float64Array, M: Float64Array, c: number, util: Float64Array): void {
  ${loadW}
  if (c === 0) {
    for (let i = 0, o = 0; i < n; i++, o += ${d}) {
      ${loadX}
      util[i] = ${mean};
    }
    return;
  }
  ${loadM}
  for (let i = 0, o = 0; i < n; i++, o += ${d}) {
    ${loadX}
    const mean = ${mean};
    const q = ${q};
    util[i] = mean + c * Math.sqrt(q > 0 ? q : 0);
  }
}`;
}

/** utilities(d) fused with the feature-norm check of oversizedRow(d): returns the first bad row (utilities unfinished) or -1. */
function checkedUtilities(d) {
  const ks = range(d);
  const loadW = ks.map((k) => `const w${k} = w[${k}] as number;`).join(" ");
  const loadM = ks
    .flatMap((k) => range(d - k).map((j) => `const m${k}_${k + j} = M[${k * d + k + j}] as number;`))
    .join(" ");
  const loadX = ks.map((k) => `const x${k} = f[o + ${k}] as number;`).join(" ");
  // The norm, the quadratic form and (when c > 0) the mean drop the generic loop's leading "0 +": it only
  // turns a -0 sum into +0, and here no sign of zero can reach a result (the norm is compared, the form
  // clamped at 0, and mean + c sqrt(q) with c sqrt(q) >= +0 is +0 for a mean of either zero), so the
  // utilities keep their bits with d + 3 fewer additions per item. The c = 0 utilities keep it.
  const norm = `const ss = ${ks.map((k) => `x${k} * x${k}`).join(" + ")};
    if (!(ss <= max)) return i;`;
  const mean0 = `0 + ${ks.map((k) => `x${k} * w${k}`).join(" + ")}`;
  const mean = ks.map((k) => `x${k} * w${k}`).join(" + ");
  const off = (k) =>
    ` + 2 * (${range(d - k - 1)
      .map((j) => `m${k}_${k + 1 + j} * x${k + 1 + j}`)
      .join(" + ")})`;
  const q = ks.map((k) => `x${k} * (m${k}_${k} * x${k}${k === d - 1 ? "" : off(k)})`).join(" + ");
  // Per item also: the sum and sum of squares of the utilities, and the items above T appended to cand
  // (without a branch) for the top-K's threshold path; stats = [sum, sum of squares, count above T].
  const extra = `s1 += u; s2 += u * u; cand[nc] = i; nc += +(u > T);`;
  return `function checkedUtilities${d}(f: Float64Array, n: number, w: Float64Array, M: Float64Array, c: number, util: Float64Array, max: number, T: number, cand: Int32Array, stats: Float64Array): number {
  ${loadW}
  let s1 = 0;
  let s2 = 0;
  let nc = 0;
  if (c === 0) {
    for (let i = 0, o = 0; i < n; i++, o += ${d}) {
      ${loadX}
      ${norm}
      const u = ${mean0};
      util[i] = u;
      ${extra}
    }
  } else {
    ${loadM}
    for (let i = 0, o = 0; i < n; i++, o += ${d}) {
      ${loadX}
      ${norm}
      const mean = ${mean};
      const q = ${q};
      const u = mean + c * Math.sqrt(q > 0 ? q : 0);
      util[i] = u;
      ${extra}
    }
  }
  stats[0] = s1;
  stats[1] = s2;
  stats[2] = nc;
  return -1;
}`;
}

/**
 * mnlUtilities + linalg's softmax + mnlGradient of one round, fused; returns false (having written
 * only z) when the softmax would take its NaN or infinite-maximum branch, which the caller then runs.
 */
function probabilitiesGradient(d, withGradient = true) {
  const ks = range(d);
  const name = withGradient ? "probabilitiesGradient" : "probabilities";
  const params = withGradient
    ? "X: Float64Array, n: number, w: Float64Array, logV0: number, choice: number, z: Float64Array, p: Float64Array, g: Float64Array"
    : "X: Float64Array, n: number, w: Float64Array, logV0: number, z: Float64Array, p: Float64Array";
  const gradient = `
  ${ks.map((k) => `let g${k} = 0;`).join(" ")}
  for (let i = 0, o = 0; i < n; i++, o += ${d}) {
    const c = (p[i] as number) - (i === choice ? 1 : 0);
    if (c === 0) continue;
    ${ks.map((k) => `g${k} = g${k} + c * (X[o + ${k}] as number);`).join(" ")}
  }
  ${ks.map((k) => `g[${k}] = g${k};`).join(" ")}`;
  return `function ${name}${d}(${params}): boolean {
  ${ks.map((k) => `const w${k} = w[${k}] as number;`).join(" ")}
  let m = Number.NEGATIVE_INFINITY;
  let nan = false;
  for (let i = 0, o = 0; i < n; i++, o += ${d}) {
    const u = 0 + ${ks.map((k) => `(X[o + ${k}] as number) * w${k}`).join(" + ")};
    z[i] = u;
    if (u > m) m = u;
    else if (Number.isNaN(u)) nan = true;
  }
  z[n] = logV0;
  if (logV0 > m) m = logV0;
  else if (Number.isNaN(logV0)) nan = true;
  if (nan || m === Number.POSITIVE_INFINITY || m === Number.NEGATIVE_INFINITY) return false;
  let s = 0;
  for (let i = 0; i <= n; i++) {
    const e = Math.exp((z[i] as number) - m);
    p[i] = e;
    s += e;
  }
  for (let i = 0; i <= n; i++) p[i] = (p[i] as number) / s;${withGradient ? gradient : ""}
  return true;
}`;
}

// V8's Math.exp is fdlibm's e_exp.c; these helpers inline it for the arguments of a stable softmax
// (v = z - max <= 0), with the same operations, so every bit agrees (a test compares them over the
// whole double range, the band edges exhaustively). Inlined, it avoids a C call per row, which also
// spills every live register; unrolled by three, the rows' independent chains overlap.
// - fdlibm reduces v = k ln2 + r with k = 0 when |v| <= 0.5 ln2 (high word <= 0x3fd62e42), else
//   k = (int)(v / ln2 - 0.5) (its 1.5 ln2 branch gives the same k = -1, hi and lo), and returns
//   (1 - ((lo - r c / (2 - c)) - hi)) 2^k; its k = 0 formula 1 - ((r c / (c - 2)) - r) is the same
//   value since c - 2 = -(2 - c) exactly.
// - Left to Math.exp itself (rare): 0 < |v| < 2^-28 (fdlibm returns 1 + v there), v < -707 (a
//   subnormal result is scaled differently), v > 0 and NaN.
const EXP_HALF_LN2 = "0.3465735912322998"; // the double with high word 0x3fd62e43, low word 0
const EXP_TINY = "3.725290298461914e-9"; // 2^-28
/** Rounds of at most this many rows use the module's scratch array (a constant for the JIT). */
const EXP_SCRATCH_ROWS = 64;

/** Whether v needs Math.exp itself (0 or 1, for branch-free or-ing). */
const expSlow = (v) => `(+(${v} > -${EXP_TINY}) & +(${v} !== 0)) | +!(${v} >= -707)`;

/** Assigns e^v to e for v in [-707, -2^-28] and v = +-0 (see above). */
function expFast(v, e) {
  return `const k${v} = ((1.4426950408889634 * ${v} - 0.5) | 0) & -+(${v} <= -${EXP_HALF_LN2});
        const hi${v} = ${v} - k${v} * 0.6931471803691238;
        const lo${v} = k${v} * 1.9082149292705877e-10;
        const r${v} = hi${v} - lo${v};
        const t${v} = r${v} * r${v};
        const c${v} = r${v} - t${v} * (0.16666666666666602 + t${v} * (-0.0027777777777015593 + t${v} * (0.00006613756321437934 + t${v} * (-0.0000016533902205465252 + t${v} * 4.1381367970572385e-8))));
        ${e} = (1 - ((lo${v} - (r${v} * c${v}) / (2 - c${v})) - hi${v})) * (pow2[k${v} + 1022] as number);`;
}

/** Replaces zz[0 .. n) by e^(zz[i] - m), three rows at a time; with `sum`, also adds them to sum in row order. */
function expsInPlace(zz, sum) {
  const js = [0, 1, 2];
  const at = (j) => (j === 0 ? "i" : `(i + ${j}) | 0`);
  const add = (e) => (sum ? ` ${sum} += ${e};` : "");
  return `{
    let i = 0;
    for (; i + 2 < n; i += 3) {
      ${js.map((j) => `const v${j} = (${zz}[${at(j)}] as number) - m;`).join(" ")}
      ${js.map((j) => `let e${j} = 0;`).join(" ")}
      if (${js.map((j) => expSlow(`v${j}`)).join(" | ")}) {
        ${js.map((j) => `e${j} = Math.exp(v${j});`).join(" ")}
      } else {
        ${js.map((j) => expFast(`v${j}`, `e${j}`)).join("\n        ")}
      }
      ${js.map((j) => `${zz}[${at(j)}] = e${j};${add(`e${j}`)}`).join(" ")}
    }
    for (; i < n; i++) {
      const v0 = (${zz}[i] as number) - m;
      let e0 = 0;
      if (${expSlow("v0")}) e0 = Math.exp(v0);
      else {
        ${expFast("v0", "e0")}
      }
      ${zz}[i] = e0;${add("e0")}
    }
    }`;
}

function gradientPass(d, wide) {
  const ks = range(d);
  const zz = "zz";
  return `function gradientPass${d}${wide ? "Wide" : ""}(x: Float64Array, start: Int32Array, choice: Int32Array, from: number, to: number, logV0: number, theta: Float64Array, z: Float64Array, g: Float64Array): void {
  ${ks.map((k) => `const t${k} = theta[${k}] as number;`).join(" ")}
  ${ks.map((k) => `let g${k} = g[${k}] as number;`).join(" ")}
  const lv = +logV0;
  const zz = ${wide ? "z" : "EXP_SCRATCH"};
  const pow2 = EXP_POW2;
  for (let s = from; s < to; s++) {
    const a = start[s] as number;
    const n = (start[s + 1] as number) - a;
    const c = choice[s] as number;
    let m = lv;
    for (let j = 0, o = a * ${d}; j < n; j++, o += ${d}) {
      const u = 0 + ${ks.map((k) => `(x[${k === 0 ? "o" : `(o + ${k}) | 0`}] as number) * t${k}`).join(" + ")};
      ${zz}[j] = u;
      if (u > m) m = u;
    }
    ${expsInPlace(zz, null)}
    let sum = Math.exp(lv - m);
    ${ks.map((k) => `let a${k} = 0;`).join(" ")}
    for (let j = 0, o = a * ${d}; j < n; j++, o += ${d}) {
      const e = ${zz}[j] as number;
      sum += e;
      ${ks.map((k) => `a${k} += e * (x[${k === 0 ? "o" : `(o + ${k}) | 0`}] as number);`).join(" ")}
    }
    const inv = 1 / sum;
    if (c >= 0) {
      const oc = (a + c) * ${d};
      ${ks.map((k) => `g${k} = g${k} + a${k} * inv - (x[oc + ${k}] as number);`).join(" ")}
    } else {
      ${ks.map((k) => `g${k} = g${k} + a${k} * inv;`).join(" ")}
    }
  }
  ${ks.map((k) => `g[${k}] = g${k};`).join(" ")}
}`;
}

/**
 * dataPass (mle.ts) in mode 2 without the objective: the data gradient and the upper triangle of the data
 * Hessian of rounds [from, to) added to g and H, every sum in the generic loop's order (g and H entries
 * are held in locals across rounds, as the generic loop accumulates into the arrays in that order).
 */
function hessianPass(d, wide) {
  const ks = range(d);
  const zz = "zz";
  const upper = ks.flatMap((k) => range(d - k).map((j) => [k, k + j]));
  return `function hessianPass${d}${wide ? "Wide" : ""}(x: Float64Array, start: Int32Array, choice: Int32Array, from: number, to: number, logV0: number, theta: Float64Array, z: Float64Array, g: Float64Array, H: Float64Array): void {
  ${ks.map((k) => `const t${k} = theta[${k}] as number;`).join(" ")}
  ${ks.map((k) => `let g${k} = g[${k}] as number;`).join(" ")}
  ${upper.map(([k, l]) => `let h${k}_${l} = H[${k * d + l}] as number;`).join(" ")}
  const lv = +logV0;
  const zz = ${wide ? "z" : "EXP_SCRATCH"};
  const pow2 = EXP_POW2;
  for (let s = from; s < to; s++) {
    const a = start[s] as number;
    const n = (start[s + 1] as number) - a;
    const c = choice[s] as number;
    let m = lv;
    for (let j = 0, o = a * ${d}; j < n; j++, o += ${d}) {
      const u = 0 + ${ks.map((k) => `(x[${k === 0 ? "o" : `(o + ${k}) | 0`}] as number) * t${k}`).join(" + ")};
      ${zz}[j] = u;
      if (u > m) m = u;
    }
    let sum = Math.exp(lv - m);
    ${expsInPlace(zz, "sum")}
    const inv = 1 / sum;
    ${ks.map((k) => `let xb${k} = 0;`).join(" ")}
    for (let i = 0, o = a * ${d}; i < n; i++, o += ${d}) {
      const p = (${zz}[i] as number) * inv;
      const coef = p - (i === c ? 1 : 0);
      ${ks.map((k) => `const x${k} = x[o + ${k}] as number;`).join(" ")}
      ${ks
        .map(
          (k) =>
            `g${k} = g${k} + coef * x${k}; xb${k} = xb${k} + p * x${k}; const px${k} = p * x${k}; ${range(d - k)
              .map((j) => `h${k}_${k + j} = h${k}_${k + j} + px${k} * x${k + j};`)
              .join(" ")}`,
        )
        .join("\n      ")}
    }
    ${upper.map(([k, l]) => `h${k}_${l} = h${k}_${l} - xb${k} * xb${l};`).join(" ")}
  }
  ${ks.map((k) => `g[${k}] = g${k};`).join(" ")}
  ${upper.map(([k, l]) => `H[${k * d + l}] = h${k}_${l};`).join(" ")}
}`;
}

/**
 * refactorMnlHessianGeneric (model.ts) unrolled: M = src src^T + scale G formed in locals (upper triangle,
 * G as the PSD sum of p_i (x_i - x̄)(x_i - x̄)^T and p_0 x̄ x̄^T) and factored again; every sum in the
 * generic loops' order. Writes L only on success (returns false, L untouched, on a non-positive pivot).
 */
function hessianRefactor(d) {
  const ks = range(d);
  const lower = ks.flatMap((i) => range(i + 1).map((j) => [i, j]));
  const upper = ks.flatMap((j) => range(d - j).map((t) => [j, j + t]));
  const mInit = upper
    .map(
      ([j, l]) =>
        `let m${j}_${l} = 0${range(j + 1)
          .map((m) => ` + s${j}_${m} * s${l}_${m}`)
          .join("")};`,
    )
    .join(" ");
  const chol = ks
    .map((j) => {
      const piv = `const q${j} = m${j}_${j}${range(j)
        .map((m) => ` - l${j}_${m} * l${j}_${m}`)
        .join("")};
  if (!(q${j} > 0)) return false;
  const l${j}_${j} = Math.sqrt(q${j});`;
      const offs = range(d - j - 1)
        .map((t) => {
          const i = j + 1 + t;
          return `const l${i}_${j} = (m${j}_${i}${range(j)
            .map((m) => ` - l${i}_${m} * l${j}_${m}`)
            .join("")}) / l${j}_${j};`;
        })
        .join(" ");
      return `${piv}\n  ${offs}`;
    })
    .join("\n  ");
  return `function hessianRefactor${d}(L: Float64Array, X: Float64Array, n: number, p: Float64Array, scale: number, xbar: Float64Array, src: Float64Array): boolean {
  ${lower.map(([i, j]) => `const s${i}_${j} = src[${i * d + j}] as number;`).join(" ")}
  ${ks.map((k) => `let xb${k} = 0;`).join(" ")}
  for (let i = 0, o = 0; i < n; i++, o += ${d}) {
    const pi = p[i] as number;
    ${ks.map((k) => `xb${k} = xb${k} + pi * (X[o + ${k}] as number);`).join(" ")}
  }
  ${ks.map((k) => `xbar[${k}] = xb${k};`).join(" ")}
  ${mInit}
  for (let i = 0, o = 0; i <= n; i++, o += ${d}) {
    const w = scale * (p[i] as number);
    if (!(w > 0)) continue;
    ${ks.map((k) => `let r${k}: number;`).join(" ")}
    if (i < n) {
      ${ks.map((k) => `r${k} = (X[o + ${k}] as number) - xb${k};`).join(" ")}
    } else {
      ${ks.map((k) => `r${k} = xb${k};`).join(" ")}
    }
    ${ks
      .map(
        (j) =>
          `{ const wr = w * r${j}; ${range(d - j)
            .map((t) => `m${j}_${j + t} = m${j}_${j + t} + wr * r${j + t};`)
            .join(" ")} }`,
      )
      .join("\n    ")}
  }
  ${chol}
  ${lower.map(([i, j]) => `L[${i * d + j}] = l${i}_${j};`).join(" ")}
  return true;
}`;
}

function hessianCholesky(d) {
  const ks = range(d);
  const lower = ks.flatMap((i) => range(i + 1).map((j) => [i, j]));
  const rank1 = ks
    .map((k) => {
      const rows = range(d - k - 1).map((j) => k + 1 + j);
      return `{
        const lkk = l${k}_${k};
        const xk = r${k};
        const rr = Math.sqrt(lkk * lkk + xk * xk);
        const c = rr / lkk;
        const sk = xk / lkk;
        l${k}_${k} = rr;
        ${rows.map((i) => `{ const lik = (l${i}_${k} + sk * r${i}) / c; l${i}_${k} = lik; r${i} = c * r${i} - sk * lik; }`).join("\n        ")}
      }`;
    })
    .join("\n      ");
  return `function hessianCholesky${d}(L: Float64Array, X: Float64Array, n: number, p: Float64Array, scale: number, xbar: Float64Array, src: Float64Array): void {
  ${lower.map(([i, j]) => `let l${i}_${j} = src[${i * d + j}] as number;`).join(" ")}
  ${ks.map((k) => `let xb${k} = 0;`).join(" ")}
  for (let i = 0, o = 0; i < n; i++, o += ${d}) {
    const pi = p[i] as number;
    ${ks.map((k) => `xb${k} = xb${k} + pi * (X[o + ${k}] as number);`).join(" ")}
  }
  ${ks.map((k) => `xbar[${k}] = xb${k};`).join(" ")}
  for (let i = 0, o = 0; i <= n; i++, o += ${d}) {
    const s = Math.sqrt(scale * (p[i] as number));
    if (!(s > 0)) continue;
    ${ks.map((k) => `let r${k}: number;`).join(" ")}
    if (i < n) {
      ${ks.map((k) => `r${k} = s * ((X[o + ${k}] as number) - xb${k});`).join(" ")}
    } else {
      ${ks.map((k) => `r${k} = s * xb${k};`).join(" ")}
    }
    ${rank1}
  }
  ${lower.map(([i, j]) => `L[${i * d + j}] = l${i}_${j};`).join(" ")}
}`;
}

/**
 * linalg's forwardSubst row i: (b_i - dot) / L_ii, where linalg's scalar dot over i < 8 terms adds
 * pairs into two partial sums and combines them as ((s0 + 0) + 0) + ((s1 + 0) + 0), plus the odd last term.
 */
function forwardRow(i, b, v) {
  const t = (m) => `l${i}_${m} * ${v}${m}`;
  const s0 = ["0"];
  const s1 = ["0"];
  let m = 0;
  for (; m + 1 < i; m += 2) {
    s0.push(t(m));
    s1.push(t(m + 1));
  }
  let dot = `((${s0.join(" + ")} + 0) + 0) + ((${s1.join(" + ")} + 0) + 0)`;
  if (m < i) dot = `${dot} + ${t(m)}`;
  return `${v}${i} = (${b} - (${dot})) / l${i}_${i};`;
}

/** linalg's backSubstTransposed row i: (y_i - L_{i+1,i} x_{i+1} - ...) / L_ii, subtracting in k order. */
function backRow(d, i, v) {
  const terms = range(d - i - 1).map((j) => ` - l${i + 1 + j}_${i} * ${v}${i + 1 + j}`);
  return `${v}${i} = (${v}${i}${terms.join("")}) / l${i}_${i};`;
}

function choleskySolveD(d) {
  const ks = range(d);
  const lower = ks.flatMap((i) => range(i + 1).map((j) => [i, j]));
  return `function choleskySolve${d}(L: Float64Array, b: Float64Array, out: Float64Array): void {
  ${lower.map(([i, j]) => `const l${i}_${j} = L[${i * d + j}] as number;`).join(" ")}
  ${ks.map((k) => `let v${k} = 0;`).join(" ")}
  ${ks.map((i) => forwardRow(i, `(b[${i}] as number)`, "v")).join("\n  ")}
  ${ks.map((j) => backRow(d, d - 1 - j, "v")).join("\n  ")}
  ${ks.map((k) => `out[${k}] = v${k};`).join(" ")}
}`;
}

function choleskyInverseD(d) {
  const ks = range(d);
  const lower = ks.flatMap((i) => range(i + 1).map((j) => [i, j]));
  const cols = ks
    .map(
      (j) => `{
    ${ks.map((k) => `let v${k} = 0;`).join(" ")}
    ${ks.map((i) => forwardRow(i, i === j ? "1" : "0", "v")).join("\n    ")}
    ${ks.map((i) => backRow(d, d - 1 - i, "v")).join("\n    ")}
    ${range(j + 1)
      .map((i) => `out[${i * d + j}] = v${i};`)
      .join(" ")}
  }`,
    )
    .join("\n  ");
  return `function choleskyInverse${d}(L: Float64Array, out: Float64Array): void {
  ${lower.map(([i, j]) => `const l${i}_${j} = L[${i * d + j}] as number;`).join(" ")}
  ${cols}
}`;
}

/** Copies the rows `items[0..size)` of f into consecutive rows of X, -0 stored as 0 (x + 0), as select does. */
function copyRows(d) {
  const ks = range(d);
  return `function copyRows${d}(f: Float64Array, items: Int32Array, size: number, X: Float64Array): void {
  for (let j = 0, o = 0; j < size; j++, o += ${d}) {
    const s = (items[j] as number) * ${d};
    ${ks.map((k) => `X[o + ${k}] = (f[s + ${k}] as number) + 0;`).join(" ")}
  }
}`;
}

function oversizedRow(d) {
  const ks = range(d);
  return `function oversizedRow${d}(X: ArrayLike<number>, rows: number, max: number): number {
  for (let i = 0, o = 0; i < rows; i++, o += ${d}) {
    ${ks.map((k) => `const x${k} = X[o + ${k}] as number;`).join(" ")}
    const s = 0 + ${ks.map((k) => `x${k} * x${k}`).join(" + ")};
    if (!(s <= max)) return i;
  }
  return -1;
}`;
}

const ds = range(MAX_D).map((i) => i + 1);
const out = `// Generated by scripts/gen-unrolled.mjs: do not edit by hand.

/** Optimistic utilities with the feature index unrolled (see optimisticUtilities in model.ts). */
export type UtilitiesKernel = (f: Float64Array, n: number, w: Float64Array, M: Float64Array, c: number, util: Float64Array) => void;
/** {@link UtilitiesKernel} that first checks each row's squared norm is <= max: returns the first row failing it (util then unfinished), or -1; also writes stats = [sum of the utilities, sum of their squares, count above T] and the indices of the items above T to cand. */
export type CheckedUtilitiesKernel = (f: Float64Array, n: number, w: Float64Array, M: Float64Array, c: number, util: Float64Array, max: number, T: number, cand: Int32Array, stats: Float64Array) => number;
/** The data gradient pass with the feature index unrolled (see dataPass in mle.ts, mode 1). */
export type GradientPassKernel = (x: Float64Array, start: Int32Array, choice: Int32Array, from: number, to: number, logV0: number, theta: Float64Array, z: Float64Array, g: Float64Array) => void;

/** The data gradient and Hessian pass with the feature index unrolled (see dataPass in mle.ts, mode 2, without the objective). */
export type HessianPassKernel = (x: Float64Array, start: Int32Array, choice: Int32Array, from: number, to: number, logV0: number, theta: Float64Array, z: Float64Array, g: Float64Array, H: Float64Array) => void;

/** The MNL Hessian added to a factored matrix by forming and factoring it again (see refactorMnlHessian in model.ts); false when a pivot is not positive (L untouched). */
export type HessianRefactorKernel = (L: Float64Array, X: Float64Array, n: number, p: Float64Array, scale: number, xbar: Float64Array, src: Float64Array) => boolean;

/** The MNL Hessian added to the Cholesky factor \`src\`, written to L (may be src), with the feature index unrolled (see addMnlHessianToCholesky in model.ts). */
export type HessianCholeskyKernel = (L: Float64Array, X: Float64Array, n: number, p: Float64Array, scale: number, xbar: Float64Array, src: Float64Array) => void;

/** Largest d with unrolled kernels. */
export const MAX_UNROLLED_D = ${MAX_D};

${ds.map(utilities).join("\n\n")}

${ds.map(checkedUtilities).join("\n\n")}

/** 2^k at index k + 1022 for k in [-1022, 0] (the scaling step of the inlined exp), exact by halving. */
const EXP_POW2 = new Float64Array(1023);
EXP_POW2[1022] = 1;
for (let i = 1021; i >= 0; i--) EXP_POW2[i] = (EXP_POW2[i + 1] as number) / 2;

/** Per-round scratch of the gradient and Hessian passes (rounds of at most EXP_SCRATCH_ROWS rows). */
const EXP_SCRATCH = new Float64Array(${EXP_SCRATCH_ROWS});

/**
 * Replaces z[0 .. n) by e^(z[i] - m), bit for bit Math.exp(z[i] - m), with the inlined exp of the
 * gradient and Hessian passes (exported for its test; the passes inline the same code).
 */
export function shiftedExps(z: Float64Array, n: number, m: number): void {
  const zz = z;
  const pow2 = EXP_POW2;
  ${expsInPlace("zz", null)}
}

/** Largest round the gradient and Hessian pass kernels take without a scratch array of the caller's. */
export const PASS_SCRATCH_ROWS = ${EXP_SCRATCH_ROWS};

${ds.map((d) => gradientPass(d, false)).join("\n\n")}

${ds.map((d) => gradientPass(d, true)).join("\n\n")}

${ds.map((d) => hessianPass(d, false)).join("\n\n")}

${ds.map((d) => hessianPass(d, true)).join("\n\n")}

${ds.map((d) => probabilitiesGradient(d)).join("\n\n")}

${ds.map((d) => probabilitiesGradient(d, false)).join("\n\n")}

/** The MNL probabilities kernel for d (mnlUtilities then softmax, same bits; false for NaN or infinite utilities), or undefined. */
export function probabilitiesKernel(d: number): ((X: Float64Array, n: number, w: Float64Array, logV0: number, z: Float64Array, p: Float64Array) => boolean) | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return probabilities${d};`).join("\n")}
    default: return undefined;
  }
}

/** The fused probabilities-and-gradient kernel for d, or undefined. */
export function probabilitiesGradientKernel(d: number): ((X: Float64Array, n: number, w: Float64Array, logV0: number, choice: number, z: Float64Array, p: Float64Array, g: Float64Array) => boolean) | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return probabilitiesGradient${d};`).join("\n")}
    default: return undefined;
  }
}

/** The utilities kernel fused with the feature-norm check for d, or undefined. */
export function checkedUtilitiesKernel(d: number): CheckedUtilitiesKernel | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return checkedUtilities${d};`).join("\n")}
    default: return undefined;
  }
}

${ds.map(hessianCholesky).join("\n\n")}

${ds.map(hessianRefactor).join("\n\n")}

${ds.map(choleskySolveD).join("\n\n")}

${ds.map(oversizedRow).join("\n\n")}

${ds.map(copyRows).join("\n\n")}

/** Copies the chosen rows of a query's features into a pending record (x + 0, so -0 becomes 0); unrolled for d, or undefined. */
export function copyRowsKernel(d: number): ((f: Float64Array, items: Int32Array, size: number, X: Float64Array) => void) | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return copyRows${d};`).join("\n")}
    default: return undefined;
  }
}

/** The first row of X (rows x d) whose squared norm is not <= max (NaN included), or -1; unrolled for d, or undefined. */
export function oversizedRowKernel(d: number): ((X: ArrayLike<number>, rows: number, max: number) => number) | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return oversizedRow${d};`).join("\n")}
    default: return undefined;
  }
}

${ds.map(choleskyInverseD).join("\n\n")}

/** linalg's choleskySolve (L L^T x = b; out may alias b) unrolled for d, or undefined. */
export function choleskySolveKernel(d: number): ((L: Float64Array, b: Float64Array, out: Float64Array) => void) | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return choleskySolve${d};`).join("\n")}
    default: return undefined;
  }
}

/** linalg's choleskyInverseUpper (upper triangle of (L L^T)^-1) unrolled for d, or undefined. */
export function choleskyInverseKernel(d: number): ((L: Float64Array, out: Float64Array) => void) | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return choleskyInverse${d};`).join("\n")}
    default: return undefined;
  }
}

/** The utilities kernel for d, or undefined (use the generic loop). */
export function utilitiesKernel(d: number): UtilitiesKernel | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return utilities${d};`).join("\n")}
    default: return undefined;
  }
}

/** The Hessian refactor kernel for d, or undefined (use the generic loop). */
export function hessianRefactorKernel(d: number): HessianRefactorKernel | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return hessianRefactor${d};`).join("\n")}
    default: return undefined;
  }
}

/** The Hessian-to-Cholesky kernel for d, or undefined (use the generic loop). */
export function hessianCholeskyKernel(d: number): HessianCholeskyKernel | undefined {
  switch (d) {
${ds.map((d) => `    case ${d}: return hessianCholesky${d};`).join("\n")}
    default: return undefined;
  }
}

/**
 * The gradient-and-Hessian pass kernel for d and rounds of at most \`rows\` rows, or undefined (use the
 * generic loop). Above PASS_SCRATCH_ROWS rows the kernel works in the caller's z (length >= rows).
 */
export function hessianPassKernel(d: number, rows: number): HessianPassKernel | undefined {
  const wide = rows > PASS_SCRATCH_ROWS;
  switch (d) {
${ds.map((d) => `    case ${d}: return wide ? hessianPass${d}Wide : hessianPass${d};`).join("\n")}
    default: return undefined;
  }
}

/**
 * The gradient-pass kernel for d and rounds of at most \`rows\` rows, or undefined (use the generic
 * loop). Above PASS_SCRATCH_ROWS rows the kernel works in the caller's z (length >= rows).
 */
export function gradientPassKernel(d: number, rows: number): GradientPassKernel | undefined {
  const wide = rows > PASS_SCRATCH_ROWS;
  switch (d) {
${ds.map((d) => `    case ${d}: return wide ? gradientPass${d}Wide : gradientPass${d};`).join("\n")}
    default: return undefined;
  }
}
`;
const here = dirname(fileURLToPath(import.meta.url));
writeFileSync(join(here, "..", "src", "unrolled.generated.ts"), out);
