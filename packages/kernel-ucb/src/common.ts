import {
  type ArmFeedback,
  type ArmTable,
  assertFinite,
  ErrorCode,
  encodeF64,
  type Json,
  type LedgerCodec,
  type ObjectPool,
  RouteKitError,
  readF64,
  readId,
  readInt,
  readObject,
} from "@routekit/core";

/** Checks the constructor's arm list (ids `table` accepts, none listed twice) before any arm is added. */
export function checkInitialArms<S>(table: ArmTable<S>, arms: readonly string[]): void {
  const seen = new Set<string>();
  for (const id of arms) {
    table.checkAdd(id);
    if (seen.has(id)) throw new RouteKitError(ErrorCode.DuplicateArm, `arm "${id}" is listed twice`);
    seen.add(id);
  }
}

/** The reward of `feedback`, which must be an object with a finite `reward`. */
export function feedbackReward(feedback: ArmFeedback): number {
  if (feedback === null || typeof feedback !== "object") {
    throw new RouteKitError(ErrorCode.InvalidArgument, "feedback must be an object { reward }");
  }
  assertFinite(feedback.reward, "feedback.reward");
  return feedback.reward;
}

/** A pending decision that keeps its (normalised) context y and ||y||^2 (PAK-UCB, KernelUCB, Sup-*). */
export interface ContextPayload {
  seq: number;
  arm: string;
  y: Float64Array;
  ny: number;
}

/**
 * Ledger codec for context payloads of length-`d` contexts, records taken from `pool`; stored as
 * `{ seq, arm, ...ints, ny, y }` where `ints` names the payload's other (integer) fields with the
 * [min, max] a snapshot may hold, e.g. `{ tag: [0, Number.MAX_SAFE_INTEGER] }`.
 */
export function contextPayloadCodec<P extends ContextPayload>(
  d: number,
  pool: ObjectPool<P>,
  ints?: Readonly<Partial<Record<keyof P & string, readonly [number, number]>>>,
): LedgerCodec<P> {
  const extra = Object.entries(ints ?? {}) as [string, readonly [number, number]][];
  return {
    encode: (p) => {
      const o: Record<string, Json> = { seq: p.seq, arm: p.arm };
      for (const [k] of extra) o[k] = (p as unknown as Record<string, number>)[k] as number;
      o.ny = p.ny;
      o.y = encodeF64(p.y);
      return o;
    },
    decode: (j) => {
      const r = readObject(j, "pending decision");
      const seq = readInt(r, "seq");
      const arm = readId(r, "arm");
      for (const [k, [min, max]] of extra) readInt(r, k, min, max);
      const y = readF64(r.y, "payload.y", d);
      const p = pool.acquire();
      p.seq = seq;
      p.arm = arm;
      for (const [k] of extra) (p as unknown as Record<string, number>)[k] = r[k] as number;
      p.y.set(y);
      // ||y||^2 is stored for readability; it must be the value recomputed from y (bit-exact).
      p.ny = sumSquares(p.y, d);
      if (r.ny !== p.ny) {
        pool.release(p);
        throw new RouteKitError(ErrorCode.SnapshotCorrupt, "pending decision ny does not match its context");
      }
      return p;
    },
    dispose: (p) => {
      pool.release(p);
    },
  };
}

/** Sum of squares in index order (bit-identical to what normalizeInto returns for the same values). */
function sumSquares(y: Float64Array, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += (y[i] as number) * (y[i] as number);
  return s;
}
