"""Symbolic-tile expectations (kind "tile"): XLA's tile printout read and
evaluated, compared with verifier's tile; and, for each kind of difference
found in XLA's tile tests, a small reproducer of our own whose footprint is
enumerated in plain Python to decide who is right."""

import itertools

from verifier.expr import parse_map
from verifier.tiling import SymbolicTile, derive_tile
from verifier.xla_tests.files import check_text
from verifier.xla_tests.result import Agreement
from verifier.xla_tests.tile_text import read_constraints, read_tile, read_tile_parts
from verifier.xla_tests.tiles import compare_tile


def footprint(results, shape, sizes, position, symbols=()):
    """The elements the output tile at `position` reads: every output index
    of the tile (clipped to `shape`), every symbol value, through `results`
    (a Python function of the index and the symbols)."""
    ranges = [
        range(p * t, min((p + 1) * t, n)) for p, t, n in zip(position, sizes, shape, strict=True)
    ]
    return {
        tuple(results(index, s))
        for index in itertools.product(*ranges)
        for s in itertools.product(*symbols)
    }


def tile_of(text):
    tile = derive_tile(parse_map(text))
    assert isinstance(tile, SymbolicTile)
    return tile


def box(offsets, sizes, strides):
    return {
        tuple(o + k * s for o, k, s in zip(offsets, ks, strides, strict=True))
        for ks in itertools.product(*(range(n) for n in sizes))
    }


# ----------------------------------------------------------------- reading


