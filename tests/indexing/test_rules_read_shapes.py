"""Indexing rules read an operand's shape, and more only of a constant or an
iota (`registry.VALUE_OPCODES`): the instruction signatures that maps and
answers are shared by key nothing else of an operand.

Each rule runs on every instruction of every example twice: with its
operands' defining instructions, and with each operand that is not a
constant or an iota replaced by a parameter of the same name and shape.
A rule that read anything else of an operand (its opcode, attributes,
operands, literal) would give other maps, or another error, the second
time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.examples import EVERY_EXAMPLE, example_id, valid_module
from verifier.hlo import Computation, Instruction, Module, parse_module
from verifier.indexing import registry
from verifier.indexing.registry import VALUE_OPCODES, OpContext, OpRule


def _stand_in(operand: Instruction) -> Instruction:
    """`operand` as an indexing rule may see it: a parameter of the same
    name and shape, unless its value folds into maps."""
    if operand.opcode in VALUE_OPCODES:
        return operand
    return Instruction(operand.name, "parameter", operand.shape, literal="0")


def _answers(rule: OpRule, context: OpContext) -> list[object]:
    """Every map the rule gives, both directions, or the error it raises."""
    return [
        _outcome(rule.output_to_input, context, output)
        for output in range(len(context.output_shapes))
    ] + [
        _outcome(rule.input_to_output, context, operand)
        for operand in range(len(context.operand_leaves))
    ]


def _outcome(direction: Callable[[OpContext, int], object], context: OpContext, k: int) -> object:
    try:
        return direction(context, k)
    except Exception as error:  # the rule's error is an answer too
        return f"{type(error).__name__}: {error}"


def _contexts(module: Module) -> Iterator[tuple[Computation, Instruction, OpRule]]:
    for computation in module.computations:
        for instruction in computation.instructions:
            rule = registry.rule_for(instruction.opcode)
            if rule is not None and instruction.operands:
                yield computation, instruction, rule


@pytest.mark.parametrize("path", EVERY_EXAMPLE, ids=example_id)
def test_rules_read_only_the_shape_of_other_operands(path: Path) -> None:
    module = valid_module(path)
    for computation, instruction, rule in _contexts(module):
        operands = computation.operand_instructions(instruction)
        stand_ins = tuple(_stand_in(operand) for operand in operands)
        if stand_ins == operands:
            continue
        real = _answers(rule, OpContext(instruction, operands))
        seen = _answers(rule, OpContext(instruction, stand_ins))
        assert seen == real, f"{computation.name}/{instruction.name} ({instruction.opcode})"


def test_a_rule_that_folds_a_constant_sees_it() -> None:
    # The witness above can fail: a dynamic slice at a constant offset has
    # another map once that constant is hidden behind a parameter.
    module = parse_module("""
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  two = s32[] constant(2)
  ROOT s = f32[4] dynamic-slice(p0, two), dynamic_slice_sizes={4}
}""")
    entry = module.entry
    rule = registry.rule_for("dynamic-slice")
    assert rule is not None
    operands = entry.operand_instructions(entry.root)
    hidden = (operands[0], Instruction("two", "parameter", operands[1].shape, literal="1"))
    assert _answers(rule, OpContext(entry.root, operands)) != _answers(
        rule, OpContext(entry.root, hidden)
    )
