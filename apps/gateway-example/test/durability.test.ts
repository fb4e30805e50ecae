// The event log against failing disks: a write that fails leaves neither half a line nor a learned event
// the log lacks, and feedback the router refuses leaves no line.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createRffGateway, EventLog } from "../src/index.js";
import { learned, post, stateDir } from "./fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
describe("the event log and the learned state never disagree", () => {
  it("feedback the router refuses (a reward that is not a number) leaves no line in the log", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 4 });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    const d = (await post(url, "/route", { embedding: [1, 0, 0, 0] })).body.decisionId;
    const bytes = readFileSync(join(dir, "events.jsonl"));
    for (const reward of ["1", null, Number.NaN, { v: 1 }]) {
      const r = await post(url, "/feedback", { decisionId: d, reward });
      expect(r.status).toBe(400);
      expect(readFileSync(join(dir, "events.jsonl"))).toEqual(bytes);
      expect(gw.stats().logBytes).toBe(bytes.length);
    }
    expect((await post(url, "/feedback", { decisionId: d, reward: 1 })).status).toBe(200);
    expect(readFileSync(join(dir, "events.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
    await gw.close();
  });

  it.runIf(existsSync("/dev/full"))(
    "a full disk is 503 LOG_WRITE_FAILED with nothing learned, and the decision stays answerable",
    async () => {
      const dir = stateDir();
      // Every write to /dev/full fails with ENOSPC, as on a full disk.
      symlinkSync("/dev/full", join(dir, "events.jsonl"));
      const errors: unknown[] = [];
      const gw = createRffGateway({
        stateDir: dir,
        models: ["a", "b"],
        contextDim: 4,
        onError: (e) => errors.push(e),
      });
      const url = `http://127.0.0.1:${await gw.listen()}`;
      const d = (await post(url, "/route", { embedding: [1, 0, 0, 0] })).body.decisionId;
      const before = learned(gw);
      const r = await post(url, "/feedback", { decisionId: d, reward: 1 });
      expect([r.status, r.body.error.code]).toEqual([503, "LOG_WRITE_FAILED"]);
      expect((errors[0] as NodeJS.ErrnoException).code).toBe("ENOSPC");
      expect(learned(gw)).toBe(before);
      expect(gw.policy.pendingDecisions).toBe(1); // a retry once the disk has room is learned
      expect(gw.stats()).toMatchObject({ feedbacks: 0, logBytes: 0 });
      await gw.close().catch(() => {});
    },
  );

  it("a write cut off part way (the file size limit) is taken back: the log holds whole lines only", () => {
    // A child under `ulimit -f 1` (1024 bytes): the fourth 300-byte line is written in part, then EFBIG.
    const dir = stateDir();
    const path = join(dir, "events.jsonl");
    const script = `
      process.on("SIGXFSZ", () => {});
      const { EventLog } = await import(${JSON.stringify(join(here, "..", "dist", "index.js"))});
      const log = EventLog.open(${JSON.stringify(path)});
      let lines = 0, failure = "";
      for (let i = 0; i < 10; i++) {
        try { log.append({ i, pad: "x".repeat(280) }); lines++; } catch (e) { failure = e.code; break; }
      }
      console.log(JSON.stringify({ lines, failure, bytes: log.bytes }));`;
    const r = spawnSync(
      "bash",
      ["-c", `ulimit -f 1 && exec "${process.execPath}" --input-type=module -e "$0"`, script],
      {
        encoding: "utf8",
      },
    );
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as { lines: number; failure: string; bytes: number };
    expect(out.failure).toBe("EFBIG");
    expect(out.lines).toBe(3);
    expect(statSync(path).size).toBe(out.bytes);
    const text = readFileSync(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(
      text
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { i: number }).i),
    ).toEqual([0, 1, 2]);
  });

  it("fsync: true appends and reads back the same lines", () => {
    const dir = stateDir();
    const log = EventLog.open(join(dir, "events.jsonl"), { fsync: true });
    log.append({ a: 1 });
    log.append({ b: 2 });
    expect([...log.readFrom(0)]).toEqual([{ a: 1 }, { b: 2 }]);
    log.truncate(8);
    expect([...log.readFrom(0)]).toEqual([{ a: 1 }]);
    expect(() => log.truncate(100)).toThrow(/holds 8 bytes/);
    log.close();
  });
});

describe("snapshots with fsync: true", () => {
  it("are written atomically, leave no temporary file, and restore the learned state", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 4, fsync: true, snapshotEvery: 2 });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    for (let i = 0; i < 5; i++) {
      const d = (await post(url, "/route", { embedding: [1, i, 0, 0] })).body.decisionId;
      expect((await post(url, "/feedback", { decisionId: d, reward: i / 4 })).status).toBe(200);
    }
    await gw.snapshot();
    const live = learned(gw);
    await gw.close();
    expect(readdirSync(dir).sort()).toEqual(["events.jsonl", "snapshot.json"]);
    const again = createRffGateway({ stateDir: dir, models: ["a", "b"], contextDim: 4, fsync: true });
    expect(learned(again)).toBe(live);
    expect(again.stats().replayed).toBe(0);
    await again.close();
  });
});
