/**
 * The WebAssembly side of linalg: the SIMD kernel module instantiated on WebAssembly memory at load
 * time, and `allocF64` / `allocF32`, which place typed arrays inside that memory so the kernels can
 * reach them.
 *
 * Two memory modes, chosen once at load time:
 * - **shared** (when `SharedArrayBuffer` exists, e.g. Node or a cross-origin-isolated page): one
 *   `WebAssembly.Memory({ shared: true })`. Growing a shared memory never detaches the existing
 *   views; each grow does make `memory.buffer` a *new* SharedArrayBuffer object over the same bytes,
 *   so membership is checked against every buffer generation seen (a handful: it at least doubles).
 * - **arenas** (no `SharedArrayBuffer`: a page without cross-origin isolation, some edge runtimes; or
 *   `ROUTEKIT_LINALG=unshared`): plain memories that are **never grown**, because growing a plain
 *   memory detaches its ArrayBuffer and with it every Float64Array a caller holds. When an arena is
 *   full, a new, larger memory (with its own instance of the kernels) is opened instead. A kernel
 *   runs in WebAssembly when all its arrays are in one arena, otherwise its TypeScript twin runs
 *   (same bits, slower). No view is ever invalidated, so there is nothing to re-create.
 *
 * Allocation: size classes of 2^k x {1, 1.25, 1.5, 1.75} bytes (>= 64, so at most 25% waste and
 * 16-byte alignment), one free list per class, bump allocation otherwise. `freeF64` returns a block;
 * a FinalizationRegistry returns it when the view is garbage-collected, as a safety net.
 * Fallback to plain `new Float64Array(n)` (and the TypeScript kernels) when WebAssembly SIMD is
 * unavailable, when `ROUTEKIT_LINALG=scalar` is set in the environment, or when no memory is left.
 */
import { KERNELS_WASM_BASE64, KERNELS_WASM_UNSHARED_BASE64 } from "./wasm/kernels.generated.js";

/** The exports of wasm/kernels.wat (pointers are byte offsets, ld in elements). */
export interface WasmKernels {
  dot(x: number, y: number, n: number): number;
  gemv(A: number, rows: number, cols: number, x: number, y: number, alpha: number, beta: number, ld: number): void;
  symv(A: number, n: number, x: number, y: number, ld: number): void;
  quad(A: number, n: number, x: number, ld: number): number;
  symvquad(A: number, n: number, x: number, y: number, ld: number): number;
  syr(A: number, n: number, alpha: number, x: number, ld: number): void;
  quad32(M: number, n: number, x32: number, x: number): number;
  syrmirror(A: number, n: number, alpha: number, x: number, ld: number, M: number): void;
  mirror(A: number, n: number, ld: number, M: number): void;
  addrows(y: number, n: number, A: number, lda: number, w: number, m: number, scale: number): void;
}

/** The slice of the WebAssembly JS API used here (typed locally: the repo compiles without lib.dom). */
interface WasmMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
}

const PAGE = 65536;
const INITIAL_PAGES = 64; // 4 MiB (shared mode; it grows)
/** Maximum sizes tried in turn (pages): 2 GiB, 1 GiB, 256 MiB. Only address space is reserved. */
const MAX_PAGES_TRIED = [32768, 16384, 4096];
/** Arena mode: the first arena's size (64 MiB, falling back to 16 MiB) and the total cap (2 GiB). */
const ARENA_PAGES_TRIED = [1024, 256];
const ARENA_TOTAL_PAGES = 32768;

export type LinalgBackend = "wasm-simd" | "scalar";

function decodeBase64(s: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array } }).Buffer;
  if (B !== undefined) return new Uint8Array(B.from(s, "base64"));
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function requestedMode(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.ROUTEKIT_LINALG;
}

/** One WebAssembly memory with its own kernel instance. */
interface Arena {
  readonly memory: WasmMemory;
  readonly kernels: WasmKernels;
  /** Bump pointer (bytes). Offset 0..63 stays unused, so no live block has byte offset 0. */
  top: number;
  /** Views over the staging slots (see {@link stageF64}); the slots lie inside the first memory size. */
  readonly f64: Float64Array;
  readonly f32: Float32Array;
}

