"""Physical layouts as indexing maps: logical index → linear offset in the
buffer, tile padding included (SPEC §5).

The dims are first put in physical order (most major first, the reverse of
``minor_to_major``).  A tiling ``T(t…)`` applies to the ``len(t)`` most minor
dims: element ``e`` of a dim of size ``d`` with tile size ``t`` goes to
``(e floordiv t, e mod t)`` in ``(ceil(d / t), t)``, the tile-grid dims
before the in-tile dims; a second tiling applies to the result of the first
(so to the in-tile dims of ``T(8,128)(2,1)``).  The offset is the row-major
linear index in the final shape.

``f32[3,5]{1,0:T(2,2)}``: ``(d0, d1) -> ((d0 floordiv 2) * 12 + (d1 floordiv 2) * 4
+ (d0 mod 2) * 2 + d1 mod 2)``; element (2, 3) is at offset 17.
"""

from __future__ import annotations

from verifier.expr.indexing_map import IndexingMap
from verifier.expr.nodes import Expr, const, dim
from verifier.hlo.shape import COMBINE_DIMENSION, Shape
from verifier.indexing.shapes import dims_box


def physical_offset(shape: Shape) -> IndexingMap:
    """The map from a logical index of `shape` to its linear physical offset.

    Raises `ValueError` for tiles this does not model: a ``*`` (combined
    dimension) or ``-1`` tile size, or a tile of higher rank than the shape.

    >>> from verifier.hlo.shape import parse_shape
    >>> m = physical_offset(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    >>> from verifier.expr.nodes import dim
    >>> m.evaluate({dim(0): 2, dim(1): 3})
    (17,)
    """
    layout = shape.layout_or_default
    order = list(reversed(layout.minor_to_major))
    indices: list[Expr] = [dim(k) for k in order]
    sizes = [shape.dimensions[k] for k in order]
    for tile in layout.tiles:
        if any(t == COMBINE_DIMENSION or t < 1 for t in tile.dimensions):
            raise ValueError(f"tile {tile} of {shape}: '*' and -1 tile sizes are not modelled")
        rank = len(tile.dimensions)
        if rank > len(sizes):
            raise ValueError(f"tile {tile} has more dimensions than {shape} after tiling")
        major_indices, minor_indices = indices[: len(sizes) - rank], indices[len(sizes) - rank :]
        major_sizes, minor_sizes = sizes[: len(sizes) - rank], sizes[len(sizes) - rank :]
        indices = (
            major_indices
            + [e // t for e, t in zip(minor_indices, tile.dimensions, strict=True)]
            + [e % t for e, t in zip(minor_indices, tile.dimensions, strict=True)]
        )
        sizes = (
            major_sizes
            + [-(-d // t) for d, t in zip(minor_sizes, tile.dimensions, strict=True)]
            + list(tile.dimensions)
        )
    offset: Expr = const(0)
    stride = 1
    for index, size in zip(reversed(indices), reversed(sizes), strict=True):
        offset = offset + index * stride
        stride *= size
    return IndexingMap.create(dims_box(shape), [offset])


def physical_size(shape: Shape) -> int:
    """The number of elements of the buffer, tile padding included.

    >>> from verifier.hlo.shape import parse_shape
    >>> physical_size(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    24
    """
    layout = shape.layout_or_default
    sizes = [shape.dimensions[k] for k in reversed(layout.minor_to_major)]
    for tile in layout.tiles:
        rank = len(tile.dimensions)
        major, minor = sizes[: len(sizes) - rank], sizes[len(sizes) - rank :]
        sizes = major + [-(-d // t) for d, t in zip(minor, tile.dimensions, strict=True)]
        sizes += list(tile.dimensions)
    total = 1
    for size in sizes:
        total *= size
    return total
