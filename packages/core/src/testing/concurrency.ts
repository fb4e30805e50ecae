/**
 * Feedback from many async request handlers: selects and late updates interleave through
 * microtasks, timers and setImmediate. The final state must equal that of the same calls applied
 * synchronously in the order they happened, and duplicate feedback must be refused.
 * Also: callers that reuse (and overwrite) their input buffers after select must not change what
 * the policy learns.
 */
import type {
  ArmDecision,
  ArmFeedback,
  ArmPolicy,
  AssortmentDecision,
  AssortmentPolicy,
  AssortmentQuery,
  CascadePolicy,
} from "../protocols.js";
import { Rng } from "../rng.js";
import type { ArmPolicySpec } from "./arm.js";
import type { AssortmentPolicySpec } from "./assortment.js";
import type { CascadePolicySpec } from "./cascade.js";
import { ContractViolation } from "./check.js";
import { describeError, show } from "./inspect.js";

type Event =
  | { readonly t: "select"; readonly input: unknown; readonly out: string }
  | { readonly t: "update"; readonly id: string; readonly fb: unknown }
  | { readonly t: "add" | "remove"; readonly arm: string };

async function jitter(rng: Rng): Promise<void> {
  const k = rng.int(5);
  if (k === 0) return;
  if (k === 1) await Promise.resolve();
  else if (k === 2) await new Promise<void>((r) => queueMicrotask(r));
  else if (k === 3) await new Promise<void>((r) => setTimeout(r, rng.int(3)));
  else await new Promise<void>((r) => setImmediate(r));
}

function unitVector(rng: Rng, d: number): Float64Array | undefined {
  if (d === 0) return undefined;
  const x = rng.fillNormal(new Float64Array(d));
  let n = 0;
  for (let i = 0; i < d; i++) n += x[i] * x[i];
  for (let i = 0; i < d; i++) x[i] /= Math.sqrt(n);
  return x;
}

export interface ConcurrencyOptions {
  readonly seed?: number;
  /** Concurrent request handlers (default 200). */
  readonly handlers?: number;
  /** Fraction of handlers whose feedback never comes (default 0.1). */
  readonly dropRate?: number;
}

/** Arm policies: concurrent handlers vs. the same event log replayed in order. */
export async function checkConcurrentArm<P extends ArmPolicy>(
  spec: ArmPolicySpec<P>,
  options: ConcurrencyOptions = {},
): Promise<{ events: number; pending: number }> {
  const seed = options.seed ?? 1;
  const arms = ["arm-0", "arm-1", "arm-2"];
  const policy = spec.create({ seed, arms });
  const log: Event[] = [];
  const root = Rng.fromSeed(seed).fork("concurrency");
  const handlers = options.handlers ?? 200;
  const drop = options.dropRate ?? 0.1;
  let dupRefused = 0;
  const handle = async (h: number): Promise<void> => {
    const rng = root.fork(`handler:${h}`);
    await jitter(rng);
    const ctx = unitVector(rng, policy.contextDim);
    const d = policy.select(ctx);
    log.push({ t: "select", input: ctx?.slice(), out: JSON.stringify(d) });
    if (rng.uniform() < drop) return;
    for (let i = rng.int(4); i > 0; i--) await jitter(rng);
    const reward = rng.uniform();
    const fb: ArmFeedback = spec.costs
      ? { reward, cost: spec.costs[0] + reward * (spec.costs[1] - spec.costs[0]) }
      : { reward };
    policy.update(d, fb);
    log.push({ t: "update", id: d.id, fb });
    if (rng.uniform() < 0.1) {
      await jitter(rng);
      try {
        policy.update(d, fb);
      } catch (e) {
        if ((e as { code?: string }).code !== "DECISION_ALREADY_USED")
          throw new ContractViolation(`duplicate concurrent feedback threw ${describeError(e)}`);
        dupRefused++;
        return;
      }
      throw new ContractViolation(`duplicate concurrent feedback for ${d.id} was accepted`);
    }
  };
  const admin = async (): Promise<void> => {
    const rng = root.fork("admin");
    for (let i = 0; i < 6; i++) {
      for (let j = 0; j < 5; j++) await jitter(rng);
      const id = `arm-new-${i}`;
      policy.addArm(id);
      log.push({ t: "add", arm: id });
      await jitter(rng);
      const victim = policy.arms.find((a) => !spec.pinnedArms?.includes(a)) as string;
      policy.removeArm(victim);
      log.push({ t: "remove", arm: victim });
    }
  };
  await Promise.all([admin(), ...Array.from({ length: handlers }, (_, h) => handle(h))]);

  const replay = spec.create({ seed, arms });
  for (const [i, e] of log.entries()) {
    if (e.t === "select") {
      const d: ArmDecision = replay.select(e.input as Float64Array | undefined);
      if (JSON.stringify(d) !== e.out)
        throw new ContractViolation(`replay event ${i}: select gave ${JSON.stringify(d)}, live run gave ${e.out}`);
    } else if (e.t === "update") replay.update(e.id, e.fb as ArmFeedback);
    else if (e.t === "add") replay.addArm(e.arm);
    else replay.removeArm(e.arm);
  }
  const a = JSON.stringify(policy.toJSON());
  const b = JSON.stringify(replay.toJSON());
  if (a !== b) throw new ContractViolation("concurrent run and in-order replay end in different states");
  return { events: log.length + dupRefused, pending: policy.pendingDecisions };
}