/**
 * Each memory keeps STAGE_SLOTS slots of STAGE_SLOT_BYTES at byte offset 64 for the vectors of a call
 * whose matrix is in this memory but whose vectors are not (another arena, or plain arrays): the kernel
 * dispatch copies them in and out, O(n) around an O(n^2) kernel, instead of running the TypeScript twin.
 */
const STAGE_SLOT_BYTES = 65536;
const STAGE_SLOTS = 2;
const STAGE_BASE = 64;

interface Runtime {
  readonly shared: boolean;
  readonly WA: WasmApi;
  readonly module: object;
  readonly arenas: Arena[];
  /** Shared mode: the memory's maximum (pages). */
  readonly maxPages: number;
  /** Arena mode: pages of all arenas so far. */
  pagesUsed: number;
}

function newArena(rt: { WA: WasmApi; module: object }, memory: WasmMemory): Arena {
  const instance = new rt.WA.Instance(rt.module, { env: { memory } });
  const end = STAGE_BASE + STAGE_SLOTS * STAGE_SLOT_BYTES;
  return {
    memory,
    kernels: instance.exports as unknown as WasmKernels,
    top: end,
    f64: new Float64Array(memory.buffer, STAGE_BASE, (end - STAGE_BASE) / 8),
    f32: new Float32Array(memory.buffer, STAGE_BASE, (end - STAGE_BASE) / 4),
  };
}

function initShared(WA: WasmApi): Runtime | null {
  const module = new WA.Module(decodeBase64(KERNELS_WASM_BASE64));
  for (const maxPages of MAX_PAGES_TRIED) {
    let memory: WasmMemory;
    try {
      memory = new WA.Memory({ initial: INITIAL_PAGES, maximum: maxPages, shared: true });
    } catch {
      continue; // address space too tight for this maximum: try a smaller one
    }
    return { shared: true, WA, module, arenas: [newArena({ WA, module }, memory)], maxPages, pagesUsed: INITIAL_PAGES };
  }
  return null;
}

function initArenas(WA: WasmApi): Runtime | null {
  const module = new WA.Module(decodeBase64(KERNELS_WASM_UNSHARED_BASE64));
  for (const pages of ARENA_PAGES_TRIED) {
    let memory: WasmMemory;
    try {
      memory = new WA.Memory({ initial: pages });
    } catch {
      continue;
    }
    return { shared: false, WA, module, arenas: [newArena({ WA, module }, memory)], maxPages: pages, pagesUsed: pages };
  }
  return null;
}

function init(): Runtime | null {
  const mode = requestedMode();
  if (mode === "scalar") return null;
  const WA = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (WA === undefined) return null;
  try {
    if (mode !== "unshared" && typeof SharedArrayBuffer === "function") {
      const rt = initShared(WA);
      if (rt !== null) return rt;
    }
    return initArenas(WA);
  } catch {
    // No SIMD (the module fails to compile) or no WebAssembly at all: TypeScript kernels only.
  }
  return null;
}

const runtime = init();

/** The first arena's kernels, or null on the scalar backend (for callers that only need to know). */
export const wasmKernels: WasmKernels | null = runtime?.arenas[0]?.kernels ?? null;

/** Which implementation the hot kernels use for arrays from {@link allocF64}. */
export function linalgBackend(): LinalgBackend {
  return runtime === null ? "scalar" : "wasm-simd";
}

// ------------------------------------------------------------------ buffer -> arena

/** Every ArrayBuffer object of WebAssembly memory seen (shared mode: all generations), and its arena. */
const knownBuffers: ArrayBufferLike[] = [];
const knownArena: number[] = [];
/** Kernels by arena index. */
const arenaKernels: WasmKernels[] = [];
if (runtime !== null) {
  knownBuffers.push(runtime.arenas[0]?.memory.buffer as ArrayBufferLike);
  knownArena.push(0);
  arenaKernels.push(runtime.arenas[0]?.kernels as WasmKernels);
}

