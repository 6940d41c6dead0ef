"""Physical layouts as indexing maps: logical index → linear offset in the
buffer, tile padding included, and back (XLA's tiled layout).

The dims are first put in physical order (most major first, the reverse of
``minor_to_major``).  A tiling ``T(t…)`` applies to the ``len(t)`` most minor
dims: element ``e`` of a dim of size ``d`` with tile size ``t`` goes to
``(e floordiv t, e mod t)`` in ``(ceil(d / t), t)``, the tile-grid dims
before the in-tile dims; a second tiling applies to the result of the first
(so to the in-tile dims of ``T(8,128)(2,1)``).  The offset is the row-major
linear index in the final shape.

``f32[3,5]{1,0:T(2,2)}``: ``(d0, d1) -> ((d0 floordiv 2) * 12 + (d1 floordiv 2) * 4
+ (d0 mod 2) * 2 + d1 mod 2)``; element (2, 3) is at offset 17.

Combined dimensions: a tile size ``*`` (XLA's ``Tile::kCombineDimension``;
the tiled-layout document writes the same sub-dimension as a tile value
``-1``, "not otherwise valid in a tile as a dimension size") removes that dim
from the tile and from the dims being tiled and multiplies it into the next
more minor one, before the tiling applies: ``f32[2,7,8,11,10]{4,3,2,1,0}``
with tile ``(*,*,2,*,3)`` is ``f32[112,110]`` tiled by ``(2,3)``, element
``(a, b, c, d, e)`` being ``((a * 7 + b) * 8 + c, d * 10 + e)`` there.

A tile with more dims than it is applied to sees the shape with leading
1-dims added (``s32[]{:T(128)}`` is ``s32[1]`` tiled by 128: 128 slots, the
scalar at offset 0), as XLA pads it.

`logical_index` is the exact inverse: offset → the logical index stored
there, undefined (outside the map's domain) on tile-padding slots.

The buffer (`buffer_elements`, `buffer_bytes`) is XLA's
``ShapeUtil::ArraySize``: the element count padded by the *first* tiling
only (XLA assumes later tilings add no padding; where one does, some
offsets lie past the buffer and `offset_extent` exceeds `buffer_elements`),
rounded up to a multiple of ``L(n)``, times the slot width (`slot_bits`:
``E(n)``, else the element type's width rounded up to whole bytes — an
``s4`` without ``E(4)`` takes a byte), in bytes rounded up:
``f32[9,128]{1,0:T(8)L(1024)}`` is 9 * 128 = 1152 elements, rounded up to
2048 (8192 bytes); ``s4[16]{0:E(4)}`` is 8 bytes.

Split configs (``SC(…)``) split the buffer across memories, and sparse
dimension levels (``D(D,C)``) store no dense array; their offsets are not
modelled (`UnsupportedError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from verifier.errors import UnsupportedError
from verifier.expr import Expr, IndexingMap, Interval, const, dim
from verifier.hlo import COMBINE_DIMENSION, Shape, Tile, element_bit_width
from verifier.indexing.shapes import dims_box

COMBINED = (COMBINE_DIMENSION, -1)
"""Tile sizes that combine a dim with the next minor one (``*`` and ``-1``)."""


@dataclass(frozen=True)
class _Tiling:
    """One tiling as applied to the dims it sees, after `leading` 1-dims were
    put in front of them (a tile of higher rank than the dims): the `kept`
    most major dims are untouched; the rest form `groups` (consecutive dims
    combined into one, major first), group ``j`` tiled by ``tile[j]``."""

    leading: int
    kept: int
    groups: tuple[tuple[int, ...], ...]
    tile: tuple[int, ...]

    @property
    def combined_sizes(self) -> tuple[int, ...]:
        return tuple(prod(group) for group in self.groups)

    def sizes_after(self, before: tuple[int, ...]) -> tuple[int, ...]:
        grid = (-(-d // t) for d, t in zip(self.combined_sizes, self.tile, strict=True))
        return before[: self.kept] + tuple(grid) + self.tile


def _tiling(tile: Tile, sizes: tuple[int, ...], shape: Shape) -> _Tiling:
    rank = len(tile.dimensions)
    leading = max(0, rank - len(sizes))
    sizes = (1,) * leading + sizes
    if not tile.dimensions:
        raise ValueError(f"the empty tile of {shape} tiles nothing")
    if tile.dimensions[-1] in COMBINED:
        raise ValueError(f"tile {tile} of {shape} combines its most minor dim with nothing")
    groups: list[tuple[int, ...]] = []
    sizes_of_tile: list[int] = []
    pending: tuple[int, ...] = ()
    for size, t in zip(sizes[len(sizes) - rank :], tile.dimensions, strict=True):
        pending += (size,)
        if t not in COMBINED:
            groups.append(pending)
            sizes_of_tile.append(t)
            pending = ()
    return _Tiling(leading, len(sizes) - rank, tuple(groups), tuple(sizes_of_tile))


def _physical_order(shape: Shape) -> tuple[int, ...]:
    return tuple(reversed(shape.layout_or_default.minor_to_major))


def _levels(shape: Shape) -> tuple[tuple[int, ...], tuple[tuple[_Tiling, tuple[int, ...]], ...]]:
    """The physical-order sizes, then each tiling with the sizes it produces."""
    if shape.layout_or_default.split_configs:
        raise UnsupportedError(
            f"{shape}: split configs split the buffer across memories; "
            "their offsets are not modelled"
        )
    if not shape.layout_or_default.is_dense:
        raise UnsupportedError(f"{shape}: a sparse layout has no dense offsets")
    first = tuple(shape.dimensions[k] for k in _physical_order(shape))
    sizes, levels = first, []
    for tile in shape.layout_or_default.tiles:
        tiling = _tiling(tile, sizes, shape)
        sizes = tiling.sizes_after(sizes)
        levels.append((tiling, sizes))
    return first, tuple(levels)


def _row_major(indices: list[Expr], sizes: tuple[int, ...]) -> Expr:
    linear: Expr = const(0)
    for index, size in zip(indices, sizes, strict=True):
        linear = linear * size + index
    return linear


def _row_major_split(linear: Expr, sizes: tuple[int, ...]) -> list[Expr]:
    """The coordinates of `linear` (known to be below ``prod(sizes)``) in `sizes`.

    An empty buffer (a size 0) has no offset to split: every coordinate is 0
    on the empty domain."""
    if 0 in sizes:
        return [const(0)] * len(sizes)
    coordinates: list[Expr] = []
    for position, size in enumerate(sizes):
        stride = prod(sizes[position + 1 :])
        coordinate = linear // stride if stride != 1 else linear
        if size == 1:
            coordinate = const(0)
        elif position > 0:
            coordinate = coordinate % size
        coordinates.append(coordinate)
    return coordinates


def physical_offset(shape: Shape) -> IndexingMap:
    """The map from a logical index of `shape` to its linear physical offset.

    Raises `ValueError` for tiles no valid layout has (empty, or a ``*`` on
    the most minor dim of a tile), `UnsupportedError` for split configs.

    >>> from verifier.hlo import parse_shape
    >>> from verifier.expr import dim
    >>> physical_offset(parse_shape("f32[3,5]{1,0:T(2,2)}")).evaluate({dim(0): 2, dim(1): 3})
    (17,)
    >>> combined = physical_offset(parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"))
    >>> point = {dim(0): 1, dim(1): 6, dim(2): 7, dim(3): 10, dim(4): 9}  # (111, 109) in [112,110]
    >>> combined.evaluate(point) == ((111 // 2 * 37 + 109 // 3) * 6 + 111 % 2 * 3 + 109 % 3,)
    True
    """
    coordinates = tiled_coordinates(shape)
    return IndexingMap.create(
        dims_box(shape), [_row_major(list(coordinates.indices), coordinates.sizes)]
    )


@dataclass(frozen=True)
class TiledCoordinates:
    """Where a logical element sits in the final tiled shape (every tiling
    applied, padding included): one index per dim of `sizes`; the offset is
    their row-major linear index."""

    indices: tuple[Expr, ...]
    sizes: tuple[int, ...]


def tiled_coordinates(shape: Shape) -> TiledCoordinates:
    """The coordinates of logical element ``(d0, …)`` in the final tiled shape.

    >>> from verifier.hlo import parse_shape
    >>> coordinates = tiled_coordinates(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    >>> [str(e) for e in coordinates.indices], coordinates.sizes
    (['d0 floordiv 2', 'd1 floordiv 2', 'd0 mod 2', 'd1 mod 2'], (2, 3, 2, 2))
    """
    first, levels = _levels(shape)
    indices: list[Expr] = [dim(k) for k in _physical_order(shape)]
    sizes = first
    for tiling, after in levels:
        indices = [const(0)] * tiling.leading + indices
        combined: list[Expr] = []
        start = tiling.kept
        for group in tiling.groups:
            combined.append(_row_major(indices[start : start + len(group)], group))
            start += len(group)
        indices = (
            indices[: tiling.kept]
            + [e // t for e, t in zip(combined, tiling.tile, strict=True)]
            + [e % t for e, t in zip(combined, tiling.tile, strict=True)]
        )
        sizes = after
    return TiledCoordinates(tuple(indices), sizes)


def offset_extent(shape: Shape) -> int:
    """The number of slots the offsets span: the final tiled shape's size,
    the padding of every tiling included (`logical_index`'s domain).

    >>> from verifier.hlo import parse_shape
    >>> offset_extent(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    24
    >>> offset_extent(parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"))  # 112 * 111
    12432
    >>> offset_extent(parse_shape("f32[3]{0:T(2)(4)}"))  # [2, 2] then [2, 1, 4]
    8
    """
    return prod(_final_sizes(shape))


def buffer_elements(shape: Shape) -> int:
    """The element slots of the buffer as XLA's ``ShapeUtil::ArraySize``
    counts them: the first tiling's padding, then ``L(n)``.

    >>> from verifier.hlo import parse_shape
    >>> buffer_elements(parse_shape("f32[9,128]{1,0:T(8,128)}"))
    2048
    >>> buffer_elements(parse_shape("f32[9,128]{1,0:T(8)L(1024)}"))
    2048
    >>> buffer_elements(parse_shape("f32[3]{0:T(2)(4)}"))  # the second tiling's padding is not
    4
    """
    first, levels = _levels(shape)
    elements = prod(levels[0][1] if levels else first)
    alignment = shape.layout_or_default.tail_padding_alignment
    return -(-elements // alignment) * alignment


def slot_bits(shape: Shape) -> int:
    """The bits one element slot takes in the buffer: ``E(n)``, else the
    element type's width rounded up to whole bytes (XLA's ``ByteWidth``).

    >>> from verifier.hlo import parse_shape
    >>> slot_bits(parse_shape("s4[16]{0:E(4)}")), slot_bits(parse_shape("s4[16]{0}"))
    (4, 8)
    >>> slot_bits(parse_shape("pred[2]")), slot_bits(parse_shape("bf16[2]"))
    (8, 16)
    """
    width = element_bit_width(shape.element_type)
    if width is None:
        raise ValueError(f"{shape}: element type '{shape.element_type}' has no width in memory")
    declared = shape.layout_or_default.element_size_in_bits
    if declared and declared < width:
        raise ValueError(
            f"{shape}: element size E({declared}) is narrower than a "
            f"{width}-bit {shape.element_type}"
        )
    return declared or -(-width // 8) * 8


def buffer_bytes(shape: Shape) -> int:
    """The bytes of the buffer: ``ceil(buffer_elements * slot_bits / 8)``.

    >>> from verifier.hlo import parse_shape
    >>> buffer_bytes(parse_shape("s4[16]{0:E(4)}")), buffer_bytes(parse_shape("s8[8]{0}"))
    (8, 8)
    >>> buffer_bytes(parse_shape("s32[]{:T(128)}"))
    512
    """
    return -(-buffer_elements(shape) * slot_bits(shape) // 8)


def logical_index(shape: Shape) -> IndexingMap:
    """The map from a physical offset (``d0`` in ``[0, offset_extent - 1]``) to
    the logical index of `shape` stored there; tile-padding offsets are
    outside its domain (its constraints keep every tiled element below its
    dim's size).  The exact inverse of `physical_offset`.

    >>> from verifier.hlo import parse_shape
    >>> from verifier.expr import dim
    >>> inverse = logical_index(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    >>> inverse.evaluate({dim(0): 17})
    (2, 3)
    >>> inverse.contains({dim(0): 14})  # tile (1, 0), in-tile (1, 0): row 3 of 3 is padding
    False
    """
    final = offset_extent(shape)
    logical, constraints = element_at(shape, _row_major_split(dim(0), _final_sizes(shape)))
    return IndexingMap.create([Interval(0, final - 1)], logical, constraints=constraints)


def _final_sizes(shape: Shape) -> tuple[int, ...]:
    first, levels = _levels(shape)
    return levels[-1][1] if levels else first


def element_at(
    shape: Shape, coordinates: Sequence[Expr]
) -> tuple[list[Expr], list[tuple[Expr, Interval]]]:
    """The logical index stored at `coordinates` of the final tiled shape
    (`tiled_coordinates`' sizes), and the constraints that keep the
    coordinates off tile padding.

    >>> from verifier.hlo import parse_shape
    >>> from verifier.expr import dim
    >>> logical, padding = element_at(parse_shape("f32[3,5]{1,0:T(2,2)}"), list(map(dim, range(4))))
    >>> [str(e) for e in logical], [f"{e} in {bounds}" for e, bounds in padding]
    (['d0 * 2 + d2', 'd1 * 2 + d3'], ['d0 * 2 + d2 in [0, 2]', 'd1 * 2 + d3 in [0, 4]'])
    """
    _, levels = _levels(shape)
    indices = list(coordinates)
    constraints: list[tuple[Expr, Interval]] = []
    for tiling, _ in reversed(levels):
        rank = len(tiling.tile)
        grid = indices[tiling.kept : tiling.kept + rank]
        inner = indices[tiling.kept + rank :]
        below: list[Expr] = []
        for q, r, t, group in zip(grid, inner, tiling.tile, tiling.groups, strict=True):
            element = q * t + r
            if prod(group) % t:
                constraints.append((element, Interval(0, prod(group) - 1)))
            below += _row_major_split(element, group)
        indices = indices[: tiling.kept] + below[tiling.leading :]
    logical: list[Expr] = [const(0)] * shape.rank
    for position, k in enumerate(_physical_order(shape)):
        logical[k] = indices[position]
    return logical, constraints
