/** A key named twice in one object of a JSON text, and where. */
export interface DuplicateJsonKey {
  /** The key, decoded (`"a"` and `"\u0061"` are the same key). */
  readonly key: string;
  /** Path of the object holding it, e.g. `feedback` or `decision.state` ("" at the top level). */
  readonly path: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the quote that closes the string opened at `open`. */
function closingQuote(text: string, open: number): number {
  let j = open + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return text.length;
    let b = j - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((j - 1 - b) % 2 === 0) return j; // an even run of backslashes escapes nothing
    j++;
  }
}

function pathOf(frames: readonly (string | number)[]): string {
  let s = "";
  for (const f of frames) s += typeof f === "number" ? `[${f}]` : s === "" ? f : `.${f}`;
  return s;
}

/** Colons in `s`. */
function colons(s: string): number {
  let k = 0;
  for (let i = s.indexOf(":"); i >= 0; i = s.indexOf(":", i + 1)) k++;
  return k;
}

/**
 * Whether the text `json` of `value` (its `JSON.parse`) names every key once, decided without scanning the text:
 * the colons of a JSON text are its key/value pairs plus the colons inside its strings, so the text has no
 * duplicate key exactly when its colon count is the parsed value's keys plus the colons in its strings, unless an
 * escape `\u003a` wrote a colon (then undefined: scan the text).
 */
function namesEachKeyOnce(json: string, value: unknown): boolean | undefined {
  let expected = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") expected += colons(v);
    else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x !== null && typeof x === "object") stack.push(x);
        else if (typeof x === "string") expected += colons(x);
      }
    } else if (v !== null && typeof v === "object") {
      for (const k in v) {
        expected += 1 + colons(k);
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === "object") stack.push(x);
        else if (typeof x === "string") expected += colons(x);
      }
    }
  }
  if (colons(json) === expected) return true;
  return /\\u003a/i.test(json) ? undefined : false;
}

/**
 * The first key given twice in one object of `json`, a text `JSON.parse` accepts (which keeps the last value without
 * a word), or undefined. With `parsed` (the text's `JSON.parse`), a count of colons decides first, and the text is
 * scanned only when it has a duplicate (to name it) or writes a colon as `\u003a`: a log reader can check every line
 * for little more than a walk of the parsed value.
 */
export function findDuplicateJsonKey(json: string, parsed?: unknown): DuplicateJsonKey | undefined {
  if (parsed !== undefined && namesEachKeyOnce(json, parsed) === true) return undefined;
  return scanForDuplicateKey(json);
}

/** The scan behind {@link findDuplicateJsonKey}: one pass over the text, a set per object of two keys or more. */
function scanForDuplicateKey(json: string): DuplicateJsonKey | undefined {
  // Per open object: its first key (undefined before it) and, from the second on, the set of its keys; per open
  // array: null.
  const firsts: (string | null | undefined)[] = [];
  const sets: (Set<string> | undefined)[] = [];
  // Per open container: the current key (objects) or index (arrays), for the path of a duplicate.
  const frames: (string | number)[] = [];
  let depth = 0;
  let expectKey = false;
  const n = json.length;
  for (let i = 0; i < n; i++) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(json, i);
      if (expectKey) {
        let key = json.slice(i + 1, end);
        if (key.includes("\\")) key = JSON.parse(json.slice(i, end + 1)) as string;
        const top = depth - 1;
        const first = firsts[top];
        if (first === undefined) {
          firsts[top] = key;
        } else {
          let set = sets[top];
          if (set === undefined) {
            set = new Set<string>([first as string]);
            sets[top] = set;
          }
          if (set.has(key)) return { key, path: pathOf(frames.slice(0, top)) };
          set.add(key);
        }
        frames[top] = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      firsts[depth] = undefined;
      sets[depth] = undefined;
      frames[depth] = "";
      depth++;
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      firsts[depth] = null;
      sets[depth] = undefined;
      frames[depth] = 0;
      depth++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      sets[depth] = undefined;
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = depth - 1;
      if (firsts[top] === null) frames[top] = (frames[top] as number) + 1;
      else expectKey = true;
    }
  }
  return undefined;
}

/** `key "x" given twice in feedback` (or `at the top level`): the message readers put after the line number. */
export function duplicateKeyMessage(d: DuplicateJsonKey): string {
  return `key ${JSON.stringify(d.key)} given twice in ${d.path === "" ? "the top-level object" : d.path} (JSON.parse would keep the last value silently; give each key once)`;
}
