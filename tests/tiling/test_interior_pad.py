"""Tiles of a pad with interior padding, judged by brute force.

A pad of an operand dim of ``n`` elements, low padding ``lo`` and interior
padding ``r - 1`` puts element ``i`` at output index ``lo + i * r``; every
other output index is padding and reads no element.  An output tile
``[a, a + t)`` reads the elements whose index falls in it.  As in XLA, an
operand tile is anchored where the pad's map puts the tile's origin:
``(a - lo) floordiv r``, the element at or before that index.  A tile size
``t`` is *exact* when one box size ``S`` and stride ``σ`` serve every tile
position: the elements a tile reads are ``{anchor + k * σ : k < S}``
within the elements the pad reads at all.  Brute force tries every ``S``
and ``σ``; the derived condition must admit exactly the exact sizes, and
where it admits one, the tile's own box (anchored by its map) fits.

The sweep's output ends at the pad's last element (no high padding), so
the map's domain is the whole output.  High padding, and a dim with one
element read, where tiles cover the output past the map's domain, are the
cases at the end (tests/tiling/test_output_shape.py sweeps them).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from tests.tiling.oracle import entry_maps
from verifier.expr import IndexingMap, dim, point_value
from verifier.tiling.derive import SymbolicTile, derive_tile
from verifier.tiling.proof import prove_sizes

Read = Callable[[int], set[int]]


def _pad_text(dims: Sequence[tuple[int, int, int, int]]) -> str:
    """A pad ROOT; each dim ``(n, lo, hi, r)``."""
    operand = ",".join(str(n) for n, _, _, _ in dims)
    out = ",".join(str(lo + hi + n + (n - 1) * (r - 1)) for n, lo, hi, r in dims)
    padding = "x".join(f"{lo}_{hi}_{r - 1}" for _, lo, hi, r in dims)
    return (
        f"HloModule pad\nENTRY main {{\n  q0 = f32[{operand}] parameter(0)\n"
        f"  q1 = f32[] parameter(1)\n"
        f"  ROOT o = f32[{out}] pad(q0, q1), padding={padding}\n}}"
    )


def _reads(n: int, lo: int, r: int) -> Read:
    def read(x: int) -> set[int]:
        shifted = x - lo
        return {shifted // r} if shifted % r == 0 and 0 <= shifted // r < n else set()

    return read


def _tiles(read: Read, extent: int, t: int) -> list[tuple[int, set[int]]]:
    """Each tile's origin and the elements it reads."""
    return [
        (a, set().union(*(read(x) for x in range(a, min(a + t, extent)))))
        for a in range(0, extent, t)
    ]


def _fits(
    tiles: list[tuple[int, set[int]]],
    image: set[int],
    anchor: Callable[[int], int],
    size: int,
    stride: int,
) -> bool:
    return all(got == {anchor(a) + k * stride for k in range(size)} & image for a, got in tiles)


def _map_anchor(indexing_map: IndexingMap, result: int) -> Callable[..., int]:
    """The tool's anchor: result `result` of its map at a tile's origin."""
    rank = indexing_map.num_dims
    value = point_value([dim(i) for i in range(rank)], [], indexing_map.results[result])
    assert value is not None

    def at(*origin: int) -> int:
        found = value(*origin)
        assert found is not None
        return found

    return at


