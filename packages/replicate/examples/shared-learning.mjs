// Four gateway replicas behind a load balancer, each serving a quarter of the traffic.
// Shared: the four learn from one Redis stream (every replica learns from every replica's feedback).
// Isolated: each learns only from its own quarter. Same requests, same environment, same seeds.
// The replicas see each other's feedback at most 25 requests late (the run waits for them every 25).
//
//   node examples/shared-learning.mjs [--rounds 4000]
// Starts its own redis-server on a free loopback port (installing Debian's package when missing, as root).
import { LinUCBDisjoint } from "@routekit/classic";
import { Rng } from "@routekit/core";
import { LinearContextualBandit } from "@routekit/environments";
import { Replica } from "../dist/index.js";
import { startRedisServer } from "../dist/server.js";

const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 4000;
const REPLICAS = 4;
const D = 8;
const K = 6;

const env = new LinearContextualBandit({ contextDim: D, k: K, noiseSd: 0.1, name: "gateway" });
env.reset(Rng.fromSeed(1));
const arms = env.initialArms;
const create = (seed) => () => new LinUCBDisjoint({ arms, contextDim: D, seed, exploration: 0.5 });
const restore = (s) => LinUCBDisjoint.fromJSON(s);

const server = await startRedisServer();
const shared = [];
for (let i = 0; i < REPLICAS; i++) {
  shared.push(
    await Replica.start({
      redis: server.url,
      stream: "demo",
      replicaId: `gw${i}`,
      create: create(i),
      restore,
      blockMs: 20,
    }),
  );
}
const isolated = Array.from({ length: REPLICAS }, (_, i) => create(i)());
const regret = { shared: new Float64Array(REPLICAS), isolated: new Float64Array(REPLICAS) };
const lb = Rng.fromSeed(7);

for (let t = 0; t < ROUNDS; t++) {
  const round = env.next(t);
  const i = lb.int(REPLICAS); // the load balancer's pick
  const best = env.oracleReward();
  const ds = shared[i].select(round.context);
  const di = isolated[i].select(round.context);
  const fs = env.pull(ds.arm);
  const fi = env.pull(di.arm);
  regret.shared[i] += best - env.expectedReward(ds.arm);
  regret.isolated[i] += best - env.expectedReward(di.arm);
  // Feedback reaches a random replica; any replica can take it.
  shared[lb.int(REPLICAS)].feedback(ds.id, fs);
  isolated[i].update(di, fi);
  // Every 25 requests, wait until each replica has read everything written so far: the replicas see each
  // other's feedback at most 25 requests late, on any machine. (Leaving them to read the stream in the
  // background instead makes the result depend on the host's load: this loop runs 4,000 requests in well
  // under a second, so under heavy load the replicas learned most of the feedback only after the run.)
  if (t % 25 === 24) {
    await Promise.all(shared.map((r) => r.flush()));
    await Promise.all(shared.map((r) => r.catchUp()));
  }
}
for (const r of shared) await r.flush();
for (const r of shared) await r.catchUp();

const sum = (a) => a.reduce((x, y) => x + y, 0);
console.log(`${ROUNDS} requests over ${REPLICAS} replicas (LinUCB, d=${D}, ${K} models)`);
console.log("replica  shared regret  isolated regret");
for (let i = 0; i < REPLICAS; i++) {
  console.log(`gw${i}     ${regret.shared[i].toFixed(1).padStart(13)}  ${regret.isolated[i].toFixed(1).padStart(15)}`);
}
console.log(`total    ${sum(regret.shared).toFixed(1).padStart(13)}  ${sum(regret.isolated).toFixed(1).padStart(15)}`);
const lag = shared[0].stats().lagMs;
console.log(`replication lag (gw0): median ${lag.median.toFixed(1)} ms, p99 ${lag.p99.toFixed(1)} ms`);
const same = shared.every((r) => r.learnedState() === shared[0].learnedState());
console.log(`all shared replicas hold the same learned state: ${same}`);
for (const r of shared) await r.close();
await server.stop({ removeData: true });
