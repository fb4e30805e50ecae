import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ErrorCode, isRouteKitError, RouteKitError } from "@routekit/core";
import {
  CascadeReplayEnvironment,
  HashingFeaturizer,
  parseReplay,
  ReplayEnvironment,
  type ReplayTable,
} from "@routekit/environments";
import { UsageError } from "../errors.js";
import type { FamilyRegistry, Params } from "./types.js";

const cache = new Map<string, ReplayTable>();

/** Loads (once per file version and options) the replay table an environment entry's params describe. */
export function loadReplayTable(params: Params): ReplayTable {
  const data = String(params.data ?? "");
  if (data === "") {
    // A missing parameter is bad usage (exit 2), not a data problem.
    throw new UsageError("the replay environment needs a data file (--env-param data=FILE)");
  }
  const path = resolve(data);
  let mtime: number;
  let isFile: boolean;
  try {
    const st = statSync(path);
    mtime = st.mtimeMs;
    isFile = st.isFile();
  } catch {
    throw new RouteKitError(ErrorCode.InvalidArgument, `cannot read replay data file ${data}: no such file`);
  }
  if (!isFile) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `cannot read replay data file ${data}: not a regular file`);
  }
  const featurizer = {
    dim: Number(params.dim),
    wordNgrams: Number(params.wordNgrams),
    charNgrams: [Number(params.charMin), Number(params.charMax)] as [number, number],
  };
  // The featurizer's options are the user's parameters, not the data: a value it refuses (`--dim 1e9`) is bad usage
  // (exit 2), checked before the file is read; only the table's own problems are failures (exit 1).
  userParam(params, () => new HashingFeaturizer(featurizer));
  const key = JSON.stringify({ ...params, data: path, mtime });
  const hit = cache.get(key);
  if (hit) return hit;
  const models = String(params.models ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new RouteKitError(ErrorCode.InvalidArgument, `cannot read replay data file ${data}: ${why}`);
  }
  let table: ReplayTable;
  try {
    table = parseReplay(text, {
      format: params.format as "auto" | "jsonl" | "csv",
      context: params.context as "auto" | "text" | "embedding",
      ...(models.length > 0 ? { models } : {}),
      featurizer,
    });
  } catch (e) {
    // The problems are listed by line: say of which file.
    if (isRouteKitError(e)) throw new RouteKitError(e.code, `${data}: ${e.message}`, e.details);
    throw e;
  }
  cache.set(key, table);
  return table;
}

const replayDefaults: Params = {
  data: "",
  format: "auto",
  context: "auto",
  models: "",
  dim: 256,
  wordNgrams: 2,
  charMin: 3,
  charMax: 5,
  order: "shuffle",
};

/** `build()`, with a library error (a parameter value it refuses) turned into bad usage naming the parameters. */
function userParam<T>(params: Params, build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (isRouteKitError(e)) throw new UsageError(`environment replay ${JSON.stringify(params)}: ${e.message}`);
    throw e;
  }
}

function readOrder(params: Params): "shuffle" | "sequential" {
  const order = String(params.order);
  if (order !== "shuffle" && order !== "sequential") {
    throw new UsageError(`environment replay: order must be "shuffle" or "sequential", got "${order}"`);
  }
  return order;
}

/** The replay environments: the user's logged outcomes (JSONL/CSV) as an arm or a cascade environment. */
export const replayRegistry: FamilyRegistry = {
  policies: [],
  environments: [
    {
      name: "replay",
      protocol: "arm",
      family: "@routekit/environments",
      description:
        "your logged outcomes (JSONL/CSV: prompt or embedding, model, score, cost) replayed as a full-information table",
      defaults: replayDefaults,
      create(params) {
        const order = readOrder(params);
        return new ReplayEnvironment(loadReplayTable(params), { order });
      },
    },
    {
      name: "replay-cascade",
      protocol: "cascade",
      family: "@routekit/environments",
      description:
        "your logged outcomes as a cascade: opening a model shows its answer's score (its one feature) at its cost x costWeight",
      defaults: { ...replayDefaults, costWeight: 1 },
      create(params) {
        const { costWeight, ...tableParams } = params;
        const order = readOrder(params);
        const weight = Number(costWeight);
        if (!(Number.isFinite(weight) && weight > 0)) {
          throw new UsageError(`environment replay-cascade: costWeight must be a finite number > 0, got ${costWeight}`);
        }
        const table = loadReplayTable(tableParams);
        try {
          return new CascadeReplayEnvironment(table, { order, costWeight: weight });
        } catch (e) {
          // The rows it refuses are named by line, as the parse errors are: say of which file.
          if (isRouteKitError(e)) throw new RouteKitError(e.code, `${String(params.data)}: ${e.message}`, e.details);
          throw e;
        }
      },
    },
  ],
  scenarios: [],
};
