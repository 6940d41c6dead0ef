"""One test per family of XLA's symbolic tile cases (dot, reshapes, elementwise,
broadcast, reduce, reverse, slice, transpose, concatenate, pad, dynamic
slice, gather, fusions of reshapes with reverses and reductions), on small
shapes of the same kind, judged by brute force (`tests.tiling.oracle`):
every size vector the derived condition admits must be exact, and isl's
verdict must be brute force's."""

from __future__ import annotations

import itertools

import pytest

from tests.tiling.oracle import check_condition, entry_maps, judge, tile_of
from verifier.tiling.derive import NoTile, SymbolicTile, derive_tile
from verifier.tiling.proof import prove_sizes


def _tile(text: str, operand: int = 0) -> SymbolicTile:
    tile = tile_of(text, operand)
    assert isinstance(tile, SymbolicTile), tile
    return tile


def _agree(text: str, reads, out_shape, sizes_list, operand: int = 0) -> None:
    """isl's verdict for each size vector is brute force's."""
    indexing_map = entry_maps(text)[operand]
    tile = derive_tile(indexing_map)
    assert isinstance(tile, SymbolicTile)
    for sizes in sizes_list:
        assert prove_sizes(indexing_map, tile, sizes).verdict == judge(
            tile, reads, out_shape, sizes
        ), sizes


DOT = """HloModule m
ENTRY e {
  p0 = f32[2,3,4] parameter(0)
  p1 = f32[2,4,5] parameter(1)
  ROOT dot = f32[2,3,5] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}"""


def test_dot_reads_whole_contracting_dimension():
    tile = _tile(DOT)
    assert tile.size_map() == "(d0, d1, d2) -> (d0, d1, 4)"
    lhs = lambda d: {(d[0], d[1], k) for k in range(4)}  # noqa: E731
    verdicts = check_condition(tile, lhs, (2, 3, 5))
    assert set(verdicts.values()) == {"exact"}
    rhs_tile = _tile(DOT, 1)
    rhs = lambda d: {(d[0], k, d[2]) for k in range(4)}  # noqa: E731
    assert set(check_condition(rhs_tile, rhs, (2, 3, 5)).values()) == {"exact"}
    _agree(DOT, lhs, (2, 3, 5), [(1, 2, 5), (2, 3, 4)])


MERGE = """HloModule m
ENTRY e {
  p0 = f32[1,4,3,2] parameter(0)
  ROOT r = f32[12,2] reshape(p0)
}"""


