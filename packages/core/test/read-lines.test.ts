import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readLines } from "../src/node.js";
import { Rng } from "../src/rng.js";

const dir = mkdtempSync(join(tmpdir(), "read-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `f${files++}`);
  writeFileSync(path, content);
  return path;
}

/** What reading the whole file and splitting it gives (the reader must agree, blank lines included). */
function whole(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

describe("readLines (@routekit/core/node)", () => {
  it("agrees with reading the file whole, for every chunk size, across multi-byte characters and CRLF", () => {
    const rng = Rng.fromSeed(3);
    const pieces = ["", "a", "é", "€uro", '{"k":"日本"}', "x".repeat(40), "\r", "🚀", "\uFEFFbom"];
    for (let trial = 0; trial < 40; trial++) {
      const lines = Array.from({ length: 1 + rng.int(12) }, () =>
        Array.from({ length: rng.int(4) }, () => pieces[rng.int(pieces.length)]).join(""),
      );
      const eol = trial % 2 === 0 ? "\n" : "\r\n";
      const text = lines.join(eol) + (trial % 3 === 0 ? "" : eol);
      const path = file(text);
      for (const chunkBytes of [1, 2, 3, 7, 64, 1 << 20]) {
        expect([...readLines(path, { chunkBytes })]).toEqual(whole(text));
      }
    }
  });

  it("yields blank lines (callers number lines), a last line without a newline, nothing for an empty file", () => {
    expect([...readLines(file("a\n\n  \nb"))]).toEqual(["a", "", "  ", "b"]);
    expect([...readLines(file("\n"))]).toEqual([""]);
    expect([...readLines(file(""))]).toEqual([]);
  });

  it("reads from a byte offset to an end offset of an open descriptor, and leaves the descriptor open", () => {
    const path = file("one\ntwo\nthree\nfour\n");
    const fd = openSync(path, "r");
    expect([...readLines(fd, { start: 4, end: 14, chunkBytes: 3 })]).toEqual(["two", "three"]);
    expect([...readLines(fd, { start: 14 })]).toEqual(["four"]);
    closeSync(fd); // still open: closing it does not throw
  });

  it("reads a line longer than its chunk, and a file read whole would need several chunks", () => {
    const long = "z".repeat(100_000);
    expect([...readLines(file(`${long}\nshort\n${long}`), { chunkBytes: 1000 })]).toEqual([long, "short", long]);
  });

  it("throws the file system's error (a missing file, a directory) when iterated", () => {
    expect(() => [...readLines(join(dir, "missing"))]).toThrow(/ENOENT/);
    expect(() => [...readLines(dir)]).toThrow(/EISDIR/);
  });
});
