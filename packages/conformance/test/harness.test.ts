/**
 * The harness must catch real bugs: each deliberate bug of the toy policy is detected by the check
 * meant for it, with a message naming the broken rule, while the correct toy passes everything.
 */

import { EpsilonGreedy, ThompsonBernoulli } from "@routekit/classic";
import { type ArmEvent, ErrorCode, Rng, RouteKitError } from "@routekit/core";
import {
  type ArmPolicySpec,
  checkBufferReuseArm,
  checkBufferReuseCascade,
  checkConcurrentArm,
  checkCorruptions,
  checkHostileArm,
  checkLearnRefusesLikeUpdateArm,
  checkMalformedEventsRefusedAlike,
  checkOptionRanges,
  checkRestoreFromForeignObjects,
  checkUnknownOptionKey,
  corruptSnapshot,
  findNonFinite,
  fuzzArmPolicy,
  thrownCode,
} from "@routekit/core/testing";
import { Cosmos } from "@routekit/pandora";
import { describe, expect, it } from "vitest";
import { type ToyBug, ToyPolicy } from "./toy.js";

function toySpec(bug: ToyBug = "none"): ArmPolicySpec<ToyPolicy> {
  return {
    name: `toy/${bug}`,
    create: ({ seed, arms }) => new ToyPolicy({ arms, dim: 3, seed, bug }),
    restore: (s) => ToyPolicy.fromJSON(s, bug),
    validatesCost: true,
  };
}

const RUNS = 300;

describe("harness on a correct toy policy", () => {
  it("passes the protocol and extreme fuzz", () => {
    fuzzArmPolicy(toySpec(), { numRuns: RUNS });
    fuzzArmPolicy(toySpec(), { numRuns: RUNS, profile: "extreme" });
  });
  it("passes buffer reuse, concurrency and snapshot corruption", async () => {
    checkBufferReuseArm(toySpec());
    const r = await checkConcurrentArm(toySpec(), { handlers: 100 });
    expect(r.pending).toBeGreaterThan(0);
    const p = new ToyPolicy({ arms: ["a-1", "a-2"], dim: 3, seed: 1 });
    const d = p.select(new Float64Array([0.1, 0.2, 0.3]));
    p.update(d, { reward: 0.5 });
    p.select(new Float64Array([0.3, 0.2, 0.1]));
    const other = { format: "routekit/snapshot", version: 1, kind: "conformance/other", kindVersion: 1, state: {} };
    const tally = checkCorruptions(
      "toy",
      corruptSnapshot(p.toJSON(), other as never, Rng.fromSeed(5), 80),
      (s) => ToyPolicy.fromJSON(s),
      (q) => {
        const e = q.select(new Float64Array(3));
        q.update(e, { reward: 1 });
      },
    );
    expect(tally.rejected).toBeGreaterThan(11);
  });
});

