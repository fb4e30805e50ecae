/** `routekit train` and `routekit evaluate`: the commands that read a JSONL log of decision events. */
import { type Command, Option } from "commander";
import { type CliIo, collect, int, parseParams, path, positive, propensity, unitOpen } from "./cli-options.js";
import { oneLine } from "./errors.js";
import {
  EVALUATE_ESTIMATORS,
  type EvaluateEstimator,
  evaluate,
  formatEvaluation,
  restoreOptionsFor,
} from "./evaluate.js";
import { plural } from "./format.js";
import { withSignalsBetweenWrites } from "./out-dir.js";
import type { FamilyRegistry } from "./registry/types.js";
import { preparePolicy } from "./spec.js";
import { checkSnapshotPath, parseArms, train, writeSnapshot } from "./train.js";

/** Adds `train` and `evaluate` to the program. */
export function addLogCommands(program: Command, io: CliIo, reg: FamilyRegistry): void {
  program
    .command("train")
    .description(
      "warm-start a policy from a JSONL log of decision events (decisionRecord + feedback, one per line) and write " +
        "its snapshot, which a service loads with the policy class's fromJSON",
    )
    .requiredOption("--events <file>", "JSONL file of decision events")
    .requiredOption("--policy <name>", "policy to train (see `routekit list algorithms`)")
    .requiredOption("--out <file>", "where to write the snapshot (JSON)", path("--out"))
    .option("--param <key=value>", "override a policy parameter (repeatable)", collect, [])
    .option("--arms <a,b,c>", "initial arms (default: the arms the events name, in order of first appearance)")
    .option("--seed <n>", "seed of the trained policy's random stream", int(0, "--seed"), 0)
    .option("--skip-invalid", "learn from the valid events and list the invalid lines on stderr")
    .option("--json", "print the training summary as JSON")
    .option("-q, --quiet", "print nothing on success")
    .action(
      async (f: {
        events: string;
        policy: string;
        out: string;
        param: string[];
        arms?: string;
        seed: number;
        skipInvalid?: boolean;
        json?: boolean;
        quiet?: boolean;
      }) => {
        checkSnapshotPath(f.out); // a bad --out fails at once, not after the training
        const params = parseParams(f.param, false).get("") ?? {};
        await preparePolicy(reg, f.policy, params);
        const res = train({
          events: f.events,
          policy: f.policy,
          params,
          ...(f.arms !== undefined ? { arms: parseArms(f.arms) } : {}),
          seed: f.seed,
          skipInvalid: f.skipInvalid === true,
          registry: reg,
        });
        // A Ctrl-C during the write ends the process after it, not inside it (no half-written temporary file).
        await withSignalsBetweenWrites(async () => writeSnapshot(res, f.out));
        const summary = {
          policy: res.policy,
          kind: res.kind,
          out: f.out,
          lines: res.lines,
          learned: res.learned,
          notLearned: res.notLearned,
          duplicates: res.duplicates,
          withoutFeedback: res.withoutFeedback,
          skipped: res.skipped,
        };
        if (f.json) {
          io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
          return;
        }
        for (const s of res.skipped) io.stderr.write(`routekit: skipped line ${s.line}: ${oneLine(s.message)}\n`);
        if (f.quiet) return;
        io.stdout.write(
          `trained ${res.policy} (${res.kind}) on ${plural(res.learned, "event")} from ${f.events}` +
            ` (${plural(res.duplicates, "duplicate decision id")} dropped, ${res.withoutFeedback} without feedback,` +
            ` ${res.skipped.length} invalid skipped)` +
            (res.notLearned > 0
              ? `; ${plural(res.notLearned, "event")} named an arm the policy lacks (retired: accepted, not learned)`
              : "") +
            `\nsnapshot: ${f.out}\n`,
        );
      },
    );

  program
    .command("evaluate")
    .description(
      "off-policy evaluation: what a policy would have earned on a JSONL log of decision events " +
        "(decisionRecord + feedback, with the logging propensity): replay for a learning policy, IPS/SNIPS/DR for one " +
        "held fixed",
    )
    .requiredOption("--events <file>", "JSONL file of arm decision events with feedback")
    .requiredOption("--policy <name>", "policy to evaluate (see `routekit list algorithms`)")
    .addOption(
      new Option(
        "--estimator <name>",
        "replay: the policy learns as it goes (Li et al. 2011); ips, snips, dr: the policy held fixed",
      )
        .choices([...EVALUATE_ESTIMATORS])
        .default("replay"),
    )
    .option("--snapshot <file>", "start from this snapshot of the policy (e.g. from `routekit train`), via fromJSON")
    .option(
      "--param <key=value>",
      "override a parameter of a fresh policy (repeatable; not with --snapshot)",
      collect,
      [],
    )
    .option("--seed <n>", "seed of a fresh policy's random stream (default 0; not with --snapshot)", int(0, "--seed"))
    .option("--arms <a,b,c>", "the logging policy's arms, and a fresh policy's (default: the arms the events name)")
    .option("--clip <w>", "cut importance weights above w (default: no clipping)", positive("--clip"))
    .option("--level <p>", "confidence level of the interval, in (0, 1)", unitOpen("--level"), 0.95)
    .option(
      "--fallback-propensity <p>",
      "logging propensity assumed for events without one, in (0, 1] (default: such events are an error)",
      propensity("--fallback-propensity"),
    )
    .option(
      "--skip-invalid",
      "evaluate on the other events, listing the invalid lines and the events the estimator refuses on stderr",
    )
    .option("--json", "print the result as JSON")
    .action(
      async (f: {
        events: string;
        policy: string;
        estimator: EvaluateEstimator;
        snapshot?: string;
        param: string[];
        seed?: number;
        arms?: string;
        clip?: number;
        level: number;
        fallbackPropensity?: number;
        skipInvalid?: boolean;
        json?: boolean;
      }) => {
        const params = parseParams(f.param, false).get("") ?? {};
        await preparePolicy(reg, f.policy, params);
        const restoreOptions =
          f.snapshot === undefined ? undefined : await restoreOptionsFor(reg, f.policy, f.snapshot);
        const res = evaluate({
          events: f.events,
          policy: f.policy,
          params,
          estimator: f.estimator,
          level: f.level,
          ...(f.snapshot !== undefined ? { snapshot: f.snapshot } : {}),
          ...(restoreOptions !== undefined ? { restoreOptions } : {}),
          ...(f.seed !== undefined ? { seed: f.seed } : {}),
          ...(f.arms !== undefined ? { arms: parseArms(f.arms) } : {}),
          ...(f.clip !== undefined ? { clip: f.clip } : {}),
          ...(f.fallbackPropensity !== undefined ? { fallbackPropensity: f.fallbackPropensity } : {}),
          skipInvalid: f.skipInvalid === true,
          registry: reg,
        });
        if (f.json) {
          io.stdout.write(`${JSON.stringify(res, null, 2)}\n`);
          return;
        }
        for (const s of res.skipped) io.stderr.write(`routekit: skipped line ${s.line}: ${oneLine(s.message)}\n`);
        io.stdout.write(`${formatEvaluation(res, f.events)}\n`);
      },
    );
}
