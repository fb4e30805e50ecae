// Writes src/gradient-wasm.generated.ts: a WebAssembly (SIMD f64x2) module with the gradient pass of the
// warm-started MLE refit (gradientPass{d} of src/unrolled.generated.ts) for d = 1..MAX_D. The history it
// reads lives in the module's own memory (see src/gradient-wasm.ts). Every floating-point operation of the
// JavaScript kernel is performed in the same order, per item: the utilities' dot products, the running
// maximum, the inlined exponential (two items per f64x2 instruction; WebAssembly has no fused multiply-add
// and its f64x2 arithmetic is IEEE double arithmetic), the running sums and the gradient update. So the
// gradient is identical to the bit; a unit test checks it for every d, including the rare arguments that
// both kernels hand to Math.exp itself (imported).
// Run: node scripts/gen-wasm-gradient.mjs (needs the workspace's wabt, a root dev dependency).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";

const MAX_D = 8;
const range = (n) => Array.from({ length: n }, (_, i) => i);
const f64 = (v) => `(f64.const ${v})`;
const splat = (v) => `(f64x2.splat ${f64(v)})`;

/** The inlined exponential of the JavaScript kernels, on two lanes: e^v for v in [-707, 0] except near 0. */
function expPair() {
  return `
        ;; k = trunc(1.4426950408889634 v - 0.5) where v <= -0.3465735912322998, else 0 (JavaScript's "| 0" and
        ;; "& -(v <= ...)"); as a double, exactly the integer the JavaScript kernel multiplies by
        (local.set $kf (v128.and
          (f64x2.trunc (f64x2.sub (f64x2.mul ${splat("1.4426950408889634")} (local.get $v)) ${splat("0.5")}))
          (f64x2.le (local.get $v) ${splat("-0.3465735912322998")})))
        (local.set $hi (f64x2.sub (local.get $v) (f64x2.mul (local.get $kf) ${splat("0.6931471803691238")})))
        (local.set $lo (f64x2.mul (local.get $kf) ${splat("1.9082149292705877e-10")}))
        (local.set $r (f64x2.sub (local.get $hi) (local.get $lo)))
        (local.set $t (f64x2.mul (local.get $r) (local.get $r)))
        (local.set $c2 (f64x2.sub (local.get $r) (f64x2.mul (local.get $t)
          (f64x2.add ${splat("0.16666666666666602")} (f64x2.mul (local.get $t)
          (f64x2.add ${splat("-0.0027777777777015593")} (f64x2.mul (local.get $t)
          (f64x2.add ${splat("0.00006613756321437934")} (f64x2.mul (local.get $t)
          (f64x2.add ${splat("-0.0000016533902205465252")} (f64x2.mul (local.get $t) ${splat("4.1381367970572385e-8")})))))))))))
        (local.set $ev (f64x2.mul
          (f64x2.sub ${splat("1")} (f64x2.sub
            (f64x2.sub (local.get $lo) (f64x2.div (f64x2.mul (local.get $r) (local.get $c2)) (f64x2.sub ${splat("2")} (local.get $c2))))
            (local.get $hi)))
          ;; 2^k (k in [-1020, 0]): the low bits of the double 2^52 + 1023 + k are 1023 + k, shifted into the exponent
          (i64x2.shl (f64x2.add (local.get $kf) ${splat("4503599627371519")}) (i32.const 52))))`;
}

/**
 * g{d}(x, start, choice, from, to, logV0, theta, g, zz): adds the data gradient of rounds [from, to) to g.
 * Byte offsets into this module's memory: x = rows of d doubles, start/choice = int32 per round, theta and g =
 * d doubles, zz = scratch of (largest round + 2) doubles.
 */
