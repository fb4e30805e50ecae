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

  /** Prompt index of round t (rounds are played in increasing order). */
  at(t: number): number {
    if (!this.rng) throw new RouteKitError(ErrorCode.InvalidState, "call reset(rng) before next()");
    if (!Number.isInteger(t) || t < 0) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `round must be an integer >= 0, got ${t}`);
    }
    const n = this.perm.length;
    const pass = Math.floor(t / n);
    if (pass !== this.pass) {
      if (this.order === "shuffle") this.rng.shuffle(this.perm);
      this.pass = pass;
    }
    return this.order === "shuffle" ? (this.perm[t % n] as number) : t % n;
  }

  /** Passes begun so far (1 during the first pass, 0 before the first round). */
  get passes(): number {
    return this.pass + 1;
  }
}
