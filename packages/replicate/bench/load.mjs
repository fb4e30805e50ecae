// One replica under load, in its own process: select + feedback as fast as it can for `seconds`,
// yielding to its stream reader every few decisions. Reports what it did and the lag it saw.
import { Rng } from "@routekit/core";
import { Replica } from "../dist/index.js";
import { makePolicy } from "./policies.mjs";

process.once("message", async (m) => {
  const { create, restore, input } = await makePolicy(m.policy, m.seed);
  const r = await Replica.start({
    redis: m.url,
    stream: m.stream,
    replicaId: m.replicaId,
    create,
    restore,
    blockMs: 20,
  });
  const rng = Rng.fromSeed(m.seed);
  process.send({ type: "ready" });
  await new Promise((res) => process.once("message", res)); // go
  const t0 = performance.now();
  const learned0 = r.stats().counts.learned;
  let decisions = 0;
  let selectMs = 0;
  while (performance.now() - t0 < m.seconds * 1000) {
    for (let k = 0; k < m.burst; k++) {
      const q = input(rng);
      const s = performance.now();
      const d = r.select(q);
      selectMs += performance.now() - s;
      r.feedback(
        d.id,
        m.policy === "ofu-mnl" ? { choice: rng.uniform() < 0.5 ? null : d.items[0] } : { reward: rng.uniform() },
      );
      decisions++;
    }
    await new Promise((res) => setImmediate(res));
  }
  const busy = (performance.now() - t0) / 1000;
  await r.flush(120_000);
  await r.catchUp(120_000);
  const st = r.stats();
  process.send({
    type: "done",
    decisions,
    seconds: busy,
    selectUs: (selectMs * 1000) / decisions,
    learned: st.counts.learned - learned0,
    lag: st.lagMs,
    state: r.learnedState().length,
  });
  await r.close();
  process.exit(0);
});
