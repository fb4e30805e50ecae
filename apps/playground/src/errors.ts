/** Bad command-line usage or configuration: exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A failure while doing valid work (unreadable file, bad data, numerical error): exit code 1. */
export class CliFailure extends Error {
  override readonly name = "CliFailure";
}

/**
 * `s` with its control characters (C0 and C1, DEL; as a binary file's bytes read as text hold) written as JSON
 * escapes (`\u001b`): a terminal would act on them or show nothing.
 */
export function printable(s: string): string {
  let out = "";
  for (const c of s) {
    const k = c.charCodeAt(0);
    out += k < 0x20 || (k >= 0x7f && k <= 0x9f) ? `\\u${k.toString(16).padStart(4, "0")}` : c;
  }
  return out;
}

/** The one-line message shown to the user, without a stack trace, control characters escaped. */
export function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return printable(msg.replace(/\s*\n\s*/g, " ").trim());
}
