/**
 * Semantic checks at restore: a snapshot edited and resealed (checksum recomputed) with finite but absurd values is
 * refused with SNAPSHOT_CORRUPT naming the field and the rule; every real snapshot (long seeded runs, repeated
 * prompts, tiny ridge, arms removed and re-added, pending decisions) still restores bit for bit.
 */
import { decodeF64, encodeF64, Rng, RouteKitError, type Snapshot } from "@routekit/core";
import { resealSnapshot, tamperedSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { KernelUcb, PakUcb, RffUcb, SupPakUcb, SupRffUcb } from "../src/index.js";
import { DotKernel } from "../src/kernel.js";
import { ExactKrr } from "../src/krr.js";

type ArmJson = { id: string; uid: number; state: Record<string, unknown> };

function tamper(snap: Snapshot, edit: (arms: ArmJson[]) => void): Snapshot {
  return tamperedSnapshot(snap, (st) => edit(st.arms as ArmJson[]));
}

function refusal(fn: () => unknown): RouteKitError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RouteKitError) return e;
    throw e;
  }
  throw new Error("expected a RouteKitError");
}

function trained(seed: number, rounds: number, opts: { d?: number; ridge?: number; repeat?: boolean } = {}): RffUcb {
  const d = opts.d ?? 8;
  const p = new RffUcb({ arms: ["a", "b", "c"], contextDim: d, frequencies: 20, seed, ridge: opts.ridge });
  const rng = Rng.fromSeed(`sanity:${seed}`);
  const fixed = rng.fillNormal(new Float64Array(d), 0, 1);
  const pending = [];
  for (let t = 0; t < rounds; t++) {
    const x = opts.repeat ? fixed : rng.fillNormal(new Float64Array(d), 0, 1);
    pending.push(p.select(x));
    if (pending.length > 3) p.update(pending.shift() as never, { reward: rng.uniform() });
    if (t === Math.floor(rounds / 3)) p.removeArm("b");
    if (t === Math.floor(rounds / 2)) p.addArm("b");
  }
  return p;
}

