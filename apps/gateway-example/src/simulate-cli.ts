#!/usr/bin/env node
// Plays the gateway's clients and models: `--url` to drive a running routekit-gateway, or none to start
// one in a temporary directory. Prints where traffic went and the quality against the best single model.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createRffGateway } from "./rff-gateway.js";
import { formatReport, MODELS, simulateTraffic } from "./simulate.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      requests: { type: "string", default: "1500" },
      seed: { type: "string", default: "1" },
    },
    strict: true,
  });
  const requests = Number(values.requests);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(requests) || requests < 1 || !Number.isSafeInteger(seed)) {
    console.error("--requests must be a positive integer and --seed an integer");
    process.exit(2);
  }
  let url = values.url;
  let stop = async () => {};
  if (url === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "routekit-gateway-"));
    const gateway = createRffGateway({ stateDir: dir, models: MODELS, policy: { seed } });
    url = `http://127.0.0.1:${await gateway.listen()}`;
    stop = async () => {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const t0 = performance.now();
  const step = Math.max(1, Math.floor(requests / 10));
  const r = await simulateTraffic({
    url,
    requests,
    seed,
    onProgress: (done) => {
      if (done % step === 0 || done === requests) process.stderr.write(`\r${done}/${requests} requests`);
    },
  });
  process.stderr.write("\n");
  const ms = (performance.now() - t0) / requests;
  await stop();
  console.log(formatReport(r));
  console.log(`${ms.toFixed(2)} ms per request round trip (route + feedback over HTTP)`);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
