/**
 * Stable error codes. A code never changes meaning once published; messages may improve.
 * Callers branch on `err.code`, never on the message text.
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
  /** A numerical failure that input validation could not foresee (e.g. a matrix lost definiteness). */
  Numerical: "NUMERICAL",
  SnapshotVersion: "SNAPSHOT_VERSION",
  SnapshotKind: "SNAPSHOT_KIND",
  SnapshotCorrupt: "SNAPSHOT_CORRUPT",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The one error type RouteKit throws on bad input. Its `code` is stable across versions. */
export class RouteKitError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "RouteKitError";
    this.code = code;
    this.details = details;
  }
}

/** True when `e` is a RouteKitError, optionally with the given code. */
export function isRouteKitError(e: unknown, code?: ErrorCode): e is RouteKitError {
  return e instanceof RouteKitError && (code === undefined || e.code === code);
}
