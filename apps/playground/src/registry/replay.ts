import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ErrorCode, RouteKitError } from "@routekit/core";
import { CascadeReplayEnvironment, parseReplay, ReplayEnvironment, type ReplayTable } from "@routekit/environments";
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
  const table = parseReplay(text, {
    format: params.format as "auto" | "jsonl" | "csv",
    context: params.context as "auto" | "text" | "embedding",
    ...(models.length > 0 ? { models } : {}),
    featurizer: {
      dim: Number(params.dim),
      wordNgrams: Number(params.wordNgrams),
      charNgrams: [Number(params.charMin), Number(params.charMax)],
    },
  });
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

function readOrder(params: Params): "shuffle" | "sequential" {
  const order = String(params.order);
  if (order !== "shuffle" && order !== "sequential") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `order must be "shuffle" or "sequential", got "${order}"`);
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
        return new ReplayEnvironment(loadReplayTable(params), { order: readOrder(params) });
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
        return new CascadeReplayEnvironment(loadReplayTable(tableParams), {
          order: readOrder(params),
          costWeight: Number(costWeight),
        });
      },
    },
  ],
  scenarios: [],
};
