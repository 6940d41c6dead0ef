"""Ops that pass arrays through unchanged, leaf by leaf: tuple,
get-tuple-element, copy (of an array or a whole tuple), the barriers and
annotations, and the plumbing of asynchronous pairs.

Each output leaf either *is* one operand leaf (identity maps both ways) or
reads nothing (an asynchronous context, a ``u32[]`` handle).  ``g =
(f32[4], f32[2,3]) get-tuple-element(((f32[4], f32[2,3]), f32[4]) t),
index=0``: output 1 (``{1}``) is operand leaf ``{0,1}`` of ``t``, read by
``(d0, d1) -> (d0, d1)`` on d0 ∈ [0, 1], d1 ∈ [0, 2]; the other operand
leaves are not read by it.
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.expr import IndexingMap, Undefined
from verifier.hlo import Shape, ShapeIndex
from verifier.indexing.leaves import OutputLeaf
from verifier.indexing.registry import Indexing, OpContext, OpRule, register, remember_last

Locate = Callable[[OpContext, ShapeIndex], tuple[int, ShapeIndex] | Undefined | None]
"""Output shape index → (operand number, shape index in it) it passes
through, None when that output leaf reads nothing, or Undefined when it is
made by something the op does not show (an async computation's result)."""


def _sources(ctx: OpContext, locate: Locate) -> tuple[int | Undefined | None, ...]:
    """Per output leaf: the operand leaf number it passes through, None, or Undefined."""
    by_place = {(leaf.operand, leaf.index): leaf for leaf in ctx.operand_leaves}
    sources: list[int | Undefined | None] = []
    for number, (index, shape) in enumerate(ctx.shape.leaves):
        place = locate(ctx, index)
        if place is None or isinstance(place, Undefined):
            sources.append(place)
            continue
        found = by_place.get(place)
        if found is None or found.shape.dimensions != shape.dimensions:
            output = OutputLeaf(number, index, shape)
            if found is None:
                raise ValueError(
                    f"{output.label} would pass operand {place[0]} at shape index "
                    f"{list(place[1])} through, which is not an array leaf of the operands"
                )
            raise ValueError(
                f"{output.label} is {output.shape} but passes {found.label}, "
                f"{found.shape}, through unchanged"
            )
        sources.append(found.number)
    return tuple(sources)


def forwarding_rule(locate: Locate) -> OpRule:
    """The rule of an op whose output leaves are operand leaves, found by `locate`."""

    sources = remember_last(lambda ctx: _sources(ctx, locate))

    def forwarded_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
        source = sources(ctx)[output]
        if isinstance(source, Undefined):
            return tuple(source for _ in ctx.operand_leaves)
        maps: list[Indexing] = [()] * len(ctx.operand_leaves)
        if source is not None:
            maps[source] = (IndexingMap.identity(ctx.output_shapes[output].dimensions),)
        return tuple(maps)

    def forwarded_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
        # The identity is made only for a leaf passed through: a
        # get-tuple-element of a state of 500 leaves is asked about each.
        found = sources(ctx)
        if operand not in found:
            return tuple(source if isinstance(source, Undefined) else () for source in found)
        identity = IndexingMap.identity(ctx.operand_leaves[operand].shape.dimensions)
        return tuple(
            source if isinstance(source, Undefined) else (identity,) if source == operand else ()
            for source in found
        )

    return OpRule(forwarded_o2i, forwarded_i2o, whole_tuples=True)


def _same_leaf_of_operand_0(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex]:
    return (0, index)


def _tuple_element(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex]:
    """Element ``k`` of ``tuple(a0, a1, …)`` is operand ``k``."""
    return (index[0], index[1:])


def _get_tuple_element(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex]:
    return (0, (ctx.instruction.integer("index"), *index))


def _element_of_operand_0(element: int) -> Locate:
    """The output is element `element` of operand 0 (the ``*-done`` of a pair)."""
    return lambda ctx, index: (0, (element, *index))


def _collective_done(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex]:
    """Element ``{1}`` of the start's pair, or the start itself when it is
    written as its result alone (an array)."""
    if ctx.operand_shape(0).tuple_shapes is None:
        return (0, index)
    return (0, (1, *index))


def _has_leaf(shape: Shape, index: ShapeIndex) -> bool:
    """Whether `index` names an array leaf of `shape`."""
    for k in index:
        if shape.tuple_shapes is None or not 0 <= k < len(shape.tuple_shapes):
            return False
        shape = shape.tuple_shapes[k]
    return shape.tuple_shapes is None


def _late_result(ctx: OpContext) -> Undefined:
    return Undefined(
        f"{ctx.instruction.opcode} of an async computation whose result its operand "
        "does not hold yet (operands bound late, by async-update): not composed"
    )


def _async_update(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex] | Undefined | None:
    """``((bound…, new…), result, context…) async-update(state, new…)``: the
    operands bound before are the state's, those bound here the new
    operands; the result is the state's, or the computation's when the
    state does not hold it yet; the contexts read nothing (as an
    async-start's: scheduling state, whose shape may change on the way)."""
    if index[0] >= 2:
        return None
    state = ctx.operand_shape(0)
    bound = state.tuple_shapes[0].tuple_shapes if state.tuple_shapes else None
    if index[0] == 0 and bound is not None and index[1] >= len(bound):
        return (1 + index[1] - len(bound), index[2:])
    return (0, index) if _has_leaf(state, index) else _late_result(ctx)


def _async_done(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex] | Undefined:
    """The result, element ``{1}`` of the state (or not held there yet)."""
    place = (1, *index)
    return (0, place) if _has_leaf(ctx.operand_shape(0), place) else _late_result(ctx)


def _copy_start(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex] | None:
    """``(destination, source, u32[] context) copy-start(x)``: both buffers hold x."""
    return (0, index[1:]) if index[0] in (0, 1) else None


register("tuple")(forwarding_rule(_tuple_element))
register("get-tuple-element")(forwarding_rule(_get_tuple_element))
# The output is operand 0 unchanged: a copy; a barrier or domain that only
# constrains scheduling or sharding; add-dependency, whose second operand is
# a token ordering it; an async-update, which passes its whole state on; an
# all-reduce-done, whose start already holds the reduced value.
register(
    "copy",
    "opt-barrier",
    "domain",
    "add-dependency",
    "all-reduce-done",
)(forwarding_rule(_same_leaf_of_operand_0))
register("async-update")(forwarding_rule(_async_update))
register("async-done")(forwarding_rule(_async_done))
register("copy-start")(forwarding_rule(_copy_start))
register("copy-done")(forwarding_rule(_element_of_operand_0(0)))
register("all-gather-done", "collective-permute-done")(forwarding_rule(_collective_done))
