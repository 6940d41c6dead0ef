"""The bitcast rule, by bits: a bitcast reinterprets its operand's buffer,
so an element of one side relates to every element of the other side whose
bits overlap its bits.

An element at physical offset ``p`` (`verifier.indexing.layout`) of a
buffer with ``w``-bit slots holds bits ``[p * w, (p + 1) * w)``.  With
``g = gcd(w_source, w_target)``, ``a = w_source / g`` and ``b = w_target / g``
the source element at offset ``p`` overlaps the target slots
``q in [(p * a) floordiv b, ((p + 1) * a - 1) floordiv b]``:

* equal widths: ``q = p`` (1:1);
* an ``s8`` read as ``s4[…]{…:E(4)}`` (``a = 2``, ``b = 1``): ``q = p * 2 + s0``,
  ``s0 in [0, 1]`` — one ``s8`` holds two packed ``s4``;
* an ``s4`` read as ``s8`` (``a = 1``, ``b = 2``): ``q = p floordiv 2``;
* other ratios (6-bit and 8-bit slots): ``q = (p * a) floordiv b + s0`` with
  the constraint that ``q`` stays below the upper end.

The target slot ``q`` is then the target element stored there
(`logical_index`): slots of tile padding or past the buffer's end hold no
element, so they relate to nothing.

When both buffers span the same bits, the relation has a simpler form with
no linear offset in between: the final tiled shapes of both sides
(`tiled_coordinates`), each with a minor dim of its ``a`` (``b``) units per
slot, are two shapes of one row-major buffer, so one is a reshape of the
other — untiled, transpose ∘ reshape ∘ transpose
(``f32[24]{0}`` bitcast of ``f32[4,6]{0,1}`` reads ``(d0) -> (d0 mod 4,
d0 floordiv 4)``); tiled, ``f32[1,64,256]{2,1,0:T(8,128)}`` bitcast of
``f32[64,256]{1,0:T(8,128)}`` reads ``(d0, d1, d2) -> ((d1 floordiv 8) * 8 +
d1 mod 8, (d2 floordiv 128) * 128 + d2 mod 128)`` before simplification,
which a solver proves equal to ``(d1, d2)`` whatever the sizes.
"""

from __future__ import annotations

from math import gcd, prod

from verifier.errors import UnsupportedError
from verifier.expr import Expr, IndexingMap, Interval, Undefined, Variable, compose, range_var
from verifier.hlo import Shape
from verifier.indexing.layout import (
    element_at,
    logical_index,
    physical_offset,
    slot_bits,
    tiled_coordinates,
)
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.reshape import reshape_indices
from verifier.indexing.shapes import dims_box


def overlapping_slots(offset: IndexingMap, source_bits: int, target_bits: int) -> IndexingMap:
    """``(d…) -> (p)`` with ``source_bits``-bit slots as the map to every
    ``target_bits``-bit slot ``q`` whose bits overlap slot ``p``'s.

    >>> from verifier.expr import parse_map
    >>> offset = parse_map("(d0) -> (d0), domain: d0 in [0, 7]")
    >>> str(overlapping_slots(offset, 8, 4)).splitlines()[0]
    '(d0)[s0] -> (d0 * 2 + s0),'
    >>> str(overlapping_slots(offset, 4, 8)).splitlines()[0]
    '(d0) -> (d0 floordiv 2),'
    """
    unit = gcd(source_bits, target_bits)
    a, b = source_bits // unit, target_bits // unit
    (p,) = offset.results
    if a == 1:  # the source slot lies within one target slot
        return offset.replaced(results=[p // b])
    symbol = range_var(len(offset.range_vars))
    if b == 1:  # the source slot holds exactly `a` target slots
        return _with_symbol(offset, p * a + symbol, a, [])
    first, last = (p * a) // b, ((p + 1) * a - 1) // b
    count = -(-a // b) + 1
    return _with_symbol(
        offset, first + symbol, count, [(last - first - symbol, Interval(0, count - 1))]
    )


def _with_symbol(
    offset: IndexingMap,
    result: Expr,
    count: int,
    constraints: list[tuple[Expr, Interval]],
) -> IndexingMap:
    return offset.replaced(
        results=[result],
        range_vars=[*offset.range_vars, Variable(Interval(0, count - 1))],
        constraints=[*offset.constraints, *constraints],
    )


def bitcast_map(source: Shape, target: Shape) -> Indexing:
    """Element ``d`` of `source` → the `target` elements whose bits overlap
    its bits, when `source` and `target` are the two sides of one buffer.

    ``s8[8]{0}`` read as ``s4[16]{0:E(4)}``: ``(d0)[s0] -> (d0 * 2 + s0)``,
    ``s0 in [0, 1]``.  `Undefined` for a layout whose offsets are not
    modelled (split configs), or a tuple on either side (XLA reads one; its
    buffers are not one array).
    """
    if source.tuple_shapes is not None or target.tuple_shapes is not None:
        return Undefined(f"a bitcast between {source} and {target}: a tuple is not one buffer")
    try:
        source_bits, target_bits = slot_bits(source), slot_bits(target)
        local = _reshaped(source, target, source_bits, target_bits)
        if local is not None:
            return (local,)
        slots = overlapping_slots(physical_offset(source), source_bits, target_bits)
        return (compose(slots, logical_index(target)),)
    except UnsupportedError as error:
        return Undefined(str(error))


def _reshaped(
    source: Shape, target: Shape, source_bits: int, target_bits: int
) -> IndexingMap | None:
    """The relation as a reshape between the final tiled shapes, each with a
    minor dim of its ``w / gcd`` units per slot; None when the two spans of
    units differ (then only the linear offsets line up)."""
    unit = gcd(source_bits, target_bits)
    a, b = source_bits // unit, target_bits // unit
    coordinates = tiled_coordinates(source)
    target_sizes = tiled_coordinates(target).sizes
    if prod(coordinates.sizes) * a != prod(target_sizes) * b:
        return None
    indices, sizes = list(coordinates.indices), coordinates.sizes
    range_vars: list[Interval] = []
    if a > 1:  # every unit of the source slot
        indices.append(range_var(0))
        sizes += (a,)
        range_vars.append(Interval(0, a - 1))
    reshaped = reshape_indices(indices, sizes, target_sizes + ((b,) if b > 1 else ()))
    logical, padding = element_at(target, reshaped[: len(target_sizes)])
    return IndexingMap.create(dims_box(source), logical, range_vars=range_vars, constraints=padding)


def _bitcast_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    # One operand leaf, or (a tuple on a side) the same UNDEFINED for each.
    found = bitcast_map(ctx.shape, ctx.operand_shape(0))
    return tuple(found for _ in ctx.operand_leaves)


def _bitcast_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    found = bitcast_map(ctx.operand_shape(0), ctx.shape)
    return tuple(found for _ in ctx.output_shapes)


register("bitcast")(OpRule(_bitcast_o2i, _bitcast_i2o))
