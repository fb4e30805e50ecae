import { describe, expect, it } from "vitest";
import {
  ARM_POLICY_OPTION_KEYS,
  type ArmEvent,
  type ArmPolicyOptions,
  EVENT_VERSION,
  editDistance,
  estimateOffPolicy,
  isRouteKitError,
  optionKeys,
  type RouteKitError,
  RUN_OPTION_KEYS,
  type RunOptions,
  readOptions,
  rejectUnknownOptions,
  replayEvaluate,
  runExperiment,
  suggestOption,
} from "../src/index.js";
import { runExperimentInWorkers, WORKER_RUN_OPTION_KEYS, type WorkerRunOptions } from "../src/node.js";

const KNOWN = ["arms", "stepSize", "seed", "maxPending"] as const;

function refusal(fn: () => unknown): RouteKitError {
  try {
    fn();
  } catch (e) {
    if (isRouteKitError(e)) return e;
    throw e;
  }
  throw new Error("accepted");
}

describe("rejectUnknownOptions", () => {
  it("accepts known keys, including known keys set to undefined, and an omitted optional object", () => {
    expect(() => rejectUnknownOptions({ arms: [], stepSize: 0.1 }, KNOWN, "Hpg")).not.toThrow();
    expect(() => rejectUnknownOptions({ seed: undefined }, KNOWN, "Hpg")).not.toThrow();
    expect(() => rejectUnknownOptions({}, KNOWN, "Hpg")).not.toThrow();
    expect(() => rejectUnknownOptions(undefined, KNOWN, "Hpg", true)).not.toThrow();
  });

  it("refuses an unknown key as INVALID_ARGUMENT naming it, with the case-only near miss", () => {
    const e = refusal(() => rejectUnknownOptions({ arms: [], stepsize: 0.1 }, KNOWN, "Hpg"));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toContain('unknown option "stepsize" (did you mean "stepSize"?)');
    expect(e.message).toContain("known options: arms, stepSize, seed, maxPending");
    expect(e.details).toEqual({ unknown: ["stepsize"], known: [...KNOWN] });
  });

  it("suggests a key within edit distance 2 (a swap counts 1) and nothing for a far one", () => {
    expect(refusal(() => rejectUnknownOptions({ maxPendng: 3 }, KNOWN, "X")).message).toContain(
      'did you mean "maxPending"',
    );
    expect(refusal(() => rejectUnknownOptions({ sede: 1 }, KNOWN, "X")).message).toContain('did you mean "seed"');
    const far = refusal(() => rejectUnknownOptions({ learningRate: 1 }, KNOWN, "X")).message;
    expect(far).toContain('unknown option "learningRate";');
    expect(far).not.toContain("did you mean");
  });

  it("refuses an unknown key whatever its value, undefined included, and names every unknown key", () => {
    const e = refusal(() => rejectUnknownOptions({ stepsize: undefined, foo: 1 }, KNOWN, "X"));
    expect(e.message).toContain('unknown options "stepsize" (did you mean "stepSize"?), "foo";');
    expect(e.details?.unknown).toEqual(["stepsize", "foo"]);
  });

  it("refuses symbol keys, ignores non-enumerable and inherited keys, and never runs a getter", () => {
    expect(refusal(() => rejectUnknownOptions({ [Symbol("x")]: 1 }, KNOWN, "X")).message).toContain("a symbol key");
    const o = Object.create({ inherited: 1 }) as Record<string, unknown>;
    Object.defineProperty(o, "hidden", { value: 1, enumerable: false });
    Object.defineProperty(o, "seed", {
      enumerable: true,
      get() {
        throw new Error("getter ran");
      },
    });
    expect(() => rejectUnknownOptions(o, KNOWN, "X")).not.toThrow();
  });

  it("a hostile key is described safely; a non-object or a proxy whose key listing throws is INVALID_ARGUMENT", () => {
    const long = "x".repeat(10_000);
    const e = refusal(() => rejectUnknownOptions({ [long]: 1 }, KNOWN, "X"));
    expect(e.message.length).toBeLessThan(300);
    expect(refusal(() => rejectUnknownOptions({ __proto__: null, toString: 1 }, KNOWN, "X")).message).toContain(
      '"toString"',
    );
    expect(refusal(() => rejectUnknownOptions(null, KNOWN, "X")).code).toBe("INVALID_ARGUMENT");
    expect(refusal(() => rejectUnknownOptions("arms", KNOWN, "X")).code).toBe("INVALID_ARGUMENT");
    const trap = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );
    const p = refusal(() => rejectUnknownOptions(trap, KNOWN, "X"));
    expect(p.code).toBe("INVALID_ARGUMENT");
    expect(p.message).toContain("no keys");
  });
});

describe("editDistance and suggestOption", () => {
  it("counts insertions, deletions, substitutions and neighbour swaps", () => {
    expect(editDistance("seed", "seed")).toBe(0);
    expect(editDistance("sede", "seed")).toBe(1);
    expect(editDistance("rige", "ridge")).toBe(1);
    expect(editDistance("ridgee", "ridge")).toBe(1);
    expect(editDistance("abc", "xyz")).toBe(3);
    expect(editDistance("a", "abcdef")).toBe(3);
  });
  it("prefers a case-only match over a closer edit, and the first listed on a tie", () => {
    expect(suggestOption("RIDGE", ["ridg", "ridge"])).toBe("ridge");
    expect(suggestOption("ab", ["ax", "ay"])).toBe("ax");
    expect(suggestOption("zzzzzz", ["ridge"])).toBeUndefined();
  });
});

