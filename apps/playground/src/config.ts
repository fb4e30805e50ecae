import { readFileSync } from "node:fs";
import { isPair, isScalar, isSeq, parseDocument, parse as parseYaml, visit } from "yaml";
import { z } from "zod";
import { CliFailure, UsageError } from "./errors.js";
import type { FamilyRegistry } from "./registry/types.js";
import { findEnvironment, findPolicy, MAX_POINTS, MAX_SEEDS, mergeParams, type RunSpec } from "./spec.js";

const paramValue = z.union([z.number(), z.string(), z.boolean()]);
const params = z.record(z.string(), paramValue);

/** The `compare --config FILE` format (JSON or YAML). */
export const CompareConfigSchema = z.strictObject({
  environment: z.union([z.string().min(1), z.strictObject({ name: z.string().min(1), params: params.optional() })]),
  policies: z
    .array(
      z.union([
        z.string().min(1),
        z.strictObject({ policy: z.string().min(1), label: z.string().min(1).optional(), params: params.optional() }),
      ]),
    )
    .min(1),
  /** A number of seeds (0..n-1) or an explicit list. */
  seeds: z.union([z.number().int().min(1).max(MAX_SEEDS), z.array(z.number().int()).min(1).max(MAX_SEEDS)]).optional(),
  horizon: z.number().int().min(1).optional(),
  points: z.number().int().min(2).max(MAX_POINTS).optional(),
  workers: z.number().int().min(1).optional(),
  out: z.string().min(1).optional(),
});
export type CompareConfig = z.infer<typeof CompareConfigSchema>;

function pathOf(path: readonly PropertyKey[]): string {
  let s = "";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : s === "" ? String(p) : `.${String(p)}`;
  return s === "" ? "(top level)" : s;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** `policies[1].params.k: key given twice in one object (line 3) ...` for a document's first repeated key, or undefined. */
function duplicateKey(body: string): string | undefined {
  const doc = parseDocument(body);
  const dup = doc.errors.find((e) => e.code === "DUPLICATE_KEY");
  if (dup === undefined) return undefined;
  let parts: PropertyKey[] | undefined;
  visit(doc, {
    Pair(_, pair, ancestors) {
      if (!(isScalar(pair.key) && pair.key.range?.[0] === dup.pos[0])) return undefined;
      const chain = [...ancestors, pair];
      parts = [];
      for (let i = 0; i < chain.length; i++) {
        const n = chain[i];
        if (isPair(n) && isScalar(n.key)) parts.push(String(n.key.value));
        else if (isSeq(n)) parts.push(n.items.indexOf(chain[i + 1] as (typeof n.items)[number]));
      }
      return visit.BREAK;
    },
  });
  const line = dup.linePos?.[0].line;
  const where = line === undefined ? "" : ` (line ${line})`;
  const what = parts === undefined ? "a key" : pathOf(parts);
  return `${what}: key given twice in one object${where}; give it once (never a silent "last one wins")`;
}

/** `text` without a leading byte order mark, which Windows editors write at the start of UTF-8 files. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The issue to report for `issue`, with its full path: for a union (a policy entry is a name or an object), the issue
 * inside the branch the value took the shape of, when one went deeper than the union itself. A parameter YAML reads
 * as Infinity or NaN (`.inf`, `1e999`) failed the object branch at `params.exploration`, and the message blamed the
 * entry's shape ("must be a policy name or { policy, label, params }").
 */
function innermost(issue: z.core.$ZodIssue): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  if (issue.code === "invalid_union") {
    let best: z.core.$ZodIssue | undefined;
    for (const branch of issue.errors) {
      for (const inner of branch) if (inner.path.length > (best?.path.length ?? 0)) best = inner;
    }
    if (best !== undefined) {
      const deeper = innermost(best);
      return { issue: deeper.issue, path: [...issue.path, ...deeper.path] };
    }
  }
  return { issue, path: [...issue.path] };
}