function kernel(d) {
  const ks = range(d);
  const pairs = range(Math.floor(d / 2));
  const odd = d % 2 === 1;
  return `
  (func (export "g${d}") (param $x i32) (param $start i32) (param $choice i32) (param $from i32) (param $to i32)
      (param $lv f64) (param $theta i32) (param $g i32) (param $zz i32)
    (local $s i32) (local $a i32) (local $n i32) (local $c i32) (local $j i32) (local $p i32) (local $q i32) (local $end i32)
    (local $m f64) (local $u f64) (local $e f64) (local $sum f64) (local $inv f64) (local $mv v128)
    (local $v v128) (local $kf v128) (local $hi v128) (local $lo v128) (local $r v128) (local $t v128) (local $c2 v128) (local $ev v128) (local $es v128) (local $uv v128) (local $p2 i32)
    ${ks.map((k) => `(local $t${k} f64) (local $g${k} f64) (local $T${k} v128)`).join(" ")}
    ${pairs.map((i) => `(local $A${i} v128)`).join(" ")} ${odd ? "(local $Alast f64)" : ""}
    ${ks.map((k) => `(local.set $t${k} (f64.load offset=${8 * k} (local.get $theta)))`).join("\n    ")}
    ${ks.map((k) => `(local.set $T${k} (f64x2.splat (local.get $t${k})))`).join("\n    ")}
    ${ks.map((k) => `(local.set $g${k} (f64.load offset=${8 * k} (local.get $g)))`).join("\n    ")}
    (local.set $s (local.get $from))
    (block $rounds_done
      (loop $rounds
        (br_if $rounds_done (i32.ge_s (local.get $s) (local.get $to)))
        (local.set $a (i32.load (i32.add (local.get $start) (i32.shl (local.get $s) (i32.const 2)))))
        (local.set $n (i32.sub (i32.load offset=4 (i32.add (local.get $start) (i32.shl (local.get $s) (i32.const 2)))) (local.get $a)))
        (local.set $c (i32.load (i32.add (local.get $choice) (i32.shl (local.get $s) (i32.const 2)))))
        ;; utilities and their maximum (from log v0), two items at a time: lane 1 reads the next row, or this row
        ;; again for an odd round's last item (a duplicate cannot change the maximum). The maximum's lanes are
        ;; combined at the end; only its value matters (an exact zero's sign never reaches the gradient).
        (local.set $mv (f64x2.splat (local.get $lv)))
        (local.set $p (i32.add (local.get $x) (i32.mul (local.get $a) (i32.const ${8 * d}))))
        (local.set $q (local.get $zz))
        (local.set $end (i32.add (local.get $zz) (i32.shl (local.get $n) (i32.const 3))))
        (block $u_done
          (loop $utilities
            (br_if $u_done (i32.ge_u (local.get $q) (local.get $end)))
            (local.set $p2 (select (i32.add (local.get $p) (i32.const ${8 * d})) (local.get $p)
              (i32.lt_u (i32.add (local.get $q) (i32.const 8)) (local.get $end))))
            (local.set $uv ${dotPair(d)})
            (v128.store (local.get $q) (local.get $uv))
            (local.set $mv (v128.bitselect (local.get $uv) (local.get $mv) (f64x2.gt (local.get $uv) (local.get $mv))))
            (local.set $p (i32.add (local.get $p) (i32.const ${16 * d})))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $utilities)))
        (local.set $m (f64x2.extract_lane 0 (local.get $mv)))
        (local.set $u (f64x2.extract_lane 1 (local.get $mv)))
        (local.set $m (select (local.get $u) (local.get $m) (f64.gt (local.get $u) (local.get $m))))
        ;; a padding slot for an odd round: e^0, computed and never read
        (f64.store (local.get $end) (local.get $m))
        ;; e^(z - m) two items at a time, then the sums item by item (the JavaScript kernel's order)
        (local.set $mv (f64x2.splat (local.get $m)))
        (local.set $sum (call $exp (f64.sub (local.get $lv) (local.get $m))))
        ${pairs.map((i) => `(local.set $A${i} (v128.const i64x2 0 0))`).join(" ")} ${odd ? "(local.set $Alast (f64.const 0))" : ""}
        (local.set $p (i32.add (local.get $x) (i32.mul (local.get $a) (i32.const ${8 * d}))))
        (local.set $q (local.get $zz))
        (block $e_done
          (loop $exps
            (br_if $e_done (i32.ge_u (local.get $q) (local.get $end)))
            (local.set $v (f64x2.sub (v128.load (local.get $q)) (local.get $mv)))
            (if (v128.any_true (v128.or
                  (v128.and (f64x2.gt (local.get $v) ${splat("-3.725290298461914e-9")}) (f64x2.ne (local.get $v) ${splat("0")}))
                  (v128.not (f64x2.ge (local.get $v) ${splat("-707")}))))
              (then
                (local.set $ev (f64x2.replace_lane 1
                  (f64x2.splat (call $exp (f64x2.extract_lane 0 (local.get $v))))
                  (call $exp (f64x2.extract_lane 1 (local.get $v))))))
              (else ${expPair()}))
            ${accumulate(d, 0)}
            (if (i32.lt_u (i32.add (local.get $q) (i32.const 8)) (local.get $end))
              (then ${accumulate(d, 1)}))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $exps)))
        (local.set $inv (f64.div (f64.const 1) (local.get $sum)))
        (if (i32.ge_s (local.get $c) (i32.const 0))
          (then
            (local.set $p (i32.add (local.get $x) (i32.mul (i32.add (local.get $a) (local.get $c)) (i32.const ${8 * d}))))
            ${ks.map((k) => `(local.set $g${k} (f64.sub (f64.add (local.get $g${k}) (f64.mul ${acc(k, d)} (local.get $inv))) (f64.load offset=${8 * k} (local.get $p))))`).join("\n            ")})
          (else
            ${ks.map((k) => `(local.set $g${k} (f64.add (local.get $g${k}) (f64.mul ${acc(k, d)} (local.get $inv))))`).join("\n            ")}))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $rounds)))
    ${ks.map((k) => `(f64.store offset=${8 * k} (local.get $g) (local.get $g${k}))`).join("\n    ")})`;
}

