import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import * as classic from "../src/index.js";

it("the README's first example runs as written (imports bound to this package's sources)", () => {
  const text = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const block = /```ts\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
  const names =
    /import \{([^}]*)\} from "@routekit\/classic";/
      .exec(block)?.[1]
      ?.split(",")
      .map((s) => s.trim()) ?? [];
  expect(names).toContain("LinUCBDisjoint");
  const body = block.replace(/import \{[^}]*\} from "@routekit\/classic";\n/, "");
  const fn = new Function(...names, `${body}\nreturn { router, restored, decision };`);
  const { router, restored, decision } = fn(...names.map((n) => (classic as Record<string, unknown>)[n]));
  expect(router.arms).toContain(decision.arm);
  // The decision the comment shows is the one made (it said "gpt-large"; the tie at x = 0 picks "gpt-small").
  const shown = /router\.select\(embedding\); \/\/ \{ id: "(\w+)", arm: "([\w-]+)" \}/.exec(block);
  expect(shown, "the select line's comment").not.toBeNull();
  expect({ id: decision.id, arm: decision.arm }).toEqual({ id: shown?.[1], arm: shown?.[2] });
  expect(JSON.stringify(restored.toJSON())).toBe(JSON.stringify(router.toJSON()));
});
