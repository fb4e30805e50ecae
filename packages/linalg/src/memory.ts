/**
 * The WebAssembly side of linalg: one shared `WebAssembly.Memory`, the SIMD kernel module
 * instantiated on it at load time, and `allocF64`, which places Float64Arrays inside that memory so
 * the kernels can reach them.
 *
 * - The memory is created with `shared: true`: growing a shared memory never detaches the existing
 *   Float64Array views (a plain memory's ArrayBuffer is detached on every grow). Each grow does make
 *   `memory.buffer` a *new* SharedArrayBuffer object over the same bytes, so membership is checked
 *   against every buffer generation seen so far (a handful: the memory at least doubles per grow).
 * - Allocation: size classes of 2^k x {1, 1.25, 1.5, 1.75} bytes (>= 64, so at most 25% waste and
 *   16-byte alignment), one free list per class, bump allocation otherwise. `freeF64` returns a block;
 *   a FinalizationRegistry returns it when the view is garbage-collected, as a safety net.
 * - Fallback to plain `new Float64Array(n)` (and the TypeScript kernels) when WebAssembly SIMD or
 *   shared memory is unavailable, when `ROUTEKIT_LINALG=scalar` is set in the environment, or when
 *   the memory cannot grow any more.
 */
import { KERNELS_WASM_BASE64 } from "./wasm/kernels.generated.js";

/** The exports of wasm/kernels.wat (pointers are byte offsets, ld in elements). */
export interface WasmKernels {
  dot(x: number, y: number, n: number): number;
  gemv(A: number, rows: number, cols: number, x: number, y: number, alpha: number, beta: number, ld: number): void;
  symv(A: number, n: number, x: number, y: number, ld: number): void;
  quad(A: number, n: number, x: number, ld: number): number;
  syr(A: number, n: number, alpha: number, x: number, ld: number): void;
}

/** The slice of the WebAssembly JS API used here (typed locally: the repo compiles without lib.dom). */
interface WasmMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}

const PAGE = 65536;
const INITIAL_PAGES = 64; // 4 MiB
/** Maximum sizes tried in turn (pages): 2 GiB, 1 GiB, 256 MiB. Only address space is reserved. */
const MAX_PAGES_TRIED = [32768, 16384, 4096];

export type LinalgBackend = "wasm-simd" | "scalar";

function decodeBase64(s: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array } }).Buffer;
  if (B !== undefined) return new Uint8Array(B.from(s, "base64"));
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function scalarRequested(): boolean {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.ROUTEKIT_LINALG === "scalar";
}

interface Runtime {
  memory: WasmMemory;
  kernels: WasmKernels;
  maxPages: number;
}

function init(): Runtime | null {
  if (scalarRequested()) return null;
  const WA = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (WA === undefined || typeof SharedArrayBuffer !== "function") return null;
  try {
    const module = new WA.Module(decodeBase64(KERNELS_WASM_BASE64));
    for (const maxPages of MAX_PAGES_TRIED) {
      let memory: WasmMemory;
      try {
        memory = new WA.Memory({ initial: INITIAL_PAGES, maximum: maxPages, shared: true });
      } catch {
        continue; // address space too tight for this maximum: try a smaller one
      }
      const instance = new WA.Instance(module, { env: { memory } });
      return { memory, kernels: instance.exports as unknown as WasmKernels, maxPages };
    }
  } catch {
    // No SIMD, no threads (shared memory) or no WebAssembly at all: TypeScript kernels only.
  }
  return null;
}

const runtime = init();

/** The kernels, or null on the scalar backend. */
export const wasmKernels: WasmKernels | null = runtime?.kernels ?? null;

/** Which implementation the hot kernels use for arrays from {@link allocF64}. */
export function linalgBackend(): LinalgBackend {
  return runtime === null ? "scalar" : "wasm-simd";
}

// ------------------------------------------------------------------ buffer generations

/** The current memory.buffer, checked first. */
let currentBuffer: ArrayBufferLike | null = runtime?.memory.buffer ?? null;
/** Every memory.buffer object seen before the last grow. */
const olderBuffers: ArrayBufferLike[] = [];

/** True when `buf` is (a generation of) the WebAssembly memory's buffer. */
export function isWasmBuffer(buf: ArrayBufferLike): boolean {
  if (buf === currentBuffer) return true;
  for (let i = 0; i < olderBuffers.length; i++) if (olderBuffers[i] === buf) return true;
  return false;
}

/** True when `a` lives in the WebAssembly memory, so the SIMD kernels can operate on it. */
export function isInWasmMemory(a: Float64Array): boolean {
  return isWasmBuffer(a.buffer);
}

// ------------------------------------------------------------------ allocator

interface Block {
  readonly serial: number;
  readonly size: number;
  readonly length: number;
}
interface Held {
  readonly offset: number;
  readonly serial: number;
}

