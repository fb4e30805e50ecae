import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  addRowsScalar,
  dotScalar,
  gemvScalar,
  quadFormUpperScalar,
  symvQuadUpperScalar,
  symvUpperScalar,
  syrUpperScalar,
} from "../src/blas.js";
import {
  addRows,
  allocF64,
  allocF64From,
  borderedInverseAppendWithProduct,
  dot,
  freeF64,
  gemv,
  isInWasmMemory,
  linalgBackend,
  linalgMemoryStats,
  quadFormUpper,
  shermanMorrisonUpdate,
  shermanMorrisonWithU,
  symvQuadUpper,
  symvUpper,
  syrUpper,
} from "../src/index.js";
import { sizeClassBytes } from "../src/memory.js";
import { TestRng } from "./helpers.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const simd = linalgBackend() === "wasm-simd";

test("the committed kernels.generated.ts is exactly what kernels.wat assembles to", () => {
  const out = execFileSync(process.execPath, ["scripts/build-wasm.mjs", "--check"], { cwd: root, encoding: "utf8" });
  expect(out).toContain("up to date");
});

test("Node 20 runs the WebAssembly SIMD backend unless ROUTEKIT_LINALG=scalar", () => {
  expect(linalgBackend()).toBe(process.env.ROUTEKIT_LINALG === "scalar" ? "scalar" : "wasm-simd");
});

/** Equal bits, with -0 and +0 told apart. */
function expectSameBits(a: ArrayLike<number>, b: ArrayLike<number>, n: number): void {
  let mismatches = 0;
  for (let i = 0; i < n; i++) if (!Object.is(a[i], b[i])) mismatches++;
  expect(mismatches).toBe(0);
}

