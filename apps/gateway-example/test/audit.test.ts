// An outside tester's probes of the README's promises: each test here failed before its fix.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createRffGateway, EventLog } from "../src/index.js";
import { learned, post, snapshotsLanded, stateDir } from "./fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
/**
 * A kill -9 between two requests: the state directory as it is. Its lock names this process, which does not hold
 * the copy, so a start takes it over as it would a killed process's.
 */
function crashCopy(dir: string): string {
  const copy = stateDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

describe("audit: restarts", () => {
  it("a model added at a start and learned before a kill -9 keeps what it learned", async () => {
    const dir = stateDir();
    const opts = { contextDim: 8, policy: { seed: 1, frequencies: 16 } };
    await createRffGateway({ stateDir: dir, models: ["a", "b"], ...opts }).close();
    const gw = createRffGateway({ stateDir: dir, models: ["a", "b", "new"], ...opts });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    for (let i = 0; i < 30; i++) {
      const d = (await post(url, "/route", { embedding: [1, i % 3, 0, 0, 0, 0, 0, 0.5] })).body;
      await post(url, "/feedback", { decisionId: d.decisionId, reward: d.model === "new" ? 1 : 0 });
    }
    expect(gw.policy.visits().new).toBeGreaterThan(0);
    const crashed = crashCopy(dir);
    const live = learned(gw);
    await gw.close();
    const restored = createRffGateway({ stateDir: crashed, models: ["a", "b", "new"], ...opts });
    expect(learned(restored)).toBe(live);
    await restored.close();
  });

  it("a model dropped at a start and listed again after a kill -9 starts fresh, as without the crash", async () => {
    const opts = { contextDim: 8, policy: { seed: 1, frequencies: 16 } };
    const dir = stateDir();
    const first = createRffGateway({ stateDir: dir, models: ["a", "b", "c"], ...opts });
    const url = `http://127.0.0.1:${await first.listen()}`;
    for (let i = 0; i < 20; i++) {
      const d = (await post(url, "/route", { embedding: [1, i % 2, 0, 0, 0, 0, 0, 0] })).body;
      await post(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
    }
    await first.close();
    // Drops c, then dies; a clean stop would have snapshotted the list without c.
    const dropped = createRffGateway({ stateDir: dir, models: ["a", "b"], ...opts });
    const crashed = crashCopy(dir);
    await dropped.close();
    const clean = createRffGateway({ stateDir: dir, models: ["a", "b", "c"], ...opts });
    const afterCrash = createRffGateway({ stateDir: crashed, models: ["a", "b", "c"], ...opts });
    expect(afterCrash.policy.visits()).toEqual(clean.policy.visits());
    expect(afterCrash.policy.visits().c).toBe(0);
    await clean.close();
    await afterCrash.close();
  });

  it("a log archived after a clean stop (README: archive it as you would access logs) starts a new log", async () => {
    const dir = stateDir();
    const opts = { models: ["a", "b"], contextDim: 4 };
    const gw = createRffGateway({ stateDir: dir, ...opts });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    const d = (await post(url, "/route", { embedding: [1, 0, 0, 0] })).body;
    await post(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
    await gw.close();
    renameSync(join(dir, "events.jsonl"), join(stateDir(), "events-archived.jsonl"));
    const next = createRffGateway({ stateDir: dir, ...opts });
    expect(next.policy.visits()).toEqual({ [d.model]: 1, [d.model === "a" ? "b" : "a"]: 0 });
    const url2 = `http://127.0.0.1:${await next.listen()}`;
    const d2 = (await post(url2, "/route", { embedding: [0, 1, 0, 0] })).body;
    await post(url2, "/feedback", { decisionId: d2.decisionId, reward: 1 });
    // A kill -9 now: the restart replays the new log from its start, not from the old log's offset.
    const crashed = crashCopy(dir);
    const live = learned(next);
    await next.close();
    const restored = createRffGateway({ stateDir: crashed, ...opts });
    expect(restored.stats().replayed).toBe(1);
    expect(learned(restored)).toBe(live);
    await restored.close();
  });

  it("a log replaced or truncated after a crash (not a clean stop) still stops the start", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 4, snapshotEvery: 1 });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    for (let i = 0; i < 2; i++) {
      const d = (await post(url, "/route", { embedding: [1, i, 0, 0] })).body;
      await post(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
    }
    await snapshotsLanded(gw, 1);
    expect(gw.stats().snapshots).toBe(2);
    const crashed = crashCopy(dir);
    await gw.close();
    writeFileSync(join(crashed, "events.jsonl"), "");
    expect(() => createRffGateway({ stateDir: crashed, models: ["a", "b"], contextDim: 4 })).toThrow(/truncated/);
  });

  // A start after a clean stop writes no snapshot of its own (same models): the clean stop's snapshot, with its
  // `clean` mark, was still the newest when this run was killed, and an emptied log then read as archived.
  for (const how of ["truncated in place (copytruncate)", "moved away"]) {
    it(`a log ${how} after a crash of a run that started from a clean stop still stops the start`, async () => {
      const dir = stateDir();
      const opts = { models: ["a", "b"], contextDim: 4 };
      const first = createRffGateway({ stateDir: dir, ...opts });
      const url = `http://127.0.0.1:${await first.listen()}`;
      const d = (await post(url, "/route", { embedding: [1, 0, 0, 0] })).body;
      await post(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
      await first.close();
      const second = createRffGateway({ stateDir: dir, ...opts });
      const url2 = `http://127.0.0.1:${await second.listen()}`;
      for (let i = 0; i < 3; i++) {
        const di = (await post(url2, "/route", { embedding: [0, 1, i, 0] })).body;
        expect((await post(url2, "/feedback", { decisionId: di.decisionId, reward: 0.5 })).status).toBe(200);
      }
      const crashed = crashCopy(dir); // a kill -9: three learned events after the clean stop's snapshot
      const intact = crashCopy(dir);
      const live = learned(second);
      await second.close();
      const log = join(crashed, "events.jsonl");
      if (how === "moved away") renameSync(log, join(stateDir(), "events-archived.jsonl"));
      else writeFileSync(log, "");
      expect(() => createRffGateway({ stateDir: crashed, ...opts })).toThrow(/truncated/);
      // Left alone, the crash's log restores the live state.
      const restored = createRffGateway({ stateDir: intact, ...opts });
      expect(restored.stats().replayed).toBe(3);
      expect(learned(restored)).toBe(live);
      await restored.close();
    });
  }

  it("a lock naming this very process (a container restart reuses the pid) is taken over", async () => {
    const dir = stateDir();
    mkdirSync(join(dir, "gateway.lock"));
    writeFileSync(join(dir, "gateway.lock", String(process.pid)), "");
    const gw = createRffGateway({ stateDir: dir, models: ["a", "b"] });
    // ... while a second gateway of this process on the same directory is still refused.
    expect(() => createRffGateway({ stateDir: dir, models: ["a", "b"] })).toThrow(/in use by process/);
    await gw.close();
  });
});

describe("audit: the command line", () => {
  const main = join(here, "..", "dist", "main.js");
  for (const models of ["a,a,b", "", ","]) {
    it(`--models ${JSON.stringify(models)} is refused with a one-line message (exit 2), before touching the state`, () => {
      const dir = join(stateDir(), "state");
      const r = spawnSync(process.execPath, [main, "--port", "0", "--state", dir, "--models", models], {
        encoding: "utf8",
        timeout: 50_000, // only a guard against a hang: the run takes well under a second
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^routekit-gateway: --models /);
    });
  }
  // parseArgs threw these out of main: a Node stack trace (exit 1) instead of the usage errors' one line and exit 2.
  // And these were read only after the state directory was opened (--port 70000 failed at listen, exit 1), or
  // read loosely (--snapshot-every 0 snapshotted after every feedback; "0x10" and "1e3" were numbers).
  for (const args of [
    ["--bogus", "1"],
    ["--state"],
    ["--port", "-1"],
    ["extra"],
    ["--port", "70000"],
    ["--port", "0x10"],
    ["--snapshot-every", "0"],
    ["--snapshot-every", "1e3"],
    ["--dim", "0"],
    ["--seed", ""],
  ]) {
    it(`${args.join(" ")} is refused with a one-line message (exit 2), before touching the state`, () => {
      const dir = join(stateDir(), "state");
      const r = spawnSync(process.execPath, [main, "--models", "a,b", "--state", dir, ...args], {
        encoding: "utf8",
        timeout: 50_000, // only a guard against a hang: the run takes well under a second
      });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/^routekit-gateway: .*--help/);
      expect(existsSync(dir)).toBe(false);
    });
  }
});

describe("audit: the command line, a port in use", () => {
  it("--port in use: a one-line message, exit 1, and the state directory freed", async () => {
    const busy = createServer();
    const port = await new Promise<number>((r) =>
      busy.listen(0, "127.0.0.1", () => r((busy.address() as { port: number }).port)),
    );
    const dir = stateDir();
    const main = join(here, "..", "dist", "main.js");
    const r = spawnSync(process.execPath, [main, "--port", String(port), "--state", dir, "--models", "a,b"], {
      encoding: "utf8",
      timeout: 50_000, // only a guard against a hang: the run takes well under a second
    });
    busy.close();
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^routekit-gateway: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "gateway.lock"))).toBe(false);
  });
});

