import { ErrorCode, RouteKitError } from "./errors.js";
import { assertId, describe } from "./validate.js";

/**
 * Named arms with per-arm state, in insertion order. Arms come and go at run time (models arrive
 * and retire); `states` stays a dense array so a policy's select loop runs over it without lookups.
 * `check*` methods validate without changing anything, so a policy can validate all input before
 * its first mutation.
 */
export class ArmTable<S> {
  readonly ids: string[] = [];
  readonly states: S[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  /** Position of `id` in `ids`/`states`; throws UNKNOWN_ARM (INVALID_ARGUMENT for an id that is no string). */
  indexOf(id: string): number {
    const i = this.index.get(id);
    if (i === undefined && typeof id !== "string") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `an arm id must be a string, got ${describe(id)}`);
    }
    if (i === undefined)
      throw new RouteKitError(ErrorCode.UnknownArm, `unknown arm ${describe(id)} (arms: ${listIds(this.ids)})`);
    return i;
  }

  get(id: string): S {
    return this.states[this.indexOf(id)] as S;
  }

  /** The state of `id`, or undefined if it is not (or no longer) an arm. */
  find(id: string): S | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.states[i];
  }

  checkAdd(id: unknown): asserts id is string {
    assertId(id, "arm id");
    if (this.index.has(id)) throw new RouteKitError(ErrorCode.DuplicateArm, `arm "${id}" already exists`);
  }

  add(id: string, state: S): void {
    this.checkAdd(id);
    this.index.set(id, this.ids.length);
    this.ids.push(id);
    this.states.push(state);
  }

  checkRemove(id: string): void {
    assertId(id, "arm id");
    this.indexOf(id);
    if (this.ids.length === 1) throw new RouteKitError(ErrorCode.LastArm, `cannot remove "${id}": it is the last arm`);
  }

  /** Removes an arm and returns its state. */
  remove(id: string): S {
    this.checkRemove(id);
    const i = this.indexOf(id);
    const [state] = this.states.splice(i, 1);
    this.ids.splice(i, 1);
    // Only the positions after i move: rebuilding the whole map (clear, then n inserts) made removing 10,000 arms one
    // by one take 5.6 s.
    this.index.delete(id);
    for (let j = i; j < this.ids.length; j++) this.index.set(this.ids[j] as string, j);
    return state as S;
  }

  /** Throws NO_ARMS when empty (before a select). */
  checkNotEmpty(): void {
    if (this.ids.length === 0)
      throw new RouteKitError(ErrorCode.NoArms, "the policy has no arms: add one with addArm()");
  }
}

/** The live ids for an error message: at most 8, each cut to 40 characters (an id may be 10,000 long). */
function listIds(ids: readonly string[]): string {
  if (ids.length === 0) return "none";
  const shown = ids.slice(0, 8).map((id) => (id.length > 40 ? `${id.slice(0, 40)}...` : id));
  return ids.length > 8 ? `${shown.join(", ")} and ${ids.length - 8} more` : shown.join(", ");
}