function query(rng: Rng, d: number, maxK = Infinity): AssortmentQuery {
  const n = 1 + rng.int(6);
  const f = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const x = unitVector(rng, d) as Float64Array;
    const s = rng.uniform();
    for (let j = 0; j < d; j++) f[i * d + j] = x[j] * s;
  }
  const revenues = rng.uniform() < 0.5 ? undefined : Float64Array.from({ length: n }, () => rng.uniform());
  return { features: f, numItems: n, maxSize: Math.min(1 + rng.int(n), maxK), revenues };
}

/** Assortment policies: concurrent handlers vs. the same event log replayed in order. */
export async function checkConcurrentAssortment<P extends AssortmentPolicy>(
  spec: AssortmentPolicySpec<P>,
  options: ConcurrencyOptions = {},
): Promise<{ events: number; pending: number }> {
  const seed = options.seed ?? 1;
  const policy = spec.create({ seed });
  const log: Event[] = [];
  const root = Rng.fromSeed(seed).fork("concurrency");
  const handlers = options.handlers ?? 200;
  const drop = options.dropRate ?? 0.1;
  const handle = async (h: number): Promise<void> => {
    const rng = root.fork(`handler:${h}`);
    await jitter(rng);
    const q = query(rng, policy.contextDim, spec.maxK);
    const d: AssortmentDecision = policy.select(q);
    log.push({
      t: "select",
      input: { ...q, features: q.features.slice(), revenues: q.revenues?.slice() },
      out: JSON.stringify(d),
    });
    if (rng.uniform() < drop) return;
    for (let i = rng.int(4); i > 0; i--) await jitter(rng);
    const k = rng.int(d.items.length + 1);
    const fb = { choice: k === d.items.length ? null : (d.items[k] as number) };
    policy.update(d, fb);
    log.push({ t: "update", id: d.id, fb });
  };
  await Promise.all(Array.from({ length: handlers }, (_, h) => handle(h)));
  const replay = spec.create({ seed });
  for (const [i, e] of log.entries()) {
    if (e.t === "select") {
      const d = replay.select(e.input as AssortmentQuery);
      if (JSON.stringify(d) !== e.out)
        throw new ContractViolation(`replay event ${i}: select gave ${JSON.stringify(d)}, live run gave ${e.out}`);
    } else if (e.t === "update") replay.update(e.id, e.fb as { choice: number | null });
  }
  if (JSON.stringify(policy.toJSON()) !== JSON.stringify(replay.toJSON()))
    throw new ContractViolation("concurrent run and in-order replay end in different states");
  return { events: log.length, pending: policy.pendingDecisions };
}

