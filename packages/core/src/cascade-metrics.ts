/**
 * Cascade-only metrics, recorded beside {@link MetricsRecorder} by the runner's cascade driver:
 * boxes opened per request (running mean at each checkpoint) and, per box, the share of requests
 * since the previous checkpoint in which it was opened (a box first opened later has zeros before).
 * Cost per request is the recorder's `costPerRound` (the driver records the costs paid).
 */
import { checkpoints } from "./metrics.js";

export class QueryRecorder {
  private readonly marks: number[];
  private nextMark = 0;
  private rounds = 0;
  private queries = 0;
  private roundsSinceMark = 0;
  private readonly counts = new Map<string, number>();
  private readonly countsAtMark = new Map<string, number>();
  /** Running mean of boxes opened per request, aligned with the recorder's `t`. */
  readonly queriesPerRound: number[] = [];
  /** Windowed share of requests that opened each box, aligned with the recorder's `t`. */
  readonly queryShare: Record<string, number[]> = {};

  constructor(horizon: number, points = 200) {
    this.marks = checkpoints(horizon, points);
  }

  /** Records the boxes opened in one request. */
  record(queried: readonly string[]): void {
    this.rounds++;
    this.roundsSinceMark++;
    this.queries += queried.length;
    for (const a of queried) this.counts.set(a, (this.counts.get(a) ?? 0) + 1);
    if (this.rounds !== this.marks[this.nextMark]) return;
    const index = this.queriesPerRound.length;
    this.queriesPerRound.push(this.queries / this.rounds);
    for (const [arm, count] of this.counts) {
      let row = this.queryShare[arm];
      if (row === undefined) {
        row = new Array<number>(index).fill(0);
        this.queryShare[arm] = row;
      }
      row.push((count - (this.countsAtMark.get(arm) ?? 0)) / this.roundsSinceMark);
      this.countsAtMark.set(arm, count);
    }
    this.roundsSinceMark = 0;
    this.nextMark++;
  }

  /** Mean boxes opened per request over the run. */
  meanQueries(): number {
    return this.queries / Math.max(1, this.rounds);
  }

  /** Fraction of requests in which each box was opened, over the run. */
  shares(): Record<string, number> {
    const out: Record<string, number> = {};
    const n = Math.max(1, this.rounds);
    for (const [k, v] of this.counts) out[k] = v / n;
    return out;
  }
}
