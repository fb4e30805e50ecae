// Writes src/utilities-wasm.generated.ts: a WebAssembly (SIMD f64x2) module with the fused optimistic
// utilities of src/unrolled.generated.ts (checkedUtilities, c > 0 branch) for d = 1..MAX_D, two items per
// instruction. Each lane performs exactly the floating-point operations of the JavaScript kernel, in the
// same order (WebAssembly has no fused multiply-add and its f64x2 arithmetic and square root are IEEE
// double operations), so the utilities and the items above T are identical to the bit; a unit test
// checks it for every d. Only the sum and sum of squares of the utilities (the next threshold's guess)
// are rounded differently.
// Run: node scripts/gen-wasm-utilities.mjs (needs the workspace's wabt, a root dev dependency).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";

const MAX_D = 8;
const range = (n) => Array.from({ length: n }, (_, i) => i);
const fold = (terms, op) => terms.reduce((acc, t) => `(${op} ${acc} ${t})`);
const mul = (a, b) => `(f64x2.mul ${a} ${b})`;

/**
 * u{d}(f, n, w, M, c, util, max, T, cand, stats) -> first row pair with a row above the norm bound (the
 * caller finds the row itself), or -1. Byte offsets: f = n rows of d doubles, w = d doubles, M = d x d
 * doubles (upper triangle read), util = n doubles, cand = n int32, stats = [sum, sum of squares, count].
 */