/** Index of the arena whose memory `buf` is, or -1 (plain memory). The newest buffer is checked first. */
export function arenaOf(buf: ArrayBufferLike): number {
  for (let i = knownBuffers.length - 1; i >= 0; i--) if (knownBuffers[i] === buf) return knownArena[i] as number;
  return -1;
}

/** The kernels that can reach arrays in `buf`, or null. */
export function kernelsFor(buf: ArrayBufferLike): WasmKernels | null {
  const a = arenaOf(buf);
  return a < 0 ? null : (arenaKernels[a] as WasmKernels);
}

/** True when `buf` is (a generation of) a WebAssembly memory's buffer. */
export function isWasmBuffer(buf: ArrayBufferLike): boolean {
  return arenaOf(buf) >= 0;
}

/** True when `a` lives in WebAssembly memory, so the SIMD kernels can operate on it. */
export function isInWasmMemory(a: Float64Array | Float32Array): boolean {
  return arenaOf(a.buffer) >= 0;
}

// ------------------------------------------------------------------ staging

/**
 * Copies src[off .. off+n) into staging slot `slot` of arena `a`; returns the slot's byte offset in that
 * memory, or -1 when n does not fit a slot.
 */
export function stageF64(a: number, slot: number, src: ArrayLike<number>, off: number, n: number): number {
  if (runtime === null || n > STAGE_SLOT_BYTES / 8) return -1;
  const view = (runtime.arenas[a] as Arena).f64;
  const base = (slot * STAGE_SLOT_BYTES) / 8;
  for (let i = 0; i < n; i++) view[base + i] = src[off + i] as number;
  return STAGE_BASE + slot * STAGE_SLOT_BYTES;
}

/** {@link stageF64} for Float32 data. */
export function stageF32(a: number, slot: number, src: Float32Array, n: number): number {
  if (runtime === null || n > STAGE_SLOT_BYTES / 4) return -1;
  (runtime.arenas[a] as Arena).f32.set(src.subarray(0, n), (slot * STAGE_SLOT_BYTES) / 4);
  return STAGE_BASE + slot * STAGE_SLOT_BYTES;
}

/** The byte offset of an (uninitialised) staging slot for n doubles, or -1 when they do not fit. */
export function stageSlot(slot: number, n: number): number {
  return n > STAGE_SLOT_BYTES / 8 ? -1 : STAGE_BASE + slot * STAGE_SLOT_BYTES;
}

/** Copies n doubles from staging slot `slot` of arena `a` to dst[0 .. n). */
export function unstageF64(a: number, slot: number, dst: Float64Array, n: number): void {
  const view = ((runtime as Runtime).arenas[a] as Arena).f64;
  const base = (slot * STAGE_SLOT_BYTES) / 8;
  // A loop, not set(subarray): a subarray is a new object on every call.
  for (let i = 0; i < n; i++) dst[i] = view[base + i] as number;
}

/** The kernels of arena `a`. */
export function arenaKernelsAt(a: number): WasmKernels {
  return arenaKernels[a] as WasmKernels;
}

// ------------------------------------------------------------------ allocator

/**
 * A block of WebAssembly memory. Its record is made when the block is first carved out of an arena and kept for
 * good: a block never changes size (a freed block only serves allocations of its size class), so `blocks` is only
 * ever added to. (Deleting a Map entry per free and adding it again per allocation cost a hash-table rebuild every
 * few hundred pairs once thousands of blocks are live: 50 us a pair with 20,000 live blocks.)
 */