/** One logged cascade call: what was passed and, for calls that answer, the answer (JSON). */
type CascadeEvent =
  | { readonly t: "begin"; readonly context: Float64Array; readonly out: string }
  | { readonly t: "next"; readonly id: string; readonly out: string }
  | { readonly t: "choose"; readonly id: string; readonly out: string }
  | {
      readonly t: "observe";
      readonly id: string;
      readonly arm: string;
      readonly f: Float64Array;
      readonly cost: number;
    }
  | { readonly t: "feedback"; readonly id: string; readonly reward: number }
  | { readonly t: "add"; readonly arm: string }
  | { readonly t: "remove"; readonly arm: string };

/**
 * Cascade policies: concurrent request handlers, each running one episode (begin, next/observe until stop, choose,
 * feedback) with awaits between every call, while boxes are added and removed, end in the same answers and state
 * as the same calls replayed in order; a second feedback for a closed episode is refused.
 */
export async function checkConcurrentCascade<P extends CascadePolicy>(
  spec: CascadePolicySpec<P>,
  options: ConcurrencyOptions = {},
): Promise<{ events: number; pending: number }> {
  const seed = options.seed ?? 1;
  const arms = ["arm-0", "arm-1", "arm-2"];
  const policy = spec.create({ seed, arms });
  const log: CascadeEvent[] = [];
  const root = Rng.fromSeed(seed).fork("concurrency-cascade");
  const handlers = options.handlers ?? 200;
  const drop = options.dropRate ?? 0.1;
  let dupRefused = 0;
  const box = (rng: Rng, n: number) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = rng.uniformIn(-1, 1);
    return v;
  };
  const handle = async (h: number): Promise<void> => {
    const rng = root.fork(`handler:${h}`);
    await jitter(rng);
    const context = box(rng, policy.contextDim);
    const id = policy.begin(context);
    log.push({ t: "begin", context, out: id });
    for (;;) {
      await jitter(rng);
      const step = policy.next(id);
      log.push({ t: "next", id, out: JSON.stringify(step) });
      if ("stop" in step) break;
      await jitter(rng);
      const f = box(rng, policy.outputDim);
      const cost = 0.01 + 0.5 * rng.uniform();
      // The box may have been removed meanwhile: the episode skips it only if it was not asked yet.
      policy.observe(id, step.query, f, cost);
      log.push({ t: "observe", id, arm: step.query, f, cost });
    }
    await jitter(rng);
    const chosen = policy.choose(id);
    log.push({ t: "choose", id, out: chosen });
    if (rng.uniform() < drop) return;
    await jitter(rng);
    const reward = rng.uniform();
    policy.feedback(id, reward);
    log.push({ t: "feedback", id, reward });
    if (rng.uniform() < 0.1) {
      await jitter(rng);
      try {
        policy.feedback(id, reward);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code !== "DECISION_ALREADY_USED" && code !== "DECISION_EXPIRED")
          throw new ContractViolation(`duplicate concurrent feedback threw ${describeError(e)}`);
        dupRefused++;
        return;
      }
      throw new ContractViolation(`duplicate concurrent feedback for ${id} was accepted`);
    }
  };
  const admin = async (): Promise<void> => {
    if (spec.dynamicArms === false) return;
    const rng = root.fork("admin");
    for (let i = 0; i < 6; i++) {
      for (let j = 0; j < 5; j++) await jitter(rng);
      const arm = `arm-new-${i}`;
      policy.addArm(arm);
      log.push({ t: "add", arm });
      await jitter(rng);
      const victim = policy.arms[0] as string;
      policy.removeArm(victim);
      log.push({ t: "remove", arm: victim });
    }
  };
  await Promise.all([admin(), ...Array.from({ length: handlers }, (_, h) => handle(h))]);

  const replay = spec.create({ seed, arms });
  const same = (i: number, what: string, got: string, live: string) => {
    if (got !== live) throw new ContractViolation(`replay event ${i}: ${what} gave ${got}, live run gave ${live}`);
  };
  for (const [i, e] of log.entries()) {
    if (e.t === "begin") same(i, "begin", replay.begin(e.context), e.out);
    else if (e.t === "next") same(i, `next(${e.id})`, JSON.stringify(replay.next(e.id)), e.out);
    else if (e.t === "observe") replay.observe(e.id, e.arm, e.f, e.cost);
    else if (e.t === "choose") same(i, `choose(${e.id})`, replay.choose(e.id), e.out);
    else if (e.t === "feedback") replay.feedback(e.id, e.reward);
    else if (e.t === "add") replay.addArm(e.arm);
    else replay.removeArm(e.arm);
  }
  if (JSON.stringify(policy.toJSON()) !== JSON.stringify(replay.toJSON()))
    throw new ContractViolation("concurrent run and in-order replay end in different states");
  return { events: log.length + dupRefused, pending: policy.pendingDecisions };
}

