import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";

/**
 * The gateway's decision-event log: one JSON event per line (`{ ...decisionRecord, feedback }`), the
 * format `routekit train` and `routekit evaluate` read. Appends are synchronous `write(2)` calls: the line
 * is in the file (the page cache) before the handler returns, so a snapshot taken afterwards in the same
 * tick never claims an event the log lacks. It is not fsynced: a power cut may lose the newest lines,
 * a killed process does not.
 */
export class EventLog {
  private constructor(
    private fd: number,
    /** Bytes in the file: the offset a snapshot records and a restart replays from. */
    private size: number,
  ) {}

  /** Opens (creating) the log; a last line without its newline (a write cut off by a crash) is dropped. */
  static open(path: string): EventLog {
    const fd = openSync(path, "a+");
    const size = fstatSync(fd).size;
    const complete = size === 0 ? 0 : lastNewline(fd, size) + 1;
    if (complete < size) ftruncateSync(fd, complete);
    return new EventLog(fd, complete);
  }

  get bytes(): number {
    return this.size;
  }

  append(event: unknown): void {
    const line = Buffer.from(`${JSON.stringify(event)}\n`, "utf8");
    let written = 0;
    while (written < line.length) written += writeSync(this.fd, line, written);
    this.size += line.length;
  }

  /** The events from byte `offset` on (a snapshot's offset), parsed, in order. */
  *readFrom(offset: number): Generator<unknown> {
    let chunk = Buffer.alloc(1 << 16);
    let kept = 0; // bytes of an unfinished line carried from the previous read, at chunk's start
    for (let pos = offset; pos < this.size; ) {
      if (kept === chunk.length) chunk = Buffer.concat([chunk, Buffer.alloc(chunk.length)]); // a line longer than the chunk
      const n = readSync(this.fd, chunk, kept, Math.min(chunk.length - kept, this.size - pos), pos);
      if (n === 0) break;
      pos += n;
      const end = kept + n;
      // Cut at the last newline byte before decoding, so a UTF-8 character split by the read stays whole.
      const cut = chunk.subarray(0, end).lastIndexOf(10) + 1;
      for (const line of chunk.toString("utf8", 0, cut).split("\n")) if (line !== "") yield JSON.parse(line);
      chunk.copy(chunk, 0, cut, end);
      kept = end - cut;
    }
    // open() dropped any unfinished last line and append() writes whole lines, so nothing is left over.
  }

  close(): void {
    closeSync(this.fd);
  }
}

function lastNewline(fd: number, size: number): number {
  const chunk = Buffer.alloc(1 << 16);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    readSync(fd, chunk, 0, end - start, start);
    const i = chunk.subarray(0, end - start).lastIndexOf(10);
    if (i >= 0) return start + i;
    end = start;
  }
  return -1;
}
