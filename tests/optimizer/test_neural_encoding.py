"""The block encoding (compiler.neural.encoding) and its attention mask, shown applied."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest
from corpus_blocks import corpus_blocks

from compiler.blocks.dag import build_dag
from compiler.neural import encoding as features
from compiler.neural.encoding import EncodingTooLarge, encode, fits
from compiler.neural.model import Model, initial_parameters
from vm.isa import INSTRUCTIONS
from vm.tasm import parse


def pairs(text: str) -> list[tuple]:
    return [(op.instruction.name, op.argument) for op in parse(text).ops]


@cache
def corpus_dags():
    return [
        build_dag([(op.instruction.name, op.argument) for op in block])
        for _, block in corpus_blocks()
    ]


def test_a_small_block_s_tokens():
    block = "split pop 1 push -1 add dup 0 mul write_io 1 push 7 push 100000"
    dag = build_dag(pairs(block), dont_care={1})
    encoding = encode(dag, u32_entry=(0,))
    # entry st0, then split, push -1, add, mul, write_io, push 7 (dead), push 100000
    assert encoding.entry == 1 and encoding.nodes == 7 and encoding.tokens == 8
    names = [INSTRUCTIONS[op].name for op in encoding.op[1:]]
    assert names == ["split", "push", "add", "mul", "write_io", "push", "push"]
    assert encoding.op[0] == features.ENTRY_OP == len(INSTRUCTIONS)
    U32, FIELD, NOTHING = features.U32, features.FIELD, features.NOTHING
    assert encoding.value_type == (U32, U32, FIELD, FIELD, FIELD, NOTHING, FIELD, FIELD)
    assert encoding.role == (features.LIVE,) + (features.NODE,) * 7
    assert encoding.immediate == (0, 0, 3, 0, 0, 2, 4, 5)  # none, -1, 1 (write_io 1), small, large
    assert encoding.operands == ((), (0,), (), (2, 1), (3, 3), (4,), (), ())
    assert encoding.arity == (0, 1, 0, 2, 2, 1, 0, 0)
    assert encoding.live_first == (0, 1, 2, 3, 4, 5, 6, 7)
    assert encoding.live_last == (1, 3, 3, 4, 5, 5, 6, 8)  # the exit is time 8
    assert encoding.exit_slot == (16,) * 7 + (0,)
    assert encoding.value_token == (0, 1, 1, 2, 3, 4, 6, 7)
    assert encoding.mask[3] == (0, 1, 1, 1, 1, 0, 0, 0)  # add: its operands, its user


def test_entry_slot_descriptors():
    dag = build_dag(pairs("pop 2 push 1"), dont_care={0})  # exit: 1 over st2 ...
    encoding = encode(dag, u32_entry=(1,))
    assert encoding.entry == 2
    assert encoding.role[:2] == (features.DONT_CARE, features.DEAD)
    assert encoding.value_type[:2] == (features.FIELD, features.U32)
    dag = build_dag(pairs("swap 1"))
    assert encode(dag).role == (features.LIVE, features.LIVE)
    assert encode(dag).exit_slot == (1, 0)


def test_the_mask_is_the_rule_on_every_corpus_block():
    too_large = 0
    for dag in corpus_dags():
        if not fits(dag):
            too_large += 1
            with pytest.raises(EncodingTooLarge):
                encode(dag)
            continue
        encoding = encode(dag)
        mask = np.array(encoding.mask)
        assert (mask == mask.T).all() and (np.diag(mask) == 1).all()
        for token, operands in enumerate(encoding.operands):
            for operand in operands:
                assert (
                    mask[token, operand]
                    and encoding.live_last[operand] >= encoding.live_first[token]
                )
        first, last = np.array(encoding.live_first), np.array(encoding.live_last)
        overlap = (first[:, None] <= last[None, :]) & (first[None, :] <= last[:, None])
        assert (mask >= overlap).all()
    print(f"\n{too_large} of {len(corpus_dags())} corpus blocks too large for the encoder")
    assert 0 < too_large <= len(corpus_dags()) // 40  # 19 of 985 today


def reach(mask: np.ndarray, steps: int) -> np.ndarray:
    """Which tokens can influence which through `steps` attention layers."""
    seen = np.eye(len(mask), dtype=np.int64)
    for _ in range(steps):
        seen = np.minimum(seen @ mask, 1)
    return seen.astype(bool)


def with_op(encoding, token: int, op: int):
    ops = list(encoding.op)
    ops[token] = op
    return dataclasses.replace(encoding, op=tuple(ops))


def unmasked(encoding):
    size = encoding.tokens
    return dataclasses.replace(encoding, mask=((1,) * size,) * size)


def a_far_pair():
    """The first corpus block with tokens i, k that k cannot reach in two layers, and the
    pair, and a token j that i attends to directly."""
    for dag in corpus_dags():
        if not fits(dag):
            continue
        encoding = encode(dag)
        mask = np.array(encoding.mask)
        far = ~reach(mask, 2)
        for i in range(encoding.tokens):
            neighbours = [j for j in range(encoding.tokens) if mask[i, j] and j != i]
            if far[i].any() and neighbours:
                return encoding, i, int(np.flatnonzero(far[i])[0]), neighbours[0]
    raise AssertionError("no corpus block has two tokens out of each other's reach")


@pytest.mark.parametrize("layers", [1, 2])
def test_the_mask_is_applied(layers):
    """Changing a token i may not hear from leaves i's output unchanged bit for bit;
    changing one it attends to changes it; so does the far token once the mask is gone."""
    model = Model(initial_parameters(3))
    encoding, i, far, near = a_far_pair()
    if layers == 1:  # one layer: every token outside i's row of the mask is far
        mask = np.array(encoding.mask)
        far = int(np.flatnonzero(mask[i] == 0)[0])
    new_op = features.OP_ID["xx_mul"]
    before = model.encoder(encoding, layers)
    assert (model.encoder(with_op(encoding, far, new_op), layers)[i] == before[i]).all()
    assert (model.encoder(with_op(encoding, near, new_op), layers)[i] != before[i]).any()
    plain = model.encoder(unmasked(encoding), layers)
    assert (model.encoder(unmasked(with_op(encoding, far, new_op)), layers)[i] != plain[i]).any()
