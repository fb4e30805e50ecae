/**
 * The WebAssembly path without SharedArrayBuffer (a page that is not cross-origin isolated): plain
 * memories ("arenas") that are never grown, so no view handed out is ever detached.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { TestRng } from "./helpers.js";

type Linalg = typeof import("../src/index.js");

async function freshLinalg(): Promise<Linalg> {
  vi.resetModules();
  return await import("../src/index.js");
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.resetModules();
});

function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

describe("plain (non-shared) WebAssembly memory", () => {
  test("is used when SharedArrayBuffer does not exist", async () => {
    vi.stubGlobal("SharedArrayBuffer", undefined);
    // Whatever backend the run forces (the scalar suite sets ROUTEKIT_LINALG=scalar), this is the default path.
    vi.stubEnv("ROUTEKIT_LINALG", undefined);
    const L = await freshLinalg();
    expect(L.linalgBackend()).toBe("wasm-simd");
    const stats = L.linalgMemoryStats();
    expect(stats.sharedMemory).toBe(false);
    expect(stats.arenas).toBe(1);
    const a = L.allocF64(10);
    expect(L.isInWasmMemory(a)).toBe(true);
    expect(Object.prototype.toString.call(a.buffer)).toBe("[object ArrayBuffer]");
  });

  test("ROUTEKIT_LINALG=unshared forces it; kernels give the TypeScript bits; full arenas never detach views", async () => {
    vi.stubEnv("ROUTEKIT_LINALG", "unshared");
    const L = await freshLinalg();
    expect(L.linalgMemoryStats().sharedMemory).toBe(false);
    const rng = new TestRng(9);
    const n = 203;
    const A = rng.fill(L.allocF64(n * n));
    const x = rng.fill(L.allocF64(n));
    const y = L.allocF64(n);
    const plainA = new Float64Array(A);
    const plainX = new Float64Array(x);
    const plainY = new Float64Array(n);
    const dispatch = await import("../src/dispatch.js"); // the same fresh module graph
    expect(dispatch.kernels3(A.buffer, x.buffer, y.buffer)).not.toBeNull(); // the WebAssembly path
    // plain arrays take the TypeScript path: the reference bits
    L.symvUpper(A, n, x, y);
    L.symvUpper(plainA, n, plainX, plainY);
    expect(sameBits(y, plainY)).toBe(true);
    expect(Object.is(L.quadFormUpper(A, n, x), L.quadFormUpper(plainA, n, plainX))).toBe(true);
    const M = L.allocF32(L.mirror32Length(n));
    L.mirrorUpper(A, n, M);
    const x32 = L.roundToF32(x, n, L.allocF32(L.paddedLength(n)));
    expect(Object.is(L.quadFormMirror32(M, n, x32, x), L.quadFormMirror32Scalar(M, n, x32, x))).toBe(true);

    // More than the first arena (64 MiB, or 16 MiB where that is refused) holds: a second memory
    // opens instead of growing the first, and every earlier array keeps its bytes.
    const before = new Float64Array(A);
    const arenas = L.linalgMemoryStats().arenas;
    const big = L.allocF64(9_000_000); // 72 MB
    expect(big.length).toBe(9_000_000);
    expect(L.linalgMemoryStats().arenas).toBe(arenas + 1);
    expect(L.isInWasmMemory(big)).toBe(true);
    expect(A.length).toBe(n * n); // not detached
    expect(sameBits(A, before)).toBe(true);
    // arrays of two arenas in one call: the vector is staged into the matrix's memory, same bits
    const x2 = L.allocF64(n);
    x2.set(plainX);
    const other = big.subarray(0, n);
    other.set(plainX);
    expect(dispatch.kernels2(A.buffer, other.buffer)).toBeNull();
    L.symvUpper(A, n, other, y);
    expect(sameBits(y, plainY)).toBe(true);
    // and the new arena runs its own kernels
    const A2 = big.subarray(n, n + n * n);
    A2.set(plainA);
    expect(dispatch.kernels2(A2.buffer, other.buffer)).not.toBeNull();
    expect(Object.is(L.quadFormUpper(A2, n, other), L.quadFormUpper(plainA, n, plainX))).toBe(true);
    expect(L.freeF64(big)).toBe(true);
    expect(L.freeF64(x2)).toBe(true);
    const again = L.allocF64(n); // reuses x2's block, zeroed
    expect(again.every((v) => v === 0)).toBe(true);
  });
});
