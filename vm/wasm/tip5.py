"""The Tip5 permutation in WebAssembly text, for the wasm target's `hash` and sponge
instructions: `PERMUTATION_WAT` is a memory `$hash` (the tables as data, the state areas)
and a function `$permutation (param $state i32)` that permutes the 16 u64 words at byte
`$state` of that memory in place, exactly as `vm.tip5.reference_round` does: five rounds of
split-and-lookup on lanes 0-3 (in Montgomery form, bytes through the S-box), x^7 on lanes
4-15, the circulant MDS layer and the round constants.  It uses `$mul` and `$add` of the
module it is placed in (vm.wasm.translate).
"""

from __future__ import annotations

from vm.tip5 import (
    MDS_FIRST_COLUMN,
    MONTGOMERY_R,
    MONTGOMERY_R_INVERSE,
    NUMBER_OF_ROUNDS,
    ROUND_CONSTANTS,
    SBOX,
    STATE_SIZE,
)

HASH_STATE = 0  # the state `hash` permutes
SPONGE_STATE = 128  # the sponge's state
SBOX_AT = 256  # 256 bytes
ROUND_CONSTANTS_AT = 512  # 80 words
MDS_AT = ROUND_CONSTANTS_AT + 8 * len(ROUND_CONSTANTS)  # 16 words
SCRATCH_AT = MDS_AT + 8 * STATE_SIZE  # 16 words: the state after the S-box layer


def _bytes(data: bytes) -> str:
    return "".join(f"\\{byte:02x}" for byte in data)


def _words(words) -> str:
    return _bytes(b"".join(word.to_bytes(8, "little") for word in words))


PERMUTATION_WAT = f"""
  (memory $hash (export "hash") 1)
  (data (memory $hash) (i32.const {SBOX_AT}) "{_bytes(bytes(SBOX))}")
  (data (memory $hash) (i32.const {ROUND_CONSTANTS_AT}) "{_words(ROUND_CONSTANTS)}")
  (data (memory $hash) (i32.const {MDS_AT}) "{_words(MDS_FIRST_COLUMN)}")

  ;; the S-box of one lane: each byte of x's Montgomery form through the table
  (func $split_and_lookup (param $x i64) (result i64) (local $bytes i64) (local $result i64)
    (local $shift i64)
    (local.set $bytes (call $mul (local.get $x) (i64.const {MONTGOMERY_R})))
    (block $done (loop $byte
      (br_if $done (i64.eq (local.get $shift) (i64.const 64)))
      (local.set $result (i64.or (local.get $result) (i64.shl
        (i64.load8_u $hash offset={SBOX_AT} (i32.wrap_i64
          (i64.and (i64.shr_u (local.get $bytes) (local.get $shift)) (i64.const 255))))
        (local.get $shift))))
      (local.set $shift (i64.add (local.get $shift) (i64.const 8)))
      (br $byte)))
    (call $mul (local.get $result) (i64.const {MONTGOMERY_R_INVERSE})))

  (func $power7 (param $x i64) (result i64) (local $cube i64)
    (local.set $cube (call $mul (call $mul (local.get $x) (local.get $x)) (local.get $x)))
    (call $mul (call $mul (local.get $cube) (local.get $cube)) (local.get $x)))

  (func $permutation (param $state i32)
    (local $round i32) (local $lane i32) (local $other i32) (local $sum i64) (local $word i64)
    (block $rounds_done (loop $round_loop
      (br_if $rounds_done (i32.eq (local.get $round) (i32.const {NUMBER_OF_ROUNDS})))
      ;; the S-box layer, into the scratch area
      (local.set $lane (i32.const 0))
      (block $sbox_done (loop $sbox
        (br_if $sbox_done (i32.eq (local.get $lane) (i32.const {STATE_SIZE})))
        (local.set $word (i64.load $hash (i32.add (local.get $state)
          (i32.shl (local.get $lane) (i32.const 3)))))
        (i64.store $hash offset={SCRATCH_AT} (i32.shl (local.get $lane) (i32.const 3))
          (if (result i64) (i32.lt_u (local.get $lane) (i32.const 4))
            (then (call $split_and_lookup (local.get $word)))
            (else (call $power7 (local.get $word)))))
        (local.set $lane (i32.add (local.get $lane) (i32.const 1)))
        (br $sbox)))
      ;; new[lane] = sum over other of MDS[(lane - other) mod 16] scratch[other] + constant
      (local.set $lane (i32.const 0))
      (block $mds_done (loop $mds
        (br_if $mds_done (i32.eq (local.get $lane) (i32.const {STATE_SIZE})))
        (local.set $sum (i64.load $hash offset={ROUND_CONSTANTS_AT} (i32.shl
          (i32.add (i32.mul (local.get $round) (i32.const {STATE_SIZE})) (local.get $lane))
          (i32.const 3))))
        (local.set $other (i32.const 0))
        (block $sum_done (loop $terms
          (br_if $sum_done (i32.eq (local.get $other) (i32.const {STATE_SIZE})))
          (local.set $sum (call $add (local.get $sum) (call $mul
            (i64.load $hash offset={MDS_AT} (i32.shl
              (i32.and (i32.sub (local.get $lane) (local.get $other)) (i32.const 15))
              (i32.const 3)))
            (i64.load $hash offset={SCRATCH_AT} (i32.shl (local.get $other) (i32.const 3))))))
          (local.set $other (i32.add (local.get $other) (i32.const 1)))
          (br $terms)))
        (i64.store $hash (i32.add (local.get $state) (i32.shl (local.get $lane) (i32.const 3)))
          (local.get $sum))
        (local.set $lane (i32.add (local.get $lane) (i32.const 1)))
        (br $mds)))
      (local.set $round (i32.add (local.get $round) (i32.const 1)))
      (br $round_loop))))
"""
