/**
 * Committed snapshot fixtures (scripts/generate-fixtures.ts): today's code restores each one and
 * continues bit-exactly (same decisions, same final snapshot as the uninterrupted run recorded in
 * the fixture, including late feedback for decisions made before the snapshot). Truncated fixture
 * text and snapshots of another format version are rejected with a typed error.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isRouteKitError, type Snapshot } from "@routekit/core";
import { resealSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { FIXTURE_FORMAT, type Fixture, fixtureFile, play } from "./fixture-lib.js";
import { armPolicies, mnlPolicies } from "./policies.js";

const dir = fileURLToPath(new URL("../fixtures/", import.meta.url));
const specs = [...armPolicies, ...mnlPolicies] as unknown as { name: string; restore: (s: Snapshot) => never }[];

describe.each(specs.map((s) => [s.name, s] as const))("%s fixture", (name, spec) => {
  const text = readFileSync(dir + fixtureFile(name), "utf8");
  const fx = JSON.parse(text) as Fixture;

  it("restores and continues bit-exactly", () => {
    expect(fx.format).toBe(FIXTURE_FORMAT);
    const p = spec.restore(fx.snapshot) as { kind: string; toJSON(): Snapshot };
    expect(p.kind).toBe(fx.kind);
    expect(JSON.stringify(p.toJSON())).toBe(JSON.stringify(fx.snapshot));
    const decisions = play(p as never, fx.steps);
    expect(decisions).toEqual(fx.decisions);
    expect(JSON.stringify(p.toJSON())).toBe(JSON.stringify(fx.finalSnapshot));
  });

  it("rejects a truncated or version-bumped fixture snapshot with a typed error", () => {
    // A snapshot cut short keeps only a prefix of its state fields: every such prefix must be refused,
    // by the checksum and, with the checksum recomputed, by the class's own field validation.
    const keys = Object.keys(fx.snapshot.state as object);
    for (let k = 0; k < keys.length; k++) {
      const state = Object.fromEntries(keys.slice(0, k).map((key) => [key, (fx.snapshot.state as never)[key]]));
      for (const cut of [{ ...fx.snapshot, state }, resealSnapshot({ ...fx.snapshot, state })]) {
        expect(() => spec.restore(cut as Snapshot), `state cut after ${k} fields`).toThrowError(
          expect.objectContaining({ name: "RouteKitError", code: "SNAPSHOT_CORRUPT" }),
        );
      }
    }
    const bumped = { ...fx.snapshot, kindVersion: fx.snapshot.kindVersion + 1 };
    let err: unknown;
    try {
      spec.restore(bumped);
    } catch (e) {
      err = e;
    }
    expect(isRouteKitError(err, "SNAPSHOT_VERSION")).toBe(true);
  });
});