describe("RffUcb: resealed absurd values are refused", () => {
  const p = trained(1, 200);
  const snap = p.toJSON();
  const before = JSON.stringify(snap);

  it("Ainv[0][0] = -1e308 (the outside tester's case): SNAPSHOT_CORRUPT naming the field and the rule", () => {
    const bad = tamper(snap, (arms) => {
      const st = (arms[0] as ArmJson).state;
      const A = decodeF64(st.Ainv as string, "Ainv");
      A[0] = -1e308;
      st.Ainv = encodeF64(A);
    });
    const e = refusal(() => RffUcb.fromJSON(bad));
    expect(e.code).toBe("SNAPSHOT_CORRUPT");
    expect(e.message).toMatch(
      /Ainv diagonal entry 0 is -1e\+308; an inverse Gram matrix has a diagonal in \(0, 1 \/ ridge/,
    );
  });
  it("an off-diagonal entry outside +-1 / ridge (-1e308) is refused, naming entry, value and rule", () => {
    const bad = tamper(snap, (arms) => {
      const st = (arms[1] as ArmJson).state;
      const A = decodeF64(st.Ainv as string, "Ainv");
      A[1] = -1e308; // packed upper triangle: [0, 1]
      st.Ainv = encodeF64(A);
    });
    const e = refusal(() => RffUcb.fromJSON(bad));
    expect(e.code).toBe("SNAPSHOT_CORRUPT");
    expect(e.message).toMatch(/Ainv\[0, 1\] is -1e\+308; an inverse Gram matrix has entries within \+-1 \/ ridge = 1/);
  });
  it("a diagonal entry above 1 / ridge, or exactly 0, is refused", () => {
    for (const [k, v] of [
      [0, 1e9],
      [0, 0],
    ] as const) {
      const bad = tamper(snap, (arms) => {
        const st = (arms[1] as ArmJson).state;
        const A = decodeF64(st.Ainv as string, "Ainv");
        A[k] = v;
        st.Ainv = encodeF64(A);
      });
      expect(refusal(() => RffUcb.fromJSON(bad)).code).toBe("SNAPSHOT_CORRUPT");
    }
  });
  it("an arm whose version differs from its update count n", () => {
    const bad = tamper(snap, (arms) => {
      (arms[0] as ArmJson).state.version = ((arms[0] as ArmJson).state.n as number) + 1;
    });
    const e = refusal(() => RffUcb.fromJSON(bad));
    expect(e.code).toBe("SNAPSHOT_CORRUPT");
    expect(e.message).toContain('"version"');
  });
  it("the policy and the snapshot given are unchanged", () => {
    expect(JSON.stringify(p.toJSON())).toBe(before);
    expect(JSON.stringify(snap)).toBe(before);
  });
});

describe("exact kernel regressions: a = Q v beyond 2 sum_j |Q_ij| max |v| + 1e-300 is refused", () => {
  it("PAK-UCB (poly) and KernelUCB with a[0] = -1e308: SNAPSHOT_CORRUPT naming the entry, value and rule", () => {
    const runs: [
      () => PakUcb | KernelUcb,
      (s: unknown) => unknown,
      (st: Record<string, unknown>) => Record<string, unknown>,
    ][] = [
      [
        () => new PakUcb({ arms: ["a", "b"], contextDim: 3, seed: 1, kernel: { type: "poly", gamma: 5 } }),
        PakUcb.fromJSON,
        (st) => ((st.arms as ArmJson[])[0] as ArmJson).state,
      ],
      [
        () => new KernelUcb({ arms: ["a", "b"], contextDim: 3, seed: 2 }),
        KernelUcb.fromJSON,
        (st) => st.regression as Record<string, unknown>,
      ],
    ];
    for (const [make, restore, regression] of runs) {
      const p = make();
      const rng = Rng.fromSeed("krr-a");
      for (let t = 0; t < 40; t++)
        p.update(p.select(rng.fillNormal(new Float64Array(3), 0, 1)), { reward: rng.uniform() });
      const copy = JSON.parse(JSON.stringify(p.toJSON())) as Snapshot & { state: Record<string, unknown> };
      const st = regression(copy.state);
      const a = decodeF64(st.a as string, "a");
      a[0] = -1e308;
      st.a = encodeF64(a);
      const e = refusal(() => restore(resealSnapshot(copy)));
      expect(e.code).toBe("SNAPSHOT_CORRUPT");
      expect(e.message).toMatch(
        /snapshot field a\[0\] is -1e\+308; a = Q v is within 2 sum_j \|Q\[0, j\]\| max_j \|v_j\| \+ 1e-300 = /,
      );
    }
  });
  it("a regression whose inverse was rebuilt (a = Q v recomputed, slack raised) restores bit for bit", () => {
    const kernel = new DotKernel({ type: "rbf", sigma: 1 });
    const r = new ExactKrr(3, kernel, 1e-3);
    const rng = Rng.fromSeed("rebuilt");
    const add = () => {
      const y = rng.fillNormal(new Float64Array(3), 0, 1);
      const n2 = y.reduce((s, v) => s + v * v, 0);
      r.append(y, n2, 50 * rng.uniform(), r.row(y, n2), 1);
    };
    for (let t = 0; t < 60; t++) add();
    r.Q[0] = 2 / r.ridge; // accumulated rounding past the exact bound, as defects.test.ts simulates it
    for (let t = 0; t < 60; t++) add();
    expect(r.refreshes).toBe(1);
    const text = JSON.stringify(r.toJSON());
    expect(JSON.stringify(ExactKrr.fromJSON(JSON.parse(text), 3, kernel, 1e-3).toJSON())).toBe(text);
  });
});

describe("every real snapshot restores bit for bit", () => {
  it("exact regressions (PAK-UCB rbf, poly and linear, KernelUCB, SupPAK-UCB): several seeds, long runs, repeated prompts, the smallest ridge, wide and tiny (down to subnormal) rewards, arms removed and re-added, decisions pending", () => {
    type Any = {
      select(x: Float64Array): { id: string };
      update(d: never, f: { reward: number }): void;
      toJSON(): Snapshot;
      removeArm(a: string): void;
      addArm(a: string): void;
    };
    const kinds: [string, (seed: number, ridge?: number) => Any, (s: unknown) => { toJSON(): unknown }][] = [
      ["pak-rbf", (seed, ridge) => new PakUcb({ arms: ["a", "b", "c"], contextDim: 4, seed, ridge }), PakUcb.fromJSON],
      [
        "pak-poly",
        (seed, ridge) =>
          new PakUcb({
            arms: ["a", "b", "c"],
            contextDim: 4,
            seed,
            ridge,
            kernel: { type: "poly", gamma: 5 },
          }),
        PakUcb.fromJSON,
      ],
      [
        "pak-linear",
        (seed, ridge) => new PakUcb({ arms: ["a", "b", "c"], contextDim: 4, seed, ridge, kernel: { type: "linear" } }),
        PakUcb.fromJSON,
      ],
      [
        "kernel-ucb",
        (seed, ridge) => new KernelUcb({ arms: ["a", "b", "c"], contextDim: 4, seed, ridge }),
        KernelUcb.fromJSON,
      ],
      [
        "sup-pak",
        (seed, ridge) => new SupPakUcb({ arms: ["a", "b", "c"], contextDim: 4, seed, ridge, horizon: 2000 }),
        SupPakUcb.fromJSON,
      ],
    ];
    let checked = 0;
    for (const [name, make, restore] of kinds) {
      for (const [seed, ridge, repeat, scale] of [
        [1, undefined, false, 1],
        [2, undefined, true, 1],
        [3, "small", true, 1],
        [4, "small", false, 100],
        // Rewards whose squares underflow (a bound through |Q|_F |v|_2 refused these real states) and subnormal ones.
        [5, undefined, false, 1e-170],
        [6, "small", true, 1e-300],
        [7, undefined, false, 5e-324],
      ] as const) {
        // The smallest ridge each kernel allows (k(y, y) / ridge <= 10^4 at |y| = 1; a poly kernel reaches 216 or 27).
        const small = name === "pak-poly" ? 0.0216 : name === "pak-rbf" || name === "pak-linear" ? 1e-4 : 0.0027;
        const p = make(seed, ridge === "small" ? small : ridge);
        const rng = Rng.fromSeed(`exact:${name}:${seed}`);
        const unit = () => {
          const x = rng.fillNormal(new Float64Array(4), 0, 1);
          const r = 1 / Math.hypot(...x);
          return x.map((v) => v * r);
        };
        const prompts = Array.from({ length: 3 }, unit);
        const pending: { id: string }[] = [];
        for (let t = 0; t < 450; t++) {
          const x = repeat ? (prompts[t % 3] as Float64Array) : unit();
          pending.push(p.select(x));
          if (pending.length > 4) p.update(pending.shift() as never, { reward: scale * (2 * rng.uniform() - 1) });
          if (t === 150) p.removeArm("b");
          if (t === 200) p.addArm("b");
        }
        const text = JSON.stringify(p.toJSON());
        expect(JSON.stringify(restore(JSON.parse(text)).toJSON()), `${name} seed ${seed}`).toBe(text);
        checked++;
      }
    }
    expect(checked).toBe(35);
  });

  it("RFF-UCB: several seeds, long runs, a repeated prompt, the smallest ridge, arms removed and re-added", () => {
    const cases = [
      ...[1, 2, 3].map((s) => trained(s, 1500)),
      trained(4, 1500, { repeat: true }),
      trained(5, 1500, { repeat: true, ridge: 1e-4 }),
      trained(6, 800, { ridge: 1e-4 }),
    ];
    for (const p of cases) {
      const text = JSON.stringify(p.toJSON());
      expect(JSON.stringify(RffUcb.fromJSON(JSON.parse(text)).toJSON())).toBe(text);
    }
  });
  it("every class of the family, mid-run with decisions pending", () => {
    const make = [
      () => new KernelUcb({ arms: ["a", "b"], contextDim: 4, seed: 1 }),
      () => new PakUcb({ arms: ["a", "b"], contextDim: 4, seed: 2 }),
      () => new RffUcb({ arms: ["a", "b"], contextDim: 4, frequencies: 10, seed: 3 }),
      () => new SupPakUcb({ arms: ["a", "b"], contextDim: 4, seed: 4, horizon: 1000 }),
      () => new SupRffUcb({ arms: ["a", "b"], contextDim: 4, seed: 5, horizon: 1000 }),
    ];
    const restore = [
      KernelUcb.fromJSON,
      PakUcb.fromJSON,
      RffUcb.fromJSON,
      SupPakUcb.fromJSON,
      (s: unknown) => SupRffUcb.fromJSON(s),
    ];
    make.forEach((mk, i) => {
      const p = mk();
      const rng = Rng.fromSeed(`family:${i}`);
      const pending = [];
      for (let t = 0; t < 150; t++) {
        pending.push(p.select(rng.fillNormal(new Float64Array(4), 0, 1)));
        if (t % 2 === 1) p.update(pending.shift() as never, { reward: rng.uniform() });
        if (t === 60) p.removeArm("a");
        if (t === 70) p.addArm("a");
      }
      const text = JSON.stringify(p.toJSON());
      expect(JSON.stringify((restore[i] as (s: unknown) => { toJSON(): unknown })(JSON.parse(text)).toJSON())).toBe(
        text,
      );
    });
  });
});

describe("update and learn around a remove and re-add (README: the one case where they differ)", () => {
  it("update ignores a decision whose arm was removed and re-added; learn of its record trains the new arm", () => {
    const ctx = Float64Array.from([0.3, -0.2, 0.5, 0.1]);
    const p = new RffUcb({ arms: ["a", "b"], contextDim: 4, frequencies: 10, seed: 9 });
    let d = p.select(ctx);
    while (d.arm !== "a") {
      p.discard(d);
      d = p.select(ctx);
    }
    const record = JSON.parse(JSON.stringify(p.decisionRecord(d)));
    p.removeArm("a");
    p.addArm("a");
    const fresh = JSON.stringify((p.toJSON().state as { arms: unknown }).arms);
    p.update(d, { reward: 1 });
    expect(JSON.stringify((p.toJSON().state as { arms: unknown }).arms)).toBe(fresh);
    expect(p.regression("a").n).toBe(0);
    p.learn({ ...record, feedback: { reward: 1 } });
    expect(p.regression("a").n).toBe(1);
  });
});
