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
    const b = await Replica.start(
      opts("hooks:applied", "b", {
        onApplied: () => {
          calls++;
          throw new Error("audit hook");
        },
        onError: (e: unknown) => errors.push(e),
      }),
    );
    // 600 entries (a decision and a feedback each): one read-loop error and a 100 ms pause per entry took a minute.
    await b.catchUp(5_000);
    expect(b.stats().counts.learned).toBe(300);
    expect(b.learnedState()).toEqual(a.learnedState());
    expect(calls).toBe(600);
    expect(errors).toHaveLength(600);
    expect(String(errors[0])).toMatch(/audit hook/);
    await a.close();
    await b.close();
  }, 30_000);
});
