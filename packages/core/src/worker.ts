/**
 * Worker-thread entry of {@link runExperimentInWorkers} (built to dist/worker.js and dist/worker.cjs).
 * Builds the experiment once from the plan's module, then plays the runs the pool hands it.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Experiment } from "./runner.js";
import { runOne } from "./runner.js";
import { loadExperiment, type PoolMessage, serializeError, type WorkerInit, type WorkerMessage } from "./workers.js";

const port = parentPort;
const init = workerData as WorkerInit;

if (port !== null) {
  const flag = new Int32Array(init.abort);
  // runOne only reads `aborted`; the pool raises the shared flag, which a synchronous run can see.
  const signal = {
    get aborted() {
      return Atomics.load(flag, 0) === 1;
    },
  } as AbortSignal;
  const post = (m: WorkerMessage) => port.postMessage(m);

  let exp: Experiment | undefined;
  port.on("message", (m: PoolMessage) => {
    // The runs are over: with the port closed nothing is left to do, and the thread ends by itself.
    if (m.type === "close") {
      port.close();
      return;
    }
    if (m.type !== "run" || exp === undefined) return;
    try {
      const result = runOne(exp, m.policy, m.seed, (done) => post({ type: "progress", task: m.task, done }), signal);
      post({ type: "result", task: m.task, result });
    } catch (e) {
      post({ type: "error", task: m.task, error: serializeError(e) });
    }
  });

  loadExperiment({ module: init.module, spec: init.spec }).then(
    (e) => {
      exp = e;
      post({ type: "ready" });
    },
    (e) => post({ type: "error", task: -1, error: serializeError(e) }),
  );
}