describe.runIf(simd)("WebAssembly SIMD kernels give the same bits as the TypeScript ones", () => {
  const rng = new TestRng(2024);
  // Every size 1..40 (all residues of the 8-way unrolling), then random sizes up to 450.
  const sizes = [
    ...Array.from({ length: 40 }, (_, i) => i + 1),
    63,
    64,
    65,
    127,
    200,
    255,
    256,
    257,
    399,
    400,
    401,
    450,
  ];
  for (let k = 0; k < 8; k++) sizes.push(1 + rng.int(450));

  test("dot, with element offsets and views at odd byte offsets", () => {
    for (const n of sizes) {
      const pad = rng.int(3);
      const x = rng.fill(allocF64(n + 3));
      const y = rng.fill(allocF64(n + 3));
      const xv = x.subarray(pad, pad + n + 1); // a view whose byteOffset is not 16-aligned
      expect(isInWasmMemory(xv)).toBe(true);
      for (const [xo, yo] of [
        [0, 0],
        [1, 2],
      ] as const) {
        const w = dot(xv, y, n, xo, yo);
        const s = dotScalar(xv, y, n, xo, yo);
        expect(Object.is(w, s)).toBe(true);
        // and within 1e-12 relative of a plain left-to-right sum
        let naive = 0;
        let abs = 0;
        for (let i = 0; i < n; i++) {
          naive += (xv[xo + i] as number) * (y[yo + i] as number);
          abs += Math.abs((xv[xo + i] as number) * (y[yo + i] as number));
        }
        expect(Math.abs(w - naive)).toBeLessThanOrEqual(1e-12 * abs);
      }
    }
  });

  test("gemv, symvUpper, quadFormUpper, syrUpper with ld > n", () => {
    for (const n of sizes) {
      const ld = n + (n % 3);
      const A = rng.fill(allocF64(n * ld));
      const A2 = new Float64Array(A);
      const x = rng.fill(allocF64(n));
      const y = rng.fill(allocF64(n));
      const y2 = new Float64Array(y);
      gemv(A, n, n, x, y, 1.5, n % 2 === 0 ? 0 : -0.25, ld);
      gemvScalar(A2, n, n, x, y2, 1.5, n % 2 === 0 ? 0 : -0.25, ld);
      expectSameBits(y, y2, n);
      symvUpper(A, n, x, y, ld);
      symvUpperScalar(A2, n, x, y2, ld);
      expectSameBits(y, y2, n);
      expect(Object.is(quadFormUpper(A, n, x, ld), quadFormUpperScalar(A2, n, x, ld))).toBe(true);
      x[n >> 1] = 0; // a skipped row
      syrUpper(A, n, -0.75, x, ld);
      syrUpperScalar(A2, n, -0.75, x, ld);
      expectSameBits(A, A2, n * ld);
    }
  });

  test("symvQuadUpper (one pass) gives symvUpper's y and quadFormUpper's value, both backends, ld > n", () => {
    for (const n of sizes) {
      const ld = n + (n % 3);
      const A = rng.fill(allocF64(n * ld));
      const x = rng.fill(allocF64(n));
      x[n >> 1] = 0; // a zero entry
      const y = rng.fill(allocF64(n)); // stale contents are overwritten, not read
      const ySep = allocF64(n);
      const yScalar = new Float64Array(n).fill(Number.NaN);
      const q = symvQuadUpper(A, n, x, y, ld);
      symvUpper(A, n, x, ySep, ld);
      expectSameBits(y, ySep, n);
      expect(Object.is(q, quadFormUpper(A, n, x, ld))).toBe(true);
      const qs = symvQuadUpperScalar(A, n, x, yScalar, ld);
      expectSameBits(yScalar, ySep, n);
      expect(Object.is(qs, quadFormUpperScalar(A, n, x, ld))).toBe(true);
      // A plain-array x and y (staged into the matrix's memory): the same bits.
      const yPlain = new Float64Array(n);
      expect(Object.is(symvQuadUpper(A, n, new Float64Array(x), yPlain, ld), q)).toBe(true);
      expectSameBits(yPlain, ySep, n);
    }
  });

  test("addRows (y += sum_j w_j A_j, four rows a pass) gives the bits of one row at a time, both signs", () => {
    for (const [m, n] of [
      [1, 1],
      [3, 7],
      [4, 8],
      [5, 33],
      [17, 768],
      [33, 767],
    ] as const) {
      for (const scale of [1, -1]) {
        const lda = n + 3;
        const A = rng.fill(allocF64(2 + m * lda));
        const w = rng.fill(new Float64Array(m + 1)); // plain memory: staged
        w[m >> 1] = 0;
        const y = rng.fill(allocF64(n + 2));
        const y2 = new Float64Array(y);
        const y3 = new Float64Array(y);
        addRows(y, 1, n, A, 2, lda, w, 1, m, scale);
        addRowsScalar(y2, 1, n, A, 2, lda, w, 1, 1, m, scale);
        for (let j = 0; j < m; j++) {
          const v = w[1 + j] as number;
          for (let l = 0; l < n; l++) {
            const t = v * (A[2 + j * lda + l] as number);
            y3[1 + l] = scale < 0 ? (y3[1 + l] as number) - t : (y3[1 + l] as number) + t;
          }
        }
        expectSameBits(y, y2, n + 2);
        expectSameBits(y, y3, n + 2);
      }
    }
  });

  test("shermanMorrisonUpdate, shermanMorrisonWithU, borderedInverseAppendWithProduct: both backends, the bits of dot + syr", () => {
    for (const n of sizes) {
      const ld = n + 1 + (n % 3);
      const size = (n + 1) * ld; // room for the bordered row n
      const A = allocF64(size);
      for (let i = 0; i < n; i++) A[i * ld + i] = 2;
      for (let i = 0; i < size; i++) A[i] = (A[i] as number) + 0.01 * rng.normal();
      const x = rng.fill(allocF64(n), 0.3);
      const w = 0.5 + rng.uniform();
      // Reference: the formula spelled out with the public kernels (scalar twins on plain copies).
      const ref = new Float64Array(A);
      const uRef = new Float64Array(n);
      symvUpperScalar(ref, n, new Float64Array(x), uRef, ld);
      const denomRef = 1 + w * dotScalar(x, uRef, n);
      syrUpperScalar(ref, n, -w / denomRef, uRef, ld);
      const P = new Float64Array(A); // TypeScript path
      const uP = new Float64Array(n);
      expect(Object.is(shermanMorrisonUpdate(P, n, new Float64Array(x), uP, w, ld), denomRef)).toBe(true);
      expectSameBits(P, ref, size);
      expectSameBits(uP, uRef, n);
      const W = allocF64From(A); // WebAssembly path
      const uW = allocF64(n);
      expect(Object.is(shermanMorrisonUpdate(W, n, x, uW, w, ld), denomRef)).toBe(true);
      expectSameBits(W, ref, size);
      const V = allocF64From(A);
      expect(Object.is(shermanMorrisonWithU(V, n, x, uW, w, ld), denomRef)).toBe(true);
      expectSameBits(V, ref, size);
      // Bordering: the inverse's row n from b = x and a c that keeps the Schur complement above its floor.
      const B = allocF64From(A);
      const Bs = new Float64Array(A);
      const refB = new Float64Array(A);
      const c = 1 + 2 * Math.abs(dotScalar(x, uRef, n));
      const sRef = c - dotScalar(x, uRef, n);
      syrUpperScalar(refB, n, 1 / sRef, uRef, ld);
      for (let i = 0; i < n; i++) refB[i * ld + n] = -(uRef[i] as number) * (1 / sRef);
      refB[n * ld + n] = 1 / sRef;
      expect(Object.is(borderedInverseAppendWithProduct(B, n, ld, x, c, uW), sRef)).toBe(true);
      expect(Object.is(borderedInverseAppendWithProduct(Bs, n, ld, new Float64Array(x), c, uP), sRef)).toBe(true);
      expectSameBits(B, refB, size);
      expectSameBits(Bs, refB, size);
    }
  });

  test("non-square gemv with rows != cols", () => {
    for (const [rows, cols] of [
      [1, 450],
      [450, 1],
      [7, 33],
      [200, 3],
    ] as const) {
      const A = rng.fill(allocF64(rows * (cols + 1)));
      const x = rng.fill(allocF64(cols));
      const y = allocF64(rows);
      const y2 = new Float64Array(rows);
      gemv(A, rows, cols, x, y, 1, 0, cols + 1);
      gemvScalar(A, rows, cols, x, y2, 1, 0, cols + 1);
      expectSameBits(y, y2, rows);
    }
  });

  test("mixed or out-of-range arguments take the TypeScript path and never touch neighbours", () => {
    const n = 9;
    const A = rng.fill(allocF64(n * n));
    const x = rng.fill(allocF64(n));
    const plainX = new Float64Array(x);
    const y = allocF64(n);
    symvUpper(A, n, plainX, y); // mixed: scalar path, same answer
    const y2 = new Float64Array(n);
    symvUpperScalar(A, n, x, y2);
    expectSameBits(y, y2, n);
    // Out of range: a length-9 x with n = 10 must not read past it into another allocation.
    const neighbour = allocF64(64).fill(1);
    expect(Number.isNaN(dot(x, x, 10))).toBe(true);
    const small = allocF64(4);
    syrUpper(small, 3, 1, x); // 3x3 needs 9 entries: scalar path drops the writes beyond 4
    expect(neighbour.every((v) => v === 1)).toBe(true);
  });
});

