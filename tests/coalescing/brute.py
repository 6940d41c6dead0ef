"""Brute-force simulation of XLA's loop emitter: every thread of the launch,
every unroll id, the operand element it reads (by the op's semantics,
written per test in plain Python) and that element's byte address in the
operand's buffer (minor-to-major and tiles, written here from the layout
rules), grouped into warp requests."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass

from verifier.expr import IndexingMap

WARP = 32
SECTOR_BITS = 256
RESIDENT_THREADS = 1536 * 84  # RTX A6000


def loop_launch(elements: int, unroll: int) -> tuple[int, int]:
    """(threads per block, blocks) of XLA's loop emitter."""
    work = -(-elements // unroll)
    threads = min(128, work)
    return threads, -(-work // threads)


def unroll_of(elements: int, output_bits: int, blocked: bool = False) -> int:
    unroll = 1
    if elements >= RESIDENT_THREADS and not blocked:
        unroll = 4 if elements % 4 == 0 else 2 if elements % 2 == 0 else 1
    return max(unroll, -(-8 // output_bits))


def delinearize(linear: int, dims: Sequence[int], minor_to_major: Sequence[int]) -> tuple[int, ...]:
    index = [0] * len(dims)
    for d in minor_to_major:
        index[d] = linear % dims[d]
        linear //= dims[d]
    return tuple(index)


def nested_offset(
    index: Sequence[int],
    dims: Sequence[int],
    minor_to_major: Sequence[int],
    tiles: Sequence[Sequence[int]],
) -> int:
    """Element offset under any number of tilings, from XLA's tiled-layout
    document: dims in physical order; each tiling in turn splits the suffix
    of the current dims it covers (leading 1-dims added when it has more
    dims than there are) into tile-grid dims then in-tile dims; the offset
    is the row-major index in the final dims."""
    sizes = [dims[d] for d in reversed(minor_to_major)]
    coords = [index[d] for d in reversed(minor_to_major)]
    for tile in tiles:
        k = len(tile)
        if k > len(sizes):
            sizes = [1] * (k - len(sizes)) + sizes
            coords = [0] * (k - len(coords)) + coords
        head = len(sizes) - k
        grid = [-(-s // t) for s, t in zip(sizes[head:], tile, strict=True)]
        coords = (
            coords[:head]
            + [c // t for c, t in zip(coords[head:], tile, strict=True)]
            + [c % t for c, t in zip(coords[head:], tile, strict=True)]
        )
        sizes = sizes[:head] + grid + list(tile)
    linear = 0
    for c, s in zip(coords, sizes, strict=True):
        linear = linear * s + c
    return linear


def offset(
    index: Sequence[int],
    dims: Sequence[int],
    minor_to_major: Sequence[int],
    tile: Sequence[int] = (),
) -> int:
    """Element offset: dims in physical order, then one tiling of the most
    minor ``len(tile)`` dims (tile grid row-major, then in-tile row-major)."""
    order = list(reversed(minor_to_major))
    sizes = [dims[d] for d in order]
    coords = [index[d] for d in order]
    if tile:
        k = len(tile)
        grid = [-(-s // t) for s, t in zip(sizes[-k:], tile, strict=True)]
        coords = (
            coords[:-k]
            + [c // t for c, t in zip(coords[-k:], tile, strict=True)]
            + [c % t for c, t in zip(coords[-k:], tile, strict=True)]
        )
        sizes = sizes[:-k] + grid + list(tile)
    linear = 0
    for c, s in zip(coords, sizes, strict=True):
        linear = linear * s + c
    return linear


@dataclass(frozen=True)
class Simulated:
    requests: int
    minimum: int
    maximum: int
    total: int
    at_ideal: int


def simulate(
    output_dims: Sequence[int],
    output_minor_to_major: Sequence[int],
    unroll: int,
    reads: Callable[[tuple[int, ...]], list[tuple[int, int]]],
    element_bits: int,
) -> Simulated:
    """`reads(output index)`: the (load id, element offset) pairs the
    operand gives that output element."""
    elements = 1
    for d in output_dims:
        elements *= d
    threads, blocks = loop_launch(elements, unroll)
    requests: dict[tuple[tuple[int, int], int], set[int]] = defaultdict(set)
    for block in range(blocks):
        for thread in range(threads):
            warp = (block, thread // WARP)
            for u in range(unroll):
                linear = (block * threads + thread) * unroll + u
                if linear >= elements:
                    continue
                index = delinearize(linear, output_dims, output_minor_to_major)
                for load, element in reads(index):
                    requests[(warp, load)].add(element)
    return _summary(requests.values(), element_bits)


def simulate_launch(
    threads: int,
    blocks: int,
    loads: Callable[[int, int], Iterable[tuple[Hashable, int]]],
    element_bits: int,
) -> Simulated:
    """Any launch: `loads(block, thread)` gives the (load id, element offset)
    pairs a thread reads; a request is one warp's load id."""
    requests: dict[tuple[int, int, Hashable], set[int]] = defaultdict(set)
    for block in range(blocks):
        for thread in range(threads):
            for load, element in loads(block, thread):
                requests[(block, thread // WARP, load)].add(element)
    return _summary(requests.values(), element_bits)


def _summary(groups: Iterable[set[int]], element_bits: int) -> Simulated:
    sectors = []
    for touched in groups:
        count = len({e * element_bits // SECTOR_BITS for e in touched})
        ideal = -(-len(touched) * element_bits // SECTOR_BITS)
        sectors.append((count, ideal))
    return Simulated(
        len(sectors),
        min(s for s, _ in sectors),
        max(s for s, _ in sectors),
        sum(s for s, _ in sectors),
        sum(1 for s, i in sectors if s == i),
    )


def writes(thread_to_output: IndexingMap) -> Counter[tuple[int, ...]]:
    """How many (thread, block, symbols) points write each output index."""
    return Counter(thread_to_output.evaluate(p) for p in thread_to_output.domain_points())
