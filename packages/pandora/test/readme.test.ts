import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Cosmos } from "../src/index.js";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");

describe("README example", () => {
  it("runs as written (extracted from README.md) and cascades mostly over the cheap models", () => {
    const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] as string;
    expect(block).toContain('from "@routekit/pandora"');
    const code = block.replace(/^import .*$/m, "");
    const logs: string[] = [];
    const fakeConsole = { log: (s: string) => logs.push(s) };
    const run = new Function("Cosmos", "console", `${code}\nreturn { router, saved };`);
    const { router, saved } = run(Cosmos, fakeConsole) as { router: Cosmos; saved: string };
    const calls = Number(/per request: ([\d.]+)/.exec(logs[0] ?? "")?.[1]);
    expect(calls).toBeGreaterThan(1.6);
    expect(calls).toBeLessThan(2.2);
    const back = Cosmos.fromJSON(JSON.parse(saved));
    expect(JSON.stringify(back.toJSON())).toBe(saved);
    const ctx = new Float64Array([0.2, -0.4]);
    expect(back.optimisticIndices(ctx)).toEqual(router.optimisticIndices(ctx));
  });
});