describe("allocF64 / freeF64", () => {
  test("returns zeroed arrays of the requested length, reusing freed blocks", () => {
    const a = allocF64(100);
    expect(a.length).toBe(100);
    a.fill(3);
    const before = linalgMemoryStats();
    expect(freeF64(a)).toBe(simd);
    expect(freeF64(a)).toBe(false); // double free is a no-op
    const b = allocF64(97); // same size class (800 bytes -> 896)
    expect(b.every((v) => v === 0)).toBe(true);
    if (simd) {
      expect(b.byteOffset).toBe(a.byteOffset);
      expect(linalgMemoryStats().bytesInUse).toBe(before.bytesInUse);
    }
    expect(allocF64(0).length).toBe(0);
    expect(() => allocF64(-1)).toThrow(RangeError);
    expect(() => allocF64(2.5)).toThrow(RangeError);
    expect(freeF64(new Float64Array(4))).toBe(false);
    expect(freeF64(b.subarray(1))).toBe(false);
  });

  test("a view of a block's whole length is not the block: freeing it does nothing (it freed the block in use)", () => {
    const a = allocF64(8);
    expect(freeF64(a.subarray(0))).toBe(false);
    expect(freeF64(new Float64Array(a.buffer, a.byteOffset, a.length))).toBe(false);
    expect(freeF64(new Float32Array(a.buffer, a.byteOffset, 2 * a.length))).toBe(false);
    a.fill(5);
    const other = allocF64(8);
    other.fill(1);
    expect(Array.from(a)).toEqual([5, 5, 5, 5, 5, 5, 5, 5]);
    expect(freeF64(a)).toBe(simd);
    expect(freeF64(other)).toBe(simd);
  });

  test("size classes waste at most 25% and keep 16-byte alignment", () => {
    for (let bytes = 8; bytes < 1 << 22; bytes = Math.ceil(bytes * 1.07)) {
      const c = sizeClassBytes(bytes);
      expect(c).toBeGreaterThanOrEqual(bytes);
      expect(c % 16).toBe(0);
      if (bytes > 64) expect(c).toBeLessThanOrEqual(1.25 * bytes);
    }
  });

  test.runIf(simd)("growing the memory keeps old views valid and on the SIMD path", () => {
    const old = rng32();
    const copy = new Float64Array(old);
    const stats = linalgMemoryStats();
    const grows = stats.grows;
    // More than everything reserved so far (at least the initial 4 MiB), so it cannot come from a free list or
    // the unused tail, whatever earlier test files (one shared memory, isolate: false) allocated and freed.
    const big = allocF64(Math.max(1 << 20, Math.ceil(stats.bytesReserved / 8) + 1));
    expect(linalgMemoryStats().grows).toBeGreaterThan(grows);
    expect(old.buffer).not.toBe(big.buffer); // a new SharedArrayBuffer object...
    expect(Array.from(old)).toEqual(Array.from(copy)); // ...over the same, still attached bytes
    expect(isInWasmMemory(old)).toBe(true);
    expect(dot(old, old)).toBe(dotScalar(copy, copy));
    freeF64(big);
  });

  test("allocF64From copies", () => {
    const a = allocF64From([1, 2, 3]);
    expect(Array.from(a)).toEqual([1, 2, 3]);
    expect(isInWasmMemory(a)).toBe(simd);
  });

  test.runIf(simd && typeof globalThis.gc === "function")(
    "a garbage-collected array returns to the free list",
    async () => {
      const live0 = linalgMemoryStats().liveBlocks;
      (() => {
        for (let i = 0; i < 100; i++) allocF64(1000);
      })();
      expect(linalgMemoryStats().liveBlocks).toBe(live0 + 100);
      for (let k = 0; k < 50 && linalgMemoryStats().liveBlocks > live0; k++) {
        globalThis.gc?.();
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(linalgMemoryStats().liveBlocks).toBeLessThanOrEqual(live0);
    },
  );

  test.runIf(simd && typeof globalThis.gc === "function")(
    "a view freed explicitly and garbage-collected later leaves its block's next owner alone",
    async () => {
      // Freed views are not unregistered from the safety net: their finaliser must see the block has a new owner.
      const n = 1234; // a size class of its own in this file
      let owner: Float64Array = new Float64Array(0);
      let dropped = 0;
      (() => {
        for (let i = 0; i < 50; i++) freeF64(allocF64(n));
        owner = allocF64(n); // the block the 50 views had
        allocF64(n); // dropped without freeF64: the safety net returns it
        dropped = linalgMemoryStats().liveBlocks;
      })();
      for (let k = 0; k < 50 && linalgMemoryStats().liveBlocks >= dropped; k++) {
        globalThis.gc?.();
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(linalgMemoryStats().liveBlocks).toBeLessThan(dropped); // the finalisers ran
      const next = allocF64(n);
      expect(next.byteOffset).not.toBe(owner.byteOffset); // the owner's block was not handed out again
      expect(freeF64(owner)).toBe(true); // and is still the owner's to free
      freeF64(next);
    },
  );
});

function rng32(): Float64Array {
  return new TestRng(5).fill(allocF64(32));
}

describe("ROUTEKIT_LINALG=scalar", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });
  test("selects the TypeScript backend and plain arrays", async () => {
    vi.stubEnv("ROUTEKIT_LINALG", "scalar");
    vi.resetModules();
    const fresh = await import("../src/index.js");
    expect(fresh.linalgBackend()).toBe("scalar");
    const a = fresh.allocF64(8);
    expect(a.buffer instanceof ArrayBuffer).toBe(true);
    expect(fresh.isInWasmMemory(a)).toBe(false);
    expect(fresh.linalgMemoryStats().bytesReserved).toBe(0);
  });
});
