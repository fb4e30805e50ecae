// Online experiments of the paper-style checks, printed for the README and reports (not asserted here):
// linearized regret of HPG at T = 1k / 4k / 16k / 64k (separate runs, d = 16, M = 4, s = 1), dimension
// robustness (d = 16 / 64 / 256 at T = 4k), parameter-free vs tuned HPG, and the rank cap (maxRank 2 tau vs
// exact at d = 64), and the README's two T = 20,000 comparisons of every router: planted eigenvectors anywhere
// in R^d (e, 6 seeds) and inside the query subspace (f, 4 seeds). Usage:
// node bench/experiments.mjs [--quick] [--part=a,b,c,d,e,f] [--mc=N]. Imports the built dist.
// --smoke: every part on one seed, T <= 200 and 20 Monte Carlo samples (to check that it runs).
import { PlantedQuadraticEnvironment, runRoutingExperiment } from "@routekit/environments";
import { EuclideanPg, Exp3, Hpg, LogLinearPg, ParameterFreeHpg, UniformRouter } from "../dist/index.js";

const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
const partArg = process.argv.find((a) => a.startsWith("--part="));
const parts = new Set((partArg ? partArg.slice(7) : "a,b,c,d,e,f").split(","));
const mcArg = process.argv.find((a) => a.startsWith("--mc="));
const mc = mcArg ? Number(mcArg.slice(5)) : smoke ? 20 : 500;
const seeds = quick || smoke ? [0] : [0, 1];
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

function run(d, M, s, T, make, seed, planted = "ambient") {
  const env = new PlantedQuadraticEnvironment({ contextDim: d, models: M, latentRank: s, mcSamples: mc, planted });
  return runRoutingExperiment(env, (rng) => make([...env.initialArms], rng, T), { horizon: T, seed });
}
const hpg =
  (d, extra = {}) =>
  (arms, rng, T) =>
    new Hpg({ arms, contextDim: d, horizon: T, rng, ...extra });

if (parts.has("a")) {
  const Ts = smoke ? [100, 200] : quick ? [1000, 4000] : [1000, 4000, 16000, 64000];
  const lin = Ts.map((T) => mean(seeds.map((seed) => run(16, 4, 1, T, hpg(16), seed).linearizedRegret)));
  console.log(
    "a) HPG linearized regret, d = 16, M = 4, s = 1:",
    Ts.map((T, i) => `T=${T}: ${lin[i].toFixed(0)}`).join(", "),
  );
  console.log(
    "   bound 12 s sqrt(M T ln d):",
    Ts.map((T) => (12 * Math.sqrt(4 * T * Math.log(16))).toFixed(0)).join(" / "),
  );
  console.log(
    "   log-log slopes:",
    lin
      .slice(1)
      .map((v, i) => (Math.log(v / lin[i]) / Math.log(Ts[i + 1] / Ts[i])).toFixed(2))
      .join(", "),
  );
}
if (parts.has("b")) {
  const T = smoke ? 200 : 4000;
  const out = [16, 64, 256].map((d) =>
    mean(seeds.map((seed) => run(d, 4, 1, T, hpg(d, { maxRank: 16 }), seed).linearizedRegret)),
  );
  console.log(
    `b) HPG linearized regret at T = ${T} vs d (M = 4, s = 1, maxRank 16): d=16 ${out[0].toFixed(0)}, d=64 ${out[1].toFixed(0)}, d=256 ${out[2].toFixed(0)}; ratio 256/16 = ${(out[2] / out[0]).toFixed(2)}`,
  );
}
if (parts.has("c")) {
  const T = smoke ? 200 : quick ? 4000 : 16000;
  const h = seeds.map((seed) => run(16, 4, 1, T, hpg(16), seed));
  const p = seeds.map((seed) =>
    run(16, 4, 1, T, (arms, rng, TT) => new ParameterFreeHpg({ arms, contextDim: 16, horizon: TT, rng }), seed),
  );
  console.log(
    `c) T = ${T}, d = 16: HPG LinReg ${mean(h.map((r) => r.linearizedRegret)).toFixed(0)}, oracle gap ${mean(h.map((r) => r.oracleGap)).toFixed(0)}; parameter-free LinReg ${mean(p.map((r) => r.linearizedRegret)).toFixed(0)}, oracle gap ${mean(p.map((r) => r.oracleGap)).toFixed(0)}`,
  );
}
if (parts.has("d")) {
  const T = smoke ? 200 : quick ? 2000 : 8000;
  const exact = seeds.map((seed) => run(64, 4, 1, T, hpg(64, { maxRank: 64 }), seed));
  const capped = seeds.map((seed) => run(64, 4, 1, T, hpg(64, { maxRank: 4 }), seed));
  const f = (rs, k) => mean(rs.map((r) => r[k]));
  console.log(
    `d) d = 64, T = ${T}: exact reward ${f(exact, "expectedReward").toFixed(0)} LinReg ${f(exact, "linearizedRegret").toFixed(0)}; maxRank 4 (= 2 tau) reward ${f(capped, "expectedReward").toFixed(0)} LinReg ${f(capped, "linearizedRegret").toFixed(0)}`,
  );
}

/** Every router of the package on one planted variant, T = 20,000, d = 16, M = 4, s = 1, theory defaults. */
function lineup(label, planted, seedCount) {
  const T = smoke ? 200 : quick ? 4000 : 20000;
  const seedList = Array.from({ length: quick || smoke ? 1 : seedCount }, (_, i) => i);
  const mk = (C) => (arms, rng, TT) => new C({ arms, contextDim: 16, horizon: TT, rng });
  const routers = {
    HPG: Hpg,
    "parameter-free HPG": ParameterFreeHpg,
    "Euclidean PG": EuclideanPg,
    "log-linear PG": LogLinearPg,
    EXP3: Exp3,
    uniform: UniformRouter,
  };
  const res = {};
  for (const [name, C] of Object.entries(routers))
    res[name] = seedList.map((seed) => run(16, 4, 1, T, mk(C), seed, planted));
  console.log(
    `${label}) planted: "${planted}", T = ${T}, seeds 0-${seedList.length - 1} (per seed: expected reward / oracle gap / linearized regret)`,
  );
  for (const [name, rs] of Object.entries(res)) {
    const per = rs.map(
      (r) => `${r.expectedReward.toFixed(0)}/${r.oracleGap.toFixed(0)}/${r.linearizedRegret.toFixed(0)}`,
    );
    const m = (k) => mean(rs.map((r) => r[k])).toFixed(0);
    console.log(
      `   ${name}: mean ${m("expectedReward")} / ${m("oracleGap")} / ${m("linearizedRegret")}; seeds ${per.join(", ")}`,
    );
  }
  for (const name of Object.keys(routers).filter((n) => n !== "HPG")) {
    const diff = res.HPG.map((r, i) => r.expectedReward - res[name][i].expectedReward);
    console.log(`   HPG reward minus ${name}: ${Math.min(...diff).toFixed(0)} to ${Math.max(...diff).toFixed(0)}`);
  }
}
if (parts.has("e")) lineup("e", "ambient", 6);
if (parts.has("f")) lineup("f", "query", 4);
