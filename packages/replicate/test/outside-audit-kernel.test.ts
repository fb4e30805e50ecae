// An outside tester's probes of the README's promises, against a real redis-server: each test here failed before its fix.
import { ErrorCode } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { Replica } from "../src/index.js";
import { codeOf, linucbOptionsOn, redisForFile } from "./fixture.js";

const redis = redisForFile();
const opts = linucbOptionsOn(redis);

describe("hooks", () => {
  it("an onError or onApplied that is not a function is INVALID_ARGUMENT at start (onError: 5 swallowed every error)", async () => {
    for (const extra of [{ onError: 5 }, { onApplied: "log" }, { onError: null }]) {
      expect(await codeOf(() => Replica.start(opts("hooks:type", "gw", extra))), JSON.stringify(extra)).toBe(
        ErrorCode.InvalidArgument,
      );
    }
    const r = await Replica.start(opts("hooks:type", "gw", { onError: undefined, onApplied: () => {} }));
    await r.close();
  });

  it("an onApplied that throws is reported through onError and does not hold the replica back", async () => {
    const a = await Replica.start(opts("hooks:applied", "a"));
    for (let i = 0; i < 300; i++) {
      const d = a.select(Float64Array.of(0.1, i / 300, 0.3));
      a.feedback(d.id, { reward: 0.5 });
    }
    await a.flush();
    await a.catchUp();
    const errors: unknown[] = [];
    let calls = 0;
    // Passes of the read loop that applied entries: a pass is a run of hook calls with no task in between.
    let passes = 0;
    let inPass = false;
    const b = await Replica.start(
      opts("hooks:applied", "b", {
        onApplied: () => {
          calls++;
          if (!inPass) {
            passes++;
            inPass = true;
            setImmediate(() => {
              inPass = false;
            });
          }
          throw new Error("audit hook");
        },
        onError: (e: unknown) => errors.push(e),
      }),
    );
    await b.catchUp();
    // The 600 entries (a decision and a feedback each) come in one read and are applied in one pass. A throw that
    // escaped into the read loop skipped the rest of the batch and paused 100 ms: one entry per pass, a minute in
    // all (this asserted a catchUp within 5 s, a wall-clock bound a loaded machine could miss).
    expect(passes).toBe(1);
    expect(b.stats().counts.learned).toBe(300);
    expect(b.learnedState()).toEqual(a.learnedState());
    expect(calls).toBe(600);
    expect(errors).toHaveLength(600);
    expect(String(errors[0])).toMatch(/audit hook/);
    await a.close();
    await b.close();
  });
});
