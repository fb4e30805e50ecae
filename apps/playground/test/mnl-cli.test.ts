import { Writable } from "node:stream";
import { expect, it } from "vitest";
import { main } from "../src/main.js";

function sink(): { stream: Writable; text: () => string } {
  let s = "";
  const stream = new Writable({
    write(c, _e, cb) {
      s += String(c);
      cb();
    },
  });
  return { stream, text: () => s };
}

it("compares the three MNL policies on mnl-contextual (item feature length from the environment's contextDim)", async () => {
  const out = sink();
  const err = sink();
  const argv = ["compare", "--env", "mnl-contextual", "--policies", "ofu-mnl-plus,ucb-mnl,ts-mnl", "--seeds", "1"];
  argv.push("--horizon", "50", "--param", "ofu-mnl-plus.exploration=0.5", "--env-param", "contextDim=4");
  argv.push("--no-plots", "--quiet");
  const code = await main(argv, { stdout: out.stream, stderr: err.stream, isTTY: false });
  expect(code, err.text()).toBe(0);
  expect(out.text()).toMatch(/ofu-mnl-plus[\s\S]*ucb-mnl[\s\S]*ts-mnl/);
});
