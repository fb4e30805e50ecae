import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import * as classic from "../src/index.js";
import { UCB1 } from "../src/index.js";

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

it("core's README shows the snapshot UCB1 really writes (arms small and large, one update, one decision pending)", () => {
  const text = readFileSync(new URL("../../core/README.md", import.meta.url), "utf8");
  const section = text.slice(text.indexOf("## Snapshots"));
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const p = new UCB1({ arms: ["small", "large"], seed: 1 });
  p.update(p.select(), { reward: 1 });
  p.select();
  expect(JSON.parse(block)).toEqual(JSON.parse(JSON.stringify(p.toJSON())));
  const q = UCB1.fromJSON(JSON.parse(block));
  expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
});