function kernel(d) {
  const ks = range(d);
  const x = (k) => `(local.get $x${k})`;
  const m = (k, j) => `(local.get $m${k}_${j})`;
  const locals = [
    ...ks.map((k) => `(local $x${k} v128) (local $w${k} v128)`),
    ...ks.flatMap((k) => range(d - k).map((j) => `(local $m${k}_${k + j} v128)`)),
  ].join(" ");
  const setup = [
    ...ks.map((k) => `(local.set $w${k} (v128.load64_splat offset=${8 * k} (local.get $w)))`),
    ...ks.flatMap((k) =>
      range(d - k).map(
        (j) => `(local.set $m${k}_${k + j} (v128.load64_splat offset=${8 * (k * d + k + j)} (local.get $M)))`,
      ),
    ),
  ].join("\n    ");
  // Lane 0 from row p, lane 1 from row p2 (the next row, or row p again for an odd last item).
  const loadX = ks
    .map(
      (k) =>
        `(local.set $x${k} (v128.load64_lane offset=${8 * k} 1 (local.get $p2) (v128.load64_zero offset=${8 * k} (local.get $p))))`,
    )
    .join("\n      ");
  const ss = fold(
    ks.map((k) => mul(x(k), x(k))),
    "f64x2.add",
  );
  const mean = fold(
    ks.map((k) => mul(x(k), `(local.get $w${k})`)),
    "f64x2.add",
  );
  const term = (k) =>
    k === d - 1
      ? mul(x(k), mul(m(k, k), x(k)))
      : mul(
          x(k),
          `(f64x2.add ${mul(m(k, k), x(k))} ${mul(
            "(local.get $two)",
            fold(
              range(d - k - 1).map((j) => mul(m(k, k + 1 + j), x(k + 1 + j))),
              "f64x2.add",
            ),
          )})`,
        );
  const q = fold(ks.map(term), "f64x2.add");
  return `
  (func (export "u${d}") (param $f i32) (param $n i32) (param $w i32) (param $M i32) (param $c f64) (param $util i32)
      (param $max f64) (param $T f64) (param $cand i32) (param $stats i32) (result i32)
    (local $i i32) (local $p i32) (local $p2 i32) (local $nc i32) (local $bits i32) (local $c0 i32)
    (local $two v128) (local $zero v128) (local $cv v128) (local $maxv v128) (local $Tv v128) (local $sq v128) (local $qv v128)
    (local $uv v128) (local $s1 v128) (local $s2 v128)
    ${locals}
    (local.set $two (f64x2.splat (f64.const 2)))
    (local.set $cv (f64x2.splat (local.get $c)))
    (local.set $maxv (f64x2.splat (local.get $max)))
    (local.set $Tv (f64x2.splat (local.get $T)))
    ${setup}
    (local.set $p (local.get $f))
    (block $done
      (loop $pairs
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $p2 (select (i32.add (local.get $p) (i32.const ${8 * d})) (local.get $p)
          (i32.lt_s (i32.add (local.get $i) (i32.const 1)) (local.get $n))))
        ${loadX}
        (local.set $sq ${ss})
        (if (i32.eqz (i64x2.all_true (f64x2.le (local.get $sq) (local.get $maxv))))
          (then (return (local.get $i))))
        (local.set $qv ${q})
        (local.set $uv (f64x2.add ${mean}
          (f64x2.mul (local.get $cv) (f64x2.sqrt (v128.bitselect (local.get $qv) (local.get $zero)
            (f64x2.gt (local.get $qv) (local.get $zero)))))))
        ;; util[i], util[i + 1] (for an odd last item the second lane lands in the padding after util)
        (v128.store (i32.add (local.get $util) (i32.shl (local.get $i) (i32.const 3))) (local.get $uv))
        ;; the odd last item's duplicate lane counts nowhere
        (if (i32.ge_s (i32.add (local.get $i) (i32.const 1)) (local.get $n))
          (then (local.set $uv (f64x2.replace_lane 1 (local.get $uv) (f64.const 0)))))
        (local.set $s1 (f64x2.add (local.get $s1) (local.get $uv)))
        (local.set $s2 (f64x2.add (local.get $s2) (f64x2.mul (local.get $uv) (local.get $uv))))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (local.set $p (i32.add (local.get $p) (i32.const ${16 * d})))
        (br $pairs)))
    ;; The items above T, appended in index order without a branch, in a second pass: stores whose address
    ;; depends on this pair's utilities made the next pair's loads wait for them (1.5x slower kernel).
    (local.set $i (i32.const 0))
    (block $done2
      (loop $cands
        (br_if $done2 (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $bits (i32.and
          (i64x2.bitmask (f64x2.gt (v128.load (i32.add (local.get $util) (i32.shl (local.get $i) (i32.const 3)))) (local.get $Tv)))
          (select (i32.const 3) (i32.const 1) (i32.lt_s (i32.add (local.get $i) (i32.const 1)) (local.get $n)))))
        (local.set $c0 (i32.and (local.get $bits) (i32.const 1)))
        (i32.store (i32.add (local.get $cand) (i32.shl (local.get $nc) (i32.const 2))) (local.get $i))
        (i32.store (i32.add (local.get $cand) (i32.shl (i32.add (local.get $nc) (local.get $c0)) (i32.const 2)))
          (i32.add (local.get $i) (i32.const 1)))
        (local.set $nc (i32.add (i32.add (local.get $nc) (local.get $c0)) (i32.shr_u (local.get $bits) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $cands)))
    ;; sum and sum of squares in two lanes (rounded differently from one running sum: they only steer the
    ;; next round's top-K threshold guess, never a decision)
    (f64.store (local.get $stats) (f64.add (f64x2.extract_lane 0 (local.get $s1)) (f64x2.extract_lane 1 (local.get $s1))))
    (f64.store offset=8 (local.get $stats) (f64.add (f64x2.extract_lane 0 (local.get $s2)) (f64x2.extract_lane 1 (local.get $s2))))
    (f64.store offset=16 (local.get $stats) (f64.convert_i32_s (local.get $nc)))
    (i32.const -1))`;
}

const wat = `(module
  (memory (export "memory") 1)
  ${range(MAX_D)
    .map((k) => kernel(k + 1))
    .join("\n")}
)`;

const wabt = await wabtInit();
const mod = wabt.parseWat("utilities.wat", wat, { simd: true });
mod.validate();
const { buffer } = mod.toBinary({ canonicalize_lebs: true, write_debug_names: false });
mod.destroy();
const b64 = Buffer.from(buffer).toString("base64");
const lines = b64.match(/.{1,100}/g).map((l) => `  "${l}"`);
const out = `// Generated by scripts/gen-wasm-utilities.mjs. Do not edit: run \`node scripts/gen-wasm-utilities.mjs\`.
// ${buffer.length} bytes: u1 .. u${MAX_D}, the fused optimistic utilities (f64x2), with its own memory.
export const UTILITIES_WASM_BASE64 =
${lines.join(" +\n")};
export const UTILITIES_WASM_MAX_D = ${MAX_D};
`;
writeFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "src", "utilities-wasm.generated.ts"), out);
console.log(`wrote src/utilities-wasm.generated.ts (${buffer.length} bytes)`);
