"""An instruction's own indexing maps, in both directions, from its rule in
the registry: nothing is composed through the computations it calls (a
fusion, call, while, conditional or async-start has no own rule: UNDEFINED
here; `verifier.fusion.compose` composes through them).

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[20] parameter(0)
...   ROOT bc0 = f32[10,20,30] broadcast(p0), dimensions={1}
... }''')
>>> [str(m).splitlines()[0] for m in own_output_to_input(module.entry, module.entry.root)[0]]
['(d0, d1, d2) -> (d1),']
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.expr import Undefined
from verifier.hlo import Computation, Instruction, Shape

# Importing the package (verifier/indexing/__init__.py) registers every rule.
from verifier.indexing import registry
from verifier.indexing.registry import Indexing, OpContext


@registry.remember_last
def _context(computation: Computation, instruction: Instruction) -> OpContext:
    return OpContext(instruction, computation.operand_instructions(instruction))


def _unsupported(reason: str, count: int) -> tuple[Indexing, ...]:
    return (Undefined(reason),) * count


@registry.remember_last
def _unsupported_shapes(context: OpContext) -> str | None:
    """Why no rule applies to this instruction whatever its opcode, or None."""
    shapes = (context.shape, *(operand.shape for operand in context.operands))
    if any(shape.is_unbounded for shape in shapes):
        return "an unbounded dynamic dimension '?' has no size to range over"
    instruction = context.instruction
    if "sparsity_config" in instruction.attributes:
        return "a sparse convolution (sparsity_config=) reads only the kept elements"
    if "sparsity" in instruction.attributes:
        return (
            "a sparse dot (sparsity=) stores n of every m elements of a contracting dim: "
            "which elements of the other operand each one multiplies is in its metadata "
            "operand, read at run time"
        )
    first_index = _FIRST_INDEX_OPERAND.get(instruction.opcode)
    if first_index is not None and any(
        operand.shape.rank == 1 for operand in context.operands[first_index:]
    ):
        return (
            f"the legacy {instruction.opcode} form, with one rank-1 index operand, "
            "is not supported: write one scalar index per dimension"
        )
    return None


_FIRST_INDEX_OPERAND = {"dynamic-slice": 1, "dynamic-update-slice": 2}


def _is_empty_array(shape: Shape) -> bool:
    """An array with a zero-size dimension: it has no element to map."""
    return 0 in shape.dimensions


def output_count(instruction: Instruction) -> int:
    """The number of outputs: the leaves of the shape (1 for an array)."""
    return len(instruction.shape.leaves)


@registry.remember_last
def _no_rule_reason(context: OpContext) -> str | None:
    """Why no rule applies to the instruction of `context`, or None when one does."""
    opcode = context.instruction.opcode
    rule = registry.rule_for(opcode)
    if rule is None:
        return f"no indexing rule for opcode '{opcode}'"
    if not rule.whole_tuples and any(operand.shape.is_tuple for operand in context.operands):
        return f"{opcode} of a tuple-shaped operand: its rule reads arrays only"
    return None


def own_output_to_input(
    computation: Computation, instruction: Instruction, output: int = 0
) -> tuple[Indexing, ...]:
    """Per operand leaf: the maps from output `output`'s index to the elements
    read, by the instruction's own rule."""
    context = _context(computation, instruction)
    count = len(context.operand_leaves)
    reason = _no_rule_reason(context)
    if reason is not None:
        return _unsupported(reason, count)
    rule = registry.rule_for(instruction.opcode)
    assert rule is not None
    if _is_empty_array(context.output_shapes[output]):
        return ((),) * count  # no output element reads anything
    return _checked(context, lambda ctx: rule.output_to_input(ctx, output), count)


def own_input_to_output(
    computation: Computation, instruction: Instruction, operand: int
) -> tuple[Indexing, ...]:
    """Per output: the maps from operand leaf `operand`'s index to the output
    elements it reaches, by the instruction's own rule."""
    context = _context(computation, instruction)
    count = len(context.output_shapes)
    reason = _no_rule_reason(context)
    if reason is not None:
        return _unsupported(reason, count)
    rule = registry.rule_for(instruction.opcode)
    assert rule is not None
    if _is_empty_array(context.operand_leaves[operand].shape):
        return ((),) * count  # no operand element reaches anything
    return _checked(context, lambda ctx: rule.input_to_output(ctx, operand), count)


def own_input_to_output_rows(
    computation: Computation, instruction: Instruction
) -> tuple[tuple[Indexing, ...], ...]:
    """`own_input_to_output` of every operand leaf, in order: the context
    and the reasons no rule applies found once, not once per leaf (a
    get-tuple-element of a state of 500 arrays)."""
    context = _context(computation, instruction)
    count = len(context.output_shapes)
    reason = _no_rule_reason(context)
    if reason is not None:
        return (_unsupported(reason, count),) * len(context.operand_leaves)
    rule = registry.rule_for(instruction.opcode)
    assert rule is not None
    inputs = rule.input_to_output
    return tuple(
        ((),) * count
        if _is_empty_array(leaf.shape)
        else _checked(context, _from_leaf(inputs, leaf.number), count)
        for leaf in context.operand_leaves
    )


def _from_leaf(
    rule: Callable[[OpContext, int], tuple[Indexing, ...]], operand: int
) -> Callable[[OpContext], tuple[Indexing, ...]]:
    """A rule's input→output maps from operand leaf `operand`, as `_checked` applies them."""
    return lambda context: rule(context, operand)


def _checked(
    context: OpContext,
    apply: Callable[[OpContext], tuple[Indexing, ...]],
    count: int,
) -> tuple[Indexing, ...]:
    """`apply` a rule to an instruction whose shapes it can range over.

    The instruction is shape-consistent: the parser, the only builder of a
    `Module`, ran `verifier.hlo.check_shape` on it (or inferred its shape)
    with the callees' ROOT shapes, a stronger check than one here could be.
    An exception from the rule itself is a bug and escapes.
    """
    reason = _unsupported_shapes(context)
    if reason is not None:
        return tuple(Undefined(reason) for _ in range(count))
    return apply(context)
