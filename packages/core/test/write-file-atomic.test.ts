import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { writeFileAtomic, writeFileAtomicSync } from "../src/node.js";

const dir = mkdtempSync(join(tmpdir(), "write-atomic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let dirs = 0;
function freshDir(): string {
  const d = join(dir, `d${dirs++}`);
  mkdirSync(d);
  return d;
}

describe("writeFileAtomic / writeFileAtomicSync (@routekit/core/node)", () => {
  it("write and overwrite text and bytes exactly, leaving no temporary file", async () => {
    const d = freshDir();
    const path = join(d, "snap.json");
    writeFileAtomicSync(path, '{"a":"日本"}');
    expect(readFileSync(path, "utf8")).toBe('{"a":"日本"}');
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) & 255);
    await writeFileAtomic(path, bytes, { fsync: true });
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes);
    writeFileAtomicSync(path, "", { fsync: true });
    expect(readFileSync(path, "utf8")).toBe("");
    expect(readdirSync(d)).toEqual(["snap.json"]);
  });

  it("a failed write throws, leaves the target untouched and removes its temporary file", async () => {
    const d = freshDir();
    const target = join(d, "taken");
    mkdirSync(target); // renaming a file over a directory fails
    writeFileSync(join(target, "inside"), "keep");
    expect(() => writeFileAtomicSync(target, "x")).toThrow();
    await expect(writeFileAtomic(target, "x", { fsync: true })).rejects.toThrow();
    expect(readdirSync(d)).toEqual(["taken"]);
    expect(readFileSync(join(target, "inside"), "utf8")).toBe("keep");
    expect(() => writeFileAtomicSync(join(d, "missing", "f"), "x")).toThrow(/ENOENT/);
    expect(readdirSync(d)).toEqual(["taken"]);
  });

  it("concurrent writers of one path: the file is one writer's whole content", async () => {
    const d = freshDir();
    const path = join(d, "shared");
    const versions = Array.from({ length: 12 }, (_, i) => String(i).repeat(50_000 + i));
    await Promise.all(versions.map((v) => writeFileAtomic(path, v)));
    expect(versions).toContain(readFileSync(path, "utf8"));
    expect(readdirSync(d)).toEqual(["shared"]);
  });

  // The loop only writes (its versions are built first), so the kill lands mid-write most times: writeFileSync
  // in its place leaves a short file in 4 of 6 tries.
  it("a process killed while writing leaves a whole version, never a mix", async () => {
    const d = freshDir();
    const path = join(d, "big");
    const size = 8 << 20;
    const node = fileURLToPath(new URL("../dist/node.js", import.meta.url));
    // The child is a plain Node process, so it runs the built entry (turbo builds a package before its tests).
    expect(existsSync(node)).toBe(true);
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { writeFileAtomicSync } from ${JSON.stringify(node)};
         const versions = [0, 1, 2].map((k) => String(k).repeat(${size}));
         for (let i = 0; ; i++) {
           writeFileAtomicSync(${JSON.stringify(path)}, versions[i % 3]);
           if (i === 1) process.stdout.write("written\\n");
         }`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", () => resolve());
      child.on("exit", (code) => reject(new Error(`writer exited early (${code})`)));
    });
    await new Promise((r) => setTimeout(r, 37));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("exit", r));
    const text = readFileSync(path, "utf8");
    expect(text.length).toBe(size);
    expect(text).toBe((text[0] as string).repeat(size));
  });
});
