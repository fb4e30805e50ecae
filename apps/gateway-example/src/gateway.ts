import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ArmEvent, type ArmFeedback, type ArmPolicy, isRouteKitError, type VectorInput } from "@routekit/core";
import { HashingFeaturizer } from "@routekit/environments";
import { DecisionIds } from "./decision-ids.js";
import { EventLog } from "./event-log.js";
import { errorResponse, RequestError } from "./http-errors.js";
import { type GatewaySnapshot, readSnapshotFile, writeSnapshotFile, writeSnapshotFileSync } from "./snapshot-file.js";
import { acquireStateLock, clearLegacyPidFile } from "./state-lock.js";

export interface GatewayOptions<P extends ArmPolicy> {
  /** Holds `snapshot.json` and `events.jsonl`; created if missing. One gateway process per directory. */
  stateDir: string;
  /** The models to route among. On a restart the restored policy gains the new ones and drops the missing ones. */
  models: readonly string[];
  /** A fresh policy (first start). */
  create: (models: readonly string[]) => P;
  /** A policy from its snapshot, e.g. `RffUcb.fromJSON`. */
  restore: (snapshot: unknown) => P;
  /**
   * Prompt text to context, for `/route` bodies that send `prompt` instead of `embedding`. The default,
   * environments' `HashingFeaturizer` (hashed words, word pairs and character n-grams, unit length), is a
   * stand-in for your embedding model: prompts that share words get nearby vectors.
   */
  embed?: (prompt: string) => VectorInput;
  /** Feedbacks between snapshots (default 1000). The log holds everything after the last one. */
  snapshotEvery?: number;
  /** Largest request body accepted (default 1 MiB: a 4096-float embedding in JSON is about 90 KB). */
  maxBodyBytes?: number;
  /**
   * `fdatasync` the log after each feedback's line (default false): a power cut then loses no answered
   * feedback, at the price of one disk flush per feedback (see the README's bench). Snapshots are then
   * flushed too, file and directory entry.
   */
  fsync?: boolean;
  /** Called with errors of background snapshots (default: console.error). */
  onError?: (e: unknown) => void;
}

export interface RouteResponse {
  decisionId: string;
  model: string;
  propensity?: number;
}

export interface GatewayStats {
  run: string;
  models: readonly string[];
  decisions: number;
  feedbacks: number;
  /** Events learned from the log at start (those after the snapshot). */
  replayed: number;
  pending: number;
  logBytes: number;
  snapshots: number;
}

/**
 * A routing sidecar: the gateway asks `POST /route` which model to call, calls it, scores the answer and
 * reports `POST /feedback`. Every feedback is learned and appended to an event log; snapshots are taken
 * every `snapshotEvery` feedbacks, and a restart restores the newest one and learns the log past it, so
 * the learned state survives a crash exactly.
 */
export class RoutingGateway<P extends ArmPolicy> {
  readonly server: Server;
  private decisions = 0;
  private feedbacks = 0;
  private sinceSnapshot = 0;
  private snapshots = 0;
  /** The snapshot being written, if any: snapshots are written one at a time, in order. */
  private writing: Promise<void> = Promise.resolve();
  private readonly embed: (prompt: string) => VectorInput;

  private constructor(
    readonly policy: P,
    private readonly unlock: () => void,
    private readonly log: EventLog,
    private readonly ids: DecisionIds,
    private readonly replayed: number,
    private readonly opts: GatewayOptions<P>,
  ) {
    this.server = createServer((req, res) => void this.handle(req, res));
    if (opts.embed !== undefined) this.embed = opts.embed;
    else {
      const featurizer = new HashingFeaturizer({ dim: policy.contextDim });
      // One buffer for every prompt: select copies its context before it returns.
      const buffer = new Float64Array(policy.contextDim);
      this.embed = (prompt) => featurizer.transform(prompt, buffer);
    }
  }

