/** Shared by core's test files: the RouteKitError code a call throws (undefined when it returns). */
import type { RouteKitError } from "../src/index.js";

export function errorCode(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as RouteKitError).code;
  }
  return undefined;
}