/** sum += e; A += e x for item `lane` of the current pair (p advances one row). */
function accumulate(d, lane) {
  const pairs = range(Math.floor(d / 2));
  return `(local.set $e (f64x2.extract_lane ${lane} (local.get $ev)))
            (local.set $sum (f64.add (local.get $sum) (local.get $e)))
            (local.set $es (f64x2.splat (local.get $e)))
            ${pairs.map((i) => `(local.set $A${i} (f64x2.add (local.get $A${i}) (f64x2.mul (local.get $es) (v128.load offset=${16 * i} (local.get $p)))))`).join("\n            ")}
            ${d % 2 === 1 ? `(local.set $Alast (f64.add (local.get $Alast) (f64.mul (local.get $e) (f64.load offset=${8 * (d - 1)} (local.get $p)))))` : ""}
            (local.set $p (i32.add (local.get $p) (i32.const ${8 * d})))`;
}

/** The utilities of the rows at p (lane 0) and p2 (lane 1): 0 + x_0 t_0 + x_1 t_1 + ..., left to right. */
function dotPair(d) {
  return range(d).reduce(
    (acc, k) =>
      `(f64x2.add ${acc} (f64x2.mul (v128.load64_lane offset=${8 * k} 1 (local.get $p2) (v128.load64_zero offset=${8 * k} (local.get $p))) (local.get $T${k})))`,
    "(v128.const i64x2 0 0)",
  );
}

function acc(k, d) {
  if (d % 2 === 1 && k === d - 1) return "(local.get $Alast)";
  return `(f64x2.extract_lane ${k % 2} (local.get $A${Math.floor(k / 2)}))`;
}

const wat = `(module
  (import "env" "exp" (func $exp (param f64) (result f64)))
  (import "env" "memory" (memory 1))
  ${range(MAX_D)
    .map((k) => kernel(k + 1))
    .join("\n")}
)`;

const wabt = await wabtInit();
const mod = wabt.parseWat("gradient.wat", wat, { simd: true });
mod.validate();
const { buffer } = mod.toBinary({ canonicalize_lebs: true, write_debug_names: false });
mod.destroy();
const b64 = Buffer.from(buffer).toString("base64");
const lines = b64.match(/.{1,100}/g).map((l) => `  "${l}"`);
const out = `// Generated by scripts/gen-wasm-gradient.mjs. Do not edit: run \`node scripts/gen-wasm-gradient.mjs\`.
// ${buffer.length} bytes: g1 .. g${MAX_D}, the gradient pass of the MLE refit (f64x2 exponentials), reading a memory of the caller's.
export const GRADIENT_WASM_BASE64 =
${lines.join(" +\n")};
export const GRADIENT_WASM_MAX_D = ${MAX_D};
`;
writeFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "src", "gradient-wasm.generated.ts"), out);
console.log(`wrote src/gradient-wasm.generated.ts (${buffer.length} bytes)`);
