import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ErrorCode,
  type Experiment,
  isRouteKitError,
  type Json,
  type Progress,
  RouteKitError,
  type RunResult,
  runExperiment,
} from "../src/index.js";
import { defaultWorkerEntry, runExperimentInWorkers } from "../src/node.js";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/experiment.mjs", import.meta.url));

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Workers run the built entry (a worker thread cannot load TypeScript): build core when dist is missing or older than src. */
beforeAll(() => {
  const built = ["index.js", "worker.js", "worker.cjs"].map((f) => join(pkg, "dist", f));
  const stale = built.some((f) => !existsSync(f) || statSync(f).mtimeMs < newestMtime(join(pkg, "src")));
  if (stale) execFileSync("npx", ["tsup"], { cwd: pkg, stdio: "pipe" });
}, 120_000);

async function build(spec: Json): Promise<Experiment> {
  const mod = (await import(pathToFileURL(fixture).href)) as { buildExperiment: (s: Json) => Experiment };
  return mod.buildExperiment(spec);
}

function timeless(r: RunResult) {
  const { usPerRound: _s, ...series } = r.series;
  const { usPerRound: _f, ...final } = r.final;
  return { policy: r.policy, seed: r.seed, horizon: r.horizon, series, final, pickShare: r.pickShare };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the promise to reject");
}

const SPEC = { arms: 4, horizon: 1500, seeds: [1, 2, 3], eps: [0.05, 0.3] };

