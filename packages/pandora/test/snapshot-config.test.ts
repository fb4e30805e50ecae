/**
 * A snapshot's config is restored exactly as written: a field that is missing, null or in another form
 * is SNAPSHOT_CORRUPT even when the checksum is valid (the options reader would otherwise fill in the
 * default and restore a different policy).
 */
import { ErrorCode, isRouteKitError, type Snapshot } from "@routekit/core";
import { resealSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade, WeitzmanOracle } from "../src/index.js";

const arms = ["mini", "standard", "frontier"];
const dims = { arms, contextDim: 2, outputDim: 2 };

type State = { config: Record<string, unknown> };
function tampered(s: Snapshot, edit: (config: Record<string, unknown>) => void): Snapshot {
  const copy = JSON.parse(JSON.stringify(s)) as Snapshot & { state: State };
  edit(copy.state.config);
  return resealSnapshot(copy);
}
function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isRouteKitError(e) ? e.code : "not a RouteKitError";
  }
  return undefined;
}

const policies: [string, () => { toJSON(): Snapshot }, (s: Snapshot) => unknown][] = [
  ["Cosmos", () => new Cosmos({ ...dims, rewardParameter: [1, 0], indexBound: 5 }), (s) => Cosmos.fromJSON(s)],
  ["QueryAll", () => new QueryAll({ ...dims, exploration: 0.3 }), (s) => QueryAll.fromJSON(s)],
  ["ThresholdCascade", () => new ThresholdCascade({ ...dims, threshold: 0.6 }), (s) => ThresholdCascade.fromJSON(s)],
  ["OneShot", () => new OneShot({ ...dims, exploration: 0.7 }), (s) => OneShot.fromJSON(s)],
  [
    "WeitzmanOracle",
    () =>
      new WeitzmanOracle({
        ...dims,
        rewardParameter: [1, 0],
        indexParameters: { mini: [0.1, 0, 0], standard: [0.2, 0, 0], frontier: [0.3, 0, 0] },
      }),
    (s) => WeitzmanOracle.fromJSON(s),
  ],
];

describe("snapshot config fields are validated, not defaulted", () => {
  it("Cosmos: indexBound null (the reported case) is SNAPSHOT_CORRUPT, not the default 3", () => {
    const s = new Cosmos({ ...dims, rewardParameter: [1, 0], indexBound: 5 }).toJSON();
    const bad = tampered(s, (c) => {
      c.indexBound = null;
    });
    expect(codeOf(() => Cosmos.fromJSON(bad))).toBe(ErrorCode.SnapshotCorrupt);
    // The untampered snapshot restores, with its bound.
    expect(Cosmos.fromJSON(s).config.indexBound).toBe(5);
  });

  it('Cosmos: "Infinity" bounds round-trip; the number Infinity is not the stored form', () => {
    const s = new Cosmos({ ...dims, indexBound: Number.POSITIVE_INFINITY }).toJSON();
    expect(JSON.stringify(Cosmos.fromJSON(JSON.parse(JSON.stringify(s))).toJSON())).toBe(JSON.stringify(s));
    const bad = tampered(s, (c) => {
      c.rewardBound = Number.POSITIVE_INFINITY; // readable by the options reader, not what toJSON writes ("Infinity")
    });
    expect(codeOf(() => Cosmos.fromJSON(bad))).toBe(ErrorCode.SnapshotCorrupt);
  });

  it("every policy: each config field deleted or set to null is refused (unless null is its stored value)", () => {
    for (const [name, make, restore] of policies) {
      const s = make().toJSON();
      const config = (s.state as unknown as State).config;
      expect(Object.keys(config).length, name).toBeGreaterThan(3);
      for (const key of Object.keys(config)) {
        const deleted = tampered(s, (c) => {
          delete c[key];
        });
        expect(
          codeOf(() => restore(deleted)),
          `${name}: ${key} deleted`,
        ).toBe(ErrorCode.SnapshotCorrupt);
        if (config[key] === null) continue;
        const nulled = tampered(s, (c) => {
          c[key] = null;
        });
        expect(
          codeOf(() => restore(nulled)),
          `${name}: ${key} null`,
        ).toBe(ErrorCode.SnapshotCorrupt);
      }
      // An extra field is refused as well, and the untampered snapshot restores.
      const extra = tampered(s, (c) => {
        c.surprise = 1;
      });
      expect(
        codeOf(() => restore(extra)),
        `${name}: extra field`,
      ).toBe(ErrorCode.SnapshotCorrupt);
      expect(
        codeOf(() => restore(JSON.parse(JSON.stringify(s)))),
        name,
      ).toBeUndefined();
    }
  });

  it("Cosmos: a theory block missing one of its constants is refused", () => {
    const s = new Cosmos({ ...dims, rewardParameter: [1, 0], theory: { kappa: 0.1 } }).toJSON();
    const bad = tampered(s, (c) => {
      delete (c.theory as Record<string, unknown>).psiBound;
    });
    expect(codeOf(() => Cosmos.fromJSON(bad))).toBe(ErrorCode.SnapshotCorrupt);
  });
});
