/**
 * Writes packages/conformance/fixtures/<policy>.json for every cascade policy in
 * test/cascade-policies.ts (run: `pnpm --filter @routekit/conformance fixtures`). Regenerate only on
 * purpose, with a kindVersion bump.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { it } from "vitest";
import { makeCascadeFixture } from "../test/cascade-fixture-lib.js";
import { cascadePolicies } from "../test/cascade-policies.js";
import { fixtureFile } from "../test/fixture-lib.js";

const dir = fileURLToPath(new URL("../fixtures/", import.meta.url));

it("generates cascade snapshot fixtures", () => {
  mkdirSync(dir, { recursive: true });
  for (const spec of cascadePolicies) {
    const f = makeCascadeFixture(spec.name, () => spec.create({ seed: 11, arms: ["arm-0", "arm-1", "arm-2"] }));
    writeFileSync(dir + fixtureFile(spec.name), `${JSON.stringify(f, null, 1)}\n`);
    console.log(`wrote ${fixtureFile(spec.name)}: ${f.steps.length} steps, ${f.outputs.length} outputs`);
  }
});