describe("audit: the event log", () => {
  it("reads lines longer than its 64 KiB chunk with multi-byte characters across the chunk boundaries", () => {
    const path = join(stateDir(), "events.jsonl");
    const log = EventLog.open(path);
    const events = [1, 70_000, 3, 200_000, 65_535, 65_536, 2].map((n, i) => ({ i, s: "é日🚀".repeat(n / 3) + "x" }));
    for (const e of events) log.append(e);
    expect([...log.readFrom(0)]).toEqual(events);
    log.close();
  });
});

describe("a body that never ends", () => {
  it("is cut past 8 times the body limit, and the sidecar keeps serving", async () => {
    const gw = createRffGateway({ stateDir: stateDir(), models: ["a", "b"], contextDim: 4, maxBodyBytes: 4096 });
    const port = await gw.listen();
    // A client streaming a body until the server stops it (before the cut, the sidecar read every byte).
    const cap = 64 << 20;
    const written = await new Promise<number>((resolve) => {
      let sent = 0;
      const req = request({ host: "127.0.0.1", port, path: "/route", method: "POST" });
      const chunk = Buffer.alloc(1 << 16, 0x20);
      const pump = () => {
        while (sent < cap) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        req.end();
      };
      req.on("error", () => resolve(sent));
      req.on("response", (res) => {
        res.resume();
        resolve(sent);
        req.destroy();
      });
      pump();
    });
    expect(written).toBeLessThan(cap);
    expect((await post(`http://127.0.0.1:${port}`, "/route", { embedding: [1, 0, 0, 0] })).status).toBe(200);
    await gw.close();
  }, 30_000);
});

describe("--dim against a restored router", () => {
  it("a --dim other than the state directory's context length stops the start (it was ignored)", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 8 });
    await gw.close();
    expect(() => createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 16 })).toThrow(
      /takes contexts of length 8, not 16 \(--dim\)/,
    );
    expect(existsSync(join(dir, "gateway.lock"))).toBe(false);
    const main = join(here, "..", "dist", "main.js");
    const r = spawnSync(process.execPath, [main, "--port", "0", "--state", dir, "--models", "a,b", "--dim", "16"], {
      encoding: "utf8",
      timeout: 50_000, // only a guard against a hang: the run takes well under a second
    });
    expect([r.status, r.stderr.trim().split("\n").length]).toEqual([1, 1]);
    expect(r.stderr).toMatch(/^routekit-gateway: the state directory's router takes contexts of length 8/);
    const again = createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 8 });
    await again.close();
  });
});
