"""Fused chains of N reshapes, transposes and bitcasts (issue #14: long
chains must compose linearly, not blow up).

`chain_module(n)` is an HLO module whose entry calls one fusion: parameter
``p`` of ``f32[2,3,4,5]`` goes through `n` ops, each a reshape to another
factorisation of 120 elements, a transpose by a permutation, or a bitcast
(on default layouts, a reshape), chosen by a seeded generator; the fusion's
ROOT is the last op.  `composed_chain(n)` is the same chain evaluated
directly on indices — the brute-force oracle of the composed map: for each
output index, the parameter index it reads.

    fused_computation {
      p = f32[2,3,4,5] parameter(0)
      op1 = f32[6,20] reshape(p)
      op2 = f32[20,6] transpose(op1), dimensions={1,0}
      ...
    }
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

ELEMENTS = 64
START: tuple[int, ...] = (2, 4, 8)
SHAPES: tuple[tuple[int, ...], ...] = (
    (2, 4, 8),
    (8, 8),
    (64,),
    (4, 16),
    (2, 32),
    (16, 4),
    (4, 4, 4),
    (8, 2, 4),
    (2, 2, 2, 8),
    (32, 2),
)

Index = tuple[int, ...]


@dataclass(frozen=True)
class Step:
    """One op of the chain: ``reshape``/``bitcast`` to `shape`, or
    ``transpose`` by `permutation` (output dim i is operand dim
    ``permutation[i]``)."""

    opcode: str
    shape: tuple[int, ...]
    permutation: tuple[int, ...] = ()


def steps(n: int, seed: int = 14) -> list[Step]:
    """`n` steps from ``f32[2,3,4,5]``: the same list for the same arguments."""
    rng = random.Random(seed)
    shape: tuple[int, ...] = START
    found: list[Step] = []
    for _ in range(n):
        opcode = rng.choice(("reshape", "transpose", "bitcast"))
        if opcode == "transpose" and len(shape) > 1:
            permutation = tuple(rng.sample(range(len(shape)), len(shape)))
            shape = tuple(shape[p] for p in permutation)
            found.append(Step("transpose", shape, permutation))
        else:
            shape = rng.choice([s for s in SHAPES if s != shape])
            found.append(Step("bitcast" if opcode == "bitcast" else "reshape", shape))
    return found


def _shape_text(shape: tuple[int, ...]) -> str:
    return f"f32[{','.join(map(str, shape))}]"


def chain_module(n: int, seed: int = 14) -> str:
    """The HLO text of a module fusing an `n`-op chain."""
    lines = [f"  p = {_shape_text(START)} parameter(0)"]
    previous = "p"
    chain = steps(n, seed)
    for number, step in enumerate(chain, start=1):
        name = f"op{number}"
        attributes = (
            f", dimensions={{{','.join(map(str, step.permutation))}}}"
            if step.opcode == "transpose"
            else ""
        )
        lines.append(
            f"  {'ROOT ' if number == n else ''}{name} = {_shape_text(step.shape)} "
            f"{step.opcode}({previous}){attributes}"
        )
        previous = name
    if n == 0:
        lines[0] = "  ROOT" + lines[0][1:]
    final = chain[-1].shape if chain else START
    return "\n".join(
        [
            f"HloModule chain_{n}",
            "",
            "fused_chain {",
            *lines,
            "}",
            "",
            "ENTRY main {",
            f"  p0 = {_shape_text(START)} parameter(0)",
            f"  ROOT chain = {_shape_text(final)} fusion(p0), kind=kLoop, calls=fused_chain",
            "}",
            "",
        ]
    )


def _linear(index: Index, shape: tuple[int, ...]) -> int:
    linear = 0
    for i, extent in zip(index, shape, strict=True):
        linear = linear * extent + i
    return linear


def _delinear(linear: int, shape: tuple[int, ...]) -> Index:
    index = []
    for extent in reversed(shape):
        linear, i = divmod(linear, extent)
        index.append(i)
    return tuple(reversed(index))


def composed_chain(n: int, seed: int = 14) -> Callable[[Index], Index]:
    """For the fusion's output index, the parameter index it reads (the
    chain walked backwards, op by op, on concrete integers)."""
    chain = steps(n, seed)
    operand_shapes = [START, *(step.shape for step in chain)][:-1]

    def read(index: Index) -> Index:
        for step, operand_shape in zip(reversed(chain), reversed(operand_shapes), strict=True):
            if step.opcode == "transpose":
                operand = [0] * len(index)
                for i, p in enumerate(step.permutation):
                    operand[p] = index[i]
                index = tuple(operand)
            else:
                index = _delinear(_linear(index, step.shape), operand_shape)
        return index

    return read


def output_indices(n: int, seed: int = 14) -> list[Index]:
    """Every index of the chain's output."""
    shape = steps(n, seed)[-1].shape if n else START
    assert math.prod(shape) == ELEMENTS
    return list(itertools.product(*(range(extent) for extent in shape)))
