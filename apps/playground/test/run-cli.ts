import { Writable } from "node:stream";
import { main } from "../src/main.js";
import type { FamilyRegistry } from "../src/registry/types.js";

/** A writable stream that keeps everything written to it (the CLI's stdout or stderr in a test). */
export class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** Runs the CLI in this process: its exit code, stdout and stderr (the default registry unless one is given). */
export async function runCli(
  argv: readonly string[],
  options: { readonly registry?: FamilyRegistry; readonly isTTY?: boolean } = {},
): Promise<{ code: number; out: string; err: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const io = { stdout, stderr, isTTY: options.isTTY ?? false };
  const code = await main(argv, options.registry ? { ...io, registry: options.registry } : io);
  return { code, out: stdout.text, err: stderr.text };
}