describe("option key lists", () => {
  it("optionKeys fails type-checking when a key of the options type is missing or foreign", () => {
    interface O {
      a?: number;
      b: string;
    }
    expect(optionKeys<O>()(["a", "b"])).toEqual(["a", "b"]);
    // @ts-expect-error "b" is missing
    optionKeys<O>()(["a"]);
    // @ts-expect-error "c" is not an option of O
    optionKeys<O>()(["a", "b", "c"]);
  });
  it("core's lists name the keys of their option types", () => {
    const arm: readonly (keyof ArmPolicyOptions)[] = ARM_POLICY_OPTION_KEYS;
    const run: readonly (keyof RunOptions)[] = RUN_OPTION_KEYS;
    const workers: readonly (keyof WorkerRunOptions)[] = WORKER_RUN_OPTION_KEYS;
    expect(arm).toEqual(["arms", "contextDim", "rng", "seed", "maxPending"]);
    expect(run).toEqual(["onProgress", "signal"]);
    expect(workers).toEqual(["workers", "onProgress", "signal", "workerEntry"]);
  });

  it("runExperiment and runExperimentInWorkers refuse an unknown option before doing any work", async () => {
    const exp = null as never; // never reached: the options are checked first
    const e = refusal(() => runExperiment(exp, { onprogress: () => {} } as never));
    expect(e.message).toContain('"onprogress" (did you mean "onProgress"?)');
    await expect(runExperimentInWorkers(exp, { worker: 2 } as never)).rejects.toThrow(/did you mean "workers"/);
  });
});

describe("options whose getter throws", () => {
  /** `base` with `key` turned into a getter that throws a plain Error. */
  function hostile(base: Record<string, unknown>, key: string): Record<string, unknown> {
    const o = { ...base };
    Object.defineProperty(o, key, {
      enumerable: true,
      get() {
        throw new Error(`getter ${key}`);
      },
    });
    return o;
  }

  const event: ArmEvent = {
    v: EVENT_VERSION,
    kind: "classic/random",
    protocol: "arm",
    id: "d0",
    decision: { arm: "a", context: null, propensity: 0.5 },
    feedback: { reward: 1 },
  };

  it("readOptions turns the getter's Error into INVALID_ARGUMENT naming the option, reading through otherwise", () => {
    class Config {
      get seed() {
        return 7;
      }
    }
    const inherited = readOptions(new Config(), "Thing");
    expect(inherited.seed).toBe(7); // prototype getters still read
    const o = readOptions(hostile({ arms: ["a"] }, "stepSize"), "Thing");
    expect(o.arms).toEqual(["a"]);
    const e = refusal(() => o.stepSize);
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toBe("Thing: reading option stepSize threw: getter stepSize");
    expect(readOptions(o, "Other")).toBe(o); // guarding a guarded view does not stack proxies
  });

  it("estimateOffPolicy, replayEvaluate and runExperiment refuse such options with INVALID_ARGUMENT", () => {
    const target = () => 1;
    for (const key of ["target", "level", "clip", "estimator", "fallbackPropensity"]) {
      const e = refusal(() => estimateOffPolicy([event], hostile({ target }, key) as never));
      expect([e.code, e.message]).toEqual([
        "INVALID_ARGUMENT",
        `estimateOffPolicy: reading option ${key} threw: getter ${key}`,
      ]);
    }
    const policy = {}; // never reached: options are read first
    const e = refusal(() => replayEvaluate([event], policy as never, hostile({}, "clip") as never));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "replayEvaluate: reading option clip threw: getter clip"]);
  });

  it("runExperiment and runExperimentInWorkers refuse a throwing option or experiment field with INVALID_ARGUMENT", async () => {
    const experiment = {
      protocol: "arm" as const,
      environment: () => {
        throw new Error("never built");
      },
      policies: [{ label: "p", create: () => ({}) as never }],
      seeds: [1],
      horizon: 1,
    };
    for (const key of ["onProgress", "signal"]) {
      const e = refusal(() => runExperiment(experiment as never, hostile({}, key) as never));
      expect([e.code, e.message]).toEqual([
        "INVALID_ARGUMENT",
        `runExperiment: reading option ${key} threw: getter ${key}`,
      ]);
    }
    for (const key of ["horizon", "seeds", "policies", "points"]) {
      const e = refusal(() => runExperiment(hostile(experiment, key) as never));
      expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", `reading the experiment threw: getter ${key}`]);
    }
    const seeds = new Proxy([1], {
      get(t, k) {
        if (k === "0") throw new Error("seed 0");
        return Reflect.get(t, k);
      },
    });
    expect(refusal(() => runExperiment({ ...experiment, seeds } as never)).code).toBe("INVALID_ARGUMENT");
    for (const key of ["workers", "workerEntry", "onProgress", "signal"]) {
      const plan = { module: "/nonexistent/experiment.mjs", spec: {} };
      await expect(runExperimentInWorkers(plan, hostile({}, key) as never)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
        message: `runExperimentInWorkers: reading option ${key} threw: getter ${key}`,
      });
    }
  });
});
