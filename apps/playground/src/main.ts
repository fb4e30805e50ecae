import { isRouteKitError } from "@routekit/core";
import { Command, CommanderError, Option } from "commander";
import {
  COMPARE_HORIZON,
  COMPARE_SEEDS,
  type CommandResult,
  type CommonOptions,
  compare,
  replay,
  runGroup,
  runScenario,
} from "./api.js";
import { checkAssortmentLP, formatAssortmentCheck } from "./check.js";
import { checkClassFitOptions, formatClassFit, runClassFit, writeClassFit } from "./class-fit.js";
import { addLogCommands } from "./cli-logs.js";
import {
  addCommon,
  type CliIo,
  type CommonFlags,
  collect,
  int,
  nonNegative,
  parseParams,
  path,
  rows,
} from "./cli-options.js";
import { configToSpec, readCompareConfig } from "./config.js";
import { CliFailure, oneLine, UsageError } from "./errors.js";
import { citation, paramType, plural, summaryTable } from "./format.js";
import { type GroupResult, scenarioGroups, selectScenarios } from "./group.js";
import { numberText } from "./number-text.js";
import { checkOutDir, withSignalsBetweenWrites } from "./out-dir.js";
import { hasCost } from "./output.js";
import { createProgress, type ProgressMode, type ProgressSink } from "./progress.js";
import { formatReferenceChecks, referenceCount, VERDICT_RULE } from "./reference.js";
import { registry as defaultRegistry } from "./registry/index.js";
import type { FamilyRegistry } from "./registry/types.js";
import { findEnvironment, findPolicy, fromUserParams } from "./spec.js";

export const VERSION = "0.1.0";

export type { CliIo } from "./cli-options.js";

const DEMO_SCENARIO = "classic-demo";

class Runner {
  constructor(private readonly io: CliIo) {}

  private progressMode(f: CommonFlags): ProgressMode {
    if (f.json || f.quiet) return "none";
    return this.io.isTTY ? "bar" : "lines";
  }

  info(f: CommonFlags, s: string): void {
    if (!f.json && !f.quiet) this.io.stderr.write(`${s}\n`);
  }

  private options(f: CommonFlags, outDefault: string): CommonOptions {
    checkOutDir(f.out ?? outDefault); // before any run: a bad --out fails at once, not after the experiment
    return {
      ...(f.seeds !== undefined ? { seeds: f.seeds } : {}),
      ...(f.horizon !== undefined ? { horizon: f.horizon } : {}),
      ...(f.points !== undefined ? { points: f.points } : {}),
      ...(f.workers !== undefined ? { workers: f.workers } : {}),
      ...(this.io.registry ? { registry: this.io.registry } : {}),
      out: f.out ?? outDefault,
      plots: f.plots !== false,
      png: f.png !== false,
    };
  }

