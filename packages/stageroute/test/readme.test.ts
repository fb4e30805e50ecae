import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The README's first ts block, importing the package from source, with a seeded Math.random. */
function example(): string {
  const md = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const m = /```ts\n([\s\S]*?)```/.exec(md);
  if (!m) throw new Error("README has no ts example");
  const code = (m[1] as string).replace('from "@routekit/stageroute"', 'from "../src/index.js"');
  const seeded = [
    "let s = 12345;",
    "const Math = Object.assign(Object.create(globalThis.Math), {",
    "  random: () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648),",
    "});",
    "const logged: unknown[][] = [];",
    "const console = { log: (...a: unknown[]) => logged.push(a) };",
  ].join("\n");
  return `${code.replace(/^(import[^\n]*\n)/, `$1${seeded}\n`)}\nexport { router, logged };\n`;
}

describe("README example", () => {
  it("runs as written: the new model is deployed after it arrives and spending stays near the budget", async () => {
    const file = fileURLToPath(new URL("./readme-example.generated.ts", import.meta.url));
    writeFileSync(file, example());
    try {
      const mod = (await import(file)) as { router: import("../src/index.js").StageRoute; logged: unknown[][] };
      const [deployed, avgCost] = mod.logged[0] as [string[], number];
      expect(deployed).toContain("new-model");
      expect(deployed.length).toBeLessThanOrEqual(2);
      expect(avgCost).toBeLessThanOrEqual(1.05 * 0.002);
      expect(avgCost).toBeGreaterThan(0.8 * 0.002);
      expect(mod.router.stats("large").maxShare).toBe(0.5);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