/** Parses and validates a config file's text; errors name the file and the offending key path. */
export function parseCompareConfig(text: string, file: string): CompareConfig {
  let raw: unknown;
  const body = withoutByteOrderMark(text);
  const json = /\.json$/i.test(file);
  // JSON.parse keeps the last of two equal keys without a word, and the YAML reader's own error named no key: the
  // YAML reader (which reads JSON too) finds them, and the message names the key's path.
  const twice = duplicateKey(body);
  if (twice !== undefined) throw new UsageError(`${file}: ${twice}`);
  try {
    raw = json ? JSON.parse(body) : parseYaml(body);
  } catch (e) {
    throw new UsageError(`${file}: cannot parse ${json ? "JSON" : "YAML"}: ${(e as Error).message.split("\n")[0]}`);
  }
  const r = CompareConfigSchema.safeParse(raw);
  if (!r.success) {
    const { issue, path: deep } = innermost(r.error.issues[0] as z.core.$ZodIssue);
    let path = deep;
    let message = issue.message;
    if (issue.code === "unrecognized_keys") {
      path = [...path, ...(issue.keys.length === 1 ? [issue.keys[0] as string] : [])];
      message = `unknown key${issue.keys.length > 1 ? `s ${issue.keys.join(", ")}` : ""}`;
    } else if (valueAt(raw, path) === undefined) {
      message = "is required";
    } else if (issue.code === "invalid_union") {
      const last = path[path.length - 1];
      const value = valueAt(raw, path);
      message =
        typeof value === "number" && !Number.isFinite(value)
          ? `must be a finite number, a string or a boolean, got ${value}`
          : last === "environment"
            ? "must be an environment name or { name, params }"
            : last === "seeds"
              ? "must be a number of seeds or a list of integer seeds"
              : typeof last === "number" && path[0] === "policies"
                ? "must be a policy name or { policy, label, params }"
                : "has the wrong type (see the config format in the README)";
    }
    const more = r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more)` : "";
    throw new UsageError(`${file}: ${pathOf(path)}: ${message}${more}`);
  }
  return r.data;
}

export function readCompareConfig(file: string): CompareConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new CliFailure(
      `cannot read config file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parseCompareConfig(text, file);
}

function at<T>(file: string, path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${file}: ${path}: ${e.message}`);
    throw e;
  }
}

/** Checks names and parameters against the registry (errors name the key path) and returns a run spec. */
export function configToSpec(
  reg: FamilyRegistry,
  cfg: CompareConfig,
  file: string,
  defaults: { seeds: number; horizon: number; points: number },
): RunSpec {
  const envName = typeof cfg.environment === "string" ? cfg.environment : cfg.environment.name;
  const envParams = typeof cfg.environment === "string" ? {} : (cfg.environment.params ?? {});
  const envPath = typeof cfg.environment === "string" ? "environment" : "environment.name";
  const env = at(file, envPath, () => findEnvironment(reg, envName));
  for (const [k, v] of Object.entries(envParams)) {
    at(file, `environment.params.${k}`, () => mergeParams(`environment ${env.name}`, env.defaults, { [k]: v }));
  }
  const policies = cfg.policies.map((p, i) => {
    const o = typeof p === "string" ? { policy: p } : p;
    const entry = at(file, typeof p === "string" ? `policies[${i}]` : `policies[${i}].policy`, () =>
      findPolicy(reg, o.policy),
    );
    if (entry.protocol !== env.protocol) {
      throw new UsageError(
        `${file}: policies[${i}]: policy "${entry.name}" plays the ${entry.protocol} protocol, environment "${env.name}" serves ${env.protocol}`,
      );
    }
    const label = o.label ?? o.policy;
    for (const [k, v] of Object.entries(o.params ?? {})) {
      at(file, `policies[${i}].params.${k}`, () => mergeParams(label, entry.defaults, { [k]: v }));
    }
    return { label, policy: o.policy, params: o.params ?? {} };
  });
  const seen = new Map<string, number>();
  policies.forEach((p, i) => {
    const j = seen.get(p.label);
    if (j !== undefined) {
      throw new UsageError(
        `${file}: policies[${i}].label: "${p.label}" is also the label of policies[${j}]; labels must be distinct`,
      );
    }
    seen.set(p.label, i);
  });
  const seeds =
    cfg.seeds === undefined
      ? Array.from({ length: defaults.seeds }, (_, i) => i)
      : typeof cfg.seeds === "number"
        ? Array.from({ length: cfg.seeds }, (_, i) => i)
        : cfg.seeds;
  const firstAt = new Map<number, number>();
  seeds.forEach((seed, i) => {
    const j = firstAt.get(seed);
    if (j !== undefined) {
      throw new UsageError(
        `${file}: seeds[${i}]: seed ${seed} is also seeds[${j}]; seeds must be distinct (the runs would be identical)`,
      );
    }
    firstAt.set(seed, i);
  });
  return {
    environment: { name: env.name, params: envParams },
    policies,
    seeds,
    horizon: cfg.horizon ?? defaults.horizon,
    points: cfg.points ?? defaults.points,
  };
}
