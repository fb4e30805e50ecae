/** Resealed absurd values in hpg snapshots are SNAPSHOT_CORRUPT naming the field; real snapshots restore. */
import { decodeF64, encodeF64, Rng } from "@routekit/core";
import { outcomeText, tamperedSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { Exp3 } from "../src/index.js";

function trained(seed: number, rounds: number): Exp3 {
  const p = new Exp3({ arms: ["a", "b", "c"], contextDim: 3, seed, normalizeContext: true });
  const rng = Rng.fromSeed(`hpg-sanity:${seed}`);
  const pending = [];
  for (let t = 0; t < rounds; t++) {
    pending.push(p.select(rng.fillNormal(new Float64Array(3), 0, 1)));
    if (pending.length > 2) p.update(pending.shift() as never, { reward: rng.uniformIn(-1, 1) });
  }
  return p;
}

describe("Exp3: semantic checks at restore", () => {
  const p = trained(1, 50);
  const snap = p.toJSON();
  const text = JSON.stringify(snap);
  it("a negative log weight (they start at 0 and only grow)", () => {
    const bad = tamperedSnapshot(snap, (st) => {
      st.arms[0].logWeight = -1e308;
    });
    expect(outcomeText(() => Exp3.fromJSON(bad))).toMatch(/^SNAPSHOT_CORRUPT: .*"logWeight"/);
  });
  it("pending probabilities that do not sum to 1, or one outside [0, 1], named with the value", () => {
    const half = tamperedSnapshot(snap, (st) => {
      const e = st.ledger.entries[0][1];
      const q = decodeF64(e.probs, "probs");
      q[0] = (q[0] as number) / 2;
      e.probs = encodeF64(q);
    });
    expect(outcomeText(() => Exp3.fromJSON(half))).toMatch(
      /^SNAPSHOT_CORRUPT: snapshot field ledger probs \(sum\) is .*; probabilities sum to 1/,
    );
    const neg = tamperedSnapshot(snap, (st) => {
      const e = st.ledger.entries[0][1];
      const q = decodeF64(e.probs, "probs");
      q[1] = -0.5;
      e.probs = encodeF64(q);
    });
    expect(outcomeText(() => Exp3.fromJSON(neg))).toMatch(/ledger probs\[1\] is -0.5; a probability is in \[0, 1\]/);
  });
  it("the policy is unchanged; real snapshots of long seeded runs restore bit for bit", () => {
    expect(JSON.stringify(p.toJSON())).toBe(text);
    for (const seed of [1, 2, 3]) {
      const q = trained(seed, 2000);
      const t = JSON.stringify(q.toJSON());
      expect(JSON.stringify(Exp3.fromJSON(JSON.parse(t)).toJSON())).toBe(t);
    }
  });
});
