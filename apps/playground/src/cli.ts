#!/usr/bin/env node
import { main } from "./main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`routekit: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
