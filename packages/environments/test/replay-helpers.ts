import { isRouteKitError, type RouteKitError } from "@routekit/core";
import { expect } from "vitest";
import type { ReplayIssue } from "../src/replay/index.js";

/** The issues a parseReplay call reports (it must throw INVALID_ARGUMENT with `details.issues`). */
export function issuesOf(fn: () => unknown): ReplayIssue[] {
  try {
    fn();
  } catch (e) {
    expect(isRouteKitError(e, "INVALID_ARGUMENT")).toBe(true);
    return (e as RouteKitError).details?.issues as ReplayIssue[];
  }
  throw new Error("expected a throw");
}

/** Rows as JSONL text. */
export const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n");
