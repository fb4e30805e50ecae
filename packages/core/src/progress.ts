import { ErrorCode, RouteKitError } from "./errors.js";
import type { Progress } from "./runner.js";
import { errorText } from "./validate.js";

/**
 * Calls the caller's onProgress; an error it throws stops the experiment as INVALID_ARGUMENT (the callback is an
 * argument that failed) with the original error as `cause`, instead of coming through as a raw Error.
 */
export function reportProgress(onProgress: ((p: Progress) => void) | undefined, p: Progress): void {
  if (onProgress === undefined) return;
  try {
    onProgress(p);
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `onProgress threw: ${errorText(e)}`, undefined, { cause: e });
  }
}
