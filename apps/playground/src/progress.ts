import type { Progress } from "@routekit/core";
import cliProgress from "cli-progress";

export interface ProgressSink {
  update(p: Progress): void;
  stop(): void;
}

export type ProgressMode = "bar" | "lines" | "none";

/** A live bar (TTY), periodic plain lines (pipes, CI logs), or nothing (--quiet, --json). */
export function createProgress(mode: ProgressMode, stream: NodeJS.WritableStream, label: string): ProgressSink {
  if (mode === "none") return { update() {}, stop() {} };
  // Rates are measured from the first report, not from the start: starting the workers and compiling takes a
  // second or so, and counting it made the first ETA of a 10 s demo read "ETA 3506s".
  let first: { t: number; done: number } | null = null;
  const rate = (done: number, now = performance.now()) => {
    if (first === null) first = { t: now, done };
    const s = (now - first.t) / 1000;
    return s > 0 ? (done - first.done) / s : 0;
  };
  if (mode === "bar") {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} {bar} {percentage}% | {value}/{total} rounds | {speed} rounds/s | ETA {eta_formatted} | {run}`,
        stream,
        // Not hidden: Ctrl-C ends a run by the signal (an in-process run never yields to a handler that could show
        // it again), and a hidden cursor then stayed hidden in the user's terminal.
        hideCursor: false,
        clearOnComplete: true,
        etaBuffer: 50,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        const payload = {
          speed: fmtRate(rate(p.done)),
          run: `${p.policy} seed ${p.seed} (${p.runsDone}/${p.runsTotal} runs)`,
        };
        if (!started) {
          bar.start(p.total, p.done, payload);
          started = true;
        } else bar.update(p.done, payload);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = -Infinity;
  let lastPct = -1;
  return {
    update(p) {
      const now = performance.now();
      const r = rate(p.done, now);
      const pct = Math.floor((100 * p.done) / p.total);
      const since = now - (first as { t: number }).t;
      if (p.done < p.total && (since < 1000 || (now - last < 2000 && pct - lastPct < 25))) return;
      last = now;
      lastPct = pct;
      const eta = r > 0 ? (p.total - p.done) / r : 0;
      stream.write(`${label}: ${pct}% (${p.done}/${p.total} rounds, ${fmtRate(r)} rounds/s, ETA ${eta.toFixed(0)}s)\n`);
    },
    stop() {},
  };
}

function fmtRate(r: number): string {
  return r >= 1e6 ? `${(r / 1e6).toFixed(1)}M` : r >= 1e3 ? `${(r / 1e3).toFixed(1)}k` : r.toFixed(0);
}