describe("harness catches deliberate bugs", () => {
  it("state mutated before validation", () => {
    expect(() => fuzzArmPolicy(toySpec("mutate-before-validate"), { numRuns: RUNS })).toThrow(
      /invalid call update\(d\d+, .*\) \[(nan|inf|-inf|missing|string)\] threw NON_FINITE but changed the snapshot/,
    );
  });
  it("a non-typed error (TypeError) on feedback for a removed arm", () => {
    expect(() => fuzzArmPolicy(toySpec("untyped-error"), { numRuns: RUNS })).toThrow(
      /valid call update\(.*removed.*\) threw TypeError/,
    );
  });
  it("NaN stored in a base64 Float64 field", () => {
    expect(() => fuzzArmPolicy(toySpec("nan-sentinel"), { numRuns: RUNS })).toThrow(
      /snapshot holds non-finite values: state\.arms\[\d\]\[1\]\[0\]=NaN \(f64\)/,
    );
  });
  it("NaN after an overflowing reward (extreme profile only)", () => {
    fuzzArmPolicy(toySpec("overflow"), { numRuns: 100 });
    expect(() => fuzzArmPolicy(toySpec("overflow"), { numRuns: RUNS, profile: "extreme" })).toThrow(
      /non-finite values: state\.arms\[\d\]\[1\]\[2\]=NaN/,
    );
  });
  it("a snapshot that does not restore bit-exactly", () => {
    expect(() => fuzzArmPolicy(toySpec("snapshot-drops-rng"), { numRuns: RUNS })).toThrow(
      /restored policy decided .*, the original|differs from the original snapshot/,
    );
  });
  it("a snapshot that is not plain JSON data (a typed array in the state)", () => {
    expect(() => fuzzArmPolicy(toySpec("typed-array-in-snapshot"), { numRuns: RUNS })).toThrow(
      /snapshot does not survive a JSON round trip: snapshot\.state\.raw is not plain JSON data/,
    );
  });
  it("a context buffer kept by reference", () => {
    expect(() => checkBufferReuseArm(toySpec("aliases-context"))).toThrow(
      /reused buffer changed the decision|overwriting the caller's context buffer/,
    );
  });
  it("a restore that trusts corrupted snapshots", () => {
    const p = new ToyPolicy({ arms: ["a-1", "a-2"], dim: 3, seed: 1, bug: "trusting-restore" });
    p.select(new Float64Array(3));
    const other = new ToyPolicy({ arms: ["a-1"], dim: 2 }).toJSON();
    expect(() =>
      checkCorruptions(
        "toy",
        corruptSnapshot(p.toJSON(), { ...other, kind: "x/y" }, Rng.fromSeed(5), 80),
        (s) => ToyPolicy.fromJSON(s, "trusting-restore"),
        (q) => q.update(q.select(new Float64Array(3)), { reward: 1 }),
      ),
    ).toThrow(/crashed fromJSON|holds non-finite|crashed/);
  });
  it("findNonFinite decodes Float64 fields and reports plain non-finite numbers", () => {
    const nan = Buffer.from(new Float64Array([1, Number.NaN]).buffer).toString("base64");
    expect(findNonFinite({ a: { b: [nan] }, c: Infinity, id: "arm-1" })).toEqual([
      { path: "a.b[0][1]", value: Number.NaN, encoded: true },
      { path: "c", value: Infinity, encoded: false },
    ]);
  });
  it("a cascade that reads the caller's context buffer after begin", () => {
    /** COSMOS behind a wrapper that keeps the last context by reference and lets it nudge the reward it learns. */
    const aliasing = (seed: number, arms: readonly string[]) => {
      const inner = new Cosmos({ arms, seed, contextDim: 2, outputDim: 3 });
      let kept: Float64Array = new Float64Array(2);
      return new Proxy(inner, {
        get(target, key) {
          if (key === "begin")
            return (x: Float64Array) => {
              kept = x;
              return target.begin(x);
            };
          if (key === "feedback")
            return (e: string, r: number) =>
              target.feedback(e, Math.min(1, Math.max(0, r + 0.01 * (kept[0] as number))));
          const v = Reflect.get(target, key, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    };
    const spec = {
      name: "pandora/aliasing",
      create: ({ seed, arms }: { seed: number; arms: readonly string[] }) => aliasing(seed, arms),
      restore: Cosmos.fromJSON,
    };
    expect(() => checkBufferReuseCascade(spec)).toThrow(/changed the learned state/);
    const honest = {
      ...spec,
      create: ({ seed, arms }: { seed: number; arms: readonly string[] }) =>
        new Cosmos({ arms, seed, contextDim: 2, outputDim: 3 }),
    };
    expect(() => checkBufferReuseCascade(honest)).not.toThrow();
  });
  describe("choice options", () => {
    const choiceSpec = (construct: (o: unknown) => EpsilonGreedy) => ({
      name: "classic/epsilon-greedy",
      construct,
      restore: EpsilonGreedy.fromJSON,
      baseOptions: { arms: ["a", "b"], seed: 1 },
      optionRanges: [{ name: "decay", values: ["none", "1/t"] }],
    });
    it("a correct enum option passes: every value works, 18 wrong ones are refused (5 of them hostile values)", () => {
      expect(checkOptionRanges(choiceSpec((o) => new EpsilonGreedy(o as never)))).toBe(20);
    });
    it("an option whose error message formats the value with String() (a prototype-less object makes it a TypeError)", () => {
      const formats = (o: unknown) => {
        const r = o as Record<string, unknown>;
        if (r.decay !== undefined && typeof r.decay !== "string")
          throw new RouteKitError(ErrorCode.InvalidArgument, `decay must be a string, got ${String(r.decay)}`);
        return new EpsilonGreedy(o as never);
      };
      expect(() => checkOptionRanges(choiceSpec(formats))).toThrow(/threw a non-typed error: TypeError/);
    });
    it("an enum option that takes null for its default", () => {
      const lenient = (o: unknown) => {
        const r = o as Record<string, unknown>;
        return new EpsilonGreedy((r.decay === null ? { ...r, decay: undefined } : r) as never);
      };
      expect(() => checkOptionRanges(choiceSpec(lenient))).toThrow(/decay: null .*was accepted/);
    });
    it("a documented value that breaks the policy", () => {
      const broken = (o: unknown) => {
        const p = new EpsilonGreedy(o as never);
        if ((o as Record<string, unknown>).decay === "1/t")
          (p as unknown as { select: () => never }).select = () => {
            throw new TypeError("boom");
          };
        return p;
      };
      expect(() => checkOptionRanges(choiceSpec(broken))).toThrow(/decay: "1\/t" \(a documented value\) .*TypeError/);
    });
  });
});

describe("unknown option key check catches", () => {
  const spec = (construct: (o: unknown) => EpsilonGreedy) => ({
    name: "classic/epsilon-greedy",
    construct,
    restore: EpsilonGreedy.fromJSON,
    baseOptions: { arms: ["a", "b"], seed: 1, epsilon: 0.2 },
  });
  /** Drops every key it does not know before building: the behaviour before unknown keys were refused. */
  const known = ["arms", "seed", "rng", "contextDim", "maxPending", "epsilon", "decay"];
  const ignoring = (o: unknown) => {
    const r = o as Record<string, unknown>;
    return new EpsilonGreedy(Object.fromEntries(known.filter((k) => k in r).map((k) => [k, r[k]])) as never);
  };
  it("a policy that refuses unknown keys passes (a stray key, undefined, a symbol, and a near miss per base option)", () => {
    expect(checkUnknownOptionKey(spec((o) => new EpsilonGreedy(o as never)))).toBe(6);
  });
  it("a policy that silently ignores an unknown key", () => {
    expect(() => checkUnknownOptionKey(spec(ignoring))).toThrow(/unknown option noSuchOptionKey: 1 was accepted/);
  });
  it("a refusal without the did-you-mean hint for a near miss", () => {
    const noHint = (o: unknown) => {
      const stray = Reflect.ownKeys(o as object).find((k) => typeof k === "symbol" || !known.includes(k));
      if (stray !== undefined) {
        const name = typeof stray === "symbol" ? "a symbol" : JSON.stringify(stray);
        throw new RouteKitError(ErrorCode.InvalidArgument, `unknown option ${name}`);
      }
      return new EpsilonGreedy(o as never);
    };
    expect(() => checkUnknownOptionKey(spec(noHint))).toThrow(/should name .*did you mean/);
  });
});

describe("hostile values check catches", () => {
  const spec: ArmPolicySpec = {
    name: "epsilon-greedy",
    create: ({ seed, arms }) => new EpsilonGreedy({ arms, seed }),
    restore: (s) => EpsilonGreedy.fromJSON(s),
  };
  it("passes a correct policy", () => {
    expect(checkHostileArm(spec)).toBeGreaterThan(40);
  });
  it("an error message that formats an arm id with a template string (a TypeError for a prototype-less object)", () => {
    const leaky: ArmPolicySpec = {
      ...spec,
      create: (c) => {
        const p = spec.create(c);
        const remove = p.removeArm.bind(p);
        p.removeArm = (id: string) => {
          if (typeof id !== "string") throw new RouteKitError(ErrorCode.InvalidArgument, `bad arm id ${id}`);
          remove(id);
        };
        return p;
      },
    };
    expect(() => checkHostileArm(leaky)).toThrow(/removeArm\(an object without a prototype\) threw a non-typed error/);
  });
  it("a reward that is coerced instead of refused", () => {
    const lenient: ArmPolicySpec = {
      ...spec,
      create: (c) => {
        const p = spec.create(c);
        const update = p.update.bind(p);
        p.update = (d, fb) => update(d, { reward: typeof fb?.reward === "bigint" ? Number(fb.reward) : fb?.reward });
        return p;
      },
    };
    expect(() => checkHostileArm(lenient)).toThrow(/reward: a bigint \}\) was accepted/);
  });
  it("a learn that reads the event's arm twice (a getter could pass validation as one arm and be learned as another)", () => {
    const rereads: ArmPolicySpec = {
      ...spec,
      create: (c) => {
        const p = spec.create(c);
        const learn = p.learn.bind(p);
        p.learn = (event) => {
          // A pre-check that reads the caller's event, then the real learn reads it again.
          try {
            const d: unknown = event !== null && typeof event === "object" ? event.decision : undefined;
            if (d !== null && typeof d === "object") void (d as { arm?: unknown }).arm;
          } catch {
            // an unreadable event: the real learn refuses it
          }
          learn(event);
        };
        return p;
      },
    };
    expect(() => checkHostileArm(rereads)).toThrow(
      /learn\(event whose fields count their reads\) read decision \(2 times\)/,
    );
  });
});

describe("learn-refusal check catches", () => {
  const spec: ArmPolicySpec = {
    name: "thompson-bernoulli",
    create: ({ seed, arms }) => new ThompsonBernoulli({ arms, seed }),
    restore: (s) => ThompsonBernoulli.fromJSON(s),
  };
  const wrapLearn = (f: (learn: (e: ArmEvent) => void, e: ArmEvent) => void): ArmPolicySpec => ({
    ...spec,
    create: (c) => {
      const p = spec.create(c);
      const learn = p.learn.bind(p);
      p.learn = (e: ArmEvent) => f(learn, e);
      return p;
    },
  });
  it("passes a correct policy (Bernoulli Thompson refuses rewards outside [0, 1] in both)", () => {
    expect(checkLearnRefusesLikeUpdateArm(spec)).toBeGreaterThan(10);
  });
  it("learn refusing with the code update uses (OUT_OF_RANGE) instead of INVALID_EVENT", () => {
    const mixed = wrapLearn((learn, e) => {
      const r = (e.feedback as { reward: number }).reward;
      if (r > 1) throw new RouteKitError(ErrorCode.OutOfRange, "reward above 1");
      learn(e);
    });
    expect(() => checkLearnRefusesLikeUpdateArm(mixed)).toThrow(/learn refused \{"reward":2\} with OUT_OF_RANGE/);
  });
  it("learn accepting what update refuses (a clamped reward)", () => {
    const clamping = wrapLearn((learn, e) => {
      const r = (e.feedback as { reward: number }).reward;
      learn({ ...e, feedback: { reward: Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : r } } as ArmEvent);
    });
    expect(() => checkLearnRefusesLikeUpdateArm(clamping)).toThrow(
      /update refused \{"reward":2\} \(OUT_OF_RANGE\) but learn accepted it/,
    );
  });
});

describe("malformed-event check catches", () => {
  it("passes the correct toy (decision.state.epsilon checked for every event, whatever arm it names)", () => {
    const r = checkMalformedEventsRefusedAlike(toySpec());
    expect(r.refused).toBeGreaterThan(10);
    // Accepted edits (epsilon 0.5, a context entry of 1e200, no propensity) are fine: not every field is checked.
    expect(r.mutations).toBeGreaterThan(r.refused);
  });
  it("a toy that checks decision.state only for live arms (a malformed event naming a retired arm is accepted)", () => {
    expect(() => checkMalformedEventsRefusedAlike(toySpec("state-checked-for-live-arms-only"))).toThrow(
      /bad event 0 \(decision\.state deleted\) naming a retired arm gave no error, for the live arm INVALID_EVENT: event decision\.state\.epsilon must be/,
    );
  });
  it("a refusal that is an untyped error (a TypeError for a string where a number was expected)", () => {
    const spec = toySpec();
    const crashOnString = (p: ToyPolicy): ToyPolicy => {
      const learn = p.learn.bind(p);
      p.learn = (e: ArmEvent) => {
        const eps = (e.decision?.state as { epsilon?: unknown } | undefined)?.epsilon;
        if (typeof eps === "string") throw new TypeError("eps.toFixed is not a function");
        learn(e);
      };
      return p;
    };
    const crashing: ArmPolicySpec<ToyPolicy> = {
      ...spec,
      create: (c) => crashOnString(spec.create(c)),
      restore: (s) => crashOnString(spec.restore(s)),
    };
    expect(() => checkMalformedEventsRefusedAlike(crashing)).toThrow(
      /record with decision\.state\.epsilon = "mutated" \(live arm "arm-\d"\) gave untyped TypeError.*expected INVALID_EVENT/,
    );
  });
});

describe("foreign-object restore check catches", () => {
  const make = () => {
    const p = new EpsilonGreedy({ arms: ["a", "b"], seed: 1 });
    p.update(p.select(), { reward: 1 });
    return p;
  };
  it("passes a correct restore", () => {
    expect(checkRestoreFromForeignObjects("eg", make(), (s) => EpsilonGreedy.fromJSON(s))).toBe(4);
  });
  it("a restore that writes to the snapshot it was given (a frozen copy makes it throw)", () => {
    const writes = (s: unknown) => {
      const o = s as { state: Record<string, unknown> };
      o.state.touched = undefined;
      delete o.state.touched;
      return EpsilonGreedy.fromJSON(s as never);
    };
    expect(() => checkRestoreFromForeignObjects("eg", make(), writes)).toThrow(/deeply frozen copy threw TypeError/);
  });
  it("a restore that needs Object.prototype on its input (a prototype-less copy makes it throw)", () => {
    const needsProto = (s: unknown) => {
      if ((s as { toString(): string }).toString() === "") throw new Error("empty");
      return EpsilonGreedy.fromJSON(s as never);
    };
    expect(() => checkRestoreFromForeignObjects("eg", make(), needsProto)).toThrow(/no prototype threw TypeError/);
  });
});

describe("thrownCode", () => {
  it("names a RouteKitError by its code, anything else as untyped, and a return as undefined", () => {
    expect(
      thrownCode(() => {
        throw new RouteKitError(ErrorCode.OutOfRange, "x");
      }),
    ).toBe("OUT_OF_RANGE");
    expect(thrownCode(() => (null as unknown as { a: number }).a)).toMatch(/^untyped: TypeError/);
    expect(thrownCode(() => 1)).toBeUndefined();
  });
});
