import type { Rng } from "@routekit/core";

/**
 * What resets drew, kept across environments so that resets with the same stream key and settings draw it once:
 * the runner builds a fresh environment for every policy on every seed, and an environment whose reset draws a
 * large sample (a prompt pool, a Monte-Carlo estimate) would otherwise draw the same numbers once per policy.
 * Entries are dropped least recently used first when their bytes pass the budget. Callers must never write to what
 * they keep or get (copy what a caller of theirs could write to).
 */
export class ResetDrawCache<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  /** Keeps `value` (about `bytes` bytes) under `key`, unless it alone is over the budget. */
  set(key: string, value: T, bytes: number): void {
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }
}

/**
 * The cache key of a reset's draw: the reset stream's key (its forks depend on the key alone, not on draws already
 * made) and every setting the draw reads, numbers written exactly. Undefined (no reuse) when the settings do not
 * serialise (a cycle in them).
 */
export function resetDrawKey(rng: Rng, settings: unknown): string | undefined {
  try {
    return `${rng.toJSON().key.join(",")}|${JSON.stringify(settings, exactValues)}`;
  } catch {
    return undefined;
  }
}

/** JSON.stringify replacer of a cache key: numbers exactly (-0, NaN and the infinities too) and bigints, told apart from strings. */
function exactValues(_key: string, v: unknown): unknown {
  if (typeof v === "number") return Object.is(v, -0) ? "n-0" : `n${v}`;
  if (typeof v === "string") return `s${v}`;
  if (typeof v === "bigint") return `b${v}`;
  return v;
}
