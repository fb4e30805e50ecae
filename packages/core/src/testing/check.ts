/**
 * The per-step contract shared by every protocol's fuzzer:
 * - valid input never throws;
 * - invalid input throws a RouteKitError with one of the expected codes and leaves the snapshot unchanged;
 * - "edge" input (extreme magnitudes, degenerate but finite data) either works or throws a
 *   RouteKitError, and in both cases leaves no NaN behind (and an unchanged snapshot when it throws);
 * - after every step the snapshot holds no NaN and survives a JSON round trip.
 */
import { ErrorCode, isRouteKitError, RouteKitError } from "../errors.js";
import type { PolicyBase } from "../protocols.js";
import type { Snapshot } from "../snapshot.js";
import { describeError, findNaNIn, findNonFinite, findNonJson, show } from "./inspect.js";

/**
 * What `fn` throws, for tests that assert error codes: the `code` of a RouteKitError, `untyped: <error>` for anything
 * else (so a TypeError fails an assertion on a code, naming itself), `undefined` when it returns.
 */
export function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

/** Thrown by the harness when a policy breaks the contract; the message says which step and why. */
export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContractViolation";
  }
}

const ALL_CODES = new Set<string>(Object.values(ErrorCode));

/** A trace of the steps run so far, printed with every violation so failures can be replayed by hand. */
export class Trace {
  private readonly lines: string[] = [];
  push(line: string): void {
    this.lines.push(line);
  }
  fail(why: string): never {
    const tail = this.lines.slice(-25);
    const skipped = this.lines.length - tail.length;
    throw new ContractViolation(
      `${why}\n  steps${skipped > 0 ? ` (last ${tail.length} of ${this.lines.length})` : ""}:\n    ${tail.join("\n    ")}`,
    );
  }
}

export interface StateHooks<P> {
  /** Extra numeric state to scan for NaN, for policies whose snapshot hides it (optional). */
  readonly numericState?: (policy: P) => Iterable<ArrayLike<number>>;
}

/** Snapshot text and the NaN/JSON checks run after every step. */
export function checkState<P extends PolicyBase>(policy: P, hooks: StateHooks<P>, trace: Trace): string {
  let snap: Snapshot;
  try {
    snap = policy.toJSON();
  } catch (e) {
    trace.fail(`toJSON() threw: ${describeError(e)}`);
  }
  if (snap.kind !== policy.kind) trace.fail(`snapshot kind "${snap.kind}" differs from policy.kind "${policy.kind}"`);
  const hits = findNonFinite(snap);
  if (hits.length > 0) {
    trace.fail(
      `snapshot holds non-finite values: ${hits.map((h) => `${h.path}=${h.value}${h.encoded ? " (f64)" : ""}`).join(", ")}`,
    );
  }
  if (hooks.numericState) {
    const h2 = findNaNIn(hooks.numericState(policy), "numericState");
    if (h2.length > 0) trace.fail(`internal state holds NaN: ${h2.map((h) => h.path).join(", ")}`);
  }
  // JSON.stringify(JSON.parse(text)) === text holds for any text JSON.stringify wrote, so that comparison could not
  // fail: what loses data in a round trip is a value stringify drops or changes, looked for here.
  const lossy = findNonJson(snap);
  if (lossy !== null) trace.fail(`snapshot does not survive a JSON round trip: ${lossy} is not plain JSON data`);
  return JSON.stringify(snap);
}

/** Runs a call that must succeed. */
export function expectOk<T>(trace: Trace, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    trace.fail(`valid call ${what} threw ${describeError(e)}`);
  }
}

/**
 * Runs a call that must throw a RouteKitError with a code in `codes`, leaving the snapshot equal to
 * `before`. Returns the code.
 */
export function expectRejected<P extends PolicyBase>(
  trace: Trace,
  policy: P,
  before: string,
  what: string,
  codes: readonly string[],
  fn: () => unknown,
): string {
  let result: unknown;
  try {
    result = fn();
  } catch (e) {
    if (!(e instanceof RouteKitError)) trace.fail(`invalid call ${what} threw a non-typed error: ${describeError(e)}`);
    if (!codes.includes(e.code)) {
      trace.fail(`invalid call ${what} threw ${e.code}, expected one of ${codes.join("|")} (${e.message})`);
    }
    const after = JSON.stringify(policy.toJSON());
    if (after !== before) trace.fail(`invalid call ${what} threw ${e.code} but changed the snapshot`);
    return e.code;
  }
  trace.fail(`invalid call ${what} did not throw (expected ${codes.join("|")}); it returned ${show(result)}`);
}

/**
 * Runs a call on edge input: success is fine (the caller then checks the result and the state), a
 * RouteKitError is fine if the snapshot is unchanged, anything else is a violation.
 * Returns `{ ok: true, value }` or `{ ok: false, code }`.
 */
export function expectTolerated<P extends PolicyBase, T>(
  trace: Trace,
  policy: P,
  before: string,
  what: string,
  fn: () => T,
): { ok: true; value: T } | { ok: false; code: string } {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (!(e instanceof RouteKitError) || !ALL_CODES.has(e.code)) {
      trace.fail(`edge call ${what} threw a non-typed error: ${describeError(e)}`);
    }
    const after = JSON.stringify(policy.toJSON());
    if (after !== before) trace.fail(`edge call ${what} threw ${e.code} but changed the snapshot`);
    return { ok: false, code: e.code };
  }
}

/** Fuzz sizes: `ROUTEKIT_FUZZ=large` multiplies the number of runs by 10. */
export function fuzzScale(): number {
  const v = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.ROUTEKIT_FUZZ;
  return v === "large" ? 10 : 1;
}

/** Long-horizon sizes: `ROUTEKIT_LONG=large` selects the large horizon. */
export function longHorizon(ci: number, large: number): number {
  const v = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.ROUTEKIT_LONG;
  return v === "large" ? large : ci;
}