  /** `routekit run <group | glob>`: every member with its own progress bar, then the combined outputs. */
  async executeGroup(name: string, f: CommonFlags, outDefault: string): Promise<void> {
    let progress: ProgressSink | undefined;
    let res: GroupResult;
    try {
      res = await runGroup(name, {
        ...this.options(f, outDefault),
        onProgress: (p) => progress?.update(p),
        onMember: (i, n, s) => {
          progress?.stop();
          progress = createProgress(this.progressMode(f), this.io.stderr, `${name} ${i + 1}/${n} ${s.name}`);
        },
      });
    } finally {
      progress?.stop();
    }
    if (f.json) {
      const payload = {
        group: res.name,
        title: res.title,
        members: res.members.map((m) => ({
          scenario: m.scenario.name,
          panel: m.panel,
          title: m.result.title,
          environment: m.result.result.environment,
          protocol: m.result.result.protocol,
          horizon: m.result.result.horizon,
          seeds: m.result.spec.seeds,
          spec: m.result.spec,
          summary: m.result.result.summary,
          ...(m.result.reference ? { reference: m.result.reference } : {}),
          ...(m.result.referenceChecks ? { referenceChecks: m.result.referenceChecks } : {}),
          ...(m.result.referenceSkipped ? { referenceSkipped: m.result.referenceSkipped } : {}),
          files: m.result.files ?? null,
        })),
        files: res.files ?? null,
      };
      this.io.stdout.write(`${JSON.stringify(payload, null, 2)}\n`);
      return;
    }
    if (!f.quiet) this.io.stdout.write(`\n${res.title}\n`);
    for (const m of res.members) {
      this.io.stdout.write(`\n${f.quiet ? m.scenario.name : `${m.panel} (${m.result.title})`}\n`);
      this.io.stdout.write(`${summaryTable(m.result.result.summary, hasCost(m.result.result))}\n`);
      if (!f.quiet && m.result.reference) this.io.stdout.write(`reference: ${m.result.reference}\n`);
      if (m.result.referenceChecks?.length) {
        const one = res.members.length === 1;
        this.io.stdout.write(`against the reference:\n${formatReferenceChecks(m.result.referenceChecks, one)}\n`);
      }
      if (!f.quiet && m.result.referenceSkipped) this.io.stdout.write(`(${m.result.referenceSkipped})\n`);
    }
    const checks = res.members.flatMap((m) => m.result.referenceChecks ?? []);
    if (checks.length > 0 && res.members.length > 1) {
      this.io.stdout.write(`\n${res.name}: ${referenceCount(checks)}\n(${VERDICT_RULE})\n`);
    }
    if (f.quiet) return;
    this.io.stdout.write("(mean ± s.e. over seeds; regret vs the per-round oracle, O2B vs the best single arm)\n");
    if (res.files) {
      if (res.files.fontWarning) this.io.stderr.write(`warning: ${res.files.fontWarning}\n`);
      this.io.stdout.write(`\nresults: ${res.files.json} (each scenario's own outputs in its subdirectory)\n`);
      if (res.files.report) this.io.stdout.write(`report:  ${res.files.report}\n`);
      if (res.files.figure) this.io.stdout.write(`figure:  ${res.files.figure.png ?? res.files.figure.svg}\n`);
    }
  }

  async execute(
    label: string,
    f: CommonFlags,
    outDefault: string,
    run: (opts: CommonOptions) => Promise<CommandResult>,
  ): Promise<void> {
    const progress = createProgress(this.progressMode(f), this.io.stderr, label);
    const opts: CommonOptions = { ...this.options(f, outDefault), onProgress: (p) => progress.update(p) };
    let res: CommandResult;
    try {
      res = await run(opts);
    } finally {
      progress.stop();
    }
    this.report(res, f);
  }

  private report(res: CommandResult, f: CommonFlags): void {
    const { result, spec, files } = res;
    if (f.json) {
      const payload = {
        title: res.title,
        environment: result.environment,
        protocol: result.protocol,
        horizon: result.horizon,
        seeds: spec.seeds,
        spec,
        summary: result.summary,
        ...(res.reference ? { reference: res.reference } : {}),
        ...(res.referenceChecks ? { referenceChecks: res.referenceChecks } : {}),
        ...(res.referenceSkipped ? { referenceSkipped: res.referenceSkipped } : {}),
        ...(res.notes ? { notes: res.notes } : {}),
        files: files ?? null,
      };
      this.io.stdout.write(`${JSON.stringify(payload, null, 2)}\n`);
      return;
    }
    if (!f.quiet) this.io.stdout.write(`\n${res.title}\n`);
    this.io.stdout.write(`${summaryTable(result.summary, hasCost(result))}\n`);
    if (res.referenceChecks?.length) {
      this.io.stdout.write(`against the reference:\n${formatReferenceChecks(res.referenceChecks)}\n`);
    }
    if (!f.quiet && res.referenceSkipped) this.io.stdout.write(`(${res.referenceSkipped})\n`);
    if (f.quiet) return;
    this.io.stdout.write(
      `(${plural(spec.seeds.length, "seed")} x ${plural(spec.horizon, "round")}; mean ± s.e. over seeds; ${
        result.summary.some((p) => p.queriesPerRound !== undefined)
          ? "regret vs Weitzman's oracle (reward - costs), OPR = share of requests at the oracle's utility"
          : "regret vs the per-round oracle, O2B vs the best single arm"
      })\n`,
    );
    if (res.reference) this.io.stdout.write(`reference: ${res.reference}\n`);
    if (files) {
      if (files.fontWarning) this.io.stderr.write(`warning: ${files.fontWarning}\n`);
      this.io.stdout.write(`\nresults: ${files.json}\n`);
      if (files.report) this.io.stdout.write(`report:  ${files.report}\n`);
      if (files.plots.panel) this.io.stdout.write(`plot:    ${files.plots.panel.png ?? files.plots.panel.svg}\n`);
    }
  }
}

