"""Which array an output number or an operand number indexes: the one home
of that question.

Indexing maps relate *arrays*.  A tuple-shaped value is a value like any
other, read and written leaf by leaf (XLA's shape index): output ``k`` of
an instruction is the ``k``-th leaf of its shape, depth first, and its
operands are numbered by leaf the same way, all operands' leaves one after
the other.  While every operand is an array, operand leaf ``i`` is operand
``i``; an array output is output 0; the empty tuple ``()`` has no leaf.

``g = (f32[4], f32[2,3]) get-tuple-element(((f32[4], f32[2,3]), f32[4]) t),
index=0`` has outputs ``{0}`` (f32[4]) and ``{1}`` (f32[2,3]) and operand
leaves ``operand 0 {0,0}``, ``operand 0 {0,1}``, ``operand 0 {1}``; its
output 1 reads operand leaf 1 through ``(d0, d1) -> (d0, d1)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from verifier.hlo import Computation, Instruction, Shape, ShapeIndex


def _index_text(index: ShapeIndex) -> str:
    return "{" + ",".join(map(str, index)) + "}"


@dataclass(frozen=True)
class OutputLeaf:
    """Output `number` of an instruction: the array at `index` of its shape."""

    number: int
    index: ShapeIndex
    shape: Shape

    @property
    def label(self) -> str:
        """``output 1``; a leaf of a nested tuple by its shape index, ``output {1,0}``."""
        if len(self.index) <= 1:
            return f"output {self.number}"
        return f"output {_index_text(self.index)}"


@dataclass(frozen=True)
class OperandLeaf:
    """Operand leaf `number` of an instruction: the array at `index` of
    operand `operand` (named `name`), which is leaf `leaf` of that operand."""

    number: int
    operand: int
    leaf: int
    index: ShapeIndex
    name: str
    shape: Shape

    @property
    def label(self) -> str:
        """``operand 0 (p0)``; a leaf of a tuple operand, ``operand 0 {1} (t)``."""
        return f"{self.position} ({self.name})"

    @property
    def position(self) -> str:
        """The label without the name, the same at every instruction whose
        operands have this one's shapes: ``operand 0``, ``operand 0 {1}``."""
        if not self.index:
            return f"operand {self.operand}"
        return f"operand {self.operand} {_index_text(self.index)}"


def output_leaves(shape: Shape) -> tuple[OutputLeaf, ...]:
    """The outputs of a value of `shape`, numbered depth first."""
    return tuple(
        OutputLeaf(number, index, leaf) for number, (index, leaf) in enumerate(shape.leaves)
    )


def operand_leaves(operands: Sequence[Instruction]) -> tuple[OperandLeaf, ...]:
    """Every leaf of every operand, operand by operand, numbered depth first."""
    found: list[OperandLeaf] = []
    for position, operand in enumerate(operands):
        for leaf, (index, shape) in enumerate(operand.shape.leaves):
            found.append(OperandLeaf(len(found), position, leaf, index, operand.name, shape))
    return tuple(found)


def instruction_operand_leaves(
    computation: Computation, instruction: Instruction
) -> tuple[OperandLeaf, ...]:
    """`operand_leaves` of `instruction`'s operands in `computation`."""
    return operand_leaves(computation.operand_instructions(instruction))


def first_operand_leaves(computation: Computation, instruction: Instruction) -> tuple[int, ...]:
    """Per operand of `instruction`: the number of its first leaf, without
    listing the leaves (`operand_leaves`; an operand of a thousand leaves).

    ``tuple(f32[2] a, (f32[3], s32[]) t, f32[4] b)`` gives ``(0, 1, 3)``.
    """
    sizes = [len(computation.instruction(name).shape.leaves) for name in instruction.operands]
    return tuple(itertools.accumulate(sizes, initial=0))[:-1]


def parameter_leaves(computation: Computation) -> tuple[OperandLeaf, ...]:
    """The leaves of `computation`'s parameters, in parameter order: the
    operand leaves of any instruction that calls it with its parameters."""
    return operand_leaves(computation.parameters)