interface Block {
  /** Arena index * 2^32 + byte offset. */
  readonly key: number;
  /** Bytes of its size class. */
  readonly size: number;
  /** Changes with every allocation of the block, so a stale finaliser can tell it is no longer the owner. */
  serial: number;
  /** Bytes of the live view (0 while free). */
  length: number;
  live: boolean;
}
/** What the finaliser of a view gets: its block and the allocation the view came from. */
interface Held {
  readonly block: Block;
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

/** A block's key: arena index * 2^32 + byte offset. */
const ARENA_SHIFT = 2 ** 32;
/** Free blocks by size class (last freed, first reused). */
const freeLists = new Map<number, Block[]>();
/** Every block ever carved, by key. */
const blocks = new Map<number, Block>();
let serials = 0;
/**
 * The views `alloc` handed out and not yet freed. A block is found by its address, which a full-length `subarray(0)`
 * or a Float32Array over the same bytes shares: without this, freeing such a view returned the block while its
 * owner still wrote to it, and the next allocation of that size class got the same memory.
 */
const owned = new WeakSet<Float64Array | Float32Array>();
let bytesInUse = 0;
let liveBlocks = 0;

function release(block: Block): void {
  block.live = false;
  block.length = 0;
  liveBlocks--;
  bytesInUse -= block.size;
  let list = freeLists.get(block.size);
  if (list === undefined) freeLists.set(block.size, (list = []));
  list.push(block);
}

/**
 * The safety net: a view garbage-collected without `freeF64` returns its block. Views are registered without an
 * unregister token and `freeF64` does not unregister (a token costs the registry a hash-table insertion and
 * deletion per allocation): the finaliser of a view whose block was freed explicitly, and maybe handed to a new
 * owner since, finds the block free or its serial changed, and does nothing. (The cost: a freed view's registration,
 * a few dozen bytes, lives until the view is collected and the finaliser has run; explicit frees are rare next to
 * allocations: 126 frees for 403,000 allocations in Sup-PAK-UCB's fuzz test.)
 */
const registry =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<Held>((held) => {
        if (held.block.live && held.block.serial === held.serial) release(held.block);
      })
    : null;

/** Shared mode: grows the one memory so that `bytes` more fit. False when it cannot. */
function growShared(rt: Runtime, arena: Arena, bytes: number): boolean {
  const mem = arena.memory;
  const have = mem.buffer.byteLength;
  const needPages = Math.ceil((arena.top + bytes - have) / PAGE);
  const havePages = have / PAGE;
  const room = rt.maxPages - havePages;
  if (needPages > room) return false;
  const pages = Math.min(room, Math.max(needPages, havePages)); // at least double: few generations
  try {
    mem.grow(pages);
  } catch {
    return false;
  }
  knownBuffers.push(mem.buffer);
  knownArena.push(0);
  return true;
}

/** Arena mode: opens a new memory at least twice the last one and large enough for `bytes`. */
function openArena(rt: Runtime, bytes: number): boolean {
  const last = rt.arenas[rt.arenas.length - 1] as Arena;
  const lastPages = last.memory.buffer.byteLength / PAGE;
  const pages = Math.max(2 * lastPages, Math.ceil((bytes + STAGE_BASE + STAGE_SLOTS * STAGE_SLOT_BYTES) / PAGE));
  if (rt.pagesUsed + pages > ARENA_TOTAL_PAGES) return false;
  let memory: WasmMemory;
  try {
    memory = new rt.WA.Memory({ initial: pages });
  } catch {
    return false;
  }
  const arena = newArena(rt, memory);
  rt.arenas.push(arena);
  rt.pagesUsed += pages;
  knownBuffers.push(memory.buffer);
  knownArena.push(rt.arenas.length - 1);
  arenaKernels.push(arena.kernels);
  return true;
}

/** Reserves `size` bytes: the block key, or -1 when no memory is left. */
function bump(rt: Runtime, size: number): number {
  let index = rt.arenas.length - 1;
  let arena = rt.arenas[index] as Arena;
  if (arena.top + size > arena.memory.buffer.byteLength) {
    if (rt.shared) {
      if (!growShared(rt, arena, size)) return -1;
    } else {
      if (!openArena(rt, size)) return -1;
      index = rt.arenas.length - 1;
      arena = rt.arenas[index] as Arena;
    }
  }
  const offset = arena.top;
  arena.top += size;
  return index * ARENA_SHIFT + offset;
}

type Make<T> = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;

function alloc<T extends Float64Array | Float32Array>(
  n: number,
  bytesPer: number,
  Ctor: Make<T>,
  plain: (n: number) => T,
): T {
  if (!(Number.isInteger(n) && n >= 0))
    throw new RangeError(`allocF${bytesPer * 8}: length must be an integer >= 0, got ${n}`);
  if (runtime === null || n === 0 || n > 0x10000000) return plain(n);
  const size = sizeClassBytes(n * bytesPer);
  let block = freeLists.get(size)?.pop();
  const reused = block !== undefined;
  if (block === undefined) {
    const key = bump(runtime, size);
    if (key < 0) return plain(n);
    block = { key, size, serial: 0, length: 0, live: false };
    blocks.set(key, block);
  }
  const arena = runtime.arenas[Math.floor(block.key / ARENA_SHIFT)] as Arena;
  const view = new Ctor(arena.memory.buffer, block.key % ARENA_SHIFT, n);
  if (reused) view.fill(0);
  const serial = ++serials;
  block.serial = serial;
  block.length = n * bytesPer;
  block.live = true;
  liveBlocks++;
  bytesInUse += size;
  registry?.register(view, { block, serial });
  owned.add(view);
  return view;
}

/**
 * A Float64Array of `n` zeros, inside WebAssembly memory when the SIMD backend is active (so the hot
 * kernels run in WebAssembly on it), otherwise a plain `new Float64Array(n)`.
 *
 * Release it with {@link freeF64} when done (optional: it is also reclaimed once garbage-collected).
 * Keep the returned array itself alive while any view derived from it (`subarray`) is in use.
 */
export function allocF64(n: number): Float64Array {
  return alloc(n, 8, Float64Array, (k) => new Float64Array(k));
}

/** Like {@link allocF64}, for a Float32Array (single-precision mirrors, see `Mirror32`). */
export function allocF32(n: number): Float32Array {
  return alloc(n, 4, Float32Array, (k) => new Float32Array(k));
}

/** A copy of `src` placed by {@link allocF64}, e.g. to move a snapshot-decoded array into WebAssembly reach. */
export function allocF64From(src: ArrayLike<number>): Float64Array {
  const out = allocF64(src.length);
  for (let i = 0; i < src.length; i++) out[i] = src[i] as number;
  return out;
}

/**
 * Returns an array from {@link allocF64} or {@link allocF32} to the allocator; the array must not be
 * used afterwards. Returns false (and does nothing) for arrays it does not own: plain arrays,
 * subarrays and other views of the block's bytes (also one of its whole length), or a block already freed.
 */
export function freeF64(a: Float64Array | Float32Array): boolean {
  if (runtime === null || !owned.has(a)) return false;
  const index = arenaOf(a.buffer);
  if (index < 0) return false;
  const block = blocks.get(index * ARENA_SHIFT + a.byteOffset);
  if (block === undefined || !block.live || block.length !== a.byteLength) return false;
  owned.delete(a);
  release(block);
  return true;
}

/** Allocator statistics (all 0 on the scalar backend). */
export interface LinalgMemoryStats {
  readonly backend: LinalgBackend;
  /** True for one growable shared memory, false for fixed-size plain memories (arenas). */
  readonly sharedMemory: boolean;
  /** Number of WebAssembly memories (1 in shared mode). */
  readonly arenas: number;
  /** Size of the WebAssembly memories together. */
  readonly bytesReserved: number;
  /** Bytes in live blocks (rounded up to their size class). */
  readonly bytesInUse: number;
  /** Bytes in blocks waiting on free lists. */
  readonly bytesFree: number;
  readonly liveBlocks: number;
  /** Times more memory was needed: grows of the shared memory, or arenas opened after the first. */
  readonly grows: number;
}

export function linalgMemoryStats(): LinalgMemoryStats {
  let bytesFree = 0;
  for (const [size, list] of freeLists) bytesFree += size * list.length;
  let bytesReserved = 0;
  for (const a of runtime?.arenas ?? []) bytesReserved += a.memory.buffer.byteLength;
  return {
    backend: linalgBackend(),
    sharedMemory: runtime?.shared ?? false,
    arenas: runtime?.arenas.length ?? 0,
    bytesReserved,
    bytesInUse,
    bytesFree,
    liveBlocks,
    grows: runtime === null ? 0 : knownBuffers.length - 1,
  };
}
