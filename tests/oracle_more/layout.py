"""Which logical element sits at each offset of a tiled buffer, by walking
the buffer (test support; shares no code with `verifier.indexing.layout`).

The buffer is the row-major enumeration of the final tiled shape; each
coordinate is mapped back level by level (the last tiling first): in-tile
coordinate ``r`` of grid coordinate ``q`` is element ``q * t + r`` of the
level below, or padding when that is past the dim's size.  A tile size
``*`` (or ``-1``) folds its dim into the next minor one before tiling, so
an element of a folded dim is split back into the folded dims' coordinates
(``divmod`` from the most minor up).
"""

from __future__ import annotations

import itertools
import math

from verifier.hlo import Shape
from verifier.hlo.shape import COMBINE_DIMENSION


def _fold(sizes: list[int], tile: tuple[int, ...]) -> tuple[list[list[int]], list[int]]:
    """The tiled dims' sizes grouped by folding, and the tile of each group."""
    groups: list[list[int]] = [[]]
    tiles: list[int] = []
    for size, t in zip(sizes, tile, strict=True):
        groups[-1].append(size)
        if t not in (COMBINE_DIMENSION, -1):
            tiles.append(t)
            groups.append([])
    assert not groups.pop(), f"tile {tile} folds its most minor dim into nothing"
    return groups, tiles


def _unfold(element: int, sizes: list[int]) -> list[int]:
    coordinates = []
    for size in reversed(sizes):
        element, coordinate = divmod(element, size)
        coordinates.append(coordinate)
    return coordinates[::-1]


def _levels(shape: Shape) -> list[list[int]]:
    """The dims in physical order, then after each tiling."""
    layout = shape.layout_or_default
    levels = [[shape.dimensions[k] for k in reversed(layout.minor_to_major)]]
    for tile in layout.tiles:
        below = levels[-1]
        keep = len(below) - len(tile.dimensions)
        groups, tiles = _fold(below[keep:], tile.dimensions)
        grid = [(math.prod(g) + t - 1) // t for g, t in zip(groups, tiles, strict=True)]
        levels.append(below[:keep] + grid + tiles)
    return levels


def buffer_size(shape: Shape) -> int:
    """The number of element slots of the buffer, padding included."""
    return math.prod(_levels(shape)[-1])


def element_at_offsets(shape: Shape) -> dict[int, tuple[int, ...]]:
    """Offset → logical index, for every offset holding an element (not padding)."""
    layout = shape.layout_or_default
    order = list(reversed(layout.minor_to_major))
    levels = _levels(shape)
    found: dict[int, tuple[int, ...]] = {}
    for offset, coordinate in enumerate(itertools.product(*(range(n) for n in levels[-1]))):
        point: list[int] | None = list(coordinate)
        for tile, below in zip(reversed(layout.tiles), reversed(levels[:-1]), strict=True):
            assert point is not None
            keep = len(below) - len(tile.dimensions)
            groups, tiles = _fold(below[keep:], tile.dimensions)
            grid, inner = point[keep : keep + len(tiles)], point[keep + len(tiles) :]
            unfolded: list[int] = []
            for q, r, t, group in zip(grid, inner, tiles, groups, strict=True):
                element = q * t + r
                if element >= math.prod(group):
                    break
                unfolded += _unfold(element, group)
            else:
                point = point[:keep] + unfolded
                continue
            point = None
            break
        if point is None:
            continue
        logical = [0] * shape.rank
        for position, k in enumerate(order):
            logical[k] = point[position]
        found[offset] = tuple(logical)
    return found
