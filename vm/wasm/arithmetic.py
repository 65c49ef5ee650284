"""Field arithmetic in WebAssembly text, for the wasm target: `ARITHMETIC_WAT` holds the
functions every translated module shares (vm.wasm.translate places them in it).

Base field, p = 2^64 - 2^32 + 1, canonical u64 words: `$add`, `$sub`, `$mul` (the 128-bit
product from 32-bit limbs, reduced with 2^64 = 2^32 - 1 and 2^96 = -1 mod p; it takes any
u64 operands) and `$power` (square and multiply).  Extension field F_p^3 = F_p[X] /
(X^3 - X + 1), as `vm.xfield` computes it: `$x_mul` (three results), and `$xx_add` and
`$x_invert` in place on the op stack (memory `$stack`, top word just below byte `$sp`).
"""

from __future__ import annotations

from vm.field import P

MASK32 = 0xFFFFFFFF
EPSILON = (1 << 32) - 1  # 2^64 mod p

ARITHMETIC_WAT = f"""
  ;; a + b mod p, for a, b < p
  (func $add (param $a i64) (param $b i64) (result i64) (local $sum i64)
    (local.set $sum (i64.add (local.get $a) (local.get $b)))
    (if (result i64) (i64.lt_u (local.get $sum) (local.get $a))
      (then (i64.add (local.get $sum) (i64.const {EPSILON})))
      (else (if (result i64) (i64.ge_u (local.get $sum) (i64.const {P}))
        (then (i64.sub (local.get $sum) (i64.const {P})))
        (else (local.get $sum))))))

  ;; a - b mod p, for a, b < p
  (func $sub (param $a i64) (param $b i64) (result i64)
    (if (result i64) (i64.lt_u (local.get $a) (local.get $b))
      (then (i64.sub (i64.sub (local.get $a) (local.get $b)) (i64.const {EPSILON})))
      (else (i64.sub (local.get $a) (local.get $b)))))

  ;; a * b mod p: the 128-bit product from 32-bit limbs, reduced
  (func $mul (param $a i64) (param $b i64) (result i64)
    (local $a0 i64) (local $a1 i64) (local $b0 i64) (local $b1 i64)
    (local $lolo i64) (local $lohi i64) (local $hilo i64) (local $middle i64)
    (local $low i64) (local $high i64) (local $t0 i64) (local $t1 i64) (local $t2 i64)
    (local.set $a0 (i64.and (local.get $a) (i64.const {MASK32})))
    (local.set $a1 (i64.shr_u (local.get $a) (i64.const 32)))
    (local.set $b0 (i64.and (local.get $b) (i64.const {MASK32})))
    (local.set $b1 (i64.shr_u (local.get $b) (i64.const 32)))
    (local.set $lolo (i64.mul (local.get $a0) (local.get $b0)))
    (local.set $lohi (i64.mul (local.get $a0) (local.get $b1)))
    (local.set $hilo (i64.mul (local.get $a1) (local.get $b0)))
    (local.set $middle (i64.add (i64.add
      (i64.shr_u (local.get $lolo) (i64.const 32))
      (i64.and (local.get $lohi) (i64.const {MASK32})))
      (i64.and (local.get $hilo) (i64.const {MASK32}))))
    (local.set $low (i64.or
      (i64.and (local.get $lolo) (i64.const {MASK32}))
      (i64.shl (local.get $middle) (i64.const 32))))
    (local.set $high (i64.add (i64.add (i64.add
      (i64.mul (local.get $a1) (local.get $b1))
      (i64.shr_u (local.get $lohi) (i64.const 32)))
      (i64.shr_u (local.get $hilo) (i64.const 32)))
      (i64.shr_u (local.get $middle) (i64.const 32))))
    ;; low + 2^64 high = low + high_low (2^32 - 1) - high_high  (mod p)
    (local.set $t0 (i64.sub (local.get $low) (i64.shr_u (local.get $high) (i64.const 32))))
    (if (i64.lt_u (local.get $low) (i64.shr_u (local.get $high) (i64.const 32)))
      (then (local.set $t0 (i64.sub (local.get $t0) (i64.const {EPSILON})))))
    (local.set $t1 (i64.mul (i64.and (local.get $high) (i64.const {MASK32})) (i64.const {EPSILON})))
    (local.set $t2 (i64.add (local.get $t0) (local.get $t1)))
    (if (i64.lt_u (local.get $t2) (local.get $t1))
      (then (local.set $t2 (i64.add (local.get $t2) (i64.const {EPSILON})))))
    (if (result i64) (i64.ge_u (local.get $t2) (i64.const {P}))
      (then (i64.sub (local.get $t2) (i64.const {P})))
      (else (local.get $t2))))

  ;; base ^ exponent mod p, square and multiply
  (func $power (param $base i64) (param $exponent i64) (result i64) (local $result i64)
    (local.set $result (i64.const 1))
    (block $done (loop $bit
      (br_if $done (i64.eqz (local.get $exponent)))
      (if (i32.wrap_i64 (i64.and (local.get $exponent) (i64.const 1)))
        (then (local.set $result (call $mul (local.get $result) (local.get $base)))))
      (local.set $base (call $mul (local.get $base) (local.get $base)))
      (local.set $exponent (i64.shr_u (local.get $exponent) (i64.const 1)))
      (br $bit)))
    (local.get $result))

  ;; X-field elements on the op stack whose top is at byte `$sp`: a = (st0, st1, st2),
  ;; b = (st3, st4, st5); the result replaces b, c0 at st3
  (func $xx_add (param $sp i32)
    (i64.store $stack (i32.sub (local.get $sp) (i32.const 32))
      (call $add (i64.load $stack (i32.sub (local.get $sp) (i32.const 8)))
                 (i64.load $stack (i32.sub (local.get $sp) (i32.const 32)))))
    (i64.store $stack (i32.sub (local.get $sp) (i32.const 40))
      (call $add (i64.load $stack (i32.sub (local.get $sp) (i32.const 16)))
                 (i64.load $stack (i32.sub (local.get $sp) (i32.const 40)))))
    (i64.store $stack (i32.sub (local.get $sp) (i32.const 48))
      (call $add (i64.load $stack (i32.sub (local.get $sp) (i32.const 24)))
                 (i64.load $stack (i32.sub (local.get $sp) (i32.const 48))))))

  ;; the schoolbook product reduced by X^3 = X - 1 and X^4 = X^2 - X: (r0, r1, r2)
  (func $x_mul (param $a0 i64) (param $a1 i64) (param $a2 i64)
      (param $b0 i64) (param $b1 i64) (param $b2 i64) (result i64 i64 i64)
    ;; r0 = a0 b0 - a2 b1 - a1 b2
    (call $sub (call $sub (call $mul (local.get $a0) (local.get $b0))
                          (call $mul (local.get $a2) (local.get $b1)))
               (call $mul (local.get $a1) (local.get $b2)))
    ;; r1 = a1 b0 + a0 b1 - a2 b2 + a2 b1 + a1 b2
    (call $add (call $add (call $sub
      (call $add (call $mul (local.get $a1) (local.get $b0))
                 (call $mul (local.get $a0) (local.get $b1)))
      (call $mul (local.get $a2) (local.get $b2)))
      (call $mul (local.get $a2) (local.get $b1)))
      (call $mul (local.get $a1) (local.get $b2)))
    ;; r2 = a2 b0 + a1 b1 + a0 b2 + a2 b2
    (call $add (call $add (call $add
      (call $mul (local.get $a2) (local.get $b0)) (call $mul (local.get $a1) (local.get $b1)))
      (call $mul (local.get $a0) (local.get $b2)))
      (call $mul (local.get $a2) (local.get $b2))))

  ;; the inverse of a = (st0, st1, st2), non-zero, in place: the first column of adj(M) / det(M)
  ;; for M the matrix of multiplication by a (vm.xfield.inverse)
  (func $x_invert (param $sp i32)
    (local $a0 i64) (local $a1 i64) (local $a2 i64) (local $sum i64) (local $difference i64)
    (local $cofactor0 i64) (local $cofactor1 i64) (local $cofactor2 i64) (local $scale i64)
    (local.set $a0 (i64.load $stack (i32.sub (local.get $sp) (i32.const 8))))
    (local.set $a1 (i64.load $stack (i32.sub (local.get $sp) (i32.const 16))))
    (local.set $a2 (i64.load $stack (i32.sub (local.get $sp) (i32.const 24))))
    (local.set $sum (call $add (local.get $a0) (local.get $a2)))  ;; m11 = m22
    (local.set $difference (call $sub (local.get $a1) (local.get $a2)))  ;; m12
    ;; cofactor0 = m11 m22 - m12 m21, m21 = a1
    (local.set $cofactor0 (call $sub (call $mul (local.get $sum) (local.get $sum))
                                     (call $mul (local.get $difference) (local.get $a1))))
    ;; cofactor1 = m12 m20 - m10 m22, m20 = a2, m10 = a1
    (local.set $cofactor1 (call $sub (call $mul (local.get $difference) (local.get $a2))
                                     (call $mul (local.get $a1) (local.get $sum))))
    ;; cofactor2 = m10 m21 - m11 m20
    (local.set $cofactor2 (call $sub (call $mul (local.get $a1) (local.get $a1))
                                     (call $mul (local.get $sum) (local.get $a2))))
    ;; det = a0 cofactor0 - a2 cofactor1 - a1 cofactor2
    (local.set $scale (call $power
      (call $sub (call $sub (call $mul (local.get $a0) (local.get $cofactor0))
                            (call $mul (local.get $a2) (local.get $cofactor1)))
                 (call $mul (local.get $a1) (local.get $cofactor2)))
      (i64.const {P - 2})))
    (i64.store $stack (i32.sub (local.get $sp) (i32.const 8))
      (call $mul (local.get $cofactor0) (local.get $scale)))
    (i64.store $stack (i32.sub (local.get $sp) (i32.const 16))
      (call $mul (local.get $cofactor1) (local.get $scale)))
    (i64.store $stack (i32.sub (local.get $sp) (i32.const 24))
      (call $mul (local.get $cofactor2) (local.get $scale))))
"""