/**
 * A caller that reuses one context buffer and overwrites it right after select (a common pattern
 * in request handlers) must get exactly the same decisions and final state as one passing fresh
 * arrays: a policy has to copy what it keeps for update.
 */
export function checkBufferReuseArm<P extends ArmPolicy>(spec: ArmPolicySpec<P>, seed = 3, rounds = 120): void {
  const arms = ["arm-0", "arm-1", "arm-2"];
  const a = spec.create({ seed, arms });
  const b = spec.create({ seed, arms });
  const dim = a.contextDim;
  if (dim === 0) return;
  const rng = Rng.fromSeed(seed).fork("reuse");
  const buf = new Float64Array(dim);
  const pa: ArmDecision[] = [];
  const pb: ArmDecision[] = [];
  for (let t = 0; t < rounds; t++) {
    const x = unitVector(rng, dim) as Float64Array;
    buf.set(x);
    const da = a.select(x.slice());
    const db = b.select(buf);
    buf.fill(0.123); // the caller reuses its buffer before feedback arrives
    if (show(da) !== show(db)) throw new ContractViolation(`round ${t}: reused buffer changed the decision`);
    pa.push(da);
    pb.push(db);
    // Feedback arrives late: settle a random pending decision, keeping a few in flight.
    while (pa.length > 3 || (pa.length > 0 && rng.uniform() < 0.3)) {
      const i = rng.int(pa.length);
      const r = rng.uniform();
      a.update(pa.splice(i, 1)[0] as ArmDecision, { reward: r });
      b.update(pb.splice(i, 1)[0] as ArmDecision, { reward: r });
    }
  }
  if (JSON.stringify(a.toJSON()) !== JSON.stringify(b.toJSON()))
    throw new ContractViolation("overwriting the caller's context buffer after select changed the learned state");
}

