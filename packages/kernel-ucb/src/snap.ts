import { decodeF64, ErrorCode, field, type Json, RouteKitError } from "@routekit/core";

/** Snapshot readers that reject anything a corrupted snapshot could smuggle in (SNAPSHOT_CORRUPT). */
function corrupt(what: string): never {
  throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field ${what} is missing or invalid`);
}

/** A plain object (not null, not an array). */
export function obj(v: Json | undefined, what: string): Record<string, Json> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) corrupt(what);
  return v as Record<string, Json>;
}

/** A safe integer >= min. */
export function int(o: Record<string, Json>, name: string, min = 0): number {
  const v = o[name];
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) corrupt(name);
  return v as number;
}

/** A finite number. */
export function num(o: Record<string, Json>, name: string): number {
  const v = o[name];
  if (typeof v !== "number" || !Number.isFinite(v)) corrupt(name);
  return v as number;
}

/** Float64 data of a given length, all finite. */
export function f64(v: Json | undefined, what: string, length: number): Float64Array {
  const a = decodeF64(v, what, length);
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i] as number)) corrupt(what);
  return a;
}

/** A non-empty string field. */
export function str(o: Record<string, Json>, name: string): string {
  const v = field(o, name, "string");
  if (v.length === 0) corrupt(name);
  return v;
}

/** Sum of squares in index order (bit-identical to what normalizeInto returns for the same values). */
export function sumSquares(y: Float64Array, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += (y[i] as number) * (y[i] as number);
  return s;
}
