/**
 * The fused optimistic utilities of OFU-MNL+ (the c > 0 branch of the unrolled checkedUtilities, d <= 8)
 * in WebAssembly SIMD, two items per f64x2 instruction, with bit-identical results (see
 * scripts/gen-wasm-utilities.mjs). The module has its own small memory: each call copies the query's
 * features, w and H^-1 in, and the utilities and top-K candidates are read in place through views of that
 * memory. Used when linalg runs its WebAssembly backend (so `ROUTEKIT_LINALG=scalar` or a runtime without
 * WebAssembly SIMD runs the TypeScript kernels throughout).
 */
import { linalgBackend } from "@routekit/linalg";
import { UTILITIES_WASM_BASE64, UTILITIES_WASM_MAX_D } from "./utilities-wasm.generated.js";
import { decodeBase64, type WasmMemory, wasmApi } from "./wasm-module.js";

type Kernel = (
  f: number,
  n: number,
  w: number,
  M: number,
  c: number,
  util: number,
  max: number,
  T: number,
  cand: number,
  stats: number,
) => number;

function instantiate(): { memory: WasmMemory; kernels: Kernel[] } | null {
  if (linalgBackend() !== "wasm-simd") return null;
  const WA = wasmApi();
  if (WA === undefined) return null;
  try {
    const instance = new WA.Instance(new WA.Module(decodeBase64(UTILITIES_WASM_BASE64)), {});
    const kernels: Kernel[] = [];
    for (let d = 1; d <= UTILITIES_WASM_MAX_D; d++) kernels[d] = instance.exports[`u${d}`] as Kernel;
    return { memory: instance.exports.memory as WasmMemory, kernels };
  } catch {
    return null;
  }
}

const PAGE = 65536;
/** Byte offsets of w (8 doubles), M (64 doubles) and stats (3 doubles); the features start at FEATURES. */
const W_AT = 0;
const M_AT = 64;
const STATS_AT = 576;
const FEATURES = 640;

/**
 * One policy's view of the module (the module and its memory are shared by all policies of a process; a
 * call copies everything it reads, so policies never see each other's data).
 */
export class WasmUtilities {
  /** The utilities of the last call (a view of the module's memory, at least n long). */
  util: Float64Array = new Float64Array(0);
  /** The top-K candidates of the last call (a view, at least n long). */
  cand: Int32Array = new Int32Array(0);
  private f64: Float64Array = new Float64Array(0);
  private capacity = -1;
  private buffer: ArrayBuffer | null = null;
  private utilAt = 0;
  private candAt = 0;

  private constructor(
    private readonly memory: WasmMemory,
    private readonly kernel: Kernel,
    private readonly d: number,
  ) {
    // Laid out up front for 128 items: run's re-layout branch then stays cold for every later policy of a
    // process (a first call through it deoptimised run, and the policy's select, in their first round).
    this.layout(128);
  }

  /** The WebAssembly utilities for contextDim d, or null (no WebAssembly SIMD, d > 8, or linalg in scalar mode). */
  static create(d: number): WasmUtilities | null {
    if (d > UTILITIES_WASM_MAX_D) return null;
    const rt = runtime;
    return rt === null ? null : new WasmUtilities(rt.memory, rt.kernels[d] as Kernel, d);
  }

  /** Lays out room for n items (growing the memory if needed) and makes the views (n long). */
  private layout(n: number): void {
    const d = this.d;
    const utilAt = FEATURES + 8 * n * d;
    // 16 bytes of padding: for an odd n the kernel stores the last pair's second lane past util.
    const candAt = utilAt + 8 * n + 16;
    const end = candAt + 4 * n;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    const buf = this.memory.buffer;
    this.f64 = new Float64Array(buf, 0, (candAt >> 3) + 0);
    this.util = new Float64Array(buf, utilAt, n);
    this.cand = new Int32Array(buf, candAt, n);
    this.utilAt = utilAt;
    this.candAt = candAt;
    this.capacity = n;
    this.buffer = buf;
  }

  /**
   * checkedUtilities(d) for c > 0 into this.util and this.cand, stats as there; returns -1, or a value
   * >= 0 when some row is above the norm bound `max` (the caller then runs the TypeScript kernel, which
   * names the first such row).
   */
  run(
    f: Float64Array,
    n: number,
    w: Float64Array,
    M: Float64Array,
    c: number,
    max: number,
    T: number,
    stats: Float64Array,
  ): number {
    const d = this.d;
    if (n > this.capacity || this.buffer !== this.memory.buffer) this.layout(Math.max(n, this.capacity));
    const mem = this.f64;
    mem.set(f, FEATURES >> 3);
    for (let k = 0; k < d; k++) mem[(W_AT >> 3) + k] = w[k] as number;
    for (let k = 0; k < d * d; k++) mem[(M_AT >> 3) + k] = M[k] as number;
    const bad = this.kernel(FEATURES, n, W_AT, M_AT, c, this.utilAt, max, T, this.candAt, STATS_AT);
    stats[0] = mem[STATS_AT >> 3] as number;
    stats[1] = mem[(STATS_AT >> 3) + 1] as number;
    stats[2] = mem[(STATS_AT >> 3) + 2] as number;
    return bad;
  }
}

const runtime = instantiate();
