/**
 * The gradient pass of the UCB-MNL / TS-MNL refit in WebAssembly SIMD (see scripts/gen-wasm-gradient.mjs):
 * the same bits as the TypeScript kernels, with the exponentials two items per f64x2 instruction. The pass
 * reads the whole history every round, so the history lives in a WebAssembly memory of its own (one per
 * policy) instead of being copied in: {@link WasmHistoryStore} lays out the history's arrays there and hands
 * out views of them, which the TypeScript passes and the snapshots read like any typed array. A full memory is
 * replaced by a larger one (contents copied), never grown in place, so views stay valid until the store
 * re-lays out, and the caller then takes the new views. Used when linalg runs its WebAssembly backend.
 */
import { linalgBackend } from "@routekit/linalg";
import { GRADIENT_WASM_BASE64, GRADIENT_WASM_MAX_D } from "./gradient-wasm.generated.js";
import { decodeBase64, type WasmApi, type WasmMemory, wasmApi } from "./wasm-module.js";

type GradientKernel = (
  x: number,
  start: number,
  choice: number,
  from: number,
  to: number,
  logV0: number,
  theta: number,
  g: number,
  zz: number,
) => void;

const PAGE = 65536;
const THETA_AT = 0;
const G_AT = 64;
const ZZ_AT = 128;
const align16 = (n: number): number => (n + 15) & ~15;

function compile(): { api: WasmApi; module: object } | null {
  if (linalgBackend() !== "wasm-simd") return null;
  const api = wasmApi();
  if (api === undefined) return null;
  try {
    return { api, module: new api.Module(decodeBase64(GRADIENT_WASM_BASE64)) };
  } catch {
    return null;
  }
}
const compiled = compile();

/** A history's rounds (row features, row offsets, choices) in a WebAssembly memory, with the kernel bound to it. */
export class WasmHistoryStore {
  x: Float64Array = new Float64Array(0);
  start: Int32Array = new Int32Array(0);
  choice: Int32Array = new Int32Array(0);
  private mem: Float64Array = new Float64Array(0);
  private kernel: GradientKernel | null = null;
  private xAt = 0;
  private startAt = 0;
  private choiceAt = 0;
  private scratchRows = 0;

  private constructor(
    private readonly d: number,
    private readonly api: WasmApi,
    private readonly module: object,
  ) {}

  /** Whether {@link create} gives a store for rows of d features (WebAssembly SIMD, linalg not in scalar mode, d <= 8). */
  static available(d: number): boolean {
    return compiled !== null && d >= 1 && d <= GRADIENT_WASM_MAX_D;
  }

  /** An empty store for rows of d features (lay it out with {@link relayout}), or null where none is available. */
  static create(d: number): WasmHistoryStore | null {
    if (compiled === null || !WasmHistoryStore.available(d)) return null;
    return new WasmHistoryStore(d, compiled.api, compiled.module);
  }

  /**
   * Lays the arrays out in a new memory with room for `rows` rows, `rounds` rounds and rounds of up to
   * `roundRows` rows, copying the first `usedRows` rows and `usedRounds` rounds of `from` (the current arrays). Returns false
   * (and changes nothing) when the runtime refuses the memory; the caller then keeps plain arrays.
   */
  relayout(
    rows: number,
    rounds: number,
    roundRows: number,
    from: { readonly x: Float64Array; readonly start: Int32Array; readonly choice: Int32Array },
    usedRows: number,
    usedRounds: number,
  ): boolean {
    const d = this.d;
    // zz holds a round's values plus one padding slot (an odd round's second lane).
    const scratchRows = Math.max(roundRows, this.scratchRows);
    const startAt = align16(ZZ_AT + 8 * (scratchRows + 2));
    const choiceAt = align16(startAt + 4 * (rounds + 1));
    const xAt = align16(choiceAt + 4 * rounds);
    const end = xAt + 8 * d * rows;
    let memory: WasmMemory;
    let kernel: GradientKernel;
    try {
      memory = new this.api.Memory({ initial: Math.ceil(end / PAGE) });
      const instance = new this.api.Instance(this.module, { env: { memory, exp: Math.exp } });
      kernel = instance.exports[`g${d}`] as GradientKernel;
    } catch {
      return false;
    }
    const buf = memory.buffer;
    const x = new Float64Array(buf, xAt, d * rows);
    const start = new Int32Array(buf, startAt, rounds + 1);
    const choice = new Int32Array(buf, choiceAt, rounds);
    x.set(from.x.subarray(0, usedRows * d));
    start.set(from.start.subarray(0, usedRounds + 1));
    choice.set(from.choice.subarray(0, usedRounds));
    this.x = x;
    this.start = start;
    this.choice = choice;
    this.mem = new Float64Array(buf, 0, ZZ_AT >> 3);
    this.kernel = kernel;
    this.xAt = xAt;
    this.startAt = startAt;
    this.choiceAt = choiceAt;
    this.scratchRows = scratchRows;
    return true;
  }

  /** Rounds of up to this many rows fit the kernel's scratch. */
  get roundRows(): number {
    return this.scratchRows;
  }

  /** Adds the data gradient of rounds [from, to) at theta to g (gradientPass{d}'s bits). */
  gradient(from: number, to: number, logV0: number, theta: Float64Array, g: Float64Array): void {
    const d = this.d;
    const mem = this.mem;
    for (let k = 0; k < d; k++) {
      mem[(THETA_AT >> 3) + k] = theta[k] as number;
      mem[(G_AT >> 3) + k] = g[k] as number;
    }
    (this.kernel as GradientKernel)(this.xAt, this.startAt, this.choiceAt, from, to, logV0, THETA_AT, G_AT, ZZ_AT);
    for (let k = 0; k < d; k++) g[k] = mem[(G_AT >> 3) + k] as number;
  }
}
