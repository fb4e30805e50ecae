import { type ErrorCode, isRouteKitError } from "@routekit/core";

/**
 * The HTTP status for each RouteKit error code. A `Record` over every code, so a code added to core
 * fails this package's typecheck until someone decides its status.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  // The client sent something the router refuses: its fault, retrying the same body fails again.
  INVALID_ARGUMENT: 400,
  DIMENSION_MISMATCH: 400,
  NON_FINITE: 400,
  OUT_OF_RANGE: 400,
  INVALID_EVENT: 400,
  EMPTY_ASSORTMENT: 400,
  INVALID_CHOICE: 400,
  // A decision or model this router does not know (a typo, or a decision made before a crash that the
  // snapshot did not hold).
  UNKNOWN_DECISION: 404,
  UNKNOWN_ARM: 404,
  // Feedback arrived twice: the first one counted; clients that retry on timeouts see this, not a double count.
  DECISION_ALREADY_USED: 409,
  DUPLICATE_ARM: 409,
  LAST_ARM: 409,
  INVALID_STATE: 409,
  // Older than the last `maxPending` decisions: the router no longer holds its context.
  DECISION_EXPIRED: 410,
  INFEASIBLE_BUDGET: 422,
  NO_ARMS: 503,
  UNAVAILABLE: 503,
  MISSING_DEPENDENCY: 500,
  NUMERICAL: 500,
  SNAPSHOT_VERSION: 500,
  SNAPSHOT_KIND: 500,
  SNAPSHOT_CORRUPT: 500,
};

/** A JSON error body: `{ error: { code, message } }`, with the RouteKit code when there is one. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Status and body for anything a handler threw. Unknown errors are 500 without their message (it may hold internals). */
export function errorResponse(e: unknown): { status: number; body: ErrorBody } {
  if (isRouteKitError(e)) return { status: HTTP_STATUS[e.code], body: { error: { code: e.code, message: e.message } } };
  if (e instanceof RequestError) return { status: e.status, body: { error: { code: e.code, message: e.message } } };
  return { status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } };
}

/** A malformed HTTP request (not JSON, too large, wrong route): the gateway's own errors, beside RouteKit's. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RequestError";
  }
}
