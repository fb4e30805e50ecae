/** Replication lag samples (ms): the last 8192 kept in a ring, summarised on demand. */
export class LagStats {
  private readonly ring = new Float64Array(8192);
  private n = 0;
  private max = 0;

  add(ms: number): void {
    this.ring[this.n % this.ring.length] = ms;
    this.n++;
    if (ms > this.max) this.max = ms;
  }

  summary(): { median: number; p99: number; max: number; samples: number } {
    const k = Math.min(this.n, this.ring.length);
    if (k === 0) return { median: Number.NaN, p99: Number.NaN, max: Number.NaN, samples: 0 };
    const a = this.ring.slice(0, k).sort();
    const q = (p: number) => a[Math.min(k - 1, Math.floor(p * k))] as number;
    return { median: q(0.5), p99: q(0.99), max: this.max, samples: this.n };
  }
}
