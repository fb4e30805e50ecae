import {
  encodeF64,
  type Json,
  type LedgerCodec,
  ObjectPool,
  readF64,
  readInt,
  readObject,
  snapshotCorrupt,
} from "@routekit/core";
import { allocF64, freeF64 } from "@routekit/linalg";

/**
 * A pending decision of the family. It keeps the context exactly as received (-0 written as 0, as a
 * decision event carries it), so applying feedback to it and learning from its decision event run the
 * same arithmetic; the select-time caches below only skip recomputing values that are pure functions
 * of that context and the arm's unchanged state.
 */
export interface KernelPayload {
  /** Uid of the chosen arm. */
  uid: number;
  /** Decision sequence number, for the select-time kernel-row caches; -1 when restored or from an event. */
  seq: number;
  /** Sup-*: the stage set (0-based) the round is filed into, -1 when it is not filed. 0 otherwise. */
  stage: number;
  /** The context as received. */
  x: Float64Array;
  /** RffUcb: the chosen arm's model version when `phi` and `u` were cached; -1 when not cached. */
  version: number;
  /** RffUcb cache: phi(x) and A^-1 phi(x) of the chosen arm at select time. */
  phi: Float64Array;
  u: Float64Array;
}

/**
 * Ledger codec and pool of `KernelPayload`s for length-`d` contexts. A snapshot stores only
 * `{ uid, x }` (and `stage` when `withStage`): the caches are recomputed from them when needed.
 */
export class PayloadStore implements LedgerCodec<KernelPayload> {
  private readonly pool: ObjectPool<KernelPayload>;
  private cacheLen = 0;

  constructor(
    readonly d: number,
    readonly withStage: boolean,
    private readonly maxStage = 0,
  ) {
    this.pool = new ObjectPool<KernelPayload>(() => ({
      uid: 0,
      seq: -1,
      stage: 0,
      x: allocF64(d),
      version: -1,
      phi: allocF64(this.cacheLen),
      u: allocF64(this.cacheLen),
    }));
  }

  /** Length of the `phi` and `u` caches (RffUcb's feature count). */
  setCacheLength(n: number): void {
    this.cacheLen = n;
  }

  /** A payload for arm `uid` holding a copy of `x` (-0 stored as 0), caches invalid. */
  acquire(uid: number, x: ArrayLike<number>, seq: number, stage = 0): KernelPayload {
    const p = this.pool.acquire();
    p.uid = uid;
    p.seq = seq;
    p.stage = stage;
    p.version = -1;
    for (let i = 0; i < this.d; i++) p.x[i] = (x[i] as number) + 0;
    if (p.phi.length !== this.cacheLen) {
      freeF64(p.phi);
      freeF64(p.u);
      p.phi = allocF64(this.cacheLen);
      p.u = allocF64(this.cacheLen);
    }
    return p;
  }

  encode(p: KernelPayload): Json {
    const o: Record<string, Json> = { uid: p.uid, x: encodeF64(p.x) };
    if (this.withStage) o.stage = p.stage;
    return o;
  }

  decode(json: Json): KernelPayload {
    const uid = readPayload(json, this.d, this.withStage, this.maxStage);
    const o = json as Record<string, Json>;
    return this.acquire(uid, readF64(o.x, "ledger x", this.d), -1, this.withStage ? (o.stage as number) : 0);
  }

  dispose(p: KernelPayload): void {
    if (!this.pool.release(p)) {
      freeF64(p.x);
      freeF64(p.phi);
      freeF64(p.u);
    }
  }
}

/** Validates a pending decision of a snapshot (SNAPSHOT_CORRUPT otherwise) and returns its arm uid. */
export function readPayload(json: Json, d: number, withStage: boolean, maxStage: number): number {
  const o = readObject(json, "ledger payload");
  const uid = readInt(o, "uid");
  const x = readF64(o.x, "ledger x", d);
  // Stored as received: -0 never appears (decision events write it as 0).
  for (let i = 0; i < d; i++) if (Object.is(x[i], -0)) snapshotCorrupt(`ledger x[${i}]`, "not -0");
  if (withStage) readInt(o, "stage", -1, maxStage);
  return uid;
}
