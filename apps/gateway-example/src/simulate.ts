import { Rng } from "@routekit/core";

/**
 * Simulated traffic for the sidecar: clients that send prompts on three topics, call the model the
 * gateway names, score its answer and report the score, late or never, as real gateways do. Three
 * models, each best on one topic; the generalist is the best single model.
 */
export const MODELS = ["code-llm", "math-llm", "chat-llm"] as const;
export type Model = (typeof MODELS)[number];
export const TOPICS = ["code", "math", "chat"] as const;
export type Topic = (typeof TOPICS)[number];

/** Probability that a model's answer on a topic is judged good (the reward is 1 then, else 0). */
export const QUALITY: Readonly<Record<Model, Readonly<Record<Topic, number>>>> = {
  "code-llm": { code: 0.9, math: 0.35, chat: 0.45 },
  "math-llm": { code: 0.4, math: 0.85, chat: 0.45 },
  "chat-llm": { code: 0.6, math: 0.55, chat: 0.75 },
};

const VOCABULARY: Readonly<Record<Topic, readonly string[]>> = {
  code: "function compile typescript error stack trace async await refactor test regex array loop bug null pointer class interface import module build".split(
    " ",
  ),
  math: "integral derivative prove theorem matrix eigenvalue probability equation solve limit series prime lemma vector polynomial factor geometry bound".split(
    " ",
  ),
  chat: "recipe travel weekend movie recommend friend birthday gift email polite summary story weather plan restaurant music book holiday".split(
    " ",
  ),
};
const COMMON = "please can you help me with this how what why explain quickly".split(" ");

/** A prompt on `topic`: six topic words among three common ones. */
export function makePrompt(rng: Rng, topic: Topic): string {
  const words: string[] = [];
  const vocab = VOCABULARY[topic];
  for (let i = 0; i < 6; i++) words.push(vocab[rng.int(vocab.length)] as string);
  for (let i = 0; i < 3; i++) words.splice(rng.int(words.length + 1), 0, COMMON[rng.int(COMMON.length)] as string);
  return words.join(" ");
}

/** The best single model's expected reward under uniform topics, and the per-topic oracle's. */
export function benchmarks(): { bestSingleModel: number; oracle: number } {
  const mean = (m: Model) => TOPICS.reduce((s, t) => s + QUALITY[m][t], 0) / TOPICS.length;
  const bestSingleModel = Math.max(...MODELS.map(mean));
  const oracle = TOPICS.reduce((s, t) => s + Math.max(...MODELS.map((m) => QUALITY[m][t])), 0) / TOPICS.length;
  return { bestSingleModel, oracle };
}

export interface TrafficOptions {
  /** The gateway, e.g. "http://127.0.0.1:8787". */
  url: string;
  requests: number;
  seed?: number;
  /** Share of answers never scored (default 0.1). */
  missing?: number;
  /** Feedback arrives up to this many requests late (default 20). */
  maxDelay?: number;
  /** The index of the first request: a second run against a restarted gateway continues the count. */
  offset?: number;
  onProgress?: (done: number) => void;
}

export interface TrafficResult {
  /** Expected reward (QUALITY) of each routed request, in order. */
  quality: number[];
  /** Requests per topic routed to each model. */
  routed: Record<Topic, Record<string, number>>;
  /** Decisions whose feedback was still waiting when the run ended (sent at the end). */
  late: number;
}

/** Drives the gateway over HTTP: route, score, report feedback late or never. Deterministic given the seed. */
export async function simulateTraffic(o: TrafficOptions): Promise<TrafficResult> {
  const rng = Rng.fromSeed(o.seed ?? 1).fork(`traffic:${o.offset ?? 0}`);
  const missing = o.missing ?? 0.1;
  const maxDelay = o.maxDelay ?? 20;
  const quality: number[] = [];
  const routed = Object.fromEntries(TOPICS.map((t) => [t, {}])) as TrafficResult["routed"];
  const due: { at: number; decisionId: string; reward: number }[] = [];
  for (let i = 0; i < o.requests; i++) {
    const topic = TOPICS[rng.int(TOPICS.length)] as Topic;
    const { decisionId, model } = (await post(o.url, "/route", { prompt: makePrompt(rng, topic) })) as {
      decisionId: string;
      model: Model;
    };
    const q = QUALITY[model]?.[topic] ?? 0; // a model the simulation does not know answers badly
    quality.push(q);
    routed[topic][model] = (routed[topic][model] ?? 0) + 1;
    const reward = rng.bernoulli(q) ? 1 : 0;
    if (rng.uniform() >= missing) due.push({ at: i + rng.int(maxDelay + 1), decisionId, reward });
    for (let j = 0; j < due.length; ) {
      const f = due[j] as (typeof due)[number];
      if (f.at <= i) {
        await post(o.url, "/feedback", { decisionId: f.decisionId, reward: f.reward });
        due.splice(j, 1);
      } else j++;
    }
    o.onProgress?.(i + 1);
  }
  const late = due.length;
  for (const f of due) await post(o.url, "/feedback", { decisionId: f.decisionId, reward: f.reward });
  return { quality, routed, late };
}

/** The simulation's summary: where each topic went, and the expected reward of the last `window` requests. */
export function formatReport(r: TrafficResult, window = 500): string {
  const n = Math.min(window, r.quality.length);
  const mean = r.quality.slice(-n).reduce((a, b) => a + b, 0) / n;
  const { bestSingleModel, oracle } = benchmarks();
  const lines = [`where each topic went (all ${r.quality.length} requests):`];
  for (const t of TOPICS) {
    lines.push(`  ${t.padEnd(5)} ${MODELS.map((m) => `${m} ${String(r.routed[t][m] ?? 0).padStart(4)}`).join("   ")}`);
  }
  lines.push(
    `expected reward, last ${n} requests: ${mean.toFixed(3)} (best single model ${bestSingleModel.toFixed(3)}, per-topic oracle ${oracle.toFixed(3)})`,
  );
  return lines.join("\n");
}

/** POST a JSON body; a non-2xx answer throws with the gateway's error code and message. */
export async function post(url: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const out = (await res.json()) as { error?: { code: string; message: string } };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${out.error?.code}: ${out.error?.message}`);
  return out;
}