/** Bytes of the size class holding `bytes`: 2^k x {1, 1.25, 1.5, 1.75, 2}, at least 64. */
export function sizeClassBytes(bytes: number): number {
  if (bytes <= 64) return 64;
  const k = 31 - Math.clz32(bytes - 1); // 2^k < bytes <= 2^(k+1)
  const base = 2 ** k;
  const quarter = base / 4;
  return base + quarter * Math.ceil((bytes - base) / quarter);
}

const freeLists = new Map<number, number[]>();
const live = new Map<number, Block>();
let top = 64; // offset 0 stays unused, so no live block has byte offset 0
let serials = 0;
let bytesInUse = 0;

function release(offset: number, block: Block): void {
  live.delete(offset);
  bytesInUse -= block.size;
  let list = freeLists.get(block.size);
  if (list === undefined) freeLists.set(block.size, (list = []));
  list.push(offset);
}

const registry =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<Held>((held) => {
        const block = live.get(held.offset);
        // The block may already have been freed explicitly and handed to a new owner.
        if (block !== undefined && block.serial === held.serial) release(held.offset, block);
      })
    : null;

/** Grows the memory so that [top, top + bytes) fits; false when it cannot. */
function ensure(bytes: number): boolean {
  if (runtime === null) return false;
  const mem = runtime.memory;
  const have = mem.buffer.byteLength;
  if (top + bytes <= have) return true;
  const needPages = Math.ceil((top + bytes - have) / PAGE);
  const havePages = have / PAGE;
  const room = runtime.maxPages - havePages;
  if (needPages > room) return false;
  const pages = Math.min(room, Math.max(needPages, havePages)); // at least double: few generations
  try {
    mem.grow(pages);
  } catch {
    return false;
  }
  if (currentBuffer !== null) olderBuffers.push(currentBuffer);
  currentBuffer = mem.buffer;
  return true;
}

/**
 * A Float64Array of `n` zeros, inside the WebAssembly memory when the SIMD backend is active (so the
 * hot kernels run in WebAssembly on it), otherwise a plain `new Float64Array(n)`.
 *
 * Release it with {@link freeF64} when done (optional: it is also reclaimed once garbage-collected).
 * Keep the returned array itself alive while any view derived from it (`subarray`) is in use.
 */
export function allocF64(n: number): Float64Array {
  if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(`allocF64: length must be an integer >= 0, got ${n}`);
  if (runtime === null || n === 0 || n > 0x10000000) return new Float64Array(n);
  const size = sizeClassBytes(n * 8);
  const list = freeLists.get(size);
  let offset: number;
  let reused = false;
  if (list !== undefined && list.length > 0) {
    offset = list.pop() as number;
    reused = true;
  } else {
    if (!ensure(size)) return new Float64Array(n);
    offset = top;
    top += size;
  }
  const view = new Float64Array(runtime.memory.buffer, offset, n);
  if (reused) view.fill(0);
  const serial = ++serials;
  live.set(offset, { serial, size, length: n });
  bytesInUse += size;
  registry?.register(view, { offset, serial }, view);
  return view;
}

/** A copy of `src` placed by {@link allocF64}, e.g. to move a snapshot-decoded array into WebAssembly reach. */
export function allocF64From(src: ArrayLike<number>): Float64Array {
  const out = allocF64(src.length);
  for (let i = 0; i < src.length; i++) out[i] = src[i] as number;
  return out;
}

/**
 * Returns an array from {@link allocF64} to the allocator; the array must not be used afterwards.
 * Returns false (and does nothing) for arrays it does not own: plain Float64Arrays, subarrays,
 * or a block already freed.
 */
export function freeF64(a: Float64Array): boolean {
  if (runtime === null || !isWasmBuffer(a.buffer)) return false;
  const block = live.get(a.byteOffset);
  if (block === undefined || block.length !== a.length) return false;
  registry?.unregister(a);
  release(a.byteOffset, block);
  return true;
}

/** Allocator statistics (all 0 on the scalar backend). */
export interface LinalgMemoryStats {
  readonly backend: LinalgBackend;
  /** Size of the WebAssembly memory. */
  readonly bytesReserved: number;
  /** Bytes in live blocks (rounded up to their size class). */
  readonly bytesInUse: number;
  /** Bytes in blocks waiting on free lists. */
  readonly bytesFree: number;
  readonly liveBlocks: number;
  /** Times the memory grew (number of buffer generations - 1). */
  readonly grows: number;
}

export function linalgMemoryStats(): LinalgMemoryStats {
  let bytesFree = 0;
  for (const [size, list] of freeLists) bytesFree += size * list.length;
  return {
    backend: linalgBackend(),
    bytesReserved: runtime?.memory.buffer.byteLength ?? 0,
    bytesInUse,
    bytesFree,
    liveBlocks: live.size,
    grows: olderBuffers.length,
  };
}