function buildProgram(io: CliIo, reg: FamilyRegistry): Command {
  const r = new Runner(io);
  const program = new Command("routekit")
    .description(
      "Run and compare online-learning routers (which model serves each request) on simulated or logged data.\n" +
        "With no command, runs a short demo and writes its plots under ./routekit-out/.",
    )
    .version(VERSION)
    .showSuggestionAfterError(true)
    .enablePositionalOptions()
    // Commander adds no help command to a program that has its own action (the demo): `routekit help compare` was
    // "too many arguments".
    .helpCommand("help [command...]", "show the help of a command, or of a subcommand (help check assortment-lp)");
  addCommon(program, {
    outHint: "routekit-out/demo",
    seedsHint: "3, or fewer when the demo scenario has fewer",
    horizonHint: "the demo scenario's",
  });
  // With positional options, flags before a command are the demo's own: `routekit --json compare ...` printed a table
  // (and progress) as if --json had not been given. They belong after the command.
  program.hook("preSubcommand", (cmd, sub) => {
    const given = cmd.options
      .filter((o) => cmd.getOptionValueSource(o.attributeName()) === "cli")
      .map((o) => o.long ?? o.short ?? o.name());
    if (given.length > 0) {
      throw new UsageError(
        `${given.join(", ")} before the command: put ${given.length === 1 ? "it" : "them"} after \`${sub.name()}\` (\`routekit ${sub.name()} ${given[0]} ...\`)`,
      );
    }
  });
  program.action(async (f: CommonFlags) => {
    const s =
      reg.scenarios.find((x) => x.name === DEMO_SCENARIO) ??
      reg.scenarios.find((x) => x.protocol === "arm") ??
      reg.scenarios[0];
    if (!s) throw new CliFailure("no scenarios are registered yet, so there is no demo to run (see `routekit list`)");
    r.info(f, `routekit demo: scenario "${s.name}" (${s.description}). Try \`routekit --help\` for more.`);
    // A few seeds keep the demo to a few seconds on 2 cores; --seeds asks for more.
    const demo = { ...f, seeds: f.seeds ?? Math.min(3, s.seeds) };
    await r.execute("demo", demo, "routekit-out/demo", (o) => runScenario(s.name, o));
  });

  program
    .command("list")
    .description("list registered algorithms, environments and scenarios, with the paper each comes from")
    .argument("[what]", "algorithms | environments | scenarios (default: all)")
    .argument("[name]", "one algorithm or environment: list its parameters with their types and defaults")
    .option("--json", "machine-readable output")
    .option("-q, --quiet", "names only, one per line")
    .action((what: string | undefined, name: string | undefined, f: { json?: boolean; quiet?: boolean }) => {
      const kinds = ["algorithms", "environments", "scenarios"] as const;
      const alias: Record<string, (typeof kinds)[number]> = {
        policies: "algorithms",
        algorithm: "algorithms",
        environment: "environments",
        envs: "environments",
        scenario: "scenarios",
      };
      const w = what === undefined ? undefined : (alias[what] ?? what);
      if (w !== undefined && !(kinds as readonly string[]).includes(w)) {
        throw new UsageError(`list what? expected one of ${kinds.join(", ")}, got "${what}"`);
      }
      if (name !== undefined) {
        if (w !== "algorithms" && w !== "environments") {
          throw new UsageError(`list ${what ?? ""} NAME: parameters are listed for algorithms and environments only`);
        }
        const entry = w === "algorithms" ? findPolicy(reg, name) : findEnvironment(reg, name);
        const params = Object.entries(entry.defaults).map(([key, value]) => ({
          name: key,
          type: paramType(value),
          default: value,
        }));
        if (f.json) {
          io.stdout.write(
            `${JSON.stringify({ name: entry.name, protocol: entry.protocol, parameters: params }, null, 2)}\n`,
          );
          return;
        }
        if (f.quiet) {
          for (const p of params) io.stdout.write(`${p.name}\n`);
          return;
        }
        io.stdout.write(`${entry.name} (${entry.protocol}, ${entry.family}): ${entry.description}\n`);
        if (entry.paper) io.stdout.write(`paper: ${citation(entry.paper)}\n`);
        const flag = w === "algorithms" ? `--param ${entry.name}.KEY=VALUE` : "--env-param KEY=VALUE";
        io.stdout.write(`parameters (${params.length}; override with ${flag}):\n`);
        if (params.length === 0) io.stdout.write("  (none)\n");
        rows(
          io,
          params.map((p) => [p.name, p.type, JSON.stringify(p.default)]),
          ["name", "type", "default"],
        );
        return;
      }
      const show = w ? [w] : [...kinds];
      const data = {
        algorithms: reg.policies.map((p) => ({
          name: p.name,
          protocol: p.protocol,
          family: p.family,
          paper: p.paper ? citation(p.paper) : null,
          description: p.description,
          defaults: p.defaults,
        })),
        environments: reg.environments.map((e) => ({
          name: e.name,
          protocol: e.protocol,
          family: e.family,
          paper: e.paper ? citation(e.paper) : null,
          description: e.description,
          defaults: e.defaults,
        })),
        scenarios: reg.scenarios.map((s) => ({
          name: s.name,
          protocol: s.protocol,
          paper: s.paper ? citation(s.paper) : null,
          description: s.description,
          environment: s.environment.name,
          policies: s.policies.map((p) => p.label),
          seeds: s.seeds,
          horizon: s.horizon,
          group: s.group ?? null,
          panel: s.panel ?? null,
        })),
      };
      const groups = scenarioGroups(reg);
      const groupData = groups.map((g) => ({
        name: g.name,
        scenarios: g.scenarios.map((s) => s.name),
        panels: g.scenarios.map((s) => s.panel ?? s.name),
      }));
      if (f.json) {
        const out: Record<string, unknown> = Object.fromEntries(
          show.map((k) => [k, data[k as (typeof kinds)[number]]]),
        );
        if (show.includes("scenarios")) out.groups = groupData;
        io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      if (f.quiet) {
        for (const k of show) for (const x of data[k as (typeof kinds)[number]]) io.stdout.write(`${x.name}\n`);
        return;
      }
      for (const k of show) {
        const items = data[k as (typeof kinds)[number]];
        io.stdout.write(`${k} (${items.length})\n`);
        if (items.length === 0) io.stdout.write("  (none registered)\n");
        const width = Math.max(0, ...items.map((x) => x.name.length));
        for (const x of items) {
          const paper = x.paper ? ` [${citation(x.paper)}]` : "";
          io.stdout.write(`  ${x.name.padEnd(width)}  ${x.protocol.padEnd(10)}  ${x.description}${paper}\n`);
        }
        io.stdout.write("\n");
        if (k === "scenarios" && groupData.length > 0) {
          io.stdout.write(
            `groups (${groupData.length}): \`routekit run <group>\` runs every member and draws one combined figure\n`,
          );
          const gw = Math.max(...groupData.map((g) => g.name.length));
          for (const g of groupData) {
            const members = g.scenarios.map((n, i) => `${n} (${g.panels[i]})`).join(", ");
            io.stdout.write(`  ${g.name.padEnd(gw)}  ${members}\n`);
          }
          io.stdout.write("\n");
        }
      }
    });

  addCommon(
    program
      .command("run")
      .description(
        "run a named scenario (a reproduction of a paper experiment), or every scenario of a group (one paper " +
          "figure) or glob, with a combined figure; see `routekit list scenarios`",
      )
      .argument("<scenario>", "scenario name, group name, or a quoted glob such as 'mnl-fig1-*'"),
    { outHint: "routekit-out/<scenario>", seedsHint: "the scenario's", horizonHint: "the scenario's" },
  ).action(async (name: string, f: CommonFlags) => {
    const sel = selectScenarios(reg, name);
    if (sel.kind === "scenario") {
      await r.execute(name, f, `routekit-out/${name}`, (o) => runScenario(name, o));
    } else {
      await r.executeGroup(name, f, `routekit-out/${sel.name}`);
    }
  });

  addCommon(
    program
      .command("compare")
      .description("compare registered policies on any environment of the same protocol")
      .option("--env <name>", "environment name (see `routekit list environments`)")
      .option("--policies <a,b,c>", "comma-separated policy names (see `routekit list algorithms`)")
      .option("--param <policy.key=value>", "override a policy parameter (repeatable)", collect, [])
      .option("--env-param <key=value>", "override an environment parameter (repeatable)", collect, [])
      .option("--config <file>", "JSON or YAML experiment file instead of --env/--policies (see README)"),
    {
      outHint: "routekit-out/compare-<env>",
      seedsHint: `${COMPARE_SEEDS}`,
      horizonHint: `${COMPARE_HORIZON}`,
    },
  ).action(
    async (
      f: CommonFlags & { env?: string; policies?: string; param: string[]; envParam: string[]; config?: string },
    ) => {
      if (f.config) {
        if (f.env || f.policies) throw new UsageError("give either --config or --env/--policies, not both");
        // The file names the policies (with labels) and their parameters: --param and --env-param were dropped
        // without a word, and the run used the file's values.
        const given = f.param.length > 0 ? "--param" : f.envParam.length > 0 ? "--env-param" : undefined;
        if (given) {
          throw new UsageError(
            `${given} does not apply with --config: set the parameters in the file (params: { key: value })`,
          );
        }
        const cfg = readCompareConfig(f.config);
        const spec = configToSpec(reg, cfg, f.config, {
          seeds: f.seeds ?? COMPARE_SEEDS,
          horizon: f.horizon ?? COMPARE_HORIZON,
          points: f.points ?? 200,
        });
        const flags = { ...f, workers: f.workers ?? cfg.workers, out: f.out ?? cfg.out };
        await r.execute(
          `compare ${spec.environment.name}`,
          flags,
          `routekit-out/compare-${spec.environment.name}`,
          (o) =>
            compare({
              ...o,
              seeds: f.seeds ?? spec.seeds,
              horizon: f.horizon ?? spec.horizon,
              points: f.points ?? spec.points,
              environment: spec.environment.name,
              environmentParams: spec.environment.params,
              policies: spec.policies,
            }),
        );
        return;
      }
      if (!f.env) throw new UsageError("compare needs --env <name> (or --config <file>)");
      if (!f.policies) throw new UsageError("compare needs --policies <a,b,c> (or --config <file>)");
      const names = f.policies
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      if (names.length === 0) throw new UsageError("--policies is empty");
      const pp = parseParams(f.param, true);
      for (const t of pp.keys()) {
        if (!names.includes(t))
          throw new UsageError(`--param ${t}.…: "${t}" is not one of --policies (${names.join(", ")})`);
      }
      const ep = parseParams(f.envParam, false, "--env-param").get("") ?? {};
      const env = f.env;
      await r.execute(`compare ${env}`, f, `routekit-out/compare-${env}`, (o) =>
        compare({
          ...o,
          environment: env,
          environmentParams: ep,
          policies: names.map((n) => ({ policy: n, params: pp.get(n) ?? {} })),
        }),
      );
    },
  );

  addCommon(
    program
      .command("replay")
      .description(
        "evaluate policies on your own logged outcomes (JSONL/CSV of prompt or embedding, model, score, cost)",
      )
      .requiredOption("--data <file>", "JSONL or CSV file, one row per (prompt, model)")
      .option(
        "--policies <a,b,c>",
        "policies to evaluate (default: the best single model (one-arm-oracle), random, ucb1, linucb-disjoint, rff-ucb when registered; with --protocol cascade: cosmos, one-shot, query-all, threshold-cascade)",
      )
      .addOption(
        new Option(
          "--protocol <protocol>",
          "arm: route each prompt to one model; cascade: ask models one by one, seeing each answer's score at its cost, and deploy the best answer seen",
        )
          .choices(["arm", "cascade"])
          .default("arm"),
      )
      .option(
        "--cost-weight <w>",
        "cascade: reward units per unit of logged cost (default 1: costs are already in score units)",
      )
      .option("--param <policy.key=value>", "override a policy parameter (repeatable)", collect, [])
      .option("--models <a,b>", "compare only these models (default: all in the file)")
      .addOption(
        new Option("--context <source>", "context source").choices(["auto", "text", "embedding"]).default("auto"),
      )
      .addOption(new Option("--format <format>", "input format").choices(["auto", "jsonl", "csv"]).default("auto"))
      .option("--dim <n>", "featurizer dimension for text prompts, at most 2^20", int(1, "--dim", 1 << 20), 256)
      .option(
        "--passes <n>",
        "passes over the prompts (horizon = passes x prompts; default 1); later passes replay prompts already rewarded",
        int(1, "--passes"),
      )
      .addOption(new Option("--order <order>", "prompt order").choices(["shuffle", "sequential"]).default("shuffle")),
    { outHint: "routekit-out/replay", seedsHint: "5", horizonHint: "one pass: the number of prompts in the file" },
  ).action(
    async (
      f: CommonFlags & {
        data: string;
        policies?: string;
        param: string[];
        models?: string;
        context: string;
        format: string;
        dim: number;
        order: string;
        passes?: number;
        protocol: "arm" | "cascade";
        costWeight?: string;
      },
    ) => {
      if (f.costWeight !== undefined && f.protocol !== "cascade") {
        throw new UsageError("--cost-weight applies to --protocol cascade only");
      }
      const costWeight = f.costWeight === undefined ? 1 : numberText(f.costWeight);
      if (!(Number.isFinite(costWeight) && costWeight > 0)) {
        throw new UsageError(`--cost-weight must be a finite number > 0, got "${f.costWeight}"`);
      }
      const names = f.policies
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      const pp = parseParams(f.param, true);
      for (const t of pp.keys()) {
        if (names && !names.includes(t))
          throw new UsageError(`--param ${t}.…: "${t}" is not one of --policies (${names.join(", ")})`);
      }
      const policies = names?.map((n) => ({ policy: n, params: pp.get(n) ?? {} }));
      // A model named twice is the option's mistake (the parser's "option models" names no flag).
      const models = (f.models ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      const twice = models.find((m, i) => models.indexOf(m) !== i);
      if (twice !== undefined) throw new UsageError(`--models names "${twice}" twice: "${f.models}"`);
      await r.execute("replay", f, "routekit-out/replay", (o) =>
        replay({
          ...o,
          data: f.data,
          ...(policies ? { policies } : {}),
          ...(f.passes !== undefined ? { passes: f.passes } : {}),
          protocol: f.protocol,
          environmentParams: {
            context: f.context,
            format: f.format,
            dim: f.dim,
            order: f.order,
            models: f.models ?? "",
            ...(f.protocol === "cascade" ? { costWeight } : {}),
          },
        }),
      );
    },
  );
  addLogCommands(program, io, reg);

  program
    .command("class-fit")
    .description(
      "offline class fit on the two-tower environment (Table 2 of the HPG paper, synthetic): held-out gaps of the " +
        "best constant, log-linear and log-quadratic routers to the per-query oracle; writes table.md and class-fit.json",
    )
    .option("--seeds <n>", "seeds 0..n-1, one environment and query table each", int(1, "--seeds"), 3)
    .option("--dim <d>", "query embedding length d", int(1, "--dim"), 16)
    .option("--models <M>", "embedding models M", int(2, "--models"), 4)
    .option("--rank <s>", "latent rank s of the environment", int(1, "--rank"), 2)
    .option("--queries <n>", "queries per seed (half fit, half held out)", int(4, "--queries", 10_000_000), 1000)
    .option("--iterations <n>", "Adam iterations per class", int(1, "--iterations", 1_000_000), 1500)
    .option("--out <dir>", "output directory", path("--out"), "routekit-out/class-fit")
    .option("--json", "print the report as JSON")
    .action(
      async (f: {
        seeds: number;
        dim: number;
        models: number;
        rank: number;
        queries: number;
        iterations: number;
        out: string;
        json?: boolean;
      }) => {
        const o = {
          seeds: f.seeds,
          contextDim: f.dim,
          models: f.models,
          latentRank: f.rank,
          queries: f.queries,
          iterations: f.iterations,
        };
        // A value the environment refuses (--rank above --dim, a huge --dim) is bad usage, found before fitting.
        fromUserParams("class-fit", { dim: f.dim, models: f.models, rank: f.rank }, () => checkClassFitOptions(o));
        checkOutDir(f.out);
        const res = runClassFit(o);
        const files = await withSignalsBetweenWrites(async () => writeClassFit(res, f.out));
        if (f.json) {
          io.stdout.write(`${JSON.stringify(res, null, 2)}\n`);
          return;
        }
        io.stdout.write(`${formatClassFit(res)}\n\nwrote ${files.join(", ")}\n`);
      },
    );

  const check = program
    .command("check")
    .description("numerical cross-checks of RouteKit's solvers (exit 1 on disagreement)");
  check
    .command("assortment-lp")
    .description(
      "cross-check the exact Dinkelbach assortment solver (MNL policies) against the HiGHS LP on random instances",
    )
    .option("--instances <n>", "random instances", int(1, "--instances"), 200)
    .option("--items <n>", "largest number of items N (each instance draws N in [1, n])", int(1, "--items"), 30)
    .option("--k <K>", "capacity: K = min(K, N) on every instance (default: K drawn in [1, N])", int(1, "--k"))
    .option("--seed <n>", "seed of the instance generator", int(0, "--seed"), 0)
    .option("--tolerance <x>", "largest |revenue difference| counted as agreement", nonNegative("--tolerance"), 1e-7)
    .option("--json", "print the statistics as JSON")
    .action(
      async (f: { instances: number; items: number; k?: number; seed: number; tolerance: number; json?: boolean }) => {
        const res = await checkAssortmentLP({
          instances: f.instances,
          items: f.items,
          seed: f.seed,
          tolerance: f.tolerance,
          ...(f.k !== undefined ? { k: f.k } : {}),
        });
        io.stdout.write(f.json ? `${JSON.stringify(res, null, 2)}\n` : `${formatAssortmentCheck(res)}\n`);
        if (!res.agree) {
          throw new CliFailure(
            `assortment LP cross-check: ${res.mismatches} of ${res.instances} instances disagree (max |revenue difference| ${res.maxRevenueGap.toExponential(2)} > tolerance ${res.tolerance})`,
          );
        }
      },
    );
  return program;
}

/** Whether a flag may be given more than once (its values are collected, and its help says "repeatable"). */
export function isRepeatable(o: Option): boolean {
  return o.variadic || o.parseArg === collect;
}

/**
 * Makes a second occurrence of a single-valued flag of `cmd` bad usage: Commander keeps the last value silently, so
 * `--seeds 3 --seeds 5` ran 5 seeds without a word. Flags without a value (`--json`, `--no-plots`) mean the same
 * thing given twice and are left alone; repeatable flags (`--param`) collect every value.
 */
function refuseRepeatedFlags(cmd: Command): void {
  const repeatable = cmd.options.filter(isRepeatable).map((o) => o.long ?? o.name());
  for (const o of cmd.options) {
    if (!(o.required || o.optional) || isRepeatable(o)) continue;
    let first: string | undefined;
    cmd.on(`option:${o.name()}`, (value: string) => {
      if (first === undefined) {
        first = value;
        return;
      }
      const flag = o.long ?? o.short ?? o.name();
      throw new UsageError(
        `${flag} given twice ("${first}", then "${value}"): give it once` +
          (repeatable.length > 0 ? ` (of this command's flags only ${repeatable.join(", ")} may be repeated)` : ""),
      );
    });
  }
}

/**
 * Makes a value-taking flag followed by another of the command's flags bad usage: Commander takes the next word as the
 * value whatever it is, so `--out --json` (the directory forgotten) wrote the results into a directory named "--json"
 * and printed a table, exit 0. A value that starts with a dash but names no flag (`--param x=-1`, `--out ./-x`) is
 * a value as before.
 */
function refuseFlagsAsValues(cmd: Command): void {
  const flags = new Set(["-h", "--help"]);
  for (const o of cmd.options) {
    if (o.long) flags.add(o.long);
    if (o.short) flags.add(o.short);
  }
  for (const o of cmd.options) {
    if (!(o.required || o.optional)) continue;
    cmd.on(`option:${o.name()}`, (value: unknown) => {
      if (typeof value === "string" && flags.has(value)) {
        throw new UsageError(
          `option '${o.flags}' argument missing: the next word, "${value}", is a flag (give the value after ${o.long ?? o.short})`,
        );
      }
    });
  }
}

/**
 * The `--help` arguments for a help request, `help WORD...` or `COMMAND... help WORD...` (the word `help` right after
 * any command, with or without subcommands: `routekit compare help` was "too many arguments", `routekit run help`
 * "unknown scenario"), else undefined (plain `help`, or no help request).
 */
function helpRequest(program: Command, argv: readonly string[]): string[] | undefined {
  if (argv[0] === "help") {
    // `help help` asks what help does: the program's help says it (as `git help help` does).
    if (argv.length === 2 && argv[1] === "help") return ["--help"];
    return argv.length > 1 ? helpArgv(program, argv.slice(1)) : undefined;
  }
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i] as string;
    if (w === "help" && cmd !== program) {
      return helpArgv(program, [...argv.slice(0, i), ...argv.slice(i + 1)]);
    }
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub === undefined) return undefined;
    cmd = sub;
  }
  return undefined;
}

