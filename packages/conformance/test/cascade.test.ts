/**
 * Cascade policies: committed snapshot fixtures restore mid-episode and continue bit-exactly, and
 * corrupted, truncated or foreign snapshots are rejected with typed errors, never half-loaded.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isRouteKitError, Rng, type Snapshot } from "@routekit/core";
import { checkCorruptions, corruptSnapshot, longHorizon } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { type CascadeFixture, generateCascade, playCascade } from "./cascade-fixture-lib.js";
import { cascadePolicies } from "./cascade-policies.js";
import { fixtureFile } from "./fixture-lib.js";
import { cascadeResumedSmoke } from "./resumed-smoke.js";

const dir = fileURLToPath(new URL("../fixtures/", import.meta.url));
const ARMS = ["arm-0", "arm-1", "arm-2"];

describe.each(cascadePolicies.map((s, i) => [s.name, s, i] as const))("%s", (name, spec, i) => {
  it("fixture: restores mid-episode and continues bit-exactly", () => {
    const fx = JSON.parse(readFileSync(dir + fixtureFile(name), "utf8")) as CascadeFixture;
    const p = spec.restore(fx.snapshot);
    expect(p.kind).toBe(fx.kind);
    expect(p.pendingDecisions).toBeGreaterThan(0);
    expect(JSON.stringify(p.toJSON())).toBe(JSON.stringify(fx.snapshot));
    expect(playCascade(p, fx.steps)).toEqual(fx.outputs);
    expect(JSON.stringify(p.toJSON())).toBe(JSON.stringify(fx.finalSnapshot));
    const bumped = { ...fx.snapshot, kindVersion: fx.snapshot.kindVersion + 1 };
    let err: unknown;
    try {
      spec.restore(bumped);
    } catch (e) {
      err = e;
    }
    expect(isRouteKitError(err, "SNAPSHOT_VERSION")).toBe(true);
  });

  it("rejects corrupted, truncated and foreign snapshots, never half-loads", () => {
    const p = spec.create({ seed: 7, arms: ARMS });
    generateCascade(p, `history:${name}`, 80);
    const other = cascadePolicies[(i + 1) % cascadePolicies.length] as typeof spec;
    const otherSnap = (other.name.split("-")[0] === name.split("-")[0] ? cascadePolicies[5] : other)
      ?.create({ seed: 1, arms: ["arm-0"] })
      .toJSON() as Snapshot;
    // The resumed smoke (open episodes finished, outputs checked, a typed error on a valid call is a break).
    const smoke = cascadeResumedSmoke(name, (s) => spec.restore(s));
    smoke.real(spec.restore(p.toJSON()));
    const tally = checkCorruptions(
      name,
      corruptSnapshot(p.toJSON(), otherSnap, Rng.fromSeed(`corrupt:${name}`), longHorizon(60, 600)),
      (s) => spec.restore(s),
      smoke.corrupted,
    );
    expect(tally.rejected).toBeGreaterThanOrEqual(11);
  });
});
