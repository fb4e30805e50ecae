/**
 * Unknown option keys are refused: a misspelt option must not be ignored (the policy would run with the default
 * without a word). The check builds the policy from its spec's base options plus one stray key at a time.
 */
import { RouteKitError } from "../errors.js";
import type { PolicyBase } from "../protocols.js";
import { ContractViolation } from "./check.js";
import { describeError, show } from "./inspect.js";
import type { ConstructSpec } from "./misuse.js";

/** A near miss of `key` that is not itself a key of `base`: another case if the key has letters, else a doubled last letter. */
function typoOf(key: string, base: Readonly<Record<string, unknown>>): string | undefined {
  const candidates = [key.toLowerCase(), key.toUpperCase(), `${key}${key.slice(-1)}`];
  return candidates.find((c) => c !== key && !(c in base));
}

/**
 * The spec's base options build a policy; each of these on top of them is INVALID_ARGUMENT naming the stray key:
 * an unrelated key, the same key set to `undefined`, a symbol key, and a near miss of every base option (which must
 * also say `did you mean "<option>"?`). Returns the number of cases checked (0 without `construct`).
 */
export function checkUnknownOptionKey<P extends PolicyBase>(spec: ConstructSpec<P>): number {
  if (!spec.construct) return 0;
  const build = spec.construct;
  const base = spec.baseOptions ?? {};
  try {
    build({ ...base });
  } catch (e) {
    throw new ContractViolation(
      `${spec.name}: the base options are valid but the constructor threw ${describeError(e)}`,
    );
  }
  const stray = "noSuchOptionKey";
  const cases: [string, Record<string | symbol, unknown>, string, string | undefined][] = [
    [`${stray}: 1`, { ...base, [stray]: 1 }, `"${stray}"`, undefined],
    [`${stray}: undefined`, { ...base, [stray]: undefined }, `"${stray}"`, undefined],
    ["a symbol key", { ...base, [Symbol("option")]: 1 }, "symbol", undefined],
  ];
  for (const key of Object.keys(base)) {
    const typo = typoOf(key, base);
    if (typo === undefined) continue;
    const { [key]: value, ...rest } = base;
    cases.push([`${typo} (for ${key})`, { ...rest, [typo]: value }, `"${typo}"`, `did you mean "${key}"?`]);
  }
  for (const [what, options, names, hint] of cases) {
    let made: P;
    try {
      made = build(options);
    } catch (e) {
      if (!(e instanceof RouteKitError)) {
        throw new ContractViolation(
          `${spec.name}: unknown option ${what} threw a non-typed error: ${describeError(e)}`,
        );
      }
      if (e.code !== "INVALID_ARGUMENT") {
        throw new ContractViolation(`${spec.name}: unknown option ${what} threw ${e.code}, expected INVALID_ARGUMENT`);
      }
      if (!e.message.includes(names) || (hint !== undefined && !e.message.includes(hint))) {
        const wanted = hint === undefined ? names : `${names} and ${hint}`;
        throw new ContractViolation(
          `${spec.name}: unknown option ${what}: the message should name ${wanted}: ${e.message}`,
        );
      }
      continue;
    }
    throw new ContractViolation(
      `${spec.name}: unknown option ${what} was accepted (expected INVALID_ARGUMENT); snapshot ${show(made.toJSON())}`,
    );
  }
  return cases.length;
}

/**
 * A getter that throws on an option (one key of the spec's base options or declared ranges at a time, the others as
 * given) is a typed error, INVALID_ARGUMENT naming the option, never the getter's own `Error` escaping the constructor
 * (the guarantee covers "a getter that throws" among the values no JSON body holds). Returns the number of cases
 * checked (0 without `construct`).
 */
export function checkThrowingOptionGetter<P extends PolicyBase>(spec: ConstructSpec<P>): number {
  if (!spec.construct) return 0;
  const build = spec.construct;
  const base = spec.baseOptions ?? {};
  let n = 0;
  // Every base option, and every option whose range the spec declares (set on top of the base options).
  const keys = new Set([...Object.keys(base), ...(spec.optionRanges ?? []).map((r) => r.name)]);
  for (const key of keys) {
    const options = { ...base };
    Object.defineProperty(options, key, {
      enumerable: true,
      configurable: true,
      get() {
        throw new Error(`hostile option getter ${key}`);
      },
    });
    n++;
    let made: P;
    try {
      made = build(options);
    } catch (e) {
      if (!(e instanceof RouteKitError)) {
        throw new ContractViolation(
          `${spec.name}: option ${key} whose getter throws escaped as a non-typed error: ${describeError(e)}`,
        );
      }
      if (e.code !== "INVALID_ARGUMENT" || !e.message.includes(key)) {
        throw new ContractViolation(
          `${spec.name}: option ${key} whose getter throws gave ${e.code} (${e.message}), expected INVALID_ARGUMENT naming it`,
        );
      }
      continue;
    }
    throw new ContractViolation(
      `${spec.name}: option ${key} whose getter throws was accepted; snapshot ${show(made.toJSON())}`,
    );
  }
  return n;
}