def _exact_boxes(n: int, lo: int, r: int, extent: int, t: int) -> list[tuple[int, int]]:
    """Every ``(S, σ)`` whose box, at XLA's anchor, is what each tile of
    size `t` reads."""
    read = _reads(n, lo, r)
    image = set().union(*(read(x) for x in range(extent)))
    tiles = _tiles(read, extent, t)
    return [
        (size, stride)
        for size in range(1, extent + 1)
        for stride in ([0] if size == 1 else range(1, n + 1))
        if _fits(tiles, image, lambda a: (a - lo) // r, size, stride)
    ]


# Per dim (n, lo, r): every operand size 2..4, interior padding 0..3 (r 1
# is the control), low padding -3..3 leaving at least two elements read.
CONFIGS = [
    (n, lo, r)
    for r in range(1, 5)
    for n in range(2, 5)
    for lo in range(-3, 4)
    if sum(1 for i in range(n) if lo + i * r >= 0) >= 2
]


def test_interior_pad_condition_is_brute_force_truth() -> None:
    judged = {True: 0, False: 0}
    for n, lo, r in CONFIGS:
        # The tiled extent: up to the last element (the high padding cut
        # where low padding is negative).
        extent = lo + (n - 1) * r + 1
        (indexing_map, _) = entry_maps(_pad_text([(n, lo, 0, r)]))
        tile = derive_tile(indexing_map)
        if lo % r:
            # ``(d0 - lo) floordiv r`` is no digit of a dim: no tile (XLA
            # has none either).
            assert not isinstance(tile, SymbolicTile), (n, lo, r)
            continue
        assert isinstance(tile, SymbolicTile), (n, lo, r)
        anchor = _map_anchor(indexing_map, 0)
        read = _reads(n, lo, r)
        image = set().union(*(read(x) for x in range(extent)))
        for t in range(1, extent + 1):
            exact = bool(_exact_boxes(n, lo, r, extent, t))
            assert tile.holds((t,)) == exact, (n, lo, r, t, tile.condition_text())
            judged[exact] += 1
            if exact:
                (size,), (stride,) = tile.box_sizes((t,)), tile.box_strides((t,))
                assert _fits(_tiles(read, extent, t), image, anchor, size, stride), (n, lo, r, t)
    # Both verdicts occur: the sweep is not vacuous.
    assert judged == {True: 122, False: 72}


def test_two_dim_interior_pad_tiles_are_boxes_where_admitted() -> None:
    """Dim 0: 2 elements, low 2, interior 1; dim 1: 3 elements, interior 2
    — every size vector, each tile's 2-D read set against the product of
    the tile's boxes."""
    dims = [(2, 2, 0, 2), (3, 0, 0, 3)]
    (indexing_map, _) = entry_maps(_pad_text(dims))
    tile = derive_tile(indexing_map)
    assert isinstance(tile, SymbolicTile)
    extents = [lo + (n - 1) * r + 1 for n, lo, _, r in dims]
    reads = [_reads(n, lo, r) for n, lo, _, r in dims]
    images = [
        set().union(*(read(x) for x in range(e))) for read, e in zip(reads, extents, strict=True)
    ]
    anchors = [_map_anchor(indexing_map, j) for j in range(2)]
    admitted = 0
    for sizes in itertools.product(*(range(1, e + 1) for e in extents)):
        exact_per_dim = [
            bool(_exact_boxes(n, lo, r, e, t))
            for (n, lo, _, r), e, t in zip(dims, extents, sizes, strict=True)
        ]
        assert tile.holds(sizes) == all(exact_per_dim), sizes
        if not tile.holds(sizes):
            continue
        admitted += 1
        box_sizes, strides = tile.box_sizes(sizes), tile.box_strides(sizes)
        for origin in itertools.product(
            *(range(0, e, t) for e, t in zip(extents, sizes, strict=True))
        ):
            got = {
                (i, j)
                for x in range(origin[0], min(origin[0] + sizes[0], extents[0]))
                for y in range(origin[1], min(origin[1] + sizes[1], extents[1]))
                for i in reads[0](x)
                for j in reads[1](y)
            }
            first = [anchor(*origin) for anchor in anchors]
            box = {
                (first[0] + k0 * strides[0], first[1] + k1 * strides[1])
                for k0 in range(box_sizes[0])
                for k1 in range(box_sizes[1])
            }
            assert got == {p for p in box if p[0] in images[0] and p[1] in images[1]}, (
                sizes,
                origin,
            )
    # Whole blocks of r or the whole dim: t0 in {2, 4, 5}, t1 in {3, 6, 7}.
    assert admitted == 9


def _claims_hold(dims: tuple[int, int, int, int]) -> None:
    """Over the whole output: the condition admits exactly the exact sizes,
    and the tile's own box fits where it does."""
    n, lo, hi, r = dims
    (indexing_map, _) = entry_maps(_pad_text([dims]))
    extent = lo + hi + n + (n - 1) * (r - 1)
    tile = derive_tile(indexing_map, (extent,))
    assert isinstance(tile, SymbolicTile)
    anchor = _map_anchor(indexing_map, 0)
    read = _reads(n, lo, r)
    image = set().union(*(read(x) for x in range(extent)))
    for t in range(1, extent + 1):
        assert tile.holds((t,)) == bool(_exact_boxes(n, lo, r, extent, t)), t
        if tile.holds((t,)):
            (size,), (stride,) = tile.box_sizes((t,)), tile.box_strides((t,))
            assert _fits(_tiles(read, extent, t), image, anchor, size, stride), t


def test_high_padding_is_tiled_too() -> None:
    # f32[2] padded 0_1_1 to f32[4]: the map's domain ends at index 2, but
    # the tiles cover index 3 too.  A tile of 3 is no box: the second tile
    # [3, 4) reads nothing, yet its box, anchored at element 1, holds it.
    _claims_hold((2, 0, 1, 2))
    (indexing_map, _) = entry_maps(_pad_text([(2, 0, 1, 2)]))
    tile = derive_tile(indexing_map, (4,))
    assert isinstance(tile, SymbolicTile)
    read = _reads(2, 0, 2)
    assert _tiles(read, 4, 3) == [(0, {0, 1}), (3, set())]
    proof = prove_sizes(indexing_map, tile, (3,))
    assert proof.verdict == "covering" and dict(proof.point)["p0"] == 1


def test_one_element_read_along_a_padded_dim() -> None:
    # f32[1] padded 1_0_0 to f32[2]: the map is (d0) -> (0) on d0 in [1, 1],
    # which anchors every tile at element 0.  A tile of 1 at index 0 reads
    # nothing, yet its box holds element 0: covering; only the tile of both
    # indices is exact.  (XLA keeps the map's d0 - 1 for a pad, anchoring
    # that tile at -1, outside the operand: there it is exact.)
    (indexing_map, _) = entry_maps(_pad_text([(1, 1, 0, 1)]))
    tile = derive_tile(indexing_map, (2,))
    assert isinstance(tile, SymbolicTile)
    anchor = _map_anchor(indexing_map, 0)
    read = _reads(1, 1, 1)
    image = {0}
    verdicts = []
    for t in (1, 2):
        (size,), (stride,) = tile.box_sizes((t,)), tile.box_strides((t,))
        tiles = _tiles(read, 2, t)
        exact = _fits(tiles, image, anchor, size, stride)
        assert tile.holds((t,)) == exact, t
        verdicts.append(prove_sizes(indexing_map, tile, (t,)).verdict)
    assert _tiles(read, 2, 1) == [(0, set()), (1, {0})] and anchor(0) == 0
    assert verdicts == ["covering", "exact"]
