"""The output shape an instruction must have, given its operands and
attributes, for the ops whose rules build maps from the output shape.

The pad, concatenate and dynamic-update-slice rules build their pieces from
the output's dimensions; HLO whose output disagrees with its operands would
otherwise get maps that partition the *stated* output while reading outside
the operands.  Such HLO is rejected before any map is built.

``pad(f32[4] p, f32[] v), padding=1_2_1`` must be ``f32[10]``
(``1 + 4 + 3 interior + 2``):

>>> from verifier.hlo.parser import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p = f32[4] parameter(0)
...   v = f32[] parameter(1)
...   ROOT pad = f32[9] pad(p, v), padding=1_2_1
... }''')
>>> from verifier.indexing.registry import OpContext
>>> entry = module.entry
>>> check_output_shape(OpContext(entry.root, entry.operand_instructions(entry.root)))
Traceback (most recent call last):
...
ValueError: the output is f32[9] but the operands and attributes give dimensions [10]
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.indexing.elementwise import ELEMENTWISE_OPCODES
from verifier.indexing.registry import OpContext

Dimensions = tuple[int, ...]


def _same_as_operand(ctx: OpContext) -> Dimensions:
    return ctx.operand_shape(0).dimensions


def _concatenate(ctx: OpContext) -> Dimensions:
    (axis,) = ctx.instruction.int_list("dimensions")
    first = list(ctx.operand_shape(0).dimensions)
    for index in range(1, len(ctx.operands)):
        other = ctx.operand_shape(index).dimensions
        if len(other) != len(first) or any(
            a != b for k, (a, b) in enumerate(zip(first, other, strict=True)) if k != axis
        ):
            raise ValueError(
                f"operand {index} has dimensions {list(other)}, which differ from "
                f"operand 0's {first} outside the concatenated dimension {axis}"
            )
        first[axis] += other[axis]
    return tuple(first)


def _pad(ctx: OpContext) -> Dimensions:
    sizes = ctx.operand_shape(0).dimensions
    padding = ctx.instruction.padding()
    if len(padding) != len(sizes):
        raise ValueError(f"padding has {len(padding)} dimensions, the operand {len(sizes)}")
    return tuple(
        config.low + config.high + size + max(size - 1, 0) * config.interior
        for size, config in zip(sizes, padding, strict=True)
    )


def _slice(ctx: OpContext) -> Dimensions:
    return tuple(
        max(0, -(-(d.limit - d.start) // d.stride)) for d in ctx.instruction.slice_dims()
    )


def _dynamic_update_slice(ctx: OpContext) -> Dimensions:
    operand, update = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    if len(update) != len(operand) or any(u > o for u, o in zip(update, operand, strict=True)):
        raise ValueError(f"the update {list(update)} does not fit in the operand {list(operand)}")
    return operand


def _broadcast(ctx: OpContext) -> Dimensions:
    """Operand dim i is output dim ``dimensions[i]``; the others are free."""
    sizes = ctx.operand_shape(0).dimensions
    expected = list(ctx.shape.dimensions)
    dimensions = ctx.instruction.int_list("dimensions")
    if len(dimensions) != len(sizes) or any(k >= len(expected) for k in dimensions):
        raise ValueError(
            f"dimensions={{{','.join(map(str, dimensions))}}} does not place the operand's "
            f"{len(sizes)} dimensions in an output of rank {len(expected)}"
        )
    for size, k in zip(sizes, dimensions, strict=True):
        expected[k] = size
    return tuple(expected)


def _dynamic_slice(ctx: OpContext) -> Dimensions:
    return ctx.instruction.int_list("dynamic_slice_sizes")


def _transpose(ctx: OpContext) -> Dimensions:
    sizes = ctx.operand_shape(0).dimensions
    return tuple(sizes[k] for k in ctx.instruction.int_list("dimensions"))


def _elementwise(ctx: OpContext) -> Dimensions:
    """Every operand has the output's dimensions, except the rank-0 operands
    `select` and `clamp` broadcast implicitly."""
    expected = ctx.shape.dimensions
    for index in range(len(ctx.operands)):
        dims = ctx.operand_shape(index).dimensions
        if dims != expected and not (dims == () and ctx.instruction.opcode in _SCALAR_OPERANDS):
            raise ValueError(
                f"operand {index} has dimensions {list(dims)}, the output {list(expected)}"
            )
    return expected


_SCALAR_OPERANDS = frozenset({"select", "clamp"})

_EXPECTED: dict[str, Callable[[OpContext], Dimensions]] = {
    "concatenate": _concatenate,
    "pad": _pad,
    "slice": _slice,
    "dynamic-update-slice": _dynamic_update_slice,
    "dynamic-slice": _dynamic_slice,
    "broadcast": _broadcast,
    "transpose": _transpose,
    "reverse": _same_as_operand,
    **{opcode: _elementwise for opcode in ELEMENTWISE_OPCODES},
}


def check_output_shape(ctx: OpContext) -> None:
    """Raise `ValueError` when the instruction's output dimensions are not the
    ones its operands and attributes give (ops without a known formula pass)."""
    infer = _EXPECTED.get(ctx.instruction.opcode)
    if infer is None or ctx.shape.tuple_shapes is not None:
        return
    if any(operand.shape.tuple_shapes is not None for operand in ctx.operands):
        return
    expected = infer(ctx)
    if expected != ctx.shape.dimensions:
        raise ValueError(
            f"the output is {ctx.shape} but the operands and attributes give "
            f"dimensions {list(expected)}"
        )
