import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { readLines } from "@routekit/core/node";

/**
 * The gateway's decision-event log: one JSON event per line (`{ ...decisionRecord, feedback }`), the
 * format `routekit train` and `routekit evaluate` read. Appends are synchronous `write(2)` calls: the line
 * is in the file (the page cache) before the handler returns, so a snapshot taken afterwards in the same
 * tick never claims an event the log lacks. Without `fsync` a power cut may lose the newest lines (a killed
 * process does not); with it each append returns only once the line is on the disk (`fdatasync`).
 */
export class EventLog {
  private constructor(
    private fd: number,
    /** Bytes in the file: the offset a snapshot records and a restart replays from. */
    private size: number,
    private readonly fsync: boolean,
  ) {}

  /** Opens (creating) the log; a last line without its newline (a write cut off by a crash) is dropped. */
  static open(path: string, options: { fsync?: boolean } = {}): EventLog {
    const fd = openSync(path, "a+");
    const size = fstatSync(fd).size;
    const complete = size === 0 ? 0 : lastNewline(fd, size) + 1;
    if (complete < size) ftruncateSync(fd, complete);
    return new EventLog(fd, complete, options.fsync === true);
  }

  get bytes(): number {
    return this.size;
  }

  /**
   * Appends one event line. All or nothing: a write that fails part way (a full disk) is cut back off
   * before the error is rethrown, so a later line never follows half of this one.
   */
  append(event: unknown): void {
    const line = Buffer.from(`${JSON.stringify(event)}\n`, "utf8");
    let written = 0;
    try {
      while (written < line.length) written += writeSync(this.fd, line, written);
      if (this.fsync) fdatasyncSync(this.fd);
    } catch (e) {
      if (written > 0) ftruncateSync(this.fd, this.size);
      throw e;
    }
    this.size += line.length;
  }

  /**
   * Removes the lines after byte `offset` (an offset this log reported), e.g. the line of an event
   * whose learning failed after it was appended.
   */
  truncate(offset: number): void {
    if (offset > this.size) throw new Error(`cannot truncate the log to ${offset}: it holds ${this.size} bytes`);
    ftruncateSync(this.fd, offset);
    if (this.fsync) fdatasyncSync(this.fd);
    this.size = offset;
  }

  /** The events from byte `offset` on (a snapshot's offset), parsed, in order. */
  *readFrom(offset: number): Generator<unknown> {
    // open() dropped any unfinished last line and append() writes whole lines, so every line is whole.
    for (const line of readLines(this.fd, { start: offset, end: this.size })) {
      if (line !== "") yield JSON.parse(line);
    }
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
