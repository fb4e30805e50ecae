// Accuracy of OFU-MNL+'s Hessian factor update, against exact rational arithmetic: the n + 1 rank-1
// Cholesky updates (the previous update) and the form-and-refactor update (the current one) are fed the
// same sequence of rounds (offered rows X, probabilities p), and after T rounds L L^T is compared with
// H_T = ridge I + sum_t G_t computed exactly (BigInt, every double product and sum exact) from the same
// doubles. Run: node bench/hessian-accuracy.mjs [T=3000] [seeds=5]   (--smoke: T = 30, one seed)
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const file = join(here, "results", "model.mjs");
await build({
  entryPoints: [join(here, "..", "src", "model.ts")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  outfile: file,
  logLevel: "error",
});
const { addMnlHessianToCholesky, refactorMnlHessian } = await import(file);

const smoke = process.argv.includes("--smoke");
const args = process.argv.slice(2).filter((a) => a !== "--smoke");
const T = Number(args[0] ?? (smoke ? 30 : 3000));
const d = 5;
const n = 15;

// Exact values: a BigInt numerator over 2^SHIFT (every double, and every product of three, is exact).
const SHIFT = 3400n;
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
/** x as [mantissa, exponent] with x = mantissa * 2^exponent exactly. */
function split(x) {
  f64[0] = x;
  const bits = u64[0];
  const sign = bits >> 63n ? -1n : 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  return e === 0 ? [sign * frac, -1074] : [sign * (frac | (1n << 52n)), e - 1075];
}
/** The exact product of doubles, as a numerator over 2^SHIFT. */
function exact(...xs) {
  let m = 1n;
  let e = 0;
  for (const x of xs) {
    const [mx, ex] = split(x);
    m *= mx;
    e += ex;
  }
  const s = BigInt(e) + SHIFT;
  return s >= 0n ? m << s : m >> -s; // never negative at these magnitudes (checked below)
}
const toNumber = (v) => {
  // v / 2^SHIFT rounded to a double (via a decimal string of enough digits)
  const neg = v < 0n;
  const a = neg ? -v : v;
  const bits = a.toString(2).length;
  const drop = BigInt(Math.max(0, bits - 60));
  const x = Number(a >> drop) * 2 ** (Number(drop) - Number(SHIFT));
  return neg ? -x : x;
};

function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 4294967296;
  };
}

function run(ridge, seed) {
  const u = lcg(seed);
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const b = 1 / Math.sqrt(d);
  const La = new Float64Array(d * d);
  let Lb = new Float64Array(d * d);
  let Lb2 = new Float64Array(d * d);
  for (let i = 0; i < d; i++) La[i * d + i] = Math.sqrt(ridge);
  Lb.set(La);
  const xbar = new Float64Array(d);
  const row = new Float64Array(d);
  const M = new Float64Array(d * d);
  // Exact H_T: start from the exact L0 L0^T (sqrt(ridge)^2 rounded as the policies start).
  const H = Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? exact(La[i], La[i]) : 0n));
  const X = new Float64Array(n * d);
  const p = new Float64Array(n + 1);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < n * d; i++) X[i] = Math.max(-b, Math.min(b, normal()));
    let s = 1;
    for (let i = 0; i < n; i++) {
      p[i] = Math.exp(2 * normal());
      s += p[i];
    }
    p[n] = 1;
    for (let i = 0; i <= n; i++) p[i] /= s;
    addMnlHessianToCholesky(La, X, n, d, p, 1, xbar, row);
    refactorMnlHessian(Lb2, X, n, d, p, 1, xbar, row, Lb, M);
    [Lb, Lb2] = [Lb2, Lb];
    // Exact G from the same doubles: x̄ as both updates compute it (rounded), then exact products.
    for (let i = 0; i <= n; i++) {
      const r = [];
      for (let k = 0; k < d; k++) r.push(i < n ? [X[i * d + k], -xbar[k]] : [xbar[k]]);
      for (let j = 0; j < d; j++)
        for (let l = 0; l < d; l++) {
          let acc = 0n;
          for (const a of r[j]) for (const c of r[l]) acc += exact(p[i], a, c);
          H[j * d + l] += acc;
        }
    }
  }
  const err = (L) => {
    let num = 0;
    let den = 0;
    for (let j = 0; j < d; j++)
      for (let l = 0; l < d; l++) {
        let v = 0n;
        for (let m = 0; m < d; m++) v += exact(L[j * d + m], L[l * d + m]);
        const diff = toNumber(v - H[j * d + l]);
        const h = toNumber(H[j * d + l]);
        num += diff * diff;
        den += h * h;
      }
    return Math.sqrt(num / den);
  };
  return { rank1: err(La), refactor: err(Lb) };
}

const seeds = Number(args[1] ?? (smoke ? 1 : 5));
console.log(
  `||L L^T - H_T||_F / ||H_T||_F after T = ${T} rounds (N = ${n} offered, d = ${d}), exact H_T, ${seeds} seeds`,
);
for (const ridge of [2013.3, 1, 1e-3]) {
  const ratios = [];
  const rows = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const r = run(ridge, seed);
    ratios.push(r.rank1 / r.refactor);
    rows.push(`${r.rank1.toExponential(1)} / ${r.refactor.toExponential(1)}`);
  }
  ratios.sort((a, b) => a - b);
  console.log(
    `ridge ${ridge}: rank-1 / refactor error per seed: ${rows.join(", ")}; ratio median ${ratios[ratios.length >> 1].toFixed(2)}, min ${ratios[0].toFixed(2)}, max ${ratios[ratios.length - 1].toFixed(2)}`,
  );
}
