#!/usr/bin/env node
// routekit-gateway: the routing sidecar over HTTP. Ctrl-C (or SIGTERM) writes a final snapshot first.
import { parseArgs } from "node:util";
import { createRffGateway } from "./rff-gateway.js";
import { MODELS } from "./simulate.js";

const HELP = `routekit-gateway [--port 8787] [--host 127.0.0.1] [--state ./gateway-state]
                 [--models a,b,c] [--dim 256] [--seed 1] [--snapshot-every 1000] [--fsync]

POST /route     { "prompt": "..." } or { "embedding": [...] }  -> { decisionId, model }
POST /feedback  { "decisionId": "...", "reward": 0..1 }       -> { learned: true }
GET  /stats, GET /healthz

--seed applies to a new state directory (a restored router continues its own random stream); --dim must
match the state directory's router. --fsync flushes the event log to disk before each feedback is
answered (survives a power cut, costs a disk flush per feedback).`;

/** The command line; an unknown option, a missing value or a stray argument exits 2 with one line, as usage errors do. */
function args() {
  try {
    return parseArgs({
      options: {
        port: { type: "string", default: "8787" },
        host: { type: "string", default: "127.0.0.1" },
        state: { type: "string", default: "./gateway-state" },
        models: { type: "string", default: MODELS.join(",") },
        dim: { type: "string", default: "256" },
        seed: { type: "string", default: "1" },
        "snapshot-every": { type: "string", default: "1000" },
        fsync: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
  } catch (e) {
    // Node's messages run over several lines for some mistakes (`--port -1`): one line, like the others.
    usage((e as Error).message.replace(/\s*\n\s*/g, " "));
  }
}

/** A usage error: one line, exit 2, before the state directory is touched. */
function usage(message: string): never {
  console.error(`routekit-gateway: ${message} (see --help)`);
  process.exit(2);
}

function main(): void {
  const { values } = args();
  if (values.help) return void console.log(HELP);
  // Every flag is read before the state directory is opened: a bad one must not leave a lock behind or a
  // restored router waiting for a port it can never bind.
  const port = integer(values.port, "--port", 0, 65535);
  const options = {
    stateDir: values.state,
    models: modelList(values.models),
    contextDim: integer(values.dim, "--dim", 1),
    // 0 would mean "after every feedback" here, where a reader may expect "never": say 1 for that.
    snapshotEvery: integer(values["snapshot-every"], "--snapshot-every", 1),
    fsync: values.fsync,
    policy: { seed: integer(values.seed, "--seed", 0) },
  };
  let gateway: ReturnType<typeof createRffGateway>;
  try {
    gateway = createRffGateway(options);
  } catch (e) {
    // A state directory in use, of another --dim, or with a damaged log: one line, not a stack trace.
    console.error(`routekit-gateway: ${(e as Error).message}`);
    process.exit(1);
  }
  const s = gateway.stats();
  gateway.listen(port, values.host).then(
    (bound) => {
      console.log(
        `routing among ${s.models.join(", ")} on http://${values.host}:${bound} (run ${s.run}, ${s.replayed} events replayed from ${values.state})`,
      );
    },
    (e: Error) => {
      // A port in use: say so in one line and free the state directory (an uncaught error left the pid file).
      console.error(`routekit-gateway: cannot listen on ${values.host}:${port}: ${e.message}`);
      gateway.close().finally(() => process.exit(1));
    },
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    gateway.close().then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** `a,b,c` -> the list; exits 2 on an empty list or a repeated model (the router would throw a stack trace, or serve nothing). */
function modelList(text: string): string[] {
  const models = text.split(",").filter((m) => m !== "");
  const repeated = models.find((m, i) => models.indexOf(m) !== i);
  if (models.length === 0) usage(`--models must name at least one model, got ${JSON.stringify(text)}`);
  if (repeated !== undefined) usage(`--models lists ${JSON.stringify(repeated)} twice`);
  return models;
}

/** A whole number in [min, max] written in decimal (`Number` would also read "0x10", "1e3" and ""). */
function integer(text: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in [${min}, ${max}]`;
    usage(`${flag} must be ${range}, got ${JSON.stringify(text)}`);
  }
  return n;
}

main();
