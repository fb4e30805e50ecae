import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import * as mnl from "../src/index.js";

it("the README's first example runs as written (imports bound to this package's sources)", () => {
  const text = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const block = /```ts\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
  const names =
    /import \{([^}]*)\} from "@routekit\/mnl";/
      .exec(block)?.[1]
      ?.split(",")
      .map((s) => s.trim()) ?? [];
  expect(names).toContain("OfuMnlPlus");
  const body = block.replace(/import \{[^}]*\} from "@routekit\/mnl";\n/, "");
  const fn = new Function(...names, `${body}\nreturn { policy, decision, restored };`);
  const { policy, decision, restored } = fn(...names.map((n) => (mnl as Record<string, unknown>)[n]));
  expect(decision.items.length).toBe(3);
  expect(JSON.stringify(restored.toJSON())).toBe(JSON.stringify(policy.toJSON()));
});
