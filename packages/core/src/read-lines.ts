import { closeSync, openSync, readSync } from "node:fs";

export interface ReadLinesOptions {
  /** Byte offset to start at (default 0), e.g. the log offset a snapshot recorded. */
  start?: number;
  /** Byte offset to stop at (default: the end of the file when the read reaches it). */
  end?: number;
  /** Bytes read at a time (default 1 MiB); a longer line grows the buffer to hold it. */
  chunkBytes?: number;
}

/**
 * The lines of a file (a path, or an open descriptor, which is left open), in order, without their "\n" or
 * "\r\n"; a last line without a newline is yielded too, and blank lines are yielded as "" so callers can
 * number lines. The file is read a chunk at a time, so a log of any size can be read: reading it whole
 * into one string fails past about 512 MB (V8's longest string). Chunks are cut at their last newline byte
 * before decoding, so a UTF-8 character is never split.
 */
export function* readLines(file: string | number, options: ReadLinesOptions = {}): Generator<string> {
  const fd = typeof file === "number" ? file : openSync(file, "r");
  try {
    let chunk = Buffer.alloc(Math.max(1, options.chunkBytes ?? 1 << 20));
    const end = options.end ?? Number.POSITIVE_INFINITY;
    let kept = 0; // bytes of an unfinished line carried over, at the chunk's start
    for (let pos = options.start ?? 0; pos < end; ) {
      if (kept === chunk.length) {
        const grown = Buffer.alloc(2 * chunk.length);
        chunk.copy(grown, 0, 0, kept);
        chunk = grown;
      }
      const n = readSync(fd, chunk, kept, Math.min(chunk.length - kept, end - pos), pos);
      if (n === 0) break;
      pos += n;
      const filled = kept + n;
      const cut = chunk.subarray(0, filled).lastIndexOf(10) + 1;
      if (cut > 0) {
        const lines = chunk.toString("utf8", 0, cut - 1).split("\n");
        for (const line of lines) yield line.endsWith("\r") ? line.slice(0, -1) : line;
      }
      chunk.copy(chunk, 0, cut, filled);
      kept = filled - cut;
    }
    if (kept > 0) {
      const line = chunk.toString("utf8", 0, kept);
      yield line.endsWith("\r") ? line.slice(0, -1) : line;
    }
  } finally {
    if (typeof file !== "number") closeSync(fd);
  }
}
