import type { Lineage } from "./snapshot-file.js";

/**
 * Public decision ids: `<run>.<policy id>`. The policy numbers its decisions (`d0`, `d1`, ...) and a
 * policy restored from a snapshot numbers on from the snapshot, so after a crash the ids a run issued
 * past its last snapshot come back for new decisions. The run prefix (random per process start) keeps
 * an old decision's late feedback from landing on a new decision with the same policy id.
 */
export class DecisionIds {
  /** The first and next sequence numbers this run issued, once it has issued one. */
  private first = -1;
  private next = -1;

  constructor(
    readonly run: string,
    /** Earlier runs' ranges that the restored state holds, newest last. */
    private readonly restored: readonly Lineage[],
  ) {}

  /** The public id of a decision this run just made. */
  issued(localId: string): string {
    const seq = sequenceOf(localId);
    if (this.first < 0) this.first = seq;
    this.next = seq + 1;
    return `${this.run}.${localId}`;
  }

  /**
   * The policy id a public id stands for, or a reason it stands for nothing the current state holds.
   * Whether the decision is still pending is the policy's call (its ledger's typed errors).
   */
  resolve(publicId: string): { localId: string } | { unknown: string } {
    const dot = publicId.indexOf(".");
    if (dot <= 0) return { unknown: `decision id ${JSON.stringify(publicId)} is not one this gateway issues` };
    const run = publicId.slice(0, dot);
    const localId = publicId.slice(dot + 1);
    const seq = sequenceOf(localId);
    if (Number.isNaN(seq)) return { unknown: `decision id ${JSON.stringify(publicId)} is not one this gateway issues` };
    const held =
      run === this.run
        ? this.first >= 0 && seq >= this.first
        : this.restored.some((l) => l.run === run && seq >= l.from && seq < l.to);
    if (held) return { localId };
    return {
      unknown: `decision ${publicId} was made by an earlier run after its last snapshot, and that run's state was lost when it stopped`,
    };
  }

  /** The ranges a snapshot taken now holds: the restored ones plus this run's (the oldest beyond `keep` dropped). */
  lineage(keep = 64): Lineage[] {
    const all =
      this.first < 0 ? [...this.restored] : [...this.restored, { run: this.run, from: this.first, to: this.next }];
    return all.slice(-keep);
  }
}

/** The trailing decimal sequence number of a policy id (`d41` -> 41), NaN if there is none. */
function sequenceOf(localId: string): number {
  const m = /(\d{1,15})$/.exec(localId);
  return m === null ? Number.NaN : Number(m[1]);
}
