"""Indexing maps of one instruction, in both directions, from the registry.

>>> from verifier.hlo.parser import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[20] parameter(0)
...   ROOT bc0 = f32[10,20,30] broadcast(p0), dimensions={1}
... }''')
>>> [str(m).splitlines()[0] for m in output_to_input(module.entry, module.entry.root)[0]]
['(d0, d1, d2) -> (d1),']
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.errors import ParseError, VerifierError
from verifier.expr.indexing_map import Undefined
from verifier.hlo.module import Computation, Instruction

# Importing the package (verifier/indexing/__init__.py) registers every rule.
from verifier.indexing import registry
from verifier.indexing.leaves import instruction_operand_leaves, output_leaves
from verifier.indexing.registry import Indexing, OpContext
from verifier.indexing.shape_inference import check_output_shape


def _context(computation: Computation, instruction: Instruction) -> OpContext:
    return OpContext(instruction, computation.operand_instructions(instruction))


def _unsupported(reason: str, count: int) -> tuple[Indexing, ...]:
    return (Undefined(reason),) * count


def _invalid(instruction: Instruction, error: Exception) -> ParseError:
    return ParseError(
        f"{instruction.opcode} '{instruction.name}' is not valid HLO: {error}", instruction.span
    )


def output_count(instruction: Instruction) -> int:
    """The number of outputs: the leaves of the shape (1 for an array)."""
    return len(output_leaves(instruction.shape))


def operand_count(computation: Computation, instruction: Instruction) -> int:
    """The number of operand leaves (the number of operands when all are arrays)."""
    return len(instruction_operand_leaves(computation, instruction))


def _no_rule_reason(computation: Computation, instruction: Instruction) -> str | None:
    """Why no rule applies to `instruction`, or None when one does."""
    rule = registry.rule_for(instruction.opcode)
    if rule is None:
        return f"no indexing rule for opcode '{instruction.opcode}'"
    if not rule.whole_tuples and any(
        operand.shape.is_tuple for operand in computation.operand_instructions(instruction)
    ):
        return f"{instruction.opcode} of a tuple-shaped operand: its rule reads arrays only"
    return None


def output_to_input(
    computation: Computation, instruction: Instruction, output: int = 0
) -> tuple[Indexing, ...]:
    """Per operand leaf: the maps from output `output`'s index to the elements read."""
    reason = _no_rule_reason(computation, instruction)
    if reason is not None:
        return _unsupported(reason, operand_count(computation, instruction))
    rule = registry.rule_for(instruction.opcode)
    assert rule is not None
    return _checked(computation, instruction, lambda ctx: rule.output_to_input(ctx, output))


def input_to_output(
    computation: Computation, instruction: Instruction, operand: int
) -> tuple[Indexing, ...]:
    """Per output: the maps from operand leaf `operand`'s index to the output
    elements it reaches."""
    reason = _no_rule_reason(computation, instruction)
    if reason is not None:
        return _unsupported(reason, output_count(instruction))
    rule = registry.rule_for(instruction.opcode)
    assert rule is not None
    return _checked(computation, instruction, lambda ctx: rule.input_to_output(ctx, operand))


def _checked(
    computation: Computation,
    instruction: Instruction,
    apply: Callable[[OpContext], tuple[Indexing, ...]],
) -> tuple[Indexing, ...]:
    """`apply` a rule to a shape-consistent instruction; invalid HLO found on
    the way is a `ParseError` at the instruction."""
    try:
        context = _context(computation, instruction)
        check_output_shape(context)
        return apply(context)
    except VerifierError:
        raise
    except (ValueError, IndexError, KeyError) as error:
        raise _invalid(instruction, error) from error