  /** Restores the newest snapshot, learns the log past it and reconciles the model list. */
  static open<P extends ArmPolicy>(opts: GatewayOptions<P>): RoutingGateway<P> {
    mkdirSync(opts.stateDir, { recursive: true });
    clearLegacyPidFile(join(opts.stateDir, "gateway.pid"));
    const unlock = acquireStateLock(join(opts.stateDir, "gateway.lock"));
    let log: EventLog | undefined;
    try {
      const snap = readSnapshotFile(join(opts.stateDir, "snapshot.json"));
      const policy = snap === undefined ? opts.create(opts.models) : opts.restore(snap.policy);
      log = EventLog.open(join(opts.stateDir, "events.jsonl"), { fsync: opts.fsync === true });
      // An empty log under a clean stop's snapshot was archived: the snapshot holds all of it.
      const archived = snap?.clean === true && log.bytes === 0 && snap.logOffset > 0;
      const offset = archived ? 0 : (snap?.logOffset ?? 0);
      if (offset > log.bytes) {
        throw new Error(
          `events.jsonl holds ${log.bytes} bytes but the snapshot includes ${offset}: the log was truncated or replaced`,
        );
      }
      let replayed = 0;
      const events = log.readFrom(offset);
      for (;;) {
        let event: ArmEvent;
        try {
          const next = events.next();
          if (next.done) break;
          event = next.value as ArmEvent;
          policy.learn(event);
        } catch (e) {
          // Say where: a hand-edited or foreign log should be fixable without reading the code.
          throw new Error(
            `events.jsonl: event ${replayed + 1} after the snapshot's offset ${offset}: ${(e as Error).message}`,
            { cause: e },
          );
        }
        // The decision may be pending in the snapshot (made before it, answered after it): it was answered.
        const id = String(event.id);
        try {
          policy.discard(id.slice(id.indexOf(".") + 1));
        } catch (e) {
          if (!isRouteKitError(e)) throw e; // made after the snapshot, or expired: nothing pending to drop
        }
        replayed++;
      }
      const armsBefore = policy.arms.join("\n");
      for (const model of opts.models) if (!policy.arms.includes(model)) policy.addArm(model);
      for (const arm of [...policy.arms]) if (!opts.models.includes(arm)) policy.removeArm(arm);
      const lineage = snap?.lineage ?? [];
      if (snap !== undefined && (snap.clean === true || policy.arms.join("\n") !== armsBefore)) {
        // Snapshot the new list before serving: replaying the log onto the old snapshot after a crash would
        // drop what a new model learned (learn ignores events of arms the policy lacks) and bring back a
        // dropped model's old state. Likewise a new log: the old snapshot's offset is into the archived one.
        // And a clean stop's mark must not outlive this start: were this run killed before its first snapshot,
        // the next start would take a log emptied since (moved away, truncated in place) for an archived one
        // and silently drop this run's events; without the mark it refuses to run instead.
        // Synchronous, so no event is logged before it is on disk.
        const path = join(opts.stateDir, "snapshot.json");
        writeSnapshotFileSync(
          path,
          { v: 1, logOffset: log.bytes, lineage, policy: policy.toJSON() },
          { fsync: opts.fsync === true },
        );
      }
      const ids = new DecisionIds(randomBytes(4).toString("hex"), lineage);
      return new RoutingGateway(policy, unlock, log, ids, replayed, opts);
    } catch (e) {
      log?.close();
      unlock();
      throw e;
    }
  }

  /** `{ prompt }` or `{ embedding }` -> the model to call and the id to report feedback under. */
  route(body: unknown): RouteResponse {
    const { prompt, embedding } = asObject(body);
    let context: VectorInput;
    if (embedding !== undefined) {
      if (prompt !== undefined)
        throw new RequestError(400, "INVALID_BODY", "send either prompt or embedding, not both");
      if (!Array.isArray(embedding))
        throw new RequestError(400, "INVALID_BODY", "embedding must be an array of numbers");
      context = embedding as number[]; // the policy checks its length and every entry
    } else {
      if (typeof prompt !== "string")
        throw new RequestError(400, "INVALID_BODY", "send prompt (a string) or embedding (an array of numbers)");
      context = this.embed(prompt);
    }
    const d = this.policy.select(context);
    this.decisions++;
    const out: RouteResponse = { decisionId: this.ids.issued(d.id), model: d.arm };
    if (d.propensity !== undefined) out.propensity = d.propensity;
    return out;
  }

