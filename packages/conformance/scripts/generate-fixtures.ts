/**
 * Writes packages/conformance/fixtures/<policy>.json for every policy in test/policies.ts.
 * Run with `pnpm --filter @routekit/conformance fixtures` (vitest runs this file so sibling packages
 * resolve to their sources). Regenerate ONLY when a policy's snapshot layout or decisions change on
 * purpose, together with a kindVersion bump; the fixture test exists to catch unintended changes.
 * `ROUTEKIT_FIXTURES=classic` (a comma-separated list of name prefixes) regenerates only those.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { it } from "vitest";
import { armCreate, assortmentCreate, fixtureFile, makeFixture } from "../test/fixture-lib.js";
import { armPolicies, mnlPolicies } from "../test/policies.js";

const dir = fileURLToPath(new URL("../fixtures/", import.meta.url));

it("generates snapshot fixtures", () => {
  mkdirSync(dir, { recursive: true });
  const all = [
    ...armPolicies.map((s) => [s.name, armCreate(s), s.costs] as const),
    ...mnlPolicies.map((s) => [s.name, assortmentCreate(s), undefined] as const),
  ];
  const only = process.env.ROUTEKIT_FIXTURES?.split(",").filter((x) => x.length > 0);
  for (const [name, create, costs] of all) {
    if (only && !only.some((prefix) => name.startsWith(prefix))) continue;
    const f = makeFixture(name, create, costs);
    writeFileSync(dir + fixtureFile(name), `${JSON.stringify(f, null, 1)}\n`);
    console.log(`wrote ${fixtureFile(name)}: ${f.steps.length} steps, ${f.decisions.length} decisions`);
  }
});
