/**
 * How the CLI and config files read a number parameter: decimal notation with an optional exponent only.
 * Number() also read "0x10" as 16, "0b11" as 3, "0o7" as 7, "" as 0 and "Infinity" as a number.
 */

/** 12, -0.5, .5, 3., +2, 1e-3, 2E+6: no hexadecimal, binary or octal prefix, no separators, nothing else. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The number `v` spells, or NaN when it spells none: a number as it is, a string in decimal or exponent notation
 * (blanks around it ignored). Infinite values ("Infinity", "-Infinity", "1e999", YAML's .inf) are NaN unless
 * `infinite` is set (a parameter whose library option reads Infinity as "no bound").
 */
export function numberText(v: unknown, infinite = false): number {
  let x = Number.NaN;
  if (typeof v === "number") x = v;
  else if (typeof v === "string") {
    const s = v.trim();
    if (DECIMAL.test(s)) x = Number(s);
    else if (infinite && (s === "Infinity" || s === "+Infinity" || s === "-Infinity")) x = Number(s);
  }
  return Number.isFinite(x) || (infinite && !Number.isNaN(x)) ? x : Number.NaN;
}
