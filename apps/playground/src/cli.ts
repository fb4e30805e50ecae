#!/usr/bin/env node
import { main } from "./main.js";

// A reader that goes away (`routekit list | head -3`, `2>&1 | head -1` during a run) closes the pipe. Output to it is
// dropped from then on, as a reader that stopped asked for, and the command still finishes its work (a run writes its
// result files) and exits with its own code, instead of crashing on the unhandled EPIPE with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    stream.write = (() => true) as typeof stream.write;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`routekit: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
