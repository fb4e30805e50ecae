/**
 * Unknown option keys. A misspelt option (`stepsize` for `stepSize`) would otherwise be ignored without a word and the
 * policy would run with the default, and a configuration read from YAML or JSON gets no excess-property check from
 * TypeScript. Every constructor therefore refuses keys it does not know, before doing anything else.
 *
 * The rule: an own key (enumerable string or symbol) that is not listed is INVALID_ARGUMENT whatever its value, even
 * `undefined`; a listed key whose value is `undefined` is accepted and means "the default" (TypeScript code writes
 * `{ seed: undefined }` legitimately). Only key names are read: no getter of the options object runs here.
 */
import { ErrorCode, RouteKitError } from "./errors.js";
import { readOptions } from "./options.js";
import { describe, errorText } from "./validate.js";

/**
 * Builds the list of option keys of an options type `T` and checks, at compile time, that it names every key of `T`:
 * `optionKeys<UCB1Options>()(["arms", "contextDim", ...])`. Leaving a key of `T` out fails type-checking ("an argument
 * for 'missing' was not provided", the missing key being the expected type); listing a key `T` lacks fails too.
 */
export function optionKeys<T extends object>() {
  return <const K extends readonly (keyof T & string)[]>(
    keys: K,
    ..._exhaustive: [Exclude<keyof T, K[number]>] extends [never] ? [] : [missing: Exclude<keyof T, K[number]>]
  ): readonly (keyof T & string)[] => Object.freeze([...keys]);
}

/** Longest key compared for a "did you mean" hint (longer keys are not typos of an option name). */
const MAX_HINT_LENGTH = 64;

/**
 * Optimal-string-alignment distance of `a` and `b` (insertions, deletions, substitutions and swaps of neighbours
 * cost 1), or `limit + 1` when it exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit = 2): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (prev2[j - 2] as number) + 1);
      }
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[n] as number, limit + 1);
}

/**
 * The known key `key` is most likely a typo of: one that differs only in case, else the nearest within edit distance
 * 2 (the first listed on a tie); undefined when none is that close.
 */
export function suggestOption(key: string, known: readonly string[]): string | undefined {
  if (key.length > MAX_HINT_LENGTH) return undefined;
  const lower = key.toLowerCase();
  for (const k of known) if (k.toLowerCase() === lower) return k;
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(key, k, 2);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

/**
 * Throws INVALID_ARGUMENT naming every own enumerable key (string or symbol) of `options` that `known` does not list,
 * with "did you mean" for a near miss; `where` names the class or function in the message. `options` must be an
 * object (`undefined` is accepted when `optional`: an omitted options object has no unknown keys). A proxy whose key
 * listing throws is INVALID_ARGUMENT too.
 */
export function rejectUnknownOptions(
  options: unknown,
  known: readonly string[],
  where: string,
  optional = false,
): void {
  if (options === undefined && optional) return;
  const o = readOptions(options, where);
  let keys: (string | symbol)[];
  try {
    keys = Reflect.ownKeys(o).filter((k) => Object.prototype.propertyIsEnumerable.call(o, k));
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${where}: listing the option keys threw: ${errorText(e)}`);
  }
  const unknown = keys.filter((k) => typeof k === "symbol" || !known.includes(k));
  if (unknown.length === 0) return;
  const parts = unknown.map((k) => {
    if (typeof k === "symbol") return "a symbol key";
    const hint = suggestOption(k, known);
    return hint === undefined ? describe(k) : `${describe(k)} (did you mean ${JSON.stringify(hint)}?)`;
  });
  const names = unknown.filter((k): k is string => typeof k === "string");
  throw new RouteKitError(
    ErrorCode.InvalidArgument,
    `${where}: unknown option${parts.length > 1 ? "s" : ""} ${parts.join(", ")}; known options: ${known.join(", ")}`,
    { unknown: names, known: [...known] },
  );
}
