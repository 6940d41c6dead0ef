"""Brute force for tiles: the elements an output tile reads, enumerated from
an operation's semantics written here in plain Python (never from the tool's
maps), and whether they form the tile's strided box.

A tile is judged at every tile position: the elements read ``F`` must be a
box of the tool's sizes and strides (at some offset: tiles at the edge of a
concatenated operand start before it) intersected with the elements the operation reads at all — ``exact``; when
``F`` fits in that box but does not fill it, ``covering``; else
``refuted``.  A tile that reads nothing is judged, given the tool's anchor
(where its map puts the tile's origin), by the box there: ``covering``
when the box holds an element read elsewhere."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from verifier.analysis import ModuleMaps
from verifier.expr import IndexingMap, dim, point_value
from verifier.hlo import parse_module
from verifier.tiling.derive import NoTile, SymbolicTile, derive_tile

Index = tuple[int, ...]
Reads = Callable[..., AbstractSet[Index]]


def entry_maps(text: str) -> list[Any]:
    """The single o2i map of each operand of the entry ROOT (None when not
    exactly one)."""
    module = parse_module(text)
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    found = []
    for _, composed in view.o2i(view.outputs[0]):
        found.append(
            composed.maps[0].map
            if isinstance(composed.maps, tuple) and len(composed.maps) == 1
            else None
        )
    return found


def tile_of(text: str, operand: int = 0) -> SymbolicTile | NoTile:
    return derive_tile(entry_maps(text)[operand])


def anchor_of(indexing_map: IndexingMap) -> Callable[..., Index]:
    """The tool's claim of a tile's first element: each result of its map
    at the tile's origin (no runtime variables)."""
    rank = indexing_map.num_dims
    values = [point_value([dim(i) for i in range(rank)], [], e) for e in indexing_map.results]

    def at(*origin: int) -> Index:
        found = [None if value is None else value(*origin) for value in values]
        assert None not in found, indexing_map
        return tuple(v for v in found if v is not None)

    return at


def judge(
    tile: SymbolicTile,
    reads: Reads,
    output_shape: Sequence[int],
    sizes: Sequence[int],
    anchor: Callable[..., Index] | None = None,
) -> str:
    """``exact``, ``covering`` or ``refuted`` for the tile of `sizes`."""
    image: set[Index] = set()
    for index in itertools.product(*(range(n) for n in output_shape)):
        image |= reads(index)
    box_sizes, strides = tile.box_sizes(sizes), tile.box_strides(sizes)
    verdict = "exact"
    counts = [-(-n // t) for n, t in zip(output_shape, sizes, strict=True)]
    for position in itertools.product(*(range(c) for c in counts)):
        ranges = [
            range(p * t, min((p + 1) * t, n))
            for p, t, n in zip(position, sizes, output_shape, strict=True)
        ]
        read: set[Index] = set()
        for index in itertools.product(*ranges):
            read |= reads(index)
        if not read:
            if (
                anchor is not None
                and _box(anchor(*(r.start for r in ranges)), box_sizes, strides) & image
            ):
                verdict = "covering"
            continue
        best = "refuted"
        for first in _offsets(read, box_sizes, strides):
            box = _box(first, box_sizes, strides)
            if read == box & image:
                best = "exact"
                break
            if read <= box:
                best = "covering"
        if best == "refuted":
            return best
        if best == "covering":
            verdict = best
    return verdict


def _box(first: Index, sizes: Sequence[int], strides: Sequence[int]) -> set[Index]:
    return {
        tuple(o + k * s for o, k, s in zip(first, ks, strides, strict=True))
        for ks in itertools.product(*(range(n) for n in sizes))
    }


def _offsets(
    read: set[Index], sizes: Sequence[int], strides: Sequence[int]
) -> Iterable[tuple[int, ...]]:
    """Every offset whose box of these sizes and strides may hold `read`."""
    per_dim: list[Iterable[int]] = []
    for j, (n, stride) in enumerate(zip(sizes, strides, strict=True)):
        coordinates = [x[j] for x in read]
        low, high = min(coordinates), max(coordinates)
        if stride == 0 or n <= 1:
            per_dim.append([low] if low == high else [])
        elif stride > 0:
            per_dim.append(range(high - (n - 1) * stride, low + 1))
        else:
            per_dim.append(range(high, low - (n - 1) * stride + 1))
    return itertools.product(*per_dim)


def space(shape: Sequence[int]) -> list[tuple[int, ...]]:
    """Every size vector up to the shape (small shapes only)."""
    return list(itertools.product(*(range(1, n + 1) for n in shape)))


def check_condition(
    tile: SymbolicTile,
    reads: Reads,
    output_shape: Sequence[int],
    anchor: Callable[..., Index] | None = None,
) -> dict[tuple[int, ...], str]:
    """Judge every size vector; assert the tile's condition admits only
    exact ones.  Returns the verdicts."""
    verdicts = {
        sizes: judge(tile, reads, output_shape, sizes, anchor) for sizes in space(output_shape)
    }
    wrong = [s for s, v in verdicts.items() if tile.holds(s) and v != "exact"]
    assert not wrong, (
        f"condition admits {wrong[:5]}, which brute force finds {[verdicts[s] for s in wrong[:5]]}"
    )
    return verdicts
