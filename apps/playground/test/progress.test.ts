import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createProgress } from "../src/progress.js";

function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk).trim());
      done();
    },
  });
  return { stream, lines };
}

const at = (done: number) => ({ done, total: 63000, policy: "p", seed: 1, runsDone: 0, runsTotal: 21 });

describe("plain progress lines", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  it("measure the rate from the first report, so a slow start-up does not inflate the first ETA", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { stream, lines } = sink();
    const progress = createProgress("lines", stream, "demo");
    vi.advanceTimersByTime(1500); // starting workers and compiling: no rounds yet
    progress.update(at(30));
    vi.advanceTimersByTime(1000);
    progress.update(at(15780));
    // 15,750 rounds in the last second: about 3 s left. Counted from the start it would say 7 s.
    expect(lines).toEqual(["demo: 25% (15780/63000 rounds, 15.8k rounds/s, ETA 3s)"]);
  });
  it("print nothing in the first second of work, then at most every 2 s or 25%", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { stream, lines } = sink();
    const progress = createProgress("lines", stream, "demo");
    progress.update(at(30));
    vi.advanceTimersByTime(500);
    progress.update(at(8000));
    expect(lines).toHaveLength(0);
    vi.advanceTimersByTime(600);
    progress.update(at(16000));
    vi.advanceTimersByTime(100);
    progress.update(at(17000));
    expect(lines).toHaveLength(1);
    progress.update(at(63000));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^demo: 100% \(63000\/63000 rounds/);
  });
});

describe("the live progress bar (a terminal)", () => {
  // Ctrl-C ends a run by the signal itself (an in-process run keeps the event loop busy, so no handler could undo
  // anything): a bar that hid the cursor left the user's terminal without one.
  it("never hides the cursor, so a run ended by Ctrl-C leaves the terminal as it was", () => {
    const { stream, lines } = sink();
    Object.assign(stream, { isTTY: true, columns: 100 });
    const progress = createProgress("bar", stream, "demo");
    progress.update(at(30));
    const written = lines.join("\n");
    expect(written).toMatch(/30\/63000 rounds/);
    expect(written).not.toContain("\u001b[?25l");
    progress.stop();
  });
});
