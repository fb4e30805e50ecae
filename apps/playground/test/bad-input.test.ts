/**
 * Bad input found by an adversarial audit: each ends with one line on stderr and the documented exit code
 * (1 failure, 2 bad usage), before any experiment runs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "routekit-bad-input-"));
const file = join(dir, "a-file");
writeFileSync(file, "not a directory\n");
mkdirSync(join(dir, "a-dir"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const small = ["--seeds", "1", "--horizon", "10", "--workers", "1", "--no-plots"];

async function expectOneLine(argv: string[], code: number, re: RegExp): Promise<void> {
  const r = await runCli(argv);
  expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(code);
  expect(r.err).toMatch(re);
  expect(r.err.trim().split("\n"), r.err).toHaveLength(1);
  expect(r.err).not.toMatch(/\n\s+at |unexpected error/);
  // Nothing ran: no run prints its table or progress first (this was a 20 s wall-clock bound; a run for hours or out
  // of memory still fails by the test's timeout).
  expect(r.out, argv.join(" ")).toBe("");
}

describe("bad input ends with one clear line and the documented exit code", () => {
  it("a replay featurizer or order value the library refuses is bad usage (exit 2), not a data failure (exit 1)", async () => {
    // Found: `--dim 1000000000` exited 1 ("featurizer dim must be in [1, 1048576]"), as if the file were bad.
    const data = join(__dirname, "..", "examples", "prompts.jsonl");
    const out = ["--out", join(dir, "replay-params")];
    await expectOneLine(
      ["replay", "--data", data, ...small, ...out, "--dim", "1048577"],
      2,
      /--dim must be an integer in \[1, 1048576\], got "1048577"/,
    );
    for (const [param, re] of [
      ["dim=1000000000", /environment replay \{.*\}: featurizer dim must be in \[1, 1048576\]/],
      ["wordNgrams=9", /environment replay \{.*\}: featurizer wordNgrams/],
      ["charMin=9", /environment replay \{.*\}: .*char/],
      ["order=random", /order must be "shuffle" or "sequential", got "random"/],
    ] as const) {
      const argv = ["compare", "--env", "replay", "--env-param", `data=${data}`, "--env-param", param];
      await expectOneLine([...argv, "--policies", "ucb1", ...small, ...out], 2, re);
    }
    const cascade = ["compare", "--env", "replay-cascade", "--env-param", `data=${data}`, "--policies", "query-all"];
    await expectOneLine(
      [...cascade, "--env-param", "costWeight=0", ...small, ...out],
      2,
      /costWeight must be a finite/,
    );
    // The data's own problems stay failures (exit 1).
    await expectOneLine(["replay", "--data", file, ...small, ...out], 1, /replay data has/);
  });

  it("replay lists bad rows and prompts missing a model together, as the README's example message (exit 1)", async () => {
    // Found: the prompts missing a model were checked only when no row had a problem of its own, so this file
    // reported line 3 alone, not the README's two problems.
    const rust = "Write a Rust function that parses a date.";
    const rows = [
      { prompt: rust, model: "coder-7b", score: 0.91, cost: 0.2 },
      { prompt: rust, model: "generalist-70b", score: 0.72, cost: 1.0 },
      { prompt: rust, model: "math-13b", score: "high", cost: 0.3 },
      { prompt: "Solve x^2 = 4", model: "coder-7b", score: 0.5, cost: 0.2 },
      { prompt: "Solve x^2 = 4", model: "generalist-70b", score: 0.9, cost: 1.0 },
      { prompt: "Solve x^2 = 4", model: "math-13b", score: 0.95, cost: 0.3 },
      { prompt: "Who wrote Middlemarch?", model: "generalist-70b", score: 0.9, cost: 1.0 },
      { prompt: "Who wrote Middlemarch?", model: "math-13b", score: 0.1, cost: 0.3 },
    ];
    const data = join(dir, "readme-example.jsonl");
    writeFileSync(data, rows.map((r) => JSON.stringify(r)).join("\n"));
    const readme = readFileSync(join(__dirname, "..", "README.md"), "utf8").replace(/\s+/g, " ");
    const quoted = /e\.g\. `logs\.jsonl: (replay data has 2 problems: [^`]+)`/.exec(readme)?.[1] as string;
    expect(quoted).toMatch(/line 3: .*; line 7: /);
    const r = await runCli(["replay", "--data", data, ...small, "--out", join(dir, "readme-example")]);
    expect([r.code, r.err, r.out]).toEqual([1, `routekit: ${data}: ${quoted}\n`, ""]);
  });

  it("an environment arm count no policy takes is bad usage (k = 1e9 used to run out of memory)", async () => {
    for (const env of ["k-armed", "linear-contextual"]) {
      await expectOneLine(
        ["compare", "--env", env, "--policies", "ucb1", "--env-param", "k=1e9", ...small],
        2,
        /k must be at most 65536/,
      );
    }
  });

  it("a reward noise or Gaussian mean no draw survives is bad usage before any run (it failed every run, exit 1)", async () => {
    // noiseSd = 1e308 was accepted and every run stopped at its first pull ("normal(mean, sd) needs |mean| + 8.6 sd
    // <= ...", exit 1); means of +-1e308 gave an infinite regret at round 1.
    const gaussian = ["--env-param", "rewards=gaussian"];
    await expectOneLine(
      ["compare", "--env", "k-armed", "--policies", "ucb1", ...gaussian, "--env-param", "noiseSd=1e308", ...small],
      2,
      /noiseSd must be .*1e\+?100/,
    );
    await expectOneLine(
      ["compare", "--env", "linear-contextual", "--policies", "ucb1", "--env-param", "noiseSd=1e308", ...small],
      2,
      /noiseSd must be .*1e\+?100/,
    );
    const means = ["--env-param", "k=2", "--env-param", "means=1e308,-1e308"];
    await expectOneLine(
      ["compare", "--env", "k-armed", "--policies", "ucb1", ...gaussian, ...means, ...small],
      2,
      /means\[\] must be .*1e\+?100/,
    );
  });

  it("a Monte-Carlo sample count that would run for hours is bad usage", async () => {
    await expectOneLine(
      ["compare", "--env", "linear-contextual", "--policies", "ucb1", "--env-param", "mcSamples=1e12", ...small],
      2,
      /mcSamples must be at most 10000000/,
    );
  });

  it("an --out that is a file, or under a file, fails before the run (it was an 'unexpected error' after it)", async () => {
    for (const out of [file, join(file, "sub")]) {
      await expectOneLine(
        ["compare", "--env", "k-armed", "--policies", "ucb1", ...small, "--out", out],
        1,
        /cannot write outputs to .*a-file is a file, not a directory/,
      );
    }
    await expectOneLine(["class-fit", "--seeds", "1", "--out", file], 1, /is a file, not a directory/);
  });

  it("an empty --out is bad usage, for every command that writes (it wrote results.json into the current directory)", async () => {
    const cases = [
      ["compare", "--env", "k-armed", "--policies", "ucb1", ...small, "--out", ""],
      ["run", "classic-demo", ...small, "--out", ""],
      ["--out", "", ...small],
      ["class-fit", "--seeds", "1", "--out", ""],
      ["train", "--events", file, "--policy", "ucb1", "--out", ""],
    ];
    for (const argv of cases) await expectOneLine(argv, 2, /--out must be a non-empty path, got ""/);
  });

  it("train --out: a directory or a path under a file fails before reading the log; a new directory is created", async () => {
    const events = join(__dirname, "..", "examples", "events.jsonl");
    for (const [out, re] of [
      [join(dir, "a-dir"), /cannot write the snapshot to .*a-dir: it is a directory/],
      [join(file, "s.json"), /cannot write outputs to .*a-file is a file, not a directory/],
    ] as const) {
      // the events file is unreadable too: the --out error comes first, before the log is read
      await expectOneLine(["train", "--events", join(dir, "missing.jsonl"), "--policy", "ucb1", "--out", out], 1, re);
    }
    const out = join(dir, "new dir", "ü", "snap.json");
    const r = await runCli(["train", "--events", events, "--policy", "ucb1", "--out", out, "-q"]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).kind).toBe("classic/ucb1");
  });

  it("replay --data naming a directory says so", async () => {
    await expectOneLine(
      ["replay", "--data", join(dir, "a-dir"), ...small],
      1,
      /cannot read replay data file .*not a regular file/,
    );
  });

  it("class-fit values the environment refuses are bad usage (exit 2), found before fitting", async () => {
    await expectOneLine(["class-fit", "--rank", "100"], 2, /class-fit .*"rank":100.*latentRank/);
    await expectOneLine(["class-fit", "--dim", "100000"], 2, /class-fit .*"dim":100000.*contextDim/);
    // Sizes the fit refused only after sampling (exit 1, "n must be in ...") or that crashed allocating ("unexpected
    // error: Invalid typed array length") are bad usage before any work.
    await expectOneLine(["class-fit", "--queries", "1000000000"], 2, /--queries must be an integer in \[4, 10000000\]/);
    await expectOneLine(
      ["class-fit", "--iterations", "1000000000"],
      2,
      /--iterations must be an integer in \[1, 1000000\]/,
    );
    for (const dim of ["64", "4096"]) {
      await expectOneLine(
        ["class-fit", "--seeds", "1", "--queries", "10000000", "--dim", dim],
        2,
        /class-fit: 10000000 queries at d = \d+ need tables of .* numbers per seed \(at most 1e\+8/,
      );
    }
  });
  it("replay --models naming a model twice is bad usage naming --models and the model", async () => {
    // Found: `--models a,a` blamed another option ("option models" / `policy random`), not --models.
    const data = join(dir, "two-models.csv");
    writeFileSync(data, "prompt,model,score\nhi,a,1\nhi,b,0\nyo,a,1\nyo,b,1\n");
    await expectOneLine(
      ["replay", "--data", data, ...small, "--out", join(dir, "models-twice"), "--models", "a,b,a"],
      2,
      /--models names "a" twice/,
    );
  });

  it("an events file of binary bytes is named as such, with no control character echoed to stderr", async () => {
    // Found: a gzip file's bytes were echoed into the message ("Unexpected token '\x1f', ...").
    const gz = join(dir, "events.jsonl.gz");
    writeFileSync(gz, gzipSync('{"v":1}\n'));
    const bin = join(dir, "events.bin");
    writeFileSync(bin, Buffer.from([0x01, 0x02, 0x7b, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x0a]));
    // The C0 and C1 control characters in s, the line end aside.
    const control = (s: string) =>
      [...s].filter((c) => {
        const k = c.charCodeAt(0);
        return (k < 0x20 && c !== "\n") || (k >= 0x7f && k <= 0x9f);
      });
    for (const command of ["train", "evaluate"]) {
      const out = command === "train" ? ["--out", join(dir, "snap.json")] : [];
      const g = await runCli([command, "--events", gz, "--policy", "ucb1", ...out]);
      expect(g.code).toBe(1);
      expect(g.err).toMatch(/events\.jsonl\.gz is gzip-compressed: decompress it first/);
      expect(control(g.err)).toEqual([]);
      const b = await runCli([command, "--events", bin, "--policy", "ucb1", ...out]);
      expect(b.code).toBe(1);
      expect(b.err).toMatch(/line 1: not JSON/);
      expect(b.err).toMatch(/\\u0001/);
      expect(control(b.err)).toEqual([]);
      // Skipped lines are listed escaped too.
      const s = await runCli([command, "--events", bin, "--policy", "ucb1", "--skip-invalid", ...out]);
      expect(control(s.err)).toEqual([]);
    }
  });
});