  /** `{ decisionId, reward, cost? }`: learned, logged, and a snapshot started when one is due. */
  feedback(body: unknown): { learned: true } {
    const { decisionId, reward, cost } = asObject(body);
    if (typeof decisionId !== "string") throw new RequestError(400, "INVALID_BODY", "decisionId must be a string");
    const resolved = this.ids.resolve(decisionId);
    if ("unknown" in resolved) throw new RequestError(404, "UNKNOWN_DECISION", resolved.unknown);
    const fb = (cost === undefined ? { reward } : { reward, cost }) as ArmFeedback;
    // The record first: it throws (DECISION_ALREADY_USED, ...) before anything changes.
    const record = this.policy.decisionRecord(resolved.localId);
    // Logged before it is learned, in the same tick: a log write that fails (a full disk) leaves the state as
    // it was, and a snapshot never holds an event the log lacks. Feedback the router refuses (a reward that
    // is not a finite number) has its line taken back.
    const before = this.log.bytes;
    try {
      this.log.append({ ...record, id: decisionId, feedback: fb });
    } catch (e) {
      (this.opts.onError ?? console.error)(e);
      throw new RequestError(503, "LOG_WRITE_FAILED", "the event log could not be written; nothing was learned");
    }
    try {
      this.policy.update(resolved.localId, fb);
    } catch (e) {
      this.log.truncate(before);
      throw e;
    }
    this.feedbacks++;
    if (++this.sinceSnapshot >= (this.opts.snapshotEvery ?? 1000)) {
      this.snapshot().catch(this.opts.onError ?? ((e) => console.error("snapshot failed:", e)));
    }
    return { learned: true };
  }

  stats(): GatewayStats {
    return {
      run: this.ids.run,
      models: this.policy.arms,
      decisions: this.decisions,
      feedbacks: this.feedbacks,
      replayed: this.replayed,
      pending: this.policy.pendingDecisions,
      logBytes: this.log.bytes,
      snapshots: this.snapshots,
    };
  }

  /** Captures the state now (synchronously, with the log offset it includes) and writes it after any earlier one. */
  snapshot(): Promise<void> {
    return this.writeSnapshot(false);
  }

  private writeSnapshot(clean: boolean): Promise<void> {
    this.sinceSnapshot = 0;
    const snap: GatewaySnapshot = {
      v: 1,
      logOffset: this.log.bytes,
      lineage: this.ids.lineage(),
      policy: this.policy.toJSON(),
    };
    if (clean) snap.clean = true;
    const path = join(this.opts.stateDir, "snapshot.json");
    this.writing = this.writing
      .catch(() => {})
      .then(() => writeSnapshotFile(path, snap, { fsync: this.opts.fsync === true }));
    return this.writing.then(() => {
      this.snapshots++;
    });
  }

  /** Listens on `port` (0: any free one) of `host`; resolves to the port. */
  listen(port = 0, host = "127.0.0.1"): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops accepting requests, writes a final snapshot, closes the log and frees the state directory. */
  async close(): Promise<void> {
    if (this.server.listening) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeAllConnections();
      await closed;
    }
    await this.writeSnapshot(true);
    this.log.close();
    this.unlock();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = requestPath(req.url ?? "/");
      const route = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
      if (route === undefined) throw new RequestError(404, "NOT_FOUND", `no route ${path}`);
      if (req.method !== route) throw new RequestError(405, "METHOD_NOT_ALLOWED", `${path} takes ${route}`);
      let out: unknown;
      if (path === "/stats") out = this.stats();
      else if (path === "/healthz") out = { ok: true };
      else {
        const body = await readJson(req, this.opts.maxBodyBytes ?? 1 << 20);
        out = path === "/route" ? this.route(body) : this.feedback(body);
      }
      send(res, 200, out);
    } catch (e) {
      const { status, body } = errorResponse(e);
      if (status === 500) (this.opts.onError ?? console.error)(e);
      send(res, status, body);
    }
  }
}

const ROUTES: Readonly<Record<string, string>> = {
  "/route": "POST",
  "/feedback": "POST",
  "/stats": "GET",
  "/healthz": "GET",
};

function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new RequestError(400, "INVALID_BODY", "the body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so the 413 reaches the client instead of a reset;
      // past 8 times the limit the connection is cut, so no client can keep the sidecar reading forever.
      if (size <= limit) chunks.push(chunk);
      else if (size > 8 * limit) req.destroy();
    });
    req.on("error", reject);
    req.on("end", () => {
      if (size > limit) return reject(new RequestError(413, "BODY_TOO_LARGE", `the body exceeds ${limit} bytes`));
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new RequestError(400, "INVALID_JSON", "the body is not JSON"));
      }
    });
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The path of a request target, without its query. An origin-form target ("/route?x") is taken as it is: URL
 * parsing would read "//route" as a host named "route" and answer "no route /". An absolute-form one
 * ("http://host/route", as proxies send) is parsed.
 */
function requestPath(target: string): string {
  if (target.startsWith("/")) {
    const q = target.indexOf("?");
    return q < 0 ? target : target.slice(0, q);
  }
  try {
    return new URL(target).pathname;
  } catch {
    return target; // not a URL either: "no route <target>"
  }
}
