import {
  decodeF64,
  encodeF64,
  type Json,
  type LedgerCodec,
  ObjectPool,
  readF64,
  readInt,
  readObject,
  snapshotInvalid,
} from "@routekit/core";
import { allocF64, allocF64From, dot, freeF64 } from "@routekit/linalg";

/**
 * A pending LinUCB decision: the chosen arm's uid, the model version the decision was computed
 * against, the context x, and u = A^-1 z (z = the chosen arm's feature vector) computed at select
 * time. If the model is still at `version` when feedback arrives, u is reused by the
 * Sherman-Morrison update instead of being recomputed (O(d) instead of O(d^2)).
 */
export interface VecPayload {
  uid: number;
  version: number;
  x: Float64Array;
  u: Float64Array;
}

/**
 * Validates a pending LinUCB decision of a snapshot (SNAPSHOT_CORRUPT otherwise): uid in
 * [0, nextUid), version a safe integer >= 0, x finite of length `xLength` with a finite squared norm
 * (select refuses any other context, see checkContextNorm; the same `dot` is used, so every context it
 * accepted passes), u finite with a length `uLengthOk` accepts.
 */
export function checkVecPayload(json: Json, xLength: number, uLengthOk: (n: number) => boolean): number {
  const o = readObject(json, "ledger payload");
  const uid = readInt(o, "uid", 0);
  readInt(o, "version", 0);
  const x = readF64(o.x, "ledger x", xLength);
  const xx = dot(x, x, xLength);
  if (!Number.isFinite(xx)) {
    snapshotInvalid("ledger x (squared norm)", xx, "select refuses a context whose squared norm overflows");
  }
  readF64(o.u, "ledger u", uLengthOk);
  return uid;
}

/**
 * Ledger codec and allocator for {@link VecPayload}s. Settled records go back to an ObjectPool with
 * their vectors attached (one pool for the record and both vectors, rather than a Float64Pool each, as
 * u changes length when the model grows), so a steady select/update stream allocates no payload
 * memory. The vectors come from linalg's `allocF64` (WebAssembly-reachable, for the SIMD
 * Sherman-Morrison update); records the pool does not keep return them with `freeF64`.
 */
export class VecPayloadStore implements LedgerCodec<VecPayload> {
  private readonly records: ObjectPool<VecPayload>;
  private uLen: number;

  constructor(
    readonly xLength: number,
    uLength: number,
    maxFree = 1024,
  ) {
    this.uLen = uLength;
    this.records = new ObjectPool(
      () => ({ uid: 0, version: 0, x: allocF64(xLength), u: allocF64(this.uLen) }),
      maxFree,
    );
  }

  get uLength(): number {
    return this.uLen;
  }

  /** Changes the length of u in new payloads (records with another length get a new u when reused). */
  setULength(n: number): void {
    this.uLen = n;
  }

  /** A payload holding a copy of x (xLength values) and a u buffer of uLength values to fill. */
  acquire(uid: number, version: number, x: ArrayLike<number>): VecPayload {
    const p = this.records.acquire();
    p.uid = uid;
    p.version = version;
    if (p.u.length !== this.uLen) {
      freeF64(p.u);
      p.u = allocF64(this.uLen);
    }
    // -0 is stored as 0, as a decision event writes it, so update and learn see the same bits.
    for (let i = 0; i < this.xLength; i++) p.x[i] = (x[i] as number) + 0;
    return p;
  }

  encode(p: VecPayload): Json {
    return { uid: p.uid, version: p.version, x: encodeF64(p.x), u: encodeF64(p.u) };
  }

  decode(json: Json): VecPayload {
    const o = readObject(json, "ledger payload");
    const uid = readInt(o, "uid");
    const version = readInt(o, "version");
    const x = allocF64From(decodeF64(o.x, "ledger x", this.xLength));
    // u may be shorter than uLength if the model grew after the decision; such a u is never reused.
    const u = allocF64From(decodeF64(o.u, "ledger u"));
    return { uid, version, x, u };
  }

  /** Recycles a settled or evicted payload (its buffers stay attached to the record for reuse). */
  dispose(p: VecPayload): void {
    if (!this.records.release(p)) {
      freeF64(p.x);
      freeF64(p.u);
    }
  }
}
