import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const cli = join(__dirname, "..", "dist", "cli.js");
const example = join(__dirname, "..", "examples", "prompts.jsonl");

async function routekit(args: string[], cwd: string) {
  try {
    const r = await run(process.execPath, [cli, ...args], { cwd, env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

// The built bin, as a user runs it (turbo builds before tests; run `npx tsup` first when testing locally).
describe.runIf(existsSync(cli))("the built routekit bin", () => {
  it("has a shebang and runs replay on the shipped example in worker threads", async () => {
    expect(readFileSync(cli, "utf8").startsWith("#!/usr/bin/env node")).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "routekit-bin-"));
    const r = await routekit(
      [
        "replay",
        "--data",
        example,
        "--policies",
        "random,ucb1",
        "--seeds",
        "2",
        "--horizon",
        "300",
        "--workers",
        "2",
        "--json",
      ],
      dir,
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.summary.map((s: { policy: string }) => s.policy)).toEqual(["random", "ucb1"]);
    expect(j.notes.prompts).toBe(200);
    expect(j.files.dir).toBe(join(dir, "routekit-out", "replay"));
    expect(existsSync(j.files.report)).toBe(true);
    expect(readFileSync(j.files.plots.panel.png).subarray(1, 4).toString()).toBe("PNG");
  });

  it("runs the root README's evaluate command as written (from the repository root)", async () => {
    const root = join(__dirname, "..", "..", "..");
    const line = readFileSync(join(root, "README.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("node apps/playground/dist/cli.js evaluate "));
    expect(line).toBeDefined();
    const args = (line as string).split("#")[0]?.trim().split(/\s+/).slice(2) as string[];
    const r = await routekit(args, root);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^linucb-disjoint +0\.\d{4} /m);
    expect(r.out).toMatch(/^logging policy \(logged mean\) +0\.6478 /m);
  });

  it("exits 2 on bad usage and 1 on bad data, with one line on stderr", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-bin-"));
    const bad = await routekit(["compare", "--env"], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^routekit: option '--env <name>' argument missing \(see routekit --help\)\n$/);
    const data = await routekit(["replay", "--data", join(__dirname, "..", "package.json")], dir);
    expect(data.code).toBe(1);
    expect(data.err.trim().split("\n")).toHaveLength(1);
    expect(data.err).toMatch(/^routekit: .*package\.json: replay data has \d+ problems?: line 1:/);
  });
});

describe.runIf(existsSync(cli))("the built routekit bin writing into a closed pipe", () => {
  // `routekit list | head -3`: the reader exits early and the pipe closes under the CLI's writes.
  it("stops quietly (exit 0, nothing on stderr), not with an unhandled EPIPE and a stack trace", async () => {
    const { spawn } = await import("node:child_process");
    const dir = mkdtempSync(join(tmpdir(), "routekit-pipe-"));
    const child = spawn(process.execPath, [cli, "list"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // closed before the CLI writes its first line
    let err = "";
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString();
    });
    const how = await new Promise<string>((r) => child.on("close", (code, signal) => r(`${code} ${signal}`)));
    expect(err).toBe("");
    expect(how).toBe("0 null");
  }, 30_000);

  it("a run whose stderr reader went away still finishes: results written, table printed, exit 0", async () => {
    const { spawn } = await import("node:child_process");
    const dir = mkdtempSync(join(tmpdir(), "routekit-pipe-"));
    const out = join(dir, "demo");
    // The demo writes a line to stderr at once, into the closed pipe.
    const args = [cli, "--seeds", "1", "--horizon", "300", "--workers", "1", "--no-plots", "--out", out];
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    child.stderr.destroy();
    let stdout = "";
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
    });
    const how = await new Promise<string>((r) => child.on("close", (code, signal) => r(`${code} ${signal}`)));
    expect(how).toBe("0 null");
    expect(existsSync(join(out, "results.json"))).toBe(true);
    expect(stdout).toMatch(/^LinUCB disjoint /m);
  }, 60_000);
});

