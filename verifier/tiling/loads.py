"""The bytes one tile loads from an operand's buffer, from its physical
layout: the memory tiles of the layout's first tiling ``T(t…)`` that hold an
element of the tile's box, each whole (its padding slots included), times
the slot width (``E(n)``, else the type's bytes); without ``T(…)``, the box's
elements inside the operand, each one slot.

The first tiling ``T(t_1 … t_k)`` tiles the ``k`` most minor dims in
physical order (the reverse of ``minor_to_major``), so the memory tiles a
box touches are a product over the operand's dims of the distinct
``e floordiv t`` of the box's coordinates ``e`` along each (``t = 1`` on a
dim it does not tile).  The box at tile position ``p`` starts where the read
map puts ``d = p * sizes``; a tile at another position may straddle more
memory tiles, so the answer is the most over every position — dims whose
offsets depend on disjoint output dims are maximised apart (exactly: the
count is their product).  A runtime offset (a dynamic slice) may sit at any
alignment: those dims take the most over every alignment.

``f32[16,256]{1,0:T(8,128)}``, box 4 × 256 at row ``4 p``: rows ``4p …
4p + 3`` lie in one row of memory tiles, the columns in 2, so 2 tiles of
8 × 128 slots: 8192 bytes — twice the 4096 bytes of its elements.

>>> from verifier.expr import parse_map
>>> from verifier.hlo import parse_shape
>>> from verifier.tiling.derive import derive_tile
>>> read = parse_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 15], d1 in [0, 255]")
>>> tile = derive_tile(read)
>>> tile_bytes(parse_shape("f32[16,256]{1,0:T(8,128)}"), read, tile, (4, 256))
8192
>>> tile_bytes(parse_shape("f32[16,256]{1,0}"), read, tile, (4, 256))
4096
>>> tile_bytes(parse_shape("f32[16,256]{0,1:T(8,128)}"), read, tile, (4, 256))  # 32 × 1 tiles
131072
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from math import prod

from verifier.analysis.layout import COMBINED, offset_extent, slot_bits
from verifier.expr import IndexingMap, VarKind, dim, range_var, rt_var, variables_of
from verifier.hlo import Shape
from verifier.tiling.derive import SymbolicTile
from verifier.tiling.proof import tile_counts

# The most tile positions of one group of linked output dims enumerated.
POSITION_LIMIT = 1 << 16


def tile_bytes(
    operand: Shape, read: IndexingMap, tile: SymbolicTile, sizes: Sequence[int]
) -> int | None:
    """The most bytes a tile of `sizes` loads from `operand` (read through
    `read`, as `tile`'s box); None where the layout combines dims (``*``)
    or a group of linked dims has more than `POSITION_LIMIT` positions."""
    layout = _memory_tile(operand)
    if layout is None:
        return None
    per_dim, slots = layout
    try:
        bits = slot_bits(operand)
    except ValueError:
        return None
    box_sizes, strides = tile.box_sizes(sizes), tile.box_strides(sizes)
    counts = tile_counts(tile.output_shape, sizes)
    # Symbols at their least (where the box starts); runtime values at any
    # (their results are counted over every alignment below).
    lowest = {range_var(k): v.bounds.lower for k, v in enumerate(read.range_vars)}
    lowest |= {rt_var(k): v.bounds.lower for k, v in enumerate(read.rt_vars)}
    rank = read.num_dims
    extents = operand.dimensions
    total = 1
    # Results linked by the output dims their offsets depend on.
    groups: list[tuple[frozenset[int], tuple[int, ...]]] = []
    for j, result in enumerate(read.results):
        variables = variables_of(result)
        if any(v.kind is VarKind.RT for v in variables):
            t = per_dim[j]
            total *= max(_grid_count(o, box_sizes[j], strides[j], t, None) for o in range(t))
            continue
        dims = frozenset(v.index for v in variables if v.kind is VarKind.DIM)
        members: tuple[int, ...] = (j,)
        for group in [g for g in groups if g[0] & dims]:
            groups.remove(group)
            dims, members = dims | group[0], group[1] + members
        groups.append((dims, members))
    for dims, members in groups:
        order = sorted(dims)
        if prod(counts[i] for i in order) > POSITION_LIMIT:
            return None
        most = 0
        for chosen in itertools.product(*(range(counts[i]) for i in order)):
            origin = read.evaluate(
                {dim(i): chosen[order.index(i)] * sizes[i] if i in dims else 0 for i in range(rank)}
                | lowest
            )
            count = 1
            for j in members:
                count *= _grid_count(origin[j], box_sizes[j], strides[j], per_dim[j], extents[j])
            most = max(most, count)
        total *= most
    return -(-total * slots * bits // 8)


def _memory_tile(shape: Shape) -> tuple[tuple[int, ...], int] | None:
    """Per logical dim, the first tiling's tile size along it (1 where it
    tiles nothing), and the slots of one memory tile (the later tilings'
    padding included); None where the tile combines dims."""
    layout = shape.layout_or_default
    rank = shape.rank
    if not layout.tiles:
        return (1,) * rank, 1
    tile = layout.tiles[0].dimensions
    if any(t in COMBINED for t in tile):
        return None
    physical = tuple(reversed(layout.minor_to_major))
    per_dim = [1] * rank
    for position, logical in enumerate(physical):
        k = position - (rank - len(tile))
        if k >= 0:
            per_dim[logical] = tile[k]
    # Later tilings may pad inside a memory tile: its slots are the buffer's
    # offsets over the number of memory tiles.
    tiles = prod(-(-n // t) for n, t in zip(shape.dimensions, per_dim, strict=True))
    return tuple(per_dim), offset_extent(shape) // tiles


def _grid_count(offset: int, size: int, stride: int, tile: int, extent: int | None) -> int:
    """The distinct ``e floordiv tile`` of ``e = offset + q * stride``,
    ``0 ≤ q < size``, inside ``[0, extent)`` (no bound when None)."""
    return len(
        {
            e // tile
            for e in (offset + q * stride for q in range(size))
            if extent is None or 0 <= e < extent
        }
    )
