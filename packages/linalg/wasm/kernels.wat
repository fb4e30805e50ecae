;; RouteKit linalg hot kernels in WebAssembly SIMD (f64x2).
;;
;; Conventions (same as src/blas.ts):
;; - every pointer is a byte offset into the imported memory (shared, or plain in the "unshared" build,
;;   which scripts/build-wasm.mjs derives from this file by dropping the `shared` flag);
;; - matrices are row-major with a leading dimension `ld` given in elements (ld >= columns);
;; - symmetric matrices are read (and written) in their upper triangle only (j >= i).
;;
;; Bit-exactness: each kernel performs exactly the floating-point operations of its TypeScript twin
;; in src/blas.ts, in the same order (wasm has no fused multiply-add), so both backends return
;; identical bits. Sums use eight partial sums s0..s7, held as the lanes of four f64x2
;; accumulators a0 = (s0,s1), a1 = (s2,s3), a2 = (s4,s5), a3 = (s6,s7):
;;   s_k collects the terms i = k (mod 8) of the whole blocks of 8,
;;   the 0..3 remaining pairs go to (s0, s1),
;;   sum = ((s0+s2)+(s4+s6)) + ((s1+s3)+(s5+s7)), plus the last term when the length is odd.
(module
  (import "env" "memory" (memory 1 65536 shared))

  ;; x . y over n entries.
  (func $dot (export "dot") (param $x i32) (param $y i32) (param $n i32) (result f64)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $end i32) (local $r f64)
    ;; whole blocks of 8
    (local.set $end (i32.add (local.get $x) (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 3))))
    (block $done8
      (loop $blocks
        (br_if $done8 (i32.ge_u (local.get $x) (local.get $end)))
        (local.set $a0 (f64x2.add (local.get $a0)
          (f64x2.mul (v128.load (local.get $x)) (v128.load (local.get $y)))))
        (local.set $a1 (f64x2.add (local.get $a1)
          (f64x2.mul (v128.load offset=16 (local.get $x)) (v128.load offset=16 (local.get $y)))))
        (local.set $a2 (f64x2.add (local.get $a2)
          (f64x2.mul (v128.load offset=32 (local.get $x)) (v128.load offset=32 (local.get $y)))))
        (local.set $a3 (f64x2.add (local.get $a3)
          (f64x2.mul (v128.load offset=48 (local.get $x)) (v128.load offset=48 (local.get $y)))))
        (local.set $x (i32.add (local.get $x) (i32.const 64)))
        (local.set $y (i32.add (local.get $y) (i32.const 64)))
        (br $blocks)))
    ;; remaining pairs
    (local.set $end (i32.add (local.get $x) (i32.shl (i32.and (local.get $n) (i32.const 6)) (i32.const 3))))
    (block $done2
      (loop $pairs
        (br_if $done2 (i32.ge_u (local.get $x) (local.get $end)))
        (local.set $a0 (f64x2.add (local.get $a0)
          (f64x2.mul (v128.load (local.get $x)) (v128.load (local.get $y)))))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (br $pairs)))
    ;; reduce, then the odd last term
    (local.set $a0 (f64x2.add (f64x2.add (local.get $a0) (local.get $a1)) (f64x2.add (local.get $a2) (local.get $a3))))
    (local.set $r (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
    (if (i32.and (local.get $n) (i32.const 1))
      (then (local.set $r (f64.add (local.get $r) (f64.mul (f64.load (local.get $x)) (f64.load (local.get $y)))))))
    (local.get $r))

  ;; y = alpha A x + beta y for a rows x cols matrix A (beta = 0: y is not read). Each row's sum is
  ;; $dot's, written out here (a call per row costs about as much as eight columns).
  (func (export "gemv") (param $A i32) (param $rows i32) (param $cols i32) (param $x i32) (param $y i32)
    (param $alpha f64) (param $beta f64) (param $ld i32)
    (local $end i32) (local $s f64) (local $p i32) (local $q i32) (local $stop i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $y) (i32.shl (local.get $rows) (i32.const 3))))
    (local.set $ld (i32.shl (local.get $ld) (i32.const 3)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $y) (local.get $end)))
        (local.set $p (local.get $A))
        (local.set $q (local.get $x))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $stop (i32.add (local.get $p) (i32.shl (i32.and (local.get $cols) (i32.const -8)) (i32.const 3))))
        (block $done8
          (loop $blocks
            (br_if $done8 (i32.ge_u (local.get $p) (local.get $stop)))
            (local.set $a0 (f64x2.add (local.get $a0)
              (f64x2.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
            (local.set $a1 (f64x2.add (local.get $a1)
              (f64x2.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
            (local.set $a2 (f64x2.add (local.get $a2)
              (f64x2.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
            (local.set $a3 (f64x2.add (local.get $a3)
              (f64x2.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (local.set $q (i32.add (local.get $q) (i32.const 64)))
            (br $blocks)))
        (local.set $stop (i32.add (local.get $p) (i32.shl (i32.and (local.get $cols) (i32.const 6)) (i32.const 3))))
        (block $done2
          (loop $pairs
            (br_if $done2 (i32.ge_u (local.get $p) (local.get $stop)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $pairs)))
        (local.set $a0 (f64x2.add (f64x2.add (local.get $a0) (local.get $a1)) (f64x2.add (local.get $a2) (local.get $a3))))
        (local.set $s (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
        (if (i32.and (local.get $cols) (i32.const 1))
          (then (local.set $s (f64.add (local.get $s) (f64.mul (f64.load (local.get $p)) (f64.load (local.get $q)))))))
        (local.set $s (f64.mul (local.get $alpha) (local.get $s)))
        (if (f64.ne (local.get $beta) (f64.const 0))
          (then (local.set $s (f64.add (local.get $s) (f64.mul (local.get $beta) (f64.load (local.get $y)))))))
        (f64.store (local.get $y) (local.get $s))
        (local.set $A (i32.add (local.get $A) (local.get $ld)))
        (local.set $y (i32.add (local.get $y) (i32.const 8)))
        (br $rows))))

  ;; y = A x for symmetric n x n A stored in its upper triangle. Row i contributes
  ;; A[i][j] x[j] to y[i] and A[i][j] x[i] to y[j] for j > i, in one pass over the row.
  (func (export "symv") (param $A i32) (param $n i32) (param $x i32) (param $y i32) (param $ld i32)
    (local $i i32) (local $diag i32) (local $step i32)
    (local $pa i32) (local $px i32) (local $py i32) (local $end i32) (local $m i32)
    (local $xi f64) (local $vxi v128) (local $va v128) (local $a f64) (local $r f64)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (memory.fill (local.get $y) (i32.const 0) (i32.shl (local.get $n) (i32.const 3)))
    (local.set $diag (local.get $A))
    (local.set $step (i32.shl (i32.add (local.get $ld) (i32.const 1)) (i32.const 3)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $xi (f64.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $vxi (f64x2.splat (local.get $xi)))
        ;; the strictly upper part of row i: m entries from column i+1
        (local.set $pa (i32.add (local.get $diag) (i32.const 8)))
        (local.set $px (i32.add (local.get $x) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 3))))
        (local.set $py (i32.add (local.get $y) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 3))))
        (local.set $m (i32.sub (i32.sub (local.get $n) (local.get $i)) (i32.const 1)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $end (i32.add (local.get $pa) (i32.shl (i32.and (local.get $m) (i32.const -8)) (i32.const 3))))
        (block $done8
          (loop $blocks
            (br_if $done8 (i32.ge_u (local.get $pa) (local.get $end)))
            (local.set $va (v128.load (local.get $pa)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $va) (v128.load (local.get $px)))))
            (v128.store (local.get $py)
              (f64x2.add (v128.load (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $va (v128.load offset=16 (local.get $pa)))
            (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (local.get $va) (v128.load offset=16 (local.get $px)))))
            (v128.store offset=16 (local.get $py)
              (f64x2.add (v128.load offset=16 (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $va (v128.load offset=32 (local.get $pa)))
            (local.set $a2 (f64x2.add (local.get $a2) (f64x2.mul (local.get $va) (v128.load offset=32 (local.get $px)))))
            (v128.store offset=32 (local.get $py)
              (f64x2.add (v128.load offset=32 (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $va (v128.load offset=48 (local.get $pa)))
            (local.set $a3 (f64x2.add (local.get $a3) (f64x2.mul (local.get $va) (v128.load offset=48 (local.get $px)))))
            (v128.store offset=48 (local.get $py)
              (f64x2.add (v128.load offset=48 (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $pa (i32.add (local.get $pa) (i32.const 64)))
            (local.set $px (i32.add (local.get $px) (i32.const 64)))
            (local.set $py (i32.add (local.get $py) (i32.const 64)))
            (br $blocks)))
        (local.set $end (i32.add (local.get $pa) (i32.shl (i32.and (local.get $m) (i32.const 6)) (i32.const 3))))
        (block $done2
          (loop $pairs
            (br_if $done2 (i32.ge_u (local.get $pa) (local.get $end)))
            (local.set $va (v128.load (local.get $pa)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $va) (v128.load (local.get $px)))))
            (v128.store (local.get $py)
              (f64x2.add (v128.load (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
            (local.set $px (i32.add (local.get $px) (i32.const 16)))
            (local.set $py (i32.add (local.get $py) (i32.const 16)))
            (br $pairs)))
        (local.set $a0 (f64x2.add (f64x2.add (local.get $a0) (local.get $a1)) (f64x2.add (local.get $a2) (local.get $a3))))
        (local.set $r (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
        (if (i32.and (local.get $m) (i32.const 1))
          (then
            (local.set $a (f64.load (local.get $pa)))
            (local.set $r (f64.add (local.get $r) (f64.mul (local.get $a) (f64.load (local.get $px)))))
            (f64.store (local.get $py) (f64.add (f64.load (local.get $py)) (f64.mul (local.get $a) (local.get $xi))))))
        ;; y[i] += A[i][i] x[i] + (strictly upper row sum)
        (local.set $py (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 3))))
        (f64.store (local.get $py) (f64.add (f64.load (local.get $py))
          (f64.add (f64.mul (f64.load (local.get $diag)) (local.get $xi)) (local.get $r))))
        (local.set $diag (i32.add (local.get $diag) (local.get $step)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; symv and quad in one pass: y = A x with symv's bits, and returns x^T A x with quad's bits (quad's
  ;; row sum `off` is symv's strictly-upper row sum `r`, the same operations in the same order). For a
  ;; caller that needs both (PAK-UCB's chosen arm: its variance now, A x for the bordered update next),
  ;; one pass over A instead of two.
  (func (export "symvquad") (param $A i32) (param $n i32) (param $x i32) (param $y i32) (param $ld i32) (result f64)
    (local $i i32) (local $diag i32) (local $step i32)
    (local $pa i32) (local $px i32) (local $py i32) (local $end i32) (local $m i32)
    (local $xi f64) (local $vxi v128) (local $va v128) (local $a f64) (local $r f64)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $total f64)
    (memory.fill (local.get $y) (i32.const 0) (i32.shl (local.get $n) (i32.const 3)))
    (local.set $diag (local.get $A))
    (local.set $step (i32.shl (i32.add (local.get $ld) (i32.const 1)) (i32.const 3)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $xi (f64.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $vxi (f64x2.splat (local.get $xi)))
        ;; the strictly upper part of row i: m entries from column i+1
        (local.set $pa (i32.add (local.get $diag) (i32.const 8)))
        (local.set $px (i32.add (local.get $x) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 3))))
        (local.set $py (i32.add (local.get $y) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 3))))
        (local.set $m (i32.sub (i32.sub (local.get $n) (local.get $i)) (i32.const 1)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $end (i32.add (local.get $pa) (i32.shl (i32.and (local.get $m) (i32.const -8)) (i32.const 3))))
        (block $done8
          (loop $blocks
            (br_if $done8 (i32.ge_u (local.get $pa) (local.get $end)))
            (local.set $va (v128.load (local.get $pa)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $va) (v128.load (local.get $px)))))
            (v128.store (local.get $py)
              (f64x2.add (v128.load (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $va (v128.load offset=16 (local.get $pa)))
            (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (local.get $va) (v128.load offset=16 (local.get $px)))))
            (v128.store offset=16 (local.get $py)
              (f64x2.add (v128.load offset=16 (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $va (v128.load offset=32 (local.get $pa)))
            (local.set $a2 (f64x2.add (local.get $a2) (f64x2.mul (local.get $va) (v128.load offset=32 (local.get $px)))))
            (v128.store offset=32 (local.get $py)
              (f64x2.add (v128.load offset=32 (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $va (v128.load offset=48 (local.get $pa)))
            (local.set $a3 (f64x2.add (local.get $a3) (f64x2.mul (local.get $va) (v128.load offset=48 (local.get $px)))))
            (v128.store offset=48 (local.get $py)
              (f64x2.add (v128.load offset=48 (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $pa (i32.add (local.get $pa) (i32.const 64)))
            (local.set $px (i32.add (local.get $px) (i32.const 64)))
            (local.set $py (i32.add (local.get $py) (i32.const 64)))
            (br $blocks)))
        (local.set $end (i32.add (local.get $pa) (i32.shl (i32.and (local.get $m) (i32.const 6)) (i32.const 3))))
        (block $done2
          (loop $pairs
            (br_if $done2 (i32.ge_u (local.get $pa) (local.get $end)))
            (local.set $va (v128.load (local.get $pa)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $va) (v128.load (local.get $px)))))
            (v128.store (local.get $py)
              (f64x2.add (v128.load (local.get $py)) (f64x2.mul (local.get $va) (local.get $vxi))))
            (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
            (local.set $px (i32.add (local.get $px) (i32.const 16)))
            (local.set $py (i32.add (local.get $py) (i32.const 16)))
            (br $pairs)))
        (local.set $a0 (f64x2.add (f64x2.add (local.get $a0) (local.get $a1)) (f64x2.add (local.get $a2) (local.get $a3))))
        (local.set $r (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
        (if (i32.and (local.get $m) (i32.const 1))
          (then
            (local.set $a (f64.load (local.get $pa)))
            (local.set $r (f64.add (local.get $r) (f64.mul (local.get $a) (f64.load (local.get $px)))))
            (f64.store (local.get $py) (f64.add (f64.load (local.get $py)) (f64.mul (local.get $a) (local.get $xi))))))
        ;; y[i] += A[i][i] x[i] + (strictly upper row sum); total += x[i] (A[i][i] x[i] + 2 r) as in quad
        (local.set $py (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 3))))
        (local.set $a (f64.mul (f64.load (local.get $diag)) (local.get $xi)))
        (f64.store (local.get $py) (f64.add (f64.load (local.get $py)) (f64.add (local.get $a) (local.get $r))))
        (local.set $total (f64.add (local.get $total) (f64.mul (local.get $xi)
          (f64.add (local.get $a) (f64.mul (f64.const 2) (local.get $r))))))
        (local.set $diag (i32.add (local.get $diag) (local.get $step)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))
    (local.get $total))

  ;; x^T A x for symmetric A stored in its upper triangle:
  ;; sum over rows i of x[i] (A[i][i] x[i] + 2 sum_{j>i} A[i][j] x[j]).
  ;; (The row sums are $dot's, written out here: a call per row costs as much as a short row.)
  (func (export "quad") (param $A i32) (param $n i32) (param $x i32) (param $ld i32) (result f64)
    (local $i i32) (local $step i32) (local $xi f64) (local $off f64) (local $total f64)
    (local $p i32) (local $q i32) (local $m i32) (local $end i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $step (i32.shl (i32.add (local.get $ld) (i32.const 1)) (i32.const 3)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $xi (f64.load (local.get $x)))
        ;; off = $dot(A + 8, x + 8, m) with m = n - i - 1
        (local.set $p (i32.add (local.get $A) (i32.const 8)))
        (local.set $q (i32.add (local.get $x) (i32.const 8)))
        (local.set $m (i32.sub (i32.sub (local.get $n) (local.get $i)) (i32.const 1)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $end (i32.add (local.get $p) (i32.shl (i32.and (local.get $m) (i32.const -8)) (i32.const 3))))
        (block $done8
          (loop $blocks
            (br_if $done8 (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $a0 (f64x2.add (local.get $a0)
              (f64x2.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
            (local.set $a1 (f64x2.add (local.get $a1)
              (f64x2.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
            (local.set $a2 (f64x2.add (local.get $a2)
              (f64x2.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
            (local.set $a3 (f64x2.add (local.get $a3)
              (f64x2.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (local.set $q (i32.add (local.get $q) (i32.const 64)))
            (br $blocks)))
        (local.set $end (i32.add (local.get $p) (i32.shl (i32.and (local.get $m) (i32.const 6)) (i32.const 3))))
        (block $done2
          (loop $pairs
            (br_if $done2 (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $pairs)))
        (local.set $a0 (f64x2.add (f64x2.add (local.get $a0) (local.get $a1)) (f64x2.add (local.get $a2) (local.get $a3))))
        (local.set $off (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
        (if (i32.and (local.get $m) (i32.const 1))
          (then (local.set $off (f64.add (local.get $off) (f64.mul (f64.load (local.get $p)) (f64.load (local.get $q)))))))
        (local.set $total (f64.add (local.get $total) (f64.mul (local.get $xi)
          (f64.add (f64.mul (f64.load (local.get $A)) (local.get $xi)) (f64.mul (f64.const 2) (local.get $off))))))
        (local.set $A (i32.add (local.get $A) (local.get $step)))
        (local.set $x (i32.add (local.get $x) (i32.const 8)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))
    (local.get $total))

  ;; A += alpha x x^T on the upper triangle (rows with alpha x[i] = 0 are skipped, as in TypeScript).
  (func (export "syr") (param $A i32) (param $n i32) (param $alpha f64) (param $x i32) (param $ld i32)
    (local $i i32) (local $step i32) (local $pa i32) (local $px i32) (local $end i32) (local $m i32)
    (local $axi f64) (local $vax v128)
    (local.set $step (i32.shl (i32.add (local.get $ld) (i32.const 1)) (i32.const 3)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $axi (f64.mul (local.get $alpha) (f64.load (local.get $x))))
        (if (f64.ne (local.get $axi) (f64.const 0))
          (then
            (local.set $vax (f64x2.splat (local.get $axi)))
            (local.set $pa (local.get $A))
            (local.set $px (local.get $x))
            (local.set $m (i32.sub (local.get $n) (local.get $i)))
            ;; blocks of 4, then one pair, then the odd last entry
            (local.set $end (i32.add (local.get $pa) (i32.shl (i32.and (local.get $m) (i32.const -4)) (i32.const 3))))
            (block $done4
              (loop $blocks
                (br_if $done4 (i32.ge_u (local.get $pa) (local.get $end)))
                (v128.store (local.get $pa)
                  (f64x2.add (v128.load (local.get $pa)) (f64x2.mul (local.get $vax) (v128.load (local.get $px)))))
                (v128.store offset=16 (local.get $pa)
                  (f64x2.add (v128.load offset=16 (local.get $pa))
                    (f64x2.mul (local.get $vax) (v128.load offset=16 (local.get $px)))))
                (local.set $pa (i32.add (local.get $pa) (i32.const 32)))
                (local.set $px (i32.add (local.get $px) (i32.const 32)))
                (br $blocks)))
            (if (i32.and (local.get $m) (i32.const 2))
              (then
                (v128.store (local.get $pa)
                  (f64x2.add (v128.load (local.get $pa)) (f64x2.mul (local.get $vax) (v128.load (local.get $px)))))
                (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
                (local.set $px (i32.add (local.get $px) (i32.const 16)))))
            (if (i32.and (local.get $m) (i32.const 1))
              (then
                (f64.store (local.get $pa)
                  (f64.add (f64.load (local.get $pa)) (f64.mul (local.get $axi) (f64.load (local.get $px)))))))))
        (local.set $A (i32.add (local.get $A) (local.get $step)))
        (local.set $x (i32.add (local.get $x) (i32.const 8)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; ---------------------------------------------------------------- single-precision mirrors
  ;; A mirror M of a symmetric n x n f64 matrix A (upper triangle) holds, in f32, row i from column
  ;; c = i & ~3 to np - 1 (np = n rounded up to a multiple of 4): 0 for c <= j < i, A[i][i] at j = i,
  ;; 2 A[i][j] for i < j < n, 0 for j >= n. Rows follow each other; every row length is a multiple of 4.
  ;; Then x^T A x = sum_i x[i] * (row i . x32[c..np)), which quad32 computes with f32x4 products and
  ;; sums within a row (16 partial sums s0..s15 in a0..a3, s_k taking the terms k (mod 16) of whole
  ;; blocks of 16, remaining blocks of 4 going to a0; row sum ((s0+s4)+(s8+s12)) + ... as
  ;; t = (a0+a1)+(a2+a3), r = (t0+t1)+(t2+t3)) and f64 across rows (blas32.ts has the same order).

  ;; f32 dot product of a mirror row (p) with x32 (q) over L entries (L a multiple of 4).
  (func $rowdot32 (param $p i32) (param $q i32) (param $L i32) (result f32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $end i32)
    (local.set $end (i32.add (local.get $p) (i32.shl (i32.and (local.get $L) (i32.const -16)) (i32.const 2))))
    (block $done16
      (loop $blocks
        (br_if $done16 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
        (local.set $a1 (f32x4.add (local.get $a1)
          (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
        (local.set $a2 (f32x4.add (local.get $a2)
          (f32x4.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
        (local.set $a3 (f32x4.add (local.get $a3)
          (f32x4.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q)))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (br $blocks)))
    (local.set $end (i32.add (local.get $p) (i32.shl (i32.and (local.get $L) (i32.const 12)) (i32.const 2))))
    (block $done4
      (loop $quads
        (br_if $done4 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br $quads)))
    (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))

;; x^T A x from the mirror M of A: x32 holds x rounded to f32 (np entries, zero padded), x the f64 x.
  ;; Rows are taken two at a time (rows 2k and 2k+1 start at the same column c and have the same
  ;; length), sharing each load of x32; each row keeps the partial sums and order of $rowdot32, so the
  ;; result bits are those of one $rowdot32 per row.
  (func (export "quad32") (param $M i32) (param $n i32) (param $x32 i32) (param $x i32) (result f64)
    (local $i i32) (local $np i32) (local $L i32) (local $total f64) (local $c4 i32)
    (local $p i32) (local $p2 i32) (local $q i32) (local $end i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128) (local $v v128)
    (local.set $np (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)))
    (block $donepairs
      (loop $pairs
        (br_if $donepairs (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
        (local.set $c4 (i32.and (local.get $i) (i32.const -4)))
        (local.set $L (i32.sub (local.get $np) (local.get $c4)))
        (local.set $p (local.get $M))
        (local.set $p2 (i32.add (local.get $M) (i32.shl (local.get $L) (i32.const 2))))
        (local.set $q (i32.add (local.get $x32) (i32.shl (local.get $c4) (i32.const 2))))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $b0 (v128.const i64x2 0 0))
        (local.set $b1 (v128.const i64x2 0 0))
        (local.set $b2 (v128.const i64x2 0 0))
        (local.set $b3 (v128.const i64x2 0 0))
        (local.set $end (i32.add (local.get $p) (i32.shl (i32.and (local.get $L) (i32.const -16)) (i32.const 2))))
        (block $done16
          (loop $blocks
            (br_if $done16 (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $v (v128.load (local.get $q)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (local.get $v))))
            (local.set $b0 (f32x4.add (local.get $b0) (f32x4.mul (v128.load (local.get $p2)) (local.get $v))))
            (local.set $v (v128.load offset=16 (local.get $q)))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p)) (local.get $v))))
            (local.set $b1 (f32x4.add (local.get $b1) (f32x4.mul (v128.load offset=16 (local.get $p2)) (local.get $v))))
            (local.set $v (v128.load offset=32 (local.get $q)))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (local.get $p)) (local.get $v))))
            (local.set $b2 (f32x4.add (local.get $b2) (f32x4.mul (v128.load offset=32 (local.get $p2)) (local.get $v))))
            (local.set $v (v128.load offset=48 (local.get $q)))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (local.get $p)) (local.get $v))))
            (local.set $b3 (f32x4.add (local.get $b3) (f32x4.mul (v128.load offset=48 (local.get $p2)) (local.get $v))))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 64)))
            (local.set $q (i32.add (local.get $q) (i32.const 64)))
            (br $blocks)))
        (local.set $end (i32.add (local.get $p) (i32.shl (i32.and (local.get $L) (i32.const 12)) (i32.const 2))))
        (block $done4
          (loop $quads
            (br_if $done4 (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $v (v128.load (local.get $q)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (local.get $v))))
            (local.set $b0 (f32x4.add (local.get $b0) (f32x4.mul (v128.load (local.get $p2)) (local.get $v))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $quads)))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (local.set $b0 (f32x4.add (f32x4.add (local.get $b0) (local.get $b1)) (f32x4.add (local.get $b2) (local.get $b3))))
        (local.set $total (f64.add (local.get $total)
          (f64.mul (f64.load (local.get $x))
            (f64.promote_f32
              (f32.add
                (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
                (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0))))))))
        (local.set $total (f64.add (local.get $total)
          (f64.mul (f64.load offset=8 (local.get $x))
            (f64.promote_f32
              (f32.add
                (f32.add (f32x4.extract_lane 0 (local.get $b0)) (f32x4.extract_lane 1 (local.get $b0)))
                (f32.add (f32x4.extract_lane 2 (local.get $b0)) (f32x4.extract_lane 3 (local.get $b0))))))))
        (local.set $M (i32.add (local.get $M) (i32.shl (local.get $L) (i32.const 3))))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $pairs)))
    ;; the odd last row
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then
        (local.set $c4 (i32.and (local.get $i) (i32.const -4)))
        (local.set $total (f64.add (local.get $total)
          (f64.mul (f64.load (local.get $x))
            (f64.promote_f32 (call $rowdot32 (local.get $M)
              (i32.add (local.get $x32) (i32.shl (local.get $c4) (i32.const 2)))
              (i32.sub (local.get $np) (local.get $c4)))))))))
    (local.get $total))

  ;; syr (A += alpha x x^T on the upper triangle, exactly as above) keeping the mirror M of A in step:
  ;; each new value 2 A[i][j] goes to the mirror as it is computed (the diagonal entry, written as
  ;; 2 A[i][i] by the block loop, is then overwritten by A[i][i]).
  (func (export "syrmirror") (param $A i32) (param $n i32) (param $alpha f64) (param $x i32) (param $ld i32)
    (param $M i32)
    (local $i i32) (local $step i32) (local $pa i32) (local $px i32) (local $pm i32) (local $end i32)
    (local $m i32) (local $np i32) (local $L i32)
    (local $axi f64) (local $vax v128) (local $v0 v128) (local $v1 v128)
    (local.set $step (i32.shl (i32.add (local.get $ld) (i32.const 1)) (i32.const 3)))
    (local.set $np (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $L (i32.sub (local.get $np) (i32.and (local.get $i) (i32.const -4))))
        (local.set $axi (f64.mul (local.get $alpha) (f64.load (local.get $x))))
        (if (f64.ne (local.get $axi) (f64.const 0))
          (then
            (local.set $vax (f64x2.splat (local.get $axi)))
            (local.set $pa (local.get $A))
            (local.set $px (local.get $x))
            ;; the mirror entry of column i
            (local.set $pm (i32.add (local.get $M) (i32.shl (i32.and (local.get $i) (i32.const 3)) (i32.const 2))))
            (local.set $m (i32.sub (local.get $n) (local.get $i)))
            (local.set $end (i32.add (local.get $pa) (i32.shl (i32.and (local.get $m) (i32.const -4)) (i32.const 3))))
            (block $done4
              (loop $blocks
                (br_if $done4 (i32.ge_u (local.get $pa) (local.get $end)))
                (local.set $v0 (f64x2.add (v128.load (local.get $pa)) (f64x2.mul (local.get $vax) (v128.load (local.get $px)))))
                (local.set $v1 (f64x2.add (v128.load offset=16 (local.get $pa))
                  (f64x2.mul (local.get $vax) (v128.load offset=16 (local.get $px)))))
                (v128.store (local.get $pa) (local.get $v0))
                (v128.store offset=16 (local.get $pa) (local.get $v1))
                (v128.store (local.get $pm)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
                    (f32x4.demote_f64x2_zero (f64x2.mul (local.get $v0) (v128.const f64x2 2 2)))
                    (f32x4.demote_f64x2_zero (f64x2.mul (local.get $v1) (v128.const f64x2 2 2)))))
                (local.set $pa (i32.add (local.get $pa) (i32.const 32)))
                (local.set $px (i32.add (local.get $px) (i32.const 32)))
                (local.set $pm (i32.add (local.get $pm) (i32.const 16)))
                (br $blocks)))
            (if (i32.and (local.get $m) (i32.const 2))
              (then
                (local.set $v0 (f64x2.add (v128.load (local.get $pa)) (f64x2.mul (local.get $vax) (v128.load (local.get $px)))))
                (v128.store (local.get $pa) (local.get $v0))
                (v128.store64_lane 0 (local.get $pm)
                  (f32x4.demote_f64x2_zero (f64x2.mul (local.get $v0) (v128.const f64x2 2 2))))
                (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
                (local.set $px (i32.add (local.get $px) (i32.const 16)))
                (local.set $pm (i32.add (local.get $pm) (i32.const 8)))))
            (if (i32.and (local.get $m) (i32.const 1))
              (then
                (f64.store (local.get $pa)
                  (f64.add (f64.load (local.get $pa)) (f64.mul (local.get $axi) (f64.load (local.get $px)))))
                (f32.store (local.get $pm) (f32.demote_f64 (f64.mul (f64.load (local.get $pa)) (f64.const 2))))))
            ;; the diagonal entry is A[i][i] itself
            (f32.store (i32.add (local.get $M) (i32.shl (i32.and (local.get $i) (i32.const 3)) (i32.const 2)))
              (f32.demote_f64 (f64.load (local.get $A))))))
        (local.set $M (i32.add (local.get $M) (i32.shl (local.get $L) (i32.const 2))))
        (local.set $A (i32.add (local.get $A) (local.get $step)))
        (local.set $x (i32.add (local.get $x) (i32.const 8)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; y[0..n) += sum_{j<m} (scale w[j]) A[j lda .. j lda + n), the terms added left to right in j, four
  ;; rows per pass over y (the twin of addRowsScalar in src/blas.ts, same operations in the same order).
  (func (export "addrows") (param $y i32) (param $n i32) (param $A i32) (param $lda i32) (param $w i32)
    (param $m i32) (param $scale f64)
    (local $j i32) (local $off i32) (local $even i32)
    (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $w0 f64) (local $w1 f64) (local $w2 f64) (local $w3 f64)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local.set $lda (i32.shl (local.get $lda) (i32.const 3)))
    (local.set $even (i32.shl (i32.and (local.get $n) (i32.const -2)) (i32.const 3)))
    (block $done4
      (loop $rows4
        (br_if $done4 (i32.gt_s (i32.add (local.get $j) (i32.const 4)) (local.get $m)))
        (local.set $w0 (f64.mul (local.get $scale) (f64.load (local.get $w))))
        (local.set $w1 (f64.mul (local.get $scale) (f64.load offset=8 (local.get $w))))
        (local.set $w2 (f64.mul (local.get $scale) (f64.load offset=16 (local.get $w))))
        (local.set $w3 (f64.mul (local.get $scale) (f64.load offset=24 (local.get $w))))
        (local.set $v0 (f64x2.splat (local.get $w0)))
        (local.set $v1 (f64x2.splat (local.get $w1)))
        (local.set $v2 (f64x2.splat (local.get $w2)))
        (local.set $v3 (f64x2.splat (local.get $w3)))
        (local.set $a0 (local.get $A))
        (local.set $a1 (i32.add (local.get $a0) (local.get $lda)))
        (local.set $a2 (i32.add (local.get $a1) (local.get $lda)))
        (local.set $a3 (i32.add (local.get $a2) (local.get $lda)))
        (local.set $off (i32.const 0))
        (block $dl
          (loop $l
            (br_if $dl (i32.ge_u (local.get $off) (local.get $even)))
            (v128.store (i32.add (local.get $y) (local.get $off))
              (f64x2.add
                (f64x2.add
                  (f64x2.add
                    (f64x2.add (v128.load (i32.add (local.get $y) (local.get $off)))
                      (f64x2.mul (local.get $v0) (v128.load (i32.add (local.get $a0) (local.get $off)))))
                    (f64x2.mul (local.get $v1) (v128.load (i32.add (local.get $a1) (local.get $off)))))
                  (f64x2.mul (local.get $v2) (v128.load (i32.add (local.get $a2) (local.get $off)))))
                (f64x2.mul (local.get $v3) (v128.load (i32.add (local.get $a3) (local.get $off))))))
            (local.set $off (i32.add (local.get $off) (i32.const 16)))
            (br $l)))
        (if (i32.and (local.get $n) (i32.const 1))
          (then
            (f64.store (i32.add (local.get $y) (local.get $even))
              (f64.add
                (f64.add
                  (f64.add
                    (f64.add (f64.load (i32.add (local.get $y) (local.get $even)))
                      (f64.mul (local.get $w0) (f64.load (i32.add (local.get $a0) (local.get $even)))))
                    (f64.mul (local.get $w1) (f64.load (i32.add (local.get $a1) (local.get $even)))))
                  (f64.mul (local.get $w2) (f64.load (i32.add (local.get $a2) (local.get $even)))))
                (f64.mul (local.get $w3) (f64.load (i32.add (local.get $a3) (local.get $even))))))))
        (local.set $A (i32.add (local.get $a3) (local.get $lda)))
        (local.set $w (i32.add (local.get $w) (i32.const 32)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $rows4)))
    (block $done1
      (loop $rows1
        (br_if $done1 (i32.ge_s (local.get $j) (local.get $m)))
        (local.set $w0 (f64.mul (local.get $scale) (f64.load (local.get $w))))
        (local.set $v0 (f64x2.splat (local.get $w0)))
        (local.set $off (i32.const 0))
        (block $dl1
          (loop $l1
            (br_if $dl1 (i32.ge_u (local.get $off) (local.get $even)))
            (v128.store (i32.add (local.get $y) (local.get $off))
              (f64x2.add (v128.load (i32.add (local.get $y) (local.get $off)))
                (f64x2.mul (local.get $v0) (v128.load (i32.add (local.get $A) (local.get $off))))))
            (local.set $off (i32.add (local.get $off) (i32.const 16)))
            (br $l1)))
        (if (i32.and (local.get $n) (i32.const 1))
          (then
            (f64.store (i32.add (local.get $y) (local.get $even))
              (f64.add (f64.load (i32.add (local.get $y) (local.get $even)))
                (f64.mul (local.get $w0) (f64.load (i32.add (local.get $A) (local.get $even))))))))
        (local.set $A (i32.add (local.get $A) (local.get $lda)))
        (local.set $w (i32.add (local.get $w) (i32.const 8)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $rows1))))
)
