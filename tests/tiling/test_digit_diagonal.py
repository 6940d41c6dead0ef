"""Two results reading the same digit of one dim (a diagonal of a merged
dimension, ``(d0 mod 6, d0 mod 6)``): a tile of more than one element along
that dim reads a diagonal, no box.  Found by comparing with XLA's tile test
of the same shape of map (`verifier xla-tests`); judged here by enumerating
each tile's footprint."""

import itertools

from verifier.expr import parse_map
from verifier.tiling import SymbolicTile, derive_tile


def footprint(results, extent, size, position):
    return {results(d) for d in range(position * size, min((position + 1) * size, extent))}


def strided_box(offsets, sizes, strides):
    return {
        tuple(o + k * s for o, k, s in zip(offsets, ks, strides, strict=True))
        for ks in itertools.product(*(range(n) for n in sizes))
    }


def is_box(elements):
    """Whether `elements` (two-dimensional, a few) is some strided box."""
    points = sorted(elements)
    return any(
        strided_box(origin, sizes, strides) == elements
        for strides in itertools.product(range(-2, 3), repeat=2)
        for sizes in itertools.product(range(1, len(points) + 1), repeat=2)
        for origin in points
    )


def check(text, results, extent):
    """Where the tile's condition holds, every tile's box (kept to the
    elements the map reads at all, as `verifier.tiling` defines it) is
    exactly the tile's footprint."""
    tile = derive_tile(parse_map(text))
    assert isinstance(tile, SymbolicTile)
    image = {results(d) for d in range(extent)}
    for size in range(1, extent + 1):
        if not tile.holds((size,)):
            continue
        for p in range(-(-extent // size)):
            box = strided_box(results(p * size), tile.box_sizes((size,)), tile.box_strides((size,)))
            assert footprint(results, extent, size, p) == box & image
    return tile


def test_the_same_digit_twice_is_a_diagonal():
    tile = check(
        "(d0) -> (d0 mod 6, d0 mod 6), domain: d0 in [0, 10]",
        lambda d: (d % 6, d % 6),
        11,
    )
    assert [t for t in range(1, 12) if tile.holds((t,))] == [1]
    # A tile of 3 reads (0, 0), (1, 1), (2, 2): no box.
    assert not is_box(footprint(lambda d: (d % 6, d % 6), 11, 3, 0))


def test_digits_of_a_merged_dimension_stay_tileable():
    tile = check(
        "(d0) -> (d0 floordiv 6, d0 mod 6), domain: d0 in [0, 23]",
        lambda d: (d // 6, d % 6),
        24,
    )
    assert [t for t in range(1, 25) if tile.holds((t,))] == [1, 2, 3, 6, 12, 18, 24]
