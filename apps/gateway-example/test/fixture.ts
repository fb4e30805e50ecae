// What the gateway's test files share: temporary state directories, the learned state, HTTP calls.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { learnedState } from "@routekit/core";
import type { RffUcb } from "@routekit/kernel-ucb";
import { afterAll, expect, vi } from "vitest";

const dirs: string[] = [];
/** A fresh temporary state directory, removed after the test file. */
export function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), "gateway-test-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The learned state as JSON text: equal texts mean equal Float64 bits (snapshots are base64 of the bytes). */
export function learned(gw: { policy: RffUcb }): string {
  return JSON.stringify(learnedState(gw.policy.toJSON()));
}

/** The fields a test reads from either a success or an error body. */
export interface Reply {
  decisionId: string;
  model: string;
  feedbacks: number;
  error: { code: string; message: string };
}

export async function call(
  url: string,
  path: string,
  body?: unknown,
  method = "POST",
): Promise<{ status: number; body: Reply }> {
  const res = await fetch(url + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Reply };
}

/** A POST of `body` as JSON. */
export function post(url: string, path: string, body: unknown): Promise<{ status: number; body: Reply }> {
  return call(url, path, body);
}

/**
 * Resolves once every background snapshot the gateway has started has been written: one per `snapshotEvery`
 * feedbacks since it opened (its `stats().snapshots` counts those written). A fixed sleep guessed this, and on a
 * loaded machine a copy of the state directory could miss them.
 */
export async function snapshotsLanded(
  gw: { stats(): { feedbacks: number; snapshots: number } },
  snapshotEvery: number,
) {
  const due = Math.floor(gw.stats().feedbacks / snapshotEvery);
  await vi.waitFor(() => expect(gw.stats().snapshots).toBe(due), { timeout: 30_000, interval: 10 });
}