def test_tile_text_evaluates_as_python_arithmetic():
    tile = read_tile(
        """Symbolic tile with
        offset_map: (d0, d1)[s0] -> (s0, 0)
        size_map: (d0, d1) -> ((d0 + 5) / 6, d1 - ((d1 - 1) / 4) * 4)
        stride_map: (d0, d1) -> (1, (-d0 + 7) floordiv 6)
        constraints: 6 mod d0 in [0, 0] && d1 in [1, 4] || d0 mod 6 in [0, 0]
        rt_vars: s0 in [0, 9],"""
    )
    for d0, d1, s0 in itertools.product(range(1, 13), range(1, 9), (0, 9)):
        assert tile.sizes((d0, d1), (s0,)) == ((d0 + 5) // 6, d1 - ((d1 - 1) // 4) * 4)
        assert tile.stride_values((d0, d1), (s0,)) == (1, (7 - d0) // 6)
        assert tile.offset_values((d0, d1), (s0,)) == (s0, 0)
        assert tile.admits((d0, d1)) == ((6 % d0 == 0 and 1 <= d1 <= 4) or d0 % 6 == 0)
    assert tile.rt_ranges == ((0, 9),)


def test_symbol_convention_of_older_versions():
    old = read_tile_parts(
        "()[s0, s1, s2] -> (s2, 0)", "()[s0, s1] -> (s0, s1)", "()[s0, s1] -> (1, 1)"
    )
    assert old.rank == 2 and old.rt_names == ("s2",)
    assert old.sizes((3, 4), (7,)) == (3, 4) and old.offset_values((3, 4), (7,)) == (7, 0)


def test_single_valued_runtime_offset_is_a_constant():
    tile = read_tile(
        "offset_map: (d0)[s0, s1] -> (s0, s1) size_map: (d0) -> (d0, 1) "
        "stride_map: (d0) -> (1, 1) rt_vars: s0 in [0, 3], s1 in [2, 2]"
    )
    assert tile.rt_names == ("s0",) and tile.offset_values((1,), (3,)) == (3, 2)


def test_half_open_intervals_of_mid_2024():
    tile = read_tile(
        "offset_map: ()[s0, s1] -> (s1) size_map: ()[s0] -> (s0) stride_map: ()[s0] -> (1) "
        "constraints: 6 mod s0 in [0, 1) || s0 in [8, 10) rt_vars: s1 in [0, 4)"
    )
    assert [t for t in range(1, 12) if tile.admits((t,))] == [1, 2, 3, 6, 8, 9]
    assert tile.rt_ranges == ((0, 3),)


def test_constraints_alone():
    constraints = read_constraints("2 mod d0 in [0, 0] || d0 mod 2 in [0, 0]", 1)
    assert [t for t in range(1, 9) if constraints.admits((t,))] == [1, 2, 4, 6, 8]


# ------------------------------------------------------------- comparison

TRANSPOSE = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 3]")


def test_equal_and_different_tiles():
    right = read_tile(
        "offset_map: (d0, d1) -> (0, 0) size_map: (d0, d1) -> (d1, d0) "
        "stride_map: (d0, d1) -> (1, 1)"
    )
    assert compare_tile(TRANSPOSE, right).verdict is Agreement.EQUAL
    wrong = read_tile(
        "offset_map: (d0, d1) -> (0, 0) size_map: (d0, d1) -> (d0, d1) "
        "stride_map: (d0, d1) -> (1, 1)"
    )
    found = compare_tile(TRANSPOSE, wrong)
    assert found.verdict is Agreement.DIFFERENT
    assert found.witness is not None and found.witness.startswith(
        "tile sizes (1, 2): XLA's size_map gives (1, 2)"
    )


def test_a_stride_of_one_element_is_no_part_of_the_tile():
    single = parse_map("(d0) -> (d0 * 4), domain: d0 in [0, 0]")
    tile = read_tile("offset_map: (d0) -> (0) size_map: (d0) -> (d0) stride_map: (d0) -> (0)")
    assert compare_tile(single, tile).verdict is Agreement.EQUAL


def test_nullopt_against_no_tile_and_against_a_tile():
    diagonal = parse_map("(d0, d1) -> (d0 + d1 floordiv 2), domain: d0 in [0, 3], d1 in [0, 3]")
    assert compare_tile(diagonal, None).verdict is Agreement.EQUAL
    found = compare_tile(TRANSPOSE, None)
    assert found.verdict is Agreement.DIFFERENT and "verifier derives one" in str(found.witness)


HLO_TEST = """
TEST_F(SymbolicTileTest, Transpose) {
  auto input_indexing = GetOutputToInputIndexing(ParseAndGetRoot(R"(
    HloModule m
    ENTRY e {
      p0 = f32[4,8] parameter(0)
      ROOT t = f32[8,4] transpose(p0), dimensions={1,0}
    }
  )"));
  EXPECT_THAT(SymbolicTile::FromIndexingMap(
                  input_indexing.indexing_maps[0].begin()->map()),
              Optional(MatchSymbolicTileString(R"(
      Symbolic tile with
        offset_map: (d0, d1) -> (0, 0)
        size_map: (d0, d1) -> (d1, d0)
        stride_map: (d0, d1) -> (1, 1)
      )")));
  EXPECT_EQ(SymbolicTile::FromIndexingMap(
                input_indexing.indexing_maps[0].begin()->map()), std::nullopt);
  EXPECT_TRUE(SymbolicTile::FromIndexingMap(
                  input_indexing.indexing_maps[0].begin()->map()).has_value());
}
"""


def test_a_tile_test_followed_from_its_hlo():
    found = check_text(HLO_TEST, "symbolic_tile_test.cc")
    assert [(e.line, e.kind, e.verdict.value) for e in found] == [
        (10, "tile", "equal"),
        (18, "tile", "different"),
        (20, "tile", "equal"),
    ]


ANALYSIS_TEST = """
TEST_F(SymbolicTileAnalysisTest, Slice) {
  TF_ASSERT_OK_AND_ASSIGN(std::unique_ptr<VerifiedHloModule> module,
                          ParseAndReturnVerifiedModule(R"(
f {
  p0 = f32[16,8] parameter(0)
  ROOT s = f32[6,8] slice(p0), slice={[4:10], [0:8]}
}
ENTRY e {
  p0 = f32[16,8] parameter(0)
  ROOT r = f32[6,8] fusion(p0), kind=kLoop, calls=f
})"));
  std::optional<SymbolicTileAnalysis> analysis = TryAnalyzeModule(module.get());
  const HloInstruction* root =
      module->entry_computation()->root_instruction()->fused_expression_root();
  TF_ASSERT_OK_AND_ASSIGN(TiledHloComputation tiled,
      analysis->ComputeTiledComputation(Tiling({{root, FlatTiling({2, 4})}}),
          default_schedule_builder_, false, true));
  EXPECT_THAT(*GetFirstRoot(tiled)->operand(0), MatchTiledHloInstruction(
      {2, 4}, {1, 1}, "(pid_0) -> ((pid_0 / 2) * 2 + 4, (pid_0 mod 2) * 4), domain: pid_0 in [0, 5]"));
  EXPECT_THAT(*GetFirstRoot(tiled)->operand(0), MatchTiledHloInstruction(
      {2, 4}, {1, 1}, "(pid_0) -> ((pid_0 / 2) * 2, (pid_0 mod 2) * 4), domain: pid_0 in [0, 5]"));
}
"""


def test_tiled_instructions_of_an_analysis():
    first, second = check_text(ANALYSIS_TEST, "symbolic_tile_analysis_test.cc")
    assert first.verdict is Agreement.EQUAL
    assert second.verdict is Agreement.DIFFERENT
    assert "pid_0 = 0: XLA's offsets (0, 0), verifier's (4, 0)" in str(second.witness)
    # Plain Python: the slice's tile at program 0 starts at row 4.
    assert min(footprint(lambda d, s: (d[0] + 4, d[1]), (6, 8), (2, 4), (0, 0))) == (4, 0)


# ------------------------------------------- reproducers of the differences


def test_xla_admits_a_size_that_runs_into_the_next_row_covering():
    """XLA admits a tile size below a larger term that does not divide the
    dim (split reshape, preexisting-constraint tests): its last tile's box
    holds an element of the next row.  Verifier refuses the size."""
    shape = (3, 5)
    tile = tile_of("(d0, d1) -> (d0 * 5 + d1), domain: d0 in [0, 2], d1 in [0, 4]")
    assert not tile.holds((1, 2)) and tile.holds((1, 5)) and tile.holds((3, 5))
    read = footprint(lambda d, s: (d[0] * 5 + d[1],), shape, (1, 2), (0, 2))
    assert read == {(4,)}
    assert box((4,), (2,), (1,)) == {(4,), (5,)}  # 5 is row 1's, not this tile's
    # Where verifier admits the sizes its box is exactly the footprint.
    for sizes in [(1, 5), (3, 5), (1, 1)]:
        for position in itertools.product(
            *(range(-(-n // t)) for n, t in zip(shape, sizes, strict=True))
        ):
            offset = (position[0] * sizes[0] * 5 + position[1] * sizes[1],)
            assert footprint(lambda d, s: (d[0] * 5 + d[1],), shape, sizes, position) == box(
                offset, tile.box_sizes(sizes), tile.box_strides(sizes)
            )


def test_split_reshape_of_reverse_needs_a_constraint():
    """A reverse under a split reshape: XLA states no constraint, but a tile
    of 4 rows of 6 reads parts of two rows — no strided box."""
    shape = (12,)

    def read(d, s):
        return (3 - d[0] // 6, 5 - d[0] % 6)

    got = footprint(read, shape, (4,), (1,))
    assert got == {(3, 1), (3, 0), (2, 5), (2, 4)}
    # XLA's sizes (1, 4) and strides (0, -1) at d0 = 4, from the tile's first element.
    xla_box = box((3, 1), (1, 4), (0, -1))
    assert got != xla_box
    tile = tile_of("(d0) -> (3 - d0 floordiv 6, 5 - d0 mod 6), domain: d0 in [0, 11]")
    assert not tile.holds((4,)) and tile.holds((6,))


def test_reverse_of_combining_reshape_with_the_positive_term_active():
    """XLA's tile with offset 23 and stride -1 is wrong once the positive
    term's dim has more than one element: the whole 2x4x6 block reads 0..47."""
    shape = (2, 4, 6)

    def read(d, s):
        return (d[0] * 24 - d[1] * 6 - d[2] + 23,)

    got = footprint(read, shape, shape, (0, 0, 0))
    assert got == {(k,) for k in range(48)}
    assert box((23,), (48,), (-1,)) != got  # XLA's tile at sizes (2, 4, 6)
    # With d0 = 1 (XLA's other conjuncts) its box is right.
    assert footprint(read, shape, (1, 4, 6), (0, 0, 0)) == box((23,), (24,), (-1,))


def test_gather_rows_need_a_tile_of_one_row():
    """Two output rows of a gather read two windows at independent offsets:
    one box at one runtime offset cannot hold both (XLA admits d0 = 2)."""
    starts = [0, 5]  # the two rows' gathered start indices

    def read(d, s):
        return (starts[d[0]] + d[1],)

    got = footprint(read, (2, 2), (2, 2), (0, 0))
    assert got == {(0,), (1,), (5,), (6,)}
    assert all(got != box((o,), (2,), (1,)) for o in range(10))


def test_reduction_of_concatenation_has_an_exact_tile():
    """XLA gives no tile for the second operand of a reduce over a
    concatenation; verifier's (20, d0) is exactly what a tile reads."""
    tile = tile_of("(d0)[s0] -> (s0 - 10, d0), domain: d0 in [0, 7], s0 in [10, 29]")
    assert tile.holds((4,)) and tile.box_sizes((4,)) == (20, 4)
    for position in range(2):
        got = footprint(lambda d, s: (s[0] - 10, d[0]), (8,), (4,), (position,), [range(10, 30)])
        assert got == box((0, position * 4), (20, 4), (1, 1))


def test_a_reverse_box_from_either_end():
    """A box is a set: XLA's positive-stride reverse tile (until 2025) is
    verifier's negative-stride one; one element off is not."""
    reverse = parse_map("(d0) -> (7 - d0), domain: d0 in [0, 7]")
    normalised = read_tile(
        "offset_map: (d0) -> (-d0 + 8) size_map: (d0) -> (d0) stride_map: (d0) -> (1)"
    )
    assert compare_tile(reverse, normalised).verdict is Agreement.EQUAL
    for t in range(1, 9):  # plain Python: the tile at origin 0 reads 7, 6, …
        assert {7 - d for d in range(t)} == {8 - t + k for k in range(t)}
    shifted = read_tile(
        "offset_map: (d0) -> (-d0 + 7) size_map: (d0) -> (d0) stride_map: (d0) -> (1)"
    )
    assert compare_tile(reverse, shifted).verdict is Agreement.DIFFERENT
