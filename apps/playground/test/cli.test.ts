import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allCommands, cliProgram } from "../src/main.js";
import { fixtureRegistry } from "./fixture.js";
import { Capture, runCli } from "./run-cli.js";

const cli = (argv: string[], isTTY = false) => runCli(argv, { registry: fixtureRegistry, isTTY });

const tmp = () => mkdtempSync(join(tmpdir(), "routekit-test-"));
const example = join(__dirname, "..", "examples", "prompts.jsonl");

describe("argument parsing and exit codes", () => {
  it("prints help for the program and every command with exit 0", async () => {
    for (const argv of [
      ["--help"],
      ["run", "--help"],
      ["compare", "--help"],
      ["replay", "--help"],
      ["list", "--help"],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(0);
      expect(r.out).toMatch(/Usage: routekit/);
    }
    // Every command's description wraps as one paragraph: a hard line break split train's and class-fit's mid-sentence
    // ("... and write" / "its snapshot ...") in `routekit --help` and in their own help.
    const program = cliProgram({ stdout: new Capture(), stderr: new Capture() }, fixtureRegistry);
    for (const c of allCommands(program).slice(1)) expect(c.description(), c.name()).not.toContain("\n");
    const c = await cli(["compare", "--help"]);
    expect(c.out).toMatch(/--param <policy.key=value>/);
    expect(c.out).toMatch(/--config <file>/);
  });

  it("`routekit help [command]` prints the same help (it was 'too many arguments', exit 2)", async () => {
    for (const [argv, same] of [
      [["help"], ["--help"]],
      [
        ["help", "compare"],
        ["compare", "--help"],
      ],
      [
        ["help", "evaluate"],
        ["evaluate", "--help"],
      ],
      [
        ["help", "check"],
        ["check", "--help"],
      ],
    ]) {
      const r = await cli(argv as string[]);
      expect(r.code, argv.join(" ")).toBe(0);
      expect(r.err, argv.join(" ")).toBe("");
      expect(r.out, argv.join(" ")).toBe((await cli(same as string[])).out);
    }
    expect((await cli(["help"])).out).toMatch(/help \[command\.\.\.\]/);
    const bad = await cli(["help", "nosuch"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^routekit: help: unknown command "nosuch" \(commands: list, run, compare, .*\)\n$/);
  });

  it("`routekit help <command> <subcommand>` (and `<command> help <subcommand>`) is `<command> <subcommand> --help`; a word that is no subcommand is bad usage saying which exist", async () => {
    const sub = await cli(["check", "assortment-lp", "--help"]);
    expect(sub.out).toMatch(/^Usage: routekit check assortment-lp \[options\]/);
    // Commander's help command read one word: these showed check's help (exit 0), or exited 2 without a word.
    for (const argv of [
      ["help", "check", "assortment-lp"],
      ["check", "help", "assortment-lp"],
    ]) {
      const r = await cli(argv);
      expect([r.code, r.err, r.out], argv.join(" ")).toEqual([0, "", sub.out]);
    }
    expect((await cli(["check", "help"])).out).toBe((await cli(["check", "--help"])).out);
    // `help help` (was "unknown command"): the program's help, which says what help does.
    const top = await cli(["--help"]);
    expect(top.out).toMatch(/help \[command\.\.\.\]/);
    expect(await cli(["help", "help"])).toMatchObject({ code: 0, out: top.out });
    const cases: [string[], string][] = [
      [
        ["help", "check", "nope"],
        'help: "nope" is not a subcommand of `routekit check` (its subcommands: assortment-lp)',
      ],
      [
        ["check", "help", "nope"],
        'help: "nope" is not a subcommand of `routekit check` (its subcommands: assortment-lp)',
      ],
      [
        ["help", "compare", "extra"],
        'help: `routekit compare` has no subcommands, got "extra" (`routekit help compare` shows its help)',
      ],
      [
        ["help", "check", "assortment-lp", "x"],
        'help: `routekit check assortment-lp` has no subcommands, got "x" (`routekit help check assortment-lp` shows its help)',
      ],
      [
        ["help", "--json"],
        'help takes command names, not options, got "--json" (routekit help [command [subcommand]])',
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect([r.code, r.err, r.out], argv.join(" ")).toEqual([2, `routekit: ${message}\n`, ""]);
    }
  });

  it("`routekit <command> help` is `<command> --help` for every command (`compare help` was 'too many arguments')", async () => {
    const program = cliProgram({ stdout: new Capture(), stderr: new Capture(), registry: fixtureRegistry });
    for (const c of program.commands) {
      const help = await cli([c.name(), "--help"]);
      expect(help.out, c.name()).toMatch(new RegExp(`^Usage: routekit ${c.name()} `));
      const r = await cli([c.name(), "help"]);
      expect([r.code, r.err, r.out], `${c.name()} help`).toEqual([0, "", help.out]);
    }
    // As `help compare extra`: a word after `help` names a subcommand, and compare has none.
    const extra = await cli(["compare", "help", "extra"]);
    expect([extra.code, extra.err, extra.out]).toEqual([
      2,
      'routekit: help: `routekit compare` has no subcommands, got "extra" (`routekit help compare` shows its help)\n',
      "",
    ]);
    // Only right after the command: an option value or a scenario's argument named "help" is not a help request.
    expect((await cli(["run", "nope", "help"])).err).toMatch(/too many arguments for 'run'/);
  });

  it("exits 2 with one line and no stack on bad usage", async () => {
    const cases: [string[], RegExp][] = [
      [["frobnicate"], /unknown command "frobnicate"/],
      [["run"], /missing required argument 'scenario'/],
      [["run", "nope"], /unknown scenario "nope" \(known: fixture-demo\)/],
      [["run", "fixture-demo", "--horizon", "0"], /--horizon must be an integer >= 1, got "0"/],
      [["run", "fixture-demo", "--seeds", "two"], /--seeds must be an integer in \[1, 10000\]/],
      // As in config files: 200,000 seeds ran out of memory (a V8 crash after minutes), now refused at once.
      [["run", "fixture-demo", "--seeds", "200000"], /--seeds must be an integer in \[1, 10000\], got "200000"/],
      // As in config files: --points 3,000,000 ran out of memory (4.5 GB) on a long horizon.
      [["run", "fixture-demo", "--points", "3000000"], /--points must be an integer in \[2, 100000\], got "3000000"/],
      [["compare", "--env", "k-armed"], /needs --policies/],
      [["compare", "--policies", "ucb1"], /needs --env/],
      [
        ["compare", "--env", "moon", "--policies", "ucb1"],
        /unknown environment "moon" \(known: k-armed, linear-contextual, replay, replay-cascade\)/,
      ],
      [["compare", "--env", "k-armed", "--policies", "ucb1,ucb9"], /unknown policy "ucb9"/],
      [
        ["compare", "--env", "k-armed", "--policies", "ucb1", "--param", "ucb1.zeta=3"],
        /ucb1 has no parameter "zeta" \(parameters: exploration\)/,
      ],
      [
        ["compare", "--env", "k-armed", "--policies", "ucb1", "--param", "ucb1.exploration=lots"],
        /ucb1.exploration must be a number, got "lots"/,
      ],
      [
        ["compare", "--env", "k-armed", "--policies", "ucb1", "--param", "random.c=1"],
        /"random" is not one of --policies/,
      ],
      [["compare", "--env", "k-armed", "--policies", "ucb1", "--param", "c=1"], /expected policy.key=value/],
      [
        ["compare", "--env", "k-armed", "--policies", "ucb1", "--env-param", "k=x"],
        /environment k-armed.k must be a number/,
      ],
      [["compare", "--env", "k-armed", "--policies", "ucb1", "--bogus"], /unknown option '--bogus'/],
      [["replay"], /required option '--data <file>' not specified/],
      // A missing data parameter is bad usage too (it was exit 1, as if the data were bad).
      [
        ["compare", "--env", "replay", "--policies", "ucb1"],
        /the replay environment needs a data file \(--env-param data=FILE\)/,
      ],
      [["replay", "--data", example, "--context", "pixels"], /Allowed choices are auto, text, embedding/],
      [["list", "planets"], /list what\? expected one of algorithms, environments, scenarios/],
      // Flags before a command were taken as the demo's and ignored: `--json compare` printed a table.
      [
        ["--json", "compare", "--env", "k-armed", "--policies", "ucb1"],
        /--json before the command: put it after `compare`/,
      ],
      [["--seeds", "2", "-q", "list"], /--seeds, --quiet before the command: put them after `list`/],
    ];
    for (const [argv, re] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err, argv.join(" ")).toMatch(re);
      expect(r.err.trim().split("\n"), argv.join(" ")).toHaveLength(1);
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(r.out).toBe("");
    }
  });

  it("exits 1 on failures: unreadable files and bad data", async () => {
    const dir = tmp();
    const bad = join(dir, "bad.jsonl");
    writeFileSync(
      bad,
      `${JSON.stringify({ prompt: "p", model: "a", score: 1 })}\n{"prompt":"p","model":"b","score":"n/a"}\n`,
    );
    const r = await cli(["replay", "--data", bad, "--policies", "random", "--out", dir, "--no-plots"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`routekit: ${bad}: replay data has 1 problem: line 2: score "n/a" is not a finite number\n`);
    const missing = await cli(["replay", "--data", join(dir, "nope.jsonl"), "--policies", "random"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no such file/);
    const cfg = await cli(["compare", "--config", join(dir, "nope.yaml")]);
    expect(cfg.code).toBe(1);
    expect(cfg.err).toMatch(/cannot read config file .*nope.yaml: ENOENT/);
  });

  it("lists everything registered, as text and JSON", async () => {
    const r = await cli(["list"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/algorithms \(3\)/);
    expect(r.out).toMatch(/linucb-disjoint\s+arm\s+LinUCB with disjoint models \[Li et al. 2010\]/);
    const j = JSON.parse((await cli(["list", "scenarios", "--json"])).out);
    expect(Object.keys(j)).toEqual(["scenarios", "groups"]);
    expect(j.groups).toEqual([]);
    expect(j.scenarios[0]).toMatchObject({
      name: "fixture-demo",
      environment: "linear-contextual",
      seeds: 2,
      horizon: 300,
    });
    expect(JSON.parse((await cli(["list", "policies", "--json"])).out).algorithms).toHaveLength(3);
  });
});

describe("runs", () => {
  it("runs a scenario with --json: summary per policy, spec, and written files", async () => {
    const dir = tmp();
    const r = await cli([
      "run",
      "fixture-demo",
      "--horizon",
      "200",
      "--seeds",
      "2",
      "--out",
      dir,
      "--json",
      "--no-plots",
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ environment: expect.any(String), protocol: "arm", horizon: 200, seeds: [0, 1] });
    expect(j.summary.map((s: { policy: string }) => s.policy)).toEqual(["random", "ucb1", "linucb"]);
    for (const s of j.summary) {
      expect(s.seeds).toBe(2);
      for (const k of ["regret", "o2b", "opr", "costPerRound", "usPerRound"]) {
        expect(Object.keys(s[k]).sort()).toEqual(["mean", "se", "std"]);
        expect(Number.isFinite(s[k].mean)).toBe(true);
      }
    }
    expect(j.spec.policies[2]).toEqual({
      label: "linucb",
      policy: "linucb-disjoint",
      params: { exploration: 0.5, ridge: 1 },
    });
    expect(j.reference).toBe("linucb beats ucb1 beats random");
    const results = JSON.parse(readFileSync(j.files.json, "utf8"));
    expect(results.runs).toHaveLength(6);
    expect(results.runs[0].series.t.at(-1)).toBe(200);
    const csv = readFileSync(j.files.summaryCsv, "utf8").trim().split("\n");
    expect(csv[0]).toMatch(/^policy,seeds,regret_mean,regret_std,regret_se,o2b_mean/);
    expect(csv).toHaveLength(4);
    expect(readFileSync(j.files.seriesCsv, "utf8")).toMatch(/^policy,metric,t,mean,se\nrandom,regret,/);
    expect(readFileSync(j.files.runsCsv, "utf8").trim().split("\n")).toHaveLength(7);
  });

  it("prints a table and plain progress lines when not on a TTY, nothing extra with --quiet", async () => {
    const dir = tmp();
    const r = await cli([
      "compare",
      "--env",
      "k-armed",
      "--policies",
      "random,ucb1",
      "--param",
      "ucb1.exploration=1",
      "--horizon",
      "500",
      "--seeds",
      "2",
      "--out",
      dir,
      "--no-plots",
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/compare k-armed: \d+% \(\d+\/2000 rounds, .* rounds\/s, ETA \d+s\)/);
    expect(r.out).toMatch(/policy\s+regret\s+O2B\s+OPR\s+reward\/round\s+µs\/round/);
    expect(r.out).toMatch(/^ucb1\s/m);
    expect(r.out).toMatch(/results: .*results.json/);
    const q = await cli([
      "compare",
      "--env",
      "k-armed",
      "--policies",
      "random",
      "--horizon",
      "50",
      "--seeds",
      "1",
      "--out",
      dir,
      "--no-plots",
      "-q",
    ]);
    expect(q.code).toBe(0);
    expect(q.err).toBe("");
    expect(q.out.trim().split("\n")).toHaveLength(3);
  });
});

describe("metrics the environment does not define, on one seed", () => {
  it("are empty cells in summary.csv, std and s.e. included (they were 0 beside an empty mean), null in results.json", async () => {
    // core's meanStd gave [NaN] a std of 0 (its n = 1 branch), so one seed wrote `,0,0` after the empty mean of
    // o2bRealised, repeatShare and the first-pass columns; three seeds wrote empty cells.
    const dir = tmp();
    const r = await cli(
      ["compare", "--env", "k-armed", "--policies", "ucb1", "--seeds", "1", "--horizon", "20"].concat([
        "--out",
        dir,
        "--no-plots",
        "-q",
      ]),
    );
    expect(r.code).toBe(0);
    const [header, row] = readFileSync(join(dir, "summary.csv"), "utf8").trim().split("\n");
    const cells = Object.fromEntries((header as string).split(",").map((h, i) => [h, (row as string).split(",")[i]]));
    for (const m of [
      "o2bRealised",
      "oprRealised",
      "repeatShare",
      "firstPassRewardPerRound",
      "firstPassO2b",
      "firstPassOpr",
    ]) {
      expect([cells[`${m}_mean`], cells[`${m}_std`], cells[`${m}_se`]], m).toEqual(["", "", ""]);
    }
    expect(cells.regret_std).toBe("0"); // a defined metric on one seed: std 0, as before
    const summary = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")).summary[0];
    expect(summary.o2bRealised).toEqual({ mean: null, std: null, se: null });
  });
});

describe("a run into an existing output directory", () => {
  const run = (dir: string, ...extra: string[]) =>
    cli([
      "compare",
      "--env",
      "k-armed",
      "--policies",
      "ucb1",
      "--horizon",
      "30",
      "--seeds",
      "1",
      "--out",
      dir,
      "-q",
      ...extra,
    ]);

  it("leaves no file of the previous run beside its own (--no-plots kept the old report and plots)", async () => {
    const dir = tmp();
    expect((await run(dir, "--no-png")).code).toBe(0);
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(["report.html", "panel.svg", "regret.svg"]));
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    expect((await run(dir, "--no-plots")).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      ["notes.txt", "pick-share.csv", "results.json", "runs.csv", "series.csv", "summary.csv"].sort(),
    );
  });

  it("a group run into a single run's directory, and the reverse, leaves none of the other kind's files", async () => {
    // The stale-file cleanup knew only its own kind's names: `run <group>` into a compare's directory kept the old
    // results.json, regret.svg and panel.svg beside the group's new report.html (and a run kept group.json and
    // figure.svg), so the directory held two experiments' numbers.
    const group = (dir: string) =>
      cli(["run", "fixture-*", "--horizon", "30", "--seeds", "1", "--out", dir, "-q", "--no-png"]);
    const a = tmp();
    expect((await run(a, "--no-png")).code).toBe(0);
    writeFileSync(join(a, "notes.txt"), "mine\n");
    expect((await group(a)).code).toBe(0);
    expect(readdirSync(a).sort()).toEqual(
      ["fixture-demo", "figure.svg", "group.json", "notes.txt", "report.html", "series.csv", "summary.csv"].sort(),
    );
    const b = tmp();
    expect((await group(b)).code).toBe(0);
    expect((await run(b, "--no-plots")).code).toBe(0);
    expect(readdirSync(b).sort()).toEqual(
      ["fixture-demo", "pick-share.csv", "results.json", "runs.csv", "series.csv", "summary.csv"].sort(),
    );
  });

  it("an output file that cannot be written fails with exit 1 naming the directory, not as an unexpected error", async () => {
    // A directory where results.json goes: the rename failed with EISDIR, reported as "unexpected error: ... (set
    // ROUTEKIT_DEBUG=1 for a stack trace)" as if RouteKit had a bug.
    const dir = tmp();
    mkdirSync(join(dir, "results.json"));
    const r = await run(dir, "--no-plots");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^routekit: cannot write outputs to .*: .*EISDIR.*results\.json.*\n$/);
    expect(r.err).not.toContain("unexpected");
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("touches nothing in a directory that holds no RouteKit run (its own report.html stays)", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "report.html"), "<p>mine</p>\n");
    writeFileSync(join(dir, "regret.png"), "mine\n");
    expect((await run(dir, "--no-plots")).code).toBe(0);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toBe("<p>mine</p>\n");
    expect(readFileSync(join(dir, "regret.png"), "utf8")).toBe("mine\n");
  });
});

describe("routekit check assortment-lp", () => {
  it("cross-checks Dinkelbach against the HiGHS LP at a tiny size, exit 0, text and JSON", async () => {
    const r = await cli(["check", "assortment-lp", "--instances", "8", "--items", "6"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/instances checked: +8 \(N in \[1, 6\], K in \[1, N\]/);
    expect(r.out).toMatch(/max \|revenue difference\|: \d\.\d\de[-+]\d+ \(tolerance 1e-7\)/);
    expect(r.out).toMatch(/result: agree/);
    const j = await cli(["check", "assortment-lp", "--instances", "6", "--items", "8", "--k", "2", "--json"]);
    expect(j.code).toBe(0);
    const rep = JSON.parse(j.out);
    expect(rep).toMatchObject({ instances: 6, items: 8, k: 2, mismatches: 0, agree: true });
    expect(rep.maxRevenueGap).toBeLessThan(1e-9);
  });

  it("exits 1 with one line on disagreement and 2 on bad usage", async () => {
    // Tolerance 0 counts last-bit rounding differences (measured: 9 of these 20 instances differ by ~2e-16).
    const r = await cli([
      "check",
      "assortment-lp",
      "--instances",
      "20",
      "--items",
      "12",
      "--k",
      "3",
      "--tolerance",
      "0",
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/result: DISAGREE/);
    expect(r.err).toMatch(/^routekit: assortment LP cross-check: \d+ of 20 instances disagree .*\n$/);
    expect((await cli(["check"])).err).toMatch(
      /check what\? give a check's name; the checks are:\n {2}assortment-lp {2}cross-check/,
    );
    expect((await cli(["check", "lp"])).code).toBe(2);
    const bad = await cli(["check", "assortment-lp", "--k", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--k must be an integer >= 1/);
    expect((await cli(["check", "assortment-lp", "--help"])).out).toMatch(/--instances <n>/);
  });
});
