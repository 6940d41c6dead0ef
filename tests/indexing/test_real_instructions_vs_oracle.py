"""Every instruction of every bundled module that the reference interpreters
know, on shapes small enough to enumerate, against its indexing rules.

The golden cases and the property tests draw op configurations; this
sweep takes the ones XLA and JAX wrote (the real dumps and the corpus:
attributes, layouts and operand forms nobody chose), which is how the rules
were judged on a held-out corpus (`benchmarks/heldout.py`).  An instruction
whose operands and outputs together exceed `_ELEMENTS` elements is left out.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests import oracle
from tests.examples import EVERY_EXAMPLE, example_id, valid_module
from tests.oracle import compound
from verifier.hlo import Computation, Instruction, Shape

from . import compound_checks, relations

_ELEMENTS = 600
# The interpreters' own scope: their rules read no other computation (a
# fusion's maps are the gate's to check) and judge no opaque op.
_NOT_JUDGED = frozenset({"parameter", "constant", "fusion", "call", "while", "conditional"})
# Modules written to be odd (syntax the sweep's ops do not read as the
# interpreters do): unbounded dims, a tuple-shaped collective-permute, and
# invalid HLO on purpose.
_ODD = frozenset({"12_dynamic_dims.hlo", "06_nested_int_lists.hlo", "14_literal_labels_tiles.hlo"})


def _elements(shape: Shape) -> int:
    if shape.tuple_shapes is not None:
        return sum(_elements(leaf) for leaf in shape.tuple_shapes)
    return math.prod(shape.dimensions)


def _judged(computation: Computation, instruction: Instruction) -> bool:
    if instruction.opcode in _NOT_JUDGED:
        return False
    if instruction.opcode not in oracle.SUPPORTED_OPCODES | compound.SUPPORTED_OPCODES:
        return False
    operands = computation.operand_instructions(instruction)
    return _elements(instruction.shape) + sum(_elements(o.shape) for o in operands) <= _ELEMENTS


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", [p for p in EVERY_EXAMPLE if "checks" not in p.parts], ids=example_id
)
def test_rules_match_the_interpreters_on_every_instruction(path: Path) -> None:
    if path.name in _ODD:
        pytest.skip("written to be odd")
    module = valid_module(path)
    for computation in module.computations:
        for instruction in computation.instructions:
            if not _judged(computation, instruction):
                continue
            where = f"{path.name}: {computation.name}/{instruction.name}"
            try:
                if instruction.opcode in compound.SUPPORTED_OPCODES:
                    compound_checks.check_instruction(computation, instruction, where)
                else:
                    relations.check_instruction(computation, instruction, where)
            except oracle.UnsupportedByOracle:
                continue