describe.runIf(existsSync(cli))("the built routekit bin on Ctrl-C", () => {
  // A run in-process (--workers 1) keeps the event loop busy, so no handler could print a line: Ctrl-C ends
  // the process by the signal itself (a shell reports exit code 130), at once and without a stack trace.
  it("ends a run at once, by the signal (shell exit code 130), without a stack trace, workers included", async () => {
    const { spawn } = await import("node:child_process");
    const dir = mkdtempSync(join(tmpdir(), "routekit-int-"));
    for (const workers of ["1", "2"]) {
      const child = spawn(
        process.execPath,
        [
          cli,
          "compare",
          "--env",
          "k-armed",
          "--policies",
          "ucb1",
          "--seeds",
          "4",
          "--horizon",
          "50000000",
          "--workers",
          workers,
        ],
        { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
      );
      let err = "";
      const done = new Promise<string>((r) => child.on("exit", (code, signal) => r(`${code} ${signal}`)));
      await new Promise<void>((r) =>
        child.stderr.on("data", (b: Buffer) => {
          err += b.toString();
          if (err.includes("rounds")) r();
        }),
      );
      child.kill("SIGINT");
      // Only a guard: a process that outlived its SIGINT is killed and reported as "null SIGKILL".
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const how = await done;
      clearTimeout(timer);
      // Ended by the signal itself, not by a handler's exit (which a test of 'within 5 s' timed on a loaded machine).
      expect(how).toBe("null SIGINT");
      expect(err).not.toMatch(/\n\s+at |Error/);
    }
  }, 60_000);
});

/**
 * Runs the bin with `args` and sends `signal` when a temporary file appears in `watched` (an output being written):
 * resolves `${exit code} ${signal}` when it ends (SIGKILL after 50 s).
 */
async function signalWhileWriting(args: string[], cwd: string, watched: string, signal: NodeJS.Signals) {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const done = new Promise<string>((r) => child.on("exit", (code, sig) => r(`${code} ${sig}`)));
  const watcher = watch(watched, (_event, name) => {
    if (typeof name === "string" && name.endsWith(".tmp")) child.kill(signal);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  const how = await done;
  clearTimeout(timer);
  watcher.close();
  return how;
}

/**
 * Runs `args` with `signal` sent while an output is written: the process ends by the signal, leaves no temporary file
 * in `out`, and `json` there (when written) parses whole; `out` is emptied for the next run.
 */
async function expectEndedBetweenFiles(args: string[], cwd: string, out: string, signal: NodeJS.Signals, json: string) {
  const how = await signalWhileWriting(args, cwd, out, signal);
  expect(how, signal).toBe(`null ${signal}`);
  const left = readdirSync(out);
  expect(
    left.filter((f) => f.endsWith(".tmp")),
    signal,
  ).toEqual([]);
  if (left.includes(json)) expect(() => JSON.parse(readFileSync(join(out, json), "utf8"))).not.toThrow();
  for (const f of left) rmSync(join(out, f));
}

describe.runIf(existsSync(cli))("the built routekit bin on Ctrl-C while writing its outputs", () => {
  // Each output file is written to a temporary name and renamed into place; a signal that ended the process inside
  // that write left the temporary file behind (`.results.json.<pid>.1.tmp`, tens of MB, half written). Signals that
  // arrive while the outputs are written now end the process between two files, by the signal itself.
  it("leaves no temporary file: each output is whole or absent, and the process still ends by the signal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-int-write-"));
    const out = join(dir, "out");
    mkdirSync(out);
    try {
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        // A results.json of about 35 MB: its write takes long enough for the signal to land inside it.
        const args = ["compare", "--env", "k-armed", "--policies", "ucb1,random", "--seeds", "2"];
        args.push("--horizon", "20000", "--points", "20000", "--workers", "1", "--no-plots", "--out", out, "-q");
        // results.json is written first: whatever else is there, it is a whole file.
        await expectEndedBetweenFiles(args, dir, out, signal, "results.json");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("train: a signal while the snapshot is written leaves it whole or absent, no temporary file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-int-train-"));
    const out = join(dir, "out");
    mkdirSync(out);
    // LinUCB at d = 512 over 3 arms: an 8 MB snapshot from 60 events (a write long enough to land a signal in).
    const events = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({
        v: 1,
        kind: "hpg/log-linear-pg",
        protocol: "arm",
        id: `d${i}`,
        decision: {
          arm: ["a", "b", "c"][i % 3],
          context: Array.from({ length: 512 }, (_, j) => Math.sin(i * 7 + j) / 22.6),
          propensity: 1 / 3,
          state: { arms: ["a", "b", "c"], probs: [1 / 3, 1 / 3, 1 / 3] },
        },
        feedback: { reward: (i % 5) / 5 },
      }),
    );
    const log = join(dir, "events.jsonl");
    writeFileSync(log, `${events.join("\n")}\n`);
    try {
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        const snap = join(out, "snap.json");
        const args = ["train", "--events", log, "--policy", "linucb-disjoint", "--out", snap, "-q"];
        await expectEndedBetweenFiles(args, dir, out, signal, "snap.json");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
