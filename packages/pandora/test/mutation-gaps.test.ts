/** Behaviour found unchecked by mutation testing (each test fails when the named line is mutated). */
import { tamperedRestoreOutcome } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { Cosmos } from "../src/index.js";

describe("COSMOS restore: an open episode's position (episodes.ts decodeEpisode)", () => {
  it("a position before the boxes already opened is SNAPSHOT_CORRUPT, the policy unchanged", () => {
    const p = new Cosmos({ arms: ["a", "b", "c"], seed: 2, contextDim: 2, outputDim: 3 });
    const ep = p.begin([0.5, -0.25]);
    const s = p.next(ep);
    if (!("query" in s)) throw new Error("expected a query");
    p.observe(ep, s.query, [0.1, 0.2, 0.3], 1);
    const snap = p.toJSON();
    const text = JSON.stringify(snap);
    // The untouched snapshot restores.
    expect(JSON.stringify(Cosmos.fromJSON(snap).toJSON())).toBe(text);
    const outcome = tamperedRestoreOutcome(p, snap, Cosmos.fromJSON, (st) => {
      const e = st.ledger.entries[st.ledger.entries.length - 1][1];
      expect(e.pos).toBe(1);
      e.pos = 0;
    });
    expect(outcome).toMatch(/^SNAPSHOT_CORRUPT: .*episode\.pos/);
    expect(JSON.stringify(p.toJSON())).toBe(text);
  });
});
