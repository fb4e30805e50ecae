import type { ArmPolicy } from "@routekit/core";
import { KernelUcb, PakUcb, RffUcb, SupPakUcb, SupRffUcb } from "../src/index.js";

/** The five classes with small settings, and how to restore each. */
export interface FamilyMember {
  readonly name: string;
  make(options: Record<string, unknown>): ArmPolicy;
  restore(snapshot: unknown): ArmPolicy;
}

export const family: FamilyMember[] = [
  {
    name: "pak-ucb",
    make: (o) => new PakUcb({ arms: [], contextDim: 3, ...o } as never),
    restore: (s) => PakUcb.fromJSON(s),
  },
  {
    name: "pak-ucb-poly",
    make: (o) => new PakUcb({ arms: [], contextDim: 3, kernel: { type: "poly", gamma: 5 }, ...o } as never),
    restore: (s) => PakUcb.fromJSON(s),
  },
  {
    name: "rff-ucb",
    make: (o) => new RffUcb({ arms: [], contextDim: 3, frequencies: 8, ...o } as never),
    restore: (s) => RffUcb.fromJSON(s),
  },
  {
    name: "kernel-ucb",
    make: (o) => new KernelUcb({ arms: [], contextDim: 3, ...o } as never),
    restore: (s) => KernelUcb.fromJSON(s),
  },
  {
    name: "sup-pak-ucb",
    make: (o) => new SupPakUcb({ arms: [], contextDim: 3, horizon: 64, ...o } as never),
    restore: (s) => SupPakUcb.fromJSON(s),
  },
  {
    name: "sup-rff-ucb",
    make: (o) => new SupRffUcb({ arms: [], contextDim: 3, horizon: 64, maxFrequencies: 6, ...o } as never),
    restore: (s) => SupRffUcb.fromJSON(s),
  },
];

/** Error code of what `f` throws (undefined when it does not throw). */
export function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code ?? `untyped: ${String(e)}`;
  }
  return undefined;
}