/**
 * The arguments that show the help `routekit help WORD...` asks for: `[...words, "--help"]`, each word a
 * subcommand of the one before. A word that names no such subcommand is bad usage saying which exist.
 */
function helpArgv(program: Command, words: readonly string[]): string[] {
  let cmd = program;
  const path: string[] = [];
  for (const w of words) {
    if (w.startsWith("-")) {
      throw new UsageError(`help takes command names, not options, got "${w}" (routekit help [command [subcommand]])`);
    }
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub === undefined) {
      const names = cmd.commands.map((c) => c.name()).join(", ");
      if (cmd === program) throw new UsageError(`help: unknown command "${w}" (commands: ${names})`);
      const at = `routekit ${path.join(" ")}`;
      throw new UsageError(
        cmd.commands.length === 0
          ? `help: \`${at}\` has no subcommands, got "${w}" (\`routekit help ${path.join(" ")}\` shows its help)`
          : `help: "${w}" is not a subcommand of \`${at}\` (its subcommands: ${names})`,
      );
    }
    path.push(w);
    cmd = sub;
  }
  return [...path, "--help"];
}

/** Every command of the program, the program first. */
export function allCommands(program: Command): Command[] {
  const all: Command[] = [];
  const walk = (c: Command) => {
    all.push(c);
    for (const sub of c.commands) walk(sub);
  };
  walk(program);
  return all;
}