def test_merging_reshape_needs_aligned_tiles():
    tile = _tile(MERGE)
    # XLA's constraint shape: "3 mod d0 in [0, 0] || d0 mod 3 in [0, 0]".
    assert tile.condition_text() == "3 mod d0 in [0, 0] || d0 mod 3 in [0, 0]"
    reads = lambda d: {(0, d[0] // 3, d[0] % 3, d[1])}  # noqa: E731
    verdicts = check_condition(tile, reads, (12, 2))
    assert verdicts[(2, 2)] == "refuted"  # 2 crosses a row of 3
    xla = lambda s: 3 % s[0] == 0 or s[0] % 3 == 0  # noqa: E731
    assert all(tile.holds(s) == xla(s) for s in verdicts)
    _agree(MERGE, reads, (12, 2), [(6, 2), (2, 1), (4, 2)])


SPLIT = """HloModule m
ENTRY e {
  p0 = f32[24,2] parameter(0)
  ROOT r = f32[2,4,3,2] reshape(p0)
}"""


def test_splitting_reshape_collapses_into_one_progression():
    tile = _tile(SPLIT)
    reads = lambda d: {(d[0] * 12 + d[1] * 3 + d[2], d[3])}  # noqa: E731
    verdicts = check_condition(tile, reads, (2, 4, 3, 2))
    # XLA's condition (the same shape as its test's).  Where it admits a size
    # this condition rejects, the last tile along d1 runs past d1's end into
    # the next d0: the box only covers (XLA masks its loads by the output).
    xla = lambda s: (  # noqa: E731
        (s[0] == 1 and s[1] == 1)
        or (s[0] == 1 and s[2] in (1, 3))
        or (s[1] == 1 and s[2] == 1)
        or (s[1] == 4 and s[2] in (1, 3))
    )
    looser = [s for s in verdicts if xla(s) and not tile.holds(s)]
    assert looser and all(verdicts[s] == "covering" for s in looser)
    assert all(4 % s[1] or 3 % s[2] for s in looser)
    # Every size admitted here is exact (check_condition), XLA's or not.
    assert all(verdicts[s] == "exact" for s in verdicts if tile.holds(s) and not xla(s))
    strides = [tile.box_strides(s)[0] for s in [(2, 4, 3, 1), (1, 4, 1, 1), (2, 1, 1, 1)]]
    assert strides == [1, 3, 12]
    _agree(SPLIT, reads, (2, 4, 3, 2), [(1, 4, 3, 2), (1, 1, 2, 2)])


def test_reshape_that_is_no_box_has_no_tile():
    text = """HloModule m
ENTRY e {
  p0 = f32[6,2,3] parameter(0)
  ROOT r = f32[2,6,3] reshape(p0)
}"""
    assert isinstance(tile_of(text), NoTile)


@pytest.mark.parametrize(
    ("text", "reads", "out_shape", "sizes"),
    [
        (
            "HloModule m\nENTRY e {\n p0 = f32[7] parameter(0)\n p1 = f32[7] parameter(1)\n"
            " ROOT a = f32[7] add(p0, p1)\n}",
            lambda d: {d},
            (7,),
            "(d0) -> (d0)",
        ),
        (
            "HloModule m\nENTRY e {\n p0 = f32[5] parameter(0)\n"
            " ROOT b = f32[3,5] broadcast(p0), dimensions={1}\n}",
            lambda d: {(d[1],)},
            (3, 5),
            "(d0, d1) -> (d1)",
        ),
        (
            "HloModule m\nENTRY e {\n p0 = f32[7] parameter(0)\n"
            " ROOT r = f32[7] reverse(p0), dimensions={0}\n}",
            lambda d: {(6 - d[0],)},
            (7,),
            "(d0) -> (d0)",
        ),
        (
            "HloModule m\nENTRY e {\n p0 = f32[12,14] parameter(0)\n"
            " ROOT s = f32[3,4] slice(p0), slice={[4:10:2], [2:14:3]}\n}",
            lambda d: {(4 + 2 * d[0], 2 + 3 * d[1])},
            (3, 4),
            "(d0, d1) -> (d0, d1)",
        ),
        (
            "HloModule m\nENTRY e {\n p0 = f32[4,3] parameter(0)\n"
            " ROOT t = f32[3,4] transpose(p0), dimensions={1,0}\n}",
            lambda d: {(d[1], d[0])},
            (3, 4),
            "(d0, d1) -> (d1, d0)",
        ),
    ],
    ids=["elementwise", "broadcast", "reverse", "strided-slice", "transpose"],
)
def test_one_to_one_ops(text, reads, out_shape, sizes):
    tile = _tile(text)
    assert tile.size_map() == sizes
    assert tile.condition_text() == ""
    assert set(check_condition(tile, reads, out_shape).values()) == {"exact"}


def test_reverse_offset_and_stride():
    tile = _tile(
        "HloModule m\nENTRY e {\n p0 = f32[7] parameter(0)\n"
        " ROOT r = f32[7] reverse(p0), dimensions={0}\n}"
    )
    assert tile.offset_text().startswith("(d0) -> (6)")
    assert tile.stride_map() == "(d0) -> (-1)"


def test_reduce_reads_whole_reduced_dimension():
    text = """HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p0 = f32[5,6] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[6] reduce(p0, c), dimensions={0}, to_apply=max
}"""
    tile = _tile(text)
    assert tile.size_map() == "(d0) -> (5, d0)"
    reads = lambda d: {(k, d[0]) for k in range(5)}  # noqa: E731
    assert set(check_condition(tile, reads, (6,)).values()) == {"exact"}


CONCAT = """HloModule m
ENTRY e {
  p0 = f32[2,2] parameter(0)
  p1 = f32[2,3] parameter(1)
  p2 = f32[2,4] parameter(2)
  ROOT c = f32[2,9] concatenate(p0, p1, p2), dimensions={1}
}"""


def test_concatenate_operands_are_shifted_tiles():
    starts = [0, 2, 5]
    widths = [2, 3, 4]
    for operand in range(3):
        tile = _tile(CONCAT, operand)
        assert tile.offset_text().startswith(f"(d0, d1) -> (0, {-starts[operand]})")

        def reads(d, operand=operand):
            column = d[1] - starts[operand]
            return {(d[0], column)} if 0 <= column < widths[operand] else set()

        assert set(check_condition(tile, reads, (2, 9)).values()) == {"exact"}
    _agree(
        CONCAT,
        lambda d: {(d[0], d[1] - 2)} if 2 <= d[1] < 5 else set(),
        (2, 9),
        [(1, 4), (2, 3)],
        operand=1,
    )


def test_pad_without_interior_padding_is_a_shifted_tile():
    text = """HloModule m
ENTRY e {
  p0 = f32[3,3] parameter(0)
  v = f32[] parameter(1)
  ROOT p = f32[6,5] pad(p0, v), padding=2_1_0x1_1_0
}"""
    tile = _tile(text)
    assert tile.offset_text().startswith("(d0, d1) -> (-2, -1)")

    def reads(d):
        x, y = d[0] - 2, d[1] - 1
        return {(x, y)} if 0 <= x < 3 and 0 <= y < 3 else set()

    assert set(check_condition(tile, reads, (6, 5)).values()) == {"exact"}


def test_dynamic_slice_offsets_are_runtime_variables():
    text = """HloModule m
ENTRY e {
  src = s32[2,3,9] parameter(0)
  o1 = s32[] parameter(1)
  o2 = s32[] parameter(2)
  o3 = s32[] parameter(3)
  ROOT ds = s32[1,3,4] dynamic-slice(src, o1, o2, o3), dynamic_slice_sizes={1,3,4}
}"""
    indexing_map = entry_maps(text)[0]
    tile = derive_tile(indexing_map)
    assert isinstance(tile, SymbolicTile)
    assert "{rt0, rt1}" in tile.offset_text()
    # For each runtime offset (clamped into range), brute force.
    for a, c in itertools.product(range(2), range(6)):
        reads = lambda d, a=a, c=c: {(d[0] + a, d[1], d[2] + c)}  # noqa: E731
        assert set(check_condition(tile, reads, (1, 3, 4)).values()) == {"exact"}
    assert prove_sizes(indexing_map, tile, (1, 2, 4)).verdict == "exact"


GATHER = """HloModule m
ENTRY main {
  operand = f32[6,7,3] parameter(0)
  indices = s32[4,2] parameter(1)
  ROOT r = f32[4,2,3,3] gather(operand, indices), offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3,3}
}"""


def test_gather_tile_needs_one_index_row_per_tile():
    """XLA's tile for gather has no condition on d0; but a tile of two index
    rows reads two independent windows — no box — which brute force shows
    for indices (0, 0) and (3, 4)."""
    indexing_map = entry_maps(GATHER)[0]
    tile = derive_tile(indexing_map)
    assert isinstance(tile, SymbolicTile)
    assert tile.condition_text() == "d0 in [1, 1]"
    rows = {0: (0, 0), 1: (3, 4), 2: (0, 0), 3: (3, 4)}
    reads = lambda d: {(rows[d[0]][0] + d[1], rows[d[0]][1] + d[2], d[3])}  # noqa: E731
    assert judge(tile, reads, (4, 2, 3, 3), (2, 2, 3, 3)) == "refuted"
    assert judge(tile, reads, (4, 2, 3, 3), (1, 2, 3, 3)) == "exact"
    refuted = prove_sizes(indexing_map, tile, (2, 2, 3, 3))
    assert refuted.verdict == "refuted" and "independent offsets" in (refuted.witness or "")
    assert prove_sizes(indexing_map, tile, (1, 2, 3, 3)).verdict == "exact"


def test_split_reshape_of_reverse_has_negative_strides():
    text = """HloModule m
f {
  p0 = f32[1,4,3,2] parameter(0)
  rv = f32[1,4,3,2] reverse(p0), dimensions={1,2}
  ROOT r = f32[12,2] reshape(rv)
}
ENTRY e {
  p0 = f32[1,4,3,2] parameter(0)
  ROOT f = f32[12,2] fusion(p0), kind=kLoop, calls=f
}"""
    tile = _tile(text)
    assert tile.offset_text().startswith("(d0, d1) -> (0, 3, 2, 0)")
    assert tile.stride_map() == "(d0, d1) -> (0, -1, -1, 1)"
    reads = lambda d: {(0, 3 - d[0] // 3, 2 - d[0] % 3, d[1])}  # noqa: E731
    check_condition(tile, reads, (12, 2))


def test_reduction_of_split_axis_sums_symbols():
    text = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
f {
  p0 = f32[18] parameter(0)
  b = f32[9,2] bitcast(p0)
  c = f32[] constant(0)
  r0 = f32[9] reduce(b, c), dimensions={1}, to_apply=add
  ROOT r1 = f32[] reduce(r0, c), dimensions={0}, to_apply=add
}
ENTRY e {
  p0 = f32[18] parameter(0)
  ROOT f = f32[] fusion(p0), kind=kLoop, calls=f
}"""
    tile = _tile(text)
    assert tile.size_map() == "() -> (18)" and tile.stride_map() == "() -> (1)"
    assert judge(tile, lambda d: {(k,) for k in range(18)}, (), ()) == "exact"


def test_three_digit_bitcast():
    text = """HloModule m
ENTRY e {
  p0 = f32[2,3,5] parameter(0)
  ROOT b = f32[30] reshape(p0)
}"""
    tile = _tile(text)
    reads = lambda d: {(d[0] // 15, (d[0] // 5) % 3, d[0] % 5)}  # noqa: E731
    verdicts = check_condition(tile, reads, (30,))
    admitted = sorted(s[0] for s in verdicts if tile.holds(s))
    assert admitted == [1, 5, 15, 30]
    # Brute force agrees that no other size is exact.
    assert sorted(s[0] for s, v in verdicts.items() if v == "exact") == admitted


@pytest.mark.parametrize("start", [3, 4])
def test_slice_of_split_reshape(start):
    """XLA gives no tile (a stride atop a floordiv); here the map has no tile
    either, and the covering box still bounds what is read."""
    text = f"""HloModule m
f {{
  p0 = f32[1,4,3,2] parameter(0)
  r = f32[12,2] reshape(p0)
  ROOT s = f32[3,1] slice(r), slice={{[{start}:12:3], [0:2:2]}}
}}
ENTRY e {{
  p0 = f32[1,4,3,2] parameter(0)
  ROOT f = f32[3,1] fusion(p0), kind=kLoop, calls=f
}}"""
    tile = tile_of(text)
    if isinstance(tile, SymbolicTile):
        reads = lambda d: {(0, (start + 3 * d[0]) // 3, (start + 3 * d[0]) % 3, 0)}  # noqa: E731
        check_condition(tile, reads, (3, 1))
