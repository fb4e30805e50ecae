/** Bad command-line usage or configuration: exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A failure while doing valid work (unreadable file, bad data, numerical error): exit code 1. */
export class CliFailure extends Error {
  override readonly name = "CliFailure";
}

/** The one-line message shown to the user, without a stack trace. */
export function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, " ").trim();
}