/**
 * The `routekit` program as `main` runs it: every command throws instead of exiting, writes help to `io.stdout`
 * and nothing else (main words the errors), and refuses a repeated single-valued flag. Exported for tests.
 */
export function cliProgram(io: CliIo, reg: FamilyRegistry = io.registry ?? defaultRegistry): Command {
  const program = buildProgram(io, reg);
  for (const c of allCommands(program)) {
    refuseFlagsAsValues(c);
    refuseRepeatedFlags(c);
    c.exitOverride();
    c.configureOutput({
      writeOut: (s) => io.stdout.write(s),
      // Commander's own error text is rewritten below into one line; help output on error still goes to stderr.
      writeErr: () => {},
      outputError: () => {},
    });
  }
  return program;
}

/** Runs the CLI on `argv` (without node and script) and resolves to the exit code: 0 ok, 1 failure, 2 bad usage. */
export async function main(
  args: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr, isTTY: process.stderr.isTTY },
): Promise<number> {
  const reg = io.registry ?? defaultRegistry;
  const program = cliProgram(io, reg);
  let argv = args;
  try {
    // `help <command> <subcommand>` and `<command> help <subcommand>` are `<command> <subcommand> --help`
    // (Commander's own help command read only one word: `help check assortment-lp` showed check's help and `help
    // check nope` too, with exit 0; `check help nope` exited 2 without a word).
    argv = helpRequest(program, argv) ?? argv;
    const first = argv[0];
    if (
      first !== undefined &&
      !first.startsWith("-") &&
      !program.commands.some((c) => c.name() === first) &&
      first !== "help"
    ) {
      throw new UsageError(
        `unknown command "${first}" (commands: ${program.commands.map((c) => c.name()).join(", ")})`,
      );
    }
    const check = program.commands.find((c) => c.name() === "check");
    const what = argv[1];
    if (first === "check" && check && (what === undefined || (!what.startsWith("-") && what !== "help"))) {
      if (!check.commands.some((c) => c.name() === what)) {
        const choices = check.commands.map((c) => `  ${c.name()}  ${oneLine(c.description())}`).join("\n");
        throw new UsageError(
          `check what? ${what === undefined ? "give a check's name" : `"${what}" is not a check`}; the checks are:\n${choices}\n(routekit check NAME --help for its options)`,
          { cause: "multiline" },
        );
      }
    }
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help")
        return e.exitCode === 0 ? 0 : 2;
      io.stderr.write(`routekit: ${oneLine(e.message).replace(/^error: /, "")} (see routekit --help)\n`);
      return 2;
    }
    if (e instanceof UsageError) {
      io.stderr.write(`routekit: ${e.cause === "multiline" ? e.message : oneLine(e)}\n`);
      return 2;
    }
    if (e instanceof CliFailure || isRouteKitError(e)) {
      io.stderr.write(`routekit: ${oneLine(e)}\n`);
      return 1;
    }
    io.stderr.write(
      `routekit: unexpected error: ${oneLine(e)}${process.env.ROUTEKIT_DEBUG ? `\n${(e as Error).stack}` : " (set ROUTEKIT_DEBUG=1 for a stack trace)"}\n`,
    );
    return 1;
  }
}
