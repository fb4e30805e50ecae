/**
 * Stream entries as Redis stores them: flat field/value string lists. Every entry carries its type
 * `t`, the writer `w` (replica id and incarnation) and the wall time `ts` (ms) it was written, for the
 * replication-lag measure.
 */

export type StreamEntry =
  | { readonly type: "d"; readonly id: string; readonly record: string; readonly writer: string; readonly ts: number }
  | { readonly type: "f"; readonly id: string; readonly feedback: string; readonly writer: string; readonly ts: number }
  | {
      readonly type: "a";
      readonly arm: string;
      /** The policy's addArm options as JSON text (absent: addArm(arm) alone). */
      readonly options?: string;
      readonly writer: string;
      readonly ts: number;
    }
  | { readonly type: "r"; readonly arm: string; readonly writer: string; readonly ts: number };

/** Field list for XADD. */
export function encodeEntry(e: StreamEntry): string[] {
  const head = ["t", e.type, "w", e.writer, "ts", String(e.ts)];
  if (e.type === "d") return [...head, "id", e.id, "r", e.record];
  if (e.type === "f") return [...head, "id", e.id, "f", e.feedback];
  if (e.type === "a" && e.options !== undefined) return [...head, "arm", e.arm, "o", e.options];
  return [...head, "arm", e.arm];
}

/** Parses a field list read by XREAD; undefined for an entry this version does not understand. */
export function decodeEntry(fields: readonly string[]): StreamEntry | undefined {
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) m.set(fields[i] as string, fields[i + 1] as string);
  const t = m.get("t");
  const writer = m.get("w") ?? "";
  const ts = Number(m.get("ts") ?? Number.NaN);
  const id = m.get("id");
  if (t === "d") {
    const record = m.get("r");
    return id !== undefined && record !== undefined ? { type: "d", id, record, writer, ts } : undefined;
  }
  if (t === "f") {
    const feedback = m.get("f");
    return id !== undefined && feedback !== undefined ? { type: "f", id, feedback, writer, ts } : undefined;
  }
  if (t === "a" || t === "r") {
    const arm = m.get("arm");
    if (arm === undefined || arm.length === 0) return undefined;
    const options = t === "a" ? m.get("o") : undefined;
    return options !== undefined ? { type: "a", arm, options, writer, ts } : { type: t, arm, writer, ts };
  }
  return undefined;
}

/** Orders two stream ids ("ms-seq"): negative when a is older. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split("-");
  const [bm, bs] = b.split("-");
  const dm = Number(am) - Number(bm);
  return dm !== 0 ? dm : Number(as) - Number(bs);
}