/** Same as {@link checkBufferReuseArm} for assortment queries (features and revenues overwritten). */
export function checkBufferReuseAssortment<P extends AssortmentPolicy>(
  spec: AssortmentPolicySpec<P>,
  seed = 3,
  rounds = 120,
): void {
  const a = spec.create({ seed });
  const b = spec.create({ seed });
  const rng = Rng.fromSeed(seed).fork("reuse");
  const pa: AssortmentDecision[] = [];
  const pb: AssortmentDecision[] = [];
  for (let t = 0; t < rounds; t++) {
    const q = query(rng, a.contextDim, spec.maxK);
    const copy = { ...q, features: q.features.slice(), revenues: q.revenues?.slice() };
    const da = a.select(copy);
    const db = b.select(q);
    q.features.fill(0.3);
    q.revenues?.fill(0.7);
    if (show(da) !== show(db)) throw new ContractViolation(`round ${t}: reused buffer changed the decision`);
    pa.push(da);
    pb.push(db);
    while (pa.length > 3 || (pa.length > 0 && rng.uniform() < 0.3)) {
      const i = rng.int(pa.length);
      const d = pa[i] as AssortmentDecision;
      const k = rng.int(d.items.length + 1);
      const choice = k === d.items.length ? null : (d.items[k] as number);
      a.update(pa.splice(i, 1)[0] as AssortmentDecision, { choice });
      b.update(pb.splice(i, 1)[0] as AssortmentDecision, { choice });
    }
  }
  if (JSON.stringify(a.toJSON()) !== JSON.stringify(b.toJSON()))
    throw new ContractViolation("overwriting the caller's query buffers after select changed the learned state");
}

/**
 * Same as {@link checkBufferReuseArm} for cascades: a caller that overwrites its context buffer after `begin` and its
 * answer-feature buffer after `observe` (up to three episodes open at once, advanced in random order) must get the
 * same steps, choices and learned state as a caller that passes fresh copies.
 */
export function checkBufferReuseCascade<P extends CascadePolicy>(
  spec: CascadePolicySpec<P>,
  seed = 3,
  episodes = 60,
): void {
  const arms = ["arm-0", "arm-1", "arm-2"];
  const a = spec.create({ seed, arms });
  const b = spec.create({ seed, arms });
  const rng = Rng.fromSeed(seed).fork("reuse-cascade");
  const box = (n: number) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = rng.uniformIn(-1, 1);
    return v;
  };
  const ctxBuf = new Float64Array(a.contextDim);
  const featBuf = new Float64Array(a.outputDim);
  /** Open episodes: the id (the same in both) and the box asked for and not yet observed. */
  const open: { id: string; awaiting: string | null }[] = [];
  let begun = 0;
  let step = 0;
  while (begun < episodes || open.length > 0) {
    step++;
    if (begun < episodes && (open.length === 0 || (open.length < 3 && rng.uniform() < 0.3))) {
      const x = box(a.contextDim);
      ctxBuf.set(x);
      const ea = a.begin(x);
      const eb = b.begin(ctxBuf);
      ctxBuf.fill(0.123); // the caller reuses its buffer while the episode is open
      if (ea !== eb) throw new ContractViolation(`step ${step}: begin returned ${ea} and ${eb}`);
      open.push({ id: ea, awaiting: null });
      begun++;
      continue;
    }
    const k = rng.int(open.length);
    const e = open[k] as { id: string; awaiting: string | null };
    if (e.awaiting !== null) {
      const f = box(a.outputDim);
      featBuf.set(f);
      const cost = 0.01 + 0.5 * rng.uniform();
      a.observe(e.id, e.awaiting, f, cost);
      b.observe(e.id, e.awaiting, featBuf, cost);
      featBuf.fill(0.77);
      e.awaiting = null;
      continue;
    }
    const sa = a.next(e.id);
    const sb = b.next(e.id);
    if (show(sa) !== show(sb))
      throw new ContractViolation(`step ${step}: reused buffers changed next(): ${show(sa)} vs ${show(sb)}`);
    if ("query" in sa) {
      e.awaiting = sa.query;
      continue;
    }
    const ca = a.choose(e.id);
    const cb = b.choose(e.id);
    if (ca !== cb) throw new ContractViolation(`step ${step}: reused buffers changed choose(): ${ca} vs ${cb}`);
    const reward = rng.uniform();
    a.feedback(e.id, reward);
    b.feedback(e.id, reward);
    open.splice(k, 1);
  }
  if (JSON.stringify(a.toJSON()) !== JSON.stringify(b.toJSON()))
    throw new ContractViolation("overwriting the caller's context or feature buffers changed the learned state");
}