describe("runExperimentInWorkers", () => {
  it("finds the worker entry built next to the bundle", async () => {
    expect(fileURLToPath(await defaultWorkerEntry())).toBe(join(pkg, "dist", "worker.js"));
  });

  it("works from the CommonJS build (worker.cjs located through the import.meta.url shim)", () => {
    const script = `
      const core = require(${JSON.stringify(join(pkg, "dist", "node.cjs"))});
      core.defaultWorkerEntry().then(async (entry) => {
        const r = await core.runExperimentInWorkers(
          { module: ${JSON.stringify(fixture)}, spec: { arms: 3, horizon: 200, seeds: [1, 2], eps: [0.1] } },
          { workers: 2 },
        );
        console.log(JSON.stringify({ entry: entry.href, runs: r.runs.map((x) => x.final.regret) }));
      });`;
    const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as {
      entry: string;
      runs: number[];
    };
    expect(out.entry.endsWith("/dist/worker.cjs")).toBe(true);
    expect(out.runs.length).toBe(2);
    expect(out.runs[0]).not.toBe(out.runs[1]);
  });

  it("keeps the ESM entry free of static Node imports (core runs outside Node; workers load them lazily)", () => {
    const index = readFileSync(join(pkg, "dist", "index.js"), "utf8");
    const chunks = [...index.matchAll(/from "\.\/(chunk-[A-Z0-9]+\.js)"/g)].map((m) => m[1] as string);
    expect(chunks.length).toBeGreaterThan(0);
    for (const f of ["index.js", ...chunks]) {
      const code = readFileSync(join(pkg, "dist", f), "utf8");
      expect(code).not.toMatch(/^import .* from "node:/m);
      expect(code).not.toMatch(/^import "node:/m);
    }
  });

  it("returns runExperiment's runs, in its order, with the same series (wall times aside)", async () => {
    const local = runExperiment(await build(SPEC));
    const events: Progress[] = [];
    const pooled = await runExperimentInWorkers(
      { module: fixture, spec: SPEC },
      { workers: 2, onProgress: (p) => events.push(p) },
    );
    expect(pooled.runs.map(timeless)).toEqual(local.runs.map(timeless));
    expect(pooled.runs.map((r) => `${r.policy}@${r.seed}`)).toEqual(local.runs.map((r) => `${r.policy}@${r.seed}`));
    expect(pooled.protocol).toBe("arm");
    expect(pooled.environment).toBe("fixture/linear-arms");
    expect(pooled.horizon).toBe(1500);
    expect(pooled.summary.map((s) => [s.policy, s.seeds, s.regret, s.o2b, s.opr, s.costPerRound])).toEqual(
      local.summary.map((s) => [s.policy, s.seeds, s.regret, s.o2b, s.opr, s.costPerRound]),
    );
    // Progress: monotone over all runs, ending at the total.
    expect(events.length).toBeGreaterThan(100);
    for (let i = 1; i < events.length; i++) {
      expect(events[i]?.done as number).toBeGreaterThan(events[i - 1]?.done as number);
    }
    const last = events.at(-1) as Progress;
    expect(last.total).toBe(6 * 1500);
    expect(last.done).toBe(last.total);
    expect(last.runsTotal).toBe(6);
    expect(new Set(events.map((e) => `${e.policy}@${e.seed}`)).size).toBe(6);
  });

  it("runs in-process for workers <= 1 and caps the pool at the number of runs; accepts file: URLs", async () => {
    const spec = { ...SPEC, horizon: 300, seeds: [7] };
    const local = runExperiment(await build(spec));
    const one = await runExperimentInWorkers({ module: fixture, spec }, { workers: 1 });
    const many = await runExperimentInWorkers({ module: pathToFileURL(fixture).href, spec }, { workers: 16 });
    expect(one.runs.map(timeless)).toEqual(local.runs.map(timeless));
    expect(many.runs.map(timeless)).toEqual(local.runs.map(timeless));
  });

  it("a finished experiment lets its workers exit by themselves (exit code 0, never terminate); a failed one terminates them", async () => {
    // terminate() right after the last run could dispose of a worker's isolate under an optimizing compile, which
    // aborted the process now and then (Node 20, NodePlatform::ForIsolate): finished workers close their port instead.
    const proto = Worker.prototype as unknown as {
      terminate: () => Promise<number>;
      emit: (...a: unknown[]) => boolean;
    };
    const terminate = proto.terminate;
    const emit = proto.emit;
    let terminated = 0;
    const exits: unknown[] = [];
    proto.terminate = function (this: unknown) {
      terminated++;
      return terminate.call(this);
    };
    proto.emit = function (this: unknown, ...a: unknown[]) {
      if (a[0] === "exit") exits.push(a[1]);
      return emit.apply(this, a);
    };
    try {
      const spec = { ...SPEC, horizon: 300 };
      const r = await runExperimentInWorkers({ module: fixture, spec }, { workers: 2 });
      expect(r.runs).toHaveLength(6);
      expect(terminated).toBe(0);
      expect(exits).toEqual([0, 0]);
      await rejection(runExperimentInWorkers({ module: fixture, spec: { ...spec, failAt: 200 } }, { workers: 2 }));
      expect(terminated).toBe(2);
    } finally {
      proto.terminate = terminate;
      proto.emit = emit;
    }
  });

  it("rejects with the original RouteKitError code, message and details when a run fails in a worker", async () => {
    const e = await rejection(
      runExperimentInWorkers({ module: fixture, spec: { ...SPEC, failAt: 700 } }, { workers: 2 }),
    );
    expect(e).toBeInstanceOf(RouteKitError);
    expect((e as RouteKitError).code).toBe(ErrorCode.OutOfRange);
    expect(e.message).toBe("fixture failure at round 700");
    expect((e as RouteKitError).details).toEqual({ t: 700 });

    const spec = { ...SPEC, horizon: 200, failPolicy: 1, failSeed: 2 };
    const f = await rejection(runExperimentInWorkers({ module: fixture, spec }, { workers: 3 }));
    expect((f as RouteKitError).code).toBe(ErrorCode.InfeasibleBudget);
    expect(f.message).toBe("fixture: policy 1 refuses seed 2");
  });

  it("a throwing onProgress rejects with INVALID_ARGUMENT, the original as cause (it escaped the message handler)", async () => {
    const boom = new Error("bar broke");
    const e = await rejection(
      runExperimentInWorkers(
        { module: fixture, spec: { ...SPEC, horizon: 200 } },
        {
          workers: 2,
          onProgress: () => {
            throw boom;
          },
        },
      ),
    );
    expect((e as RouteKitError).code).toBe(ErrorCode.InvalidArgument);
    expect(e.message).toBe("onProgress threw: bar broke");
    expect(e.cause).toBe(boom);
  });

  it("rejects bad plans with INVALID_ARGUMENT", async () => {
    const bad = await rejection(runExperimentInWorkers({ module: fixture, spec: { badModule: true } }, { workers: 2 }));
    expect((bad as RouteKitError).code).toBe(ErrorCode.InvalidArgument);
    const noExport = fileURLToPath(new URL("./fixtures/not-an-experiment.mjs", import.meta.url));
    const ne = await rejection(runExperimentInWorkers({ module: noExport, spec: null }, { workers: 2 }));
    expect((ne as RouteKitError).code).toBe(ErrorCode.InvalidArgument);
    expect(ne.message).toContain("buildExperiment");
    const empty = await rejection(runExperimentInWorkers({ module: "", spec: null }));
    expect((empty as RouteKitError).code).toBe(ErrorCode.InvalidArgument);
    const h = await rejection(
      runExperimentInWorkers({ module: fixture, spec: { ...SPEC, horizon: 0 } }, { workers: 2 }),
    );
    expect((h as RouteKitError).code).toBe(ErrorCode.InvalidArgument);
    const w = await rejection(runExperimentInWorkers({ module: fixture, spec: SPEC }, { workers: 1.5 }));
    expect((w as RouteKitError).code).toBe(ErrorCode.InvalidArgument);
  });

  it("a module that cannot be imported, or a URL that is not file:, is INVALID_ARGUMENT (was Node's untyped ERR_MODULE_NOT_FOUND)", async () => {
    for (const module of [
      fileURLToPath(new URL("./fixtures/no-such-experiment.mjs", import.meta.url)),
      new URL("./fixtures/no-such-experiment.mjs", import.meta.url).href,
      "https://example.com/experiment.mjs",
      "data:text/javascript,export const x = 1",
    ]) {
      for (const workers of [1, 2]) {
        const e = await rejection(runExperimentInWorkers({ module, spec: SPEC }, { workers }));
        expect(isRouteKitError(e, ErrorCode.InvalidArgument), `${module}: ${String(e)}`).toBe(true);
        expect(e.message).toContain("plan.module");
      }
    }
  });

  it("a relative plan.module is INVALID_ARGUMENT telling how to build an absolute one (it was read against the cwd); URL objects work", async () => {
    const spec = { ...SPEC, horizon: 200, seeds: [7] };
    const local = runExperiment(await build(spec));
    // From this package's directory (vitest's cwd) these relative paths name the fixture: they used to run it.
    expect(existsSync(join(process.cwd(), "test/fixtures/experiment.mjs"))).toBe(true);
    for (const module of [
      "./test/fixtures/experiment.mjs",
      "test/fixtures/experiment.mjs",
      "../core/test/fixtures/experiment.mjs",
    ]) {
      for (const workers of [1, 2]) {
        const e = await rejection(runExperimentInWorkers({ module, spec }, { workers }));
        expect(isRouteKitError(e, ErrorCode.InvalidArgument), `${module}: ${String(e)}`).toBe(true);
        expect(e.message).toContain("plan.module");
        expect(e.message).toContain("is a relative path");
        expect(e.message).toContain('new URL("./experiment.mjs", import.meta.url)');
      }
    }
    // A URL object (new URL(..., import.meta.url), what the message suggests) and an absolute path both work.
    const url = new URL("./fixtures/experiment.mjs", import.meta.url);
    for (const workers of [1, 2]) {
      const r = await runExperimentInWorkers({ module: url, spec }, { workers });
      expect(r.runs.map(timeless)).toEqual(local.runs.map(timeless));
    }
    for (const module of [new URL("https://example.com/experiment.mjs"), 42, null, {}]) {
      const e = await rejection(runExperimentInWorkers({ module: module as never, spec }));
      expect(isRouteKitError(e, ErrorCode.InvalidArgument), String(e)).toBe(true);
      expect(e.message).toContain("plan.module must be an absolute path or a file: URL");
    }
  });

  it("workerEntry: an absolute path or file: URL of a file that exists, else INVALID_ARGUMENT before any thread starts", async () => {
    const spec = { ...SPEC, horizon: 200, seeds: [7, 8] };
    const entry = await defaultWorkerEntry();
    const ok = await runExperimentInWorkers({ module: fixture, spec }, { workers: 2, workerEntry: entry });
    const path = await runExperimentInWorkers(
      { module: fixture, spec },
      { workers: 2, workerEntry: fileURLToPath(entry) },
    );
    expect(path.runs.map(timeless)).toEqual(ok.runs.map(timeless));
    const cases: [unknown, string][] = [
      [
        "./dist/worker.js",
        'is a relative path: build an absolute one from your file\'s location, e.g. new URL("./worker.js", import.meta.url)',
      ],
      ["dist/worker.js", "is a relative path"],
      [new URL("./fixtures/no-such-worker.js", import.meta.url), "does not exist"],
      [fileURLToPath(new URL("./fixtures/no-such-worker.js", import.meta.url)), "does not exist"],
      ["https://example.com/worker.js", "workerEntry must be"],
      [42, "workerEntry must be"],
    ];
    for (const [workerEntry, text] of cases) {
      for (const workers of [1, 2]) {
        const e = await rejection(
          runExperimentInWorkers({ module: fixture, spec }, { workers, workerEntry: workerEntry as never }),
        );
        expect(isRouteKitError(e, ErrorCode.InvalidArgument), `${String(workerEntry)}: ${String(e)}`).toBe(true);
        expect(e.message).toContain(text);
      }
    }
  });

  it("aborts through the signal: rejects with INVALID_STATE and stops reporting progress", async () => {
    const ac = new AbortController();
    const spec = { ...SPEC, horizon: 20_000 };
    let after = 0;
    const e = await rejection(
      runExperimentInWorkers(
        { module: fixture, spec },
        {
          workers: 2,
          signal: ac.signal,
          onProgress: (p) => {
            if (ac.signal.aborted) after++;
            else if (p.done >= 10_000) ac.abort();
          },
        },
      ),
    );
    expect((e as RouteKitError).code).toBe(ErrorCode.InvalidState);
    expect(e.message).toBe("experiment aborted");
    expect(after).toBe(0);

    const pre = new AbortController();
    pre.abort();
    const p = await rejection(runExperimentInWorkers({ module: fixture, spec }, { workers: 2, signal: pre.signal }));
    expect((p as RouteKitError).code).toBe(ErrorCode.InvalidState);
  });
});
