"""Which logical element sits at each offset of a tiled buffer, by walking
the buffer (test support; shares no code with `verifier.indexing.layout`).

The buffer is the row-major enumeration of the final tiled shape; each
coordinate is mapped back level by level (the last tiling first): in-tile
coordinate ``r`` of grid coordinate ``q`` is element ``q * t + r`` of the
level below, or padding when that is past the dim's size.
"""

from __future__ import annotations

import itertools

from verifier.hlo import Shape


def element_at_offsets(shape: Shape) -> dict[int, tuple[int, ...]]:
    """Offset → logical index, for every offset holding an element (not padding)."""
    layout = shape.layout_or_default
    order = list(reversed(layout.minor_to_major))
    levels = [[shape.dimensions[k] for k in order]]
    for tile in layout.tiles:
        below = levels[-1]
        keep = len(below) - len(tile.dimensions)
        grid = [(d + t - 1) // t for d, t in zip(below[keep:], tile.dimensions, strict=True)]
        levels.append(below[:keep] + grid + list(tile.dimensions))
    found: dict[int, tuple[int, ...]] = {}
    for offset, coordinate in enumerate(itertools.product(*(range(n) for n in levels[-1]))):
        point: list[int] | None = list(coordinate)
        for tile, below in zip(reversed(layout.tiles), reversed(levels[:-1]), strict=True):
            assert point is not None
            rank = len(tile.dimensions)
            keep = len(below) - rank
            grid, inner = point[keep : keep + rank], point[keep + rank :]
            element = [q * t + r for q, r, t in zip(grid, inner, tile.dimensions, strict=True)]
            if any(e >= d for e, d in zip(element, below[keep:], strict=True)):
                point = None
                break
            point = point[:keep] + element
        if point is None:
            continue
        logical = [0] * shape.rank
        for position, k in enumerate(order):
            logical[k] = point[position]
        found[offset] = tuple(logical)
    return found
