/**
 * Stable error codes. A code never changes meaning once published; messages may improve.
 * Callers branch on `err.code`, never on the message text.
 *
 * The rule every package follows, so the same fault gets the same code everywhere:
 * - a value of the wrong JavaScript type, a missing required field, an unknown option or enum string
 *   -> `INVALID_ARGUMENT`;
 * - NaN or +-Infinity where a finite number is required -> `NON_FINITE`;
 * - a finite number outside its documented range, or a non-integer where an integer is required
 *   (`maxPending: 0`, a negative exploration, a share of 1.5) -> `OUT_OF_RANGE`;
 * - a vector of the wrong length -> `DIMENSION_MISMATCH`;
 * - a malformed logged event given to `learn` -> `INVALID_EVENT`;
 * - a bad snapshot -> one of the `SNAPSHOT_*` codes, whatever field is wrong inside it.
 */
export const ErrorCode = {
  /** An argument has the wrong type, shape or value (see message). */
  InvalidArgument: "INVALID_ARGUMENT",
  /** A vector or matrix has the wrong length for this policy or environment. */
  DimensionMismatch: "DIMENSION_MISMATCH",
  /** A NaN or +-Infinity where a finite number is required. */
  NonFinite: "NON_FINITE",
  /** A value outside its documented range (e.g. revenue outside [0,1]). */
  OutOfRange: "OUT_OF_RANGE",
  UnknownArm: "UNKNOWN_ARM",
  DuplicateArm: "DUPLICATE_ARM",
  /** Removing the arm would leave the policy with none. */
  LastArm: "LAST_ARM",
  /** select() was called on a policy that has no arms. */
  NoArms: "NO_ARMS",
  /** Feedback names a decision id this policy never issued. */
  UnknownDecision: "UNKNOWN_DECISION",
  /** Feedback for a decision that already received feedback. */
  DecisionAlreadyUsed: "DECISION_ALREADY_USED",
  /** Feedback for a decision evicted from the pending ledger (too old). */
  DecisionExpired: "DECISION_EXPIRED",
  /** An assortment query with no items, or maxSize < 1. */
  EmptyAssortment: "EMPTY_ASSORTMENT",
  /** A choice that is not one of the offered items. */
  InvalidChoice: "INVALID_CHOICE",
  /** No routing distribution satisfies the budget and capacity constraints. */
  InfeasibleBudget: "INFEASIBLE_BUDGET",
  /** A call out of protocol order (e.g. cascade choose() before any query). */
  InvalidState: "INVALID_STATE",
  /** A logged decision event given to `learn` is malformed or lacks what the policy needs. */
  InvalidEvent: "INVALID_EVENT",
  /** An optional dependency (e.g. the HiGHS solver) is not installed or failed to load. */
  MissingDependency: "MISSING_DEPENDENCY",
  /** A service the call needs cannot be reached (Redis, for `@routekit/replicate`); `details.cause` has its error. */
  Unavailable: "UNAVAILABLE",
  /** A numerical failure that input validation could not foresee (e.g. a matrix lost definiteness). */
  Numerical: "NUMERICAL",
  SnapshotVersion: "SNAPSHOT_VERSION",
  SnapshotKind: "SNAPSHOT_KIND",
  SnapshotCorrupt: "SNAPSHOT_CORRUPT",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

// A registered symbol, so errors are recognised across copies of this module (an ESM and a CJS build
// loaded side by side, or two bundles): `instanceof` alone fails there.
const BRAND = Symbol.for("@routekit/core/RouteKitError");

/** The one error type RouteKit throws on bad input. Its `code` is stable across versions. */
export class RouteKitError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  /** `options.cause` (optional) is the error this one wraps, kept as the standard `cause` property. */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RouteKitError";
    this.code = code;
    this.details = details;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](e: unknown): boolean {
    return hasBrand(e);
  }
}

/**
 * True when `e` is a RouteKitError, optionally with the given code. Works when the error was thrown by
 * another copy of `@routekit/core` (ESM and CJS builds in one process, several bundles).
 */
export function isRouteKitError(e: unknown, code?: ErrorCode): e is RouteKitError {
  return hasBrand(e) && (code === undefined || (e as RouteKitError).code === code);
}

/**
 * Whether `e` carries the registered brand. A predicate never throws: a thrown proxy whose `get` trap throws, or a
 * revoked one, is not a RouteKitError (reading its brand threw inside `catch` blocks that test for one).
 */
function hasBrand(e: unknown): boolean {
  if (e === null || typeof e !== "object") return false;
  try {
    return (e as Record<symbol, unknown>)[BRAND] === true;
  } catch {
    return false;
  }
}
