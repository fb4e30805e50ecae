import { ErrorCode, type Rng, RouteKitError } from "@routekit/core";

/** How a replay walks its prompts: a fresh seeded permutation per pass, or file order. */
export type ReplayOrder = "shuffle" | "sequential";

/**
 * The prompt a replay plays at round t: in "shuffle" order every pass over the n prompts is a new permutation
 * drawn from the stream given to `reset` (rounds are draws without replacement within a pass); in "sequential"
 * order prompt t mod n. Shared by the arm and the cascade replays, so both walk a file the same way.
 */
export class PromptOrder {
  private readonly perm: number[];
  private rng: Rng | undefined;
  private pass = -1;

  constructor(
    numPrompts: number,
    readonly order: ReplayOrder = "shuffle",
  ) {
    if (order !== "shuffle" && order !== "sequential") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `order must be "shuffle" or "sequential", got ${order}`);
    }
    this.perm = Array.from({ length: numPrompts }, (_, p) => p);
  }

  /** Starts a run: the permutations are drawn from `rng` (the replay's "order" stream). */
  reset(rng: Rng): void {
    this.rng = rng;
    for (let p = 0; p < this.perm.length; p++) this.perm[p] = p;
    this.pass = -1;
  }

  /**
   * Prompt index of round t. Rounds may skip ahead (the passes skipped are drawn, so round t plays the prompt it
   * plays round by round) and go back within the current pass, but not to an earlier pass (INVALID_STATE: its
   * permutation is gone). Skipping k passes costs k shuffles, as playing them would.
   */
  at(t: number): number {
    if (!this.rng) throw new RouteKitError(ErrorCode.InvalidState, "call reset(rng) before next()");
    if (!Number.isInteger(t) || t < 0) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `round must be an integer >= 0, got ${t}`);
    }
    const n = this.perm.length;
    const pass = Math.floor(t / n);
    if (pass < this.pass) {
      // This reshuffled: round t then played another prompt than the first time, and passes went down.
      throw new RouteKitError(
        ErrorCode.InvalidState,
        `round ${t} is in pass ${pass + 1} over the ${n} prompts, but the replay is at pass ${this.pass + 1}: rounds may go back only within the current pass (call reset(rng) to start over)`,
      );
    }
    if (pass > this.pass) {
      // One shuffle per pass, skipped ones included: a jump from pass 1 to 3 drew one permutation, so round t's
      // prompt depended on which rounds the caller had asked for.
      if (this.order === "shuffle") for (let p = this.pass; p < pass; p++) this.rng.shuffle(this.perm);
      this.pass = pass;
    }
    return this.order === "shuffle" ? (this.perm[t % n] as number) : t % n;
  }

  /** Passes begun so far (1 during the first pass, 0 before the first round). */
  get passes(): number {
    return this.pass + 1;
  }
}
