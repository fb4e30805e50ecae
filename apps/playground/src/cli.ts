#!/usr/bin/env node
import { main } from "./main.js";

// A reader that goes away (`routekit list | head -3`) closes the pipe: stop quietly, as Unix tools do, instead of
// crashing on the unhandled EPIPE with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
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
