"""Constructs of the symbolic-tile tests the reader follows: an expectation
in a counted loop, a tiled instruction's runtime variables, the parameters'
tiling, and ``indexing_map()`` of an analysis's instructions.  The tests are
our own (own shapes); what they expect is decided in plain Python."""

import itertools

from verifier.xla_tests.files import check_text
from verifier.xla_tests.result import Agreement

SCALAR_TILE = """R\"(
      Symbolic tile with
        offset_map: (d0, d1) -> ()
        size_map: (d0, d1) -> ()
        stride_map: (d0, d1) -> ()
      )\""""

LOOP_TEST = f"""
TEST_F(SymbolicTileTest, Offsets) {{
  auto input_indexing = GetOutputToInputIndexing(ParseAndGetRoot(R"(
    HloModule m
    ENTRY e {{
      src = f32[12,7] parameter(0)
      a = s32[] parameter(1)
      b = s32[] parameter(2)
      ROOT ds = f32[3,5] dynamic-slice(src, a, b), dynamic_slice_sizes={{3,5}}
    }}
  )"));
  for (int i = 1; i < 3; i++) {{
    EXPECT_THAT(SymbolicTile::FromIndexingMap(
        input_indexing.indexing_maps[i].begin()->map()),
        Optional(MatchSymbolicTileString({SCALAR_TILE})));
  }}
  for (int j = 0; j <= 2; ++j) {{
    EXPECT_THAT(SymbolicTile::FromIndexingMap(
        input_indexing.indexing_maps[j].begin()->map()),
        Optional(MatchSymbolicTileString({SCALAR_TILE})));
  }}
  for (int k = 0; k < 1; k++) {{
    EXPECT_THAT(SymbolicTile::FromIndexingMap(
        input_indexing.indexing_maps[k].begin()->map()),
        Optional(MatchSymbolicTileString(R"(
      Symbolic tile with
        offset_map: (d0, d1)[s0, s1] -> (s0, s1)
        size_map: (d0, d1) -> (d1, d0)
        stride_map: (d0, d1) -> (1, 1)
        rt_vars: s0 in [0, 9], s1 in [0, 2]
      )")));
  }}
}}
"""


def test_an_expectation_in_a_counted_loop_holds_for_every_value():
    every, one_not_comparable, wrong = check_text(LOOP_TEST, "symbolic_tile_test.cc")
    assert every.verdict is Agreement.EQUAL and every.note == "for i in 1..2"
    # j = 0 is the 3 x 5 window of src (a tile of rank 2, not a scalar).
    assert one_not_comparable.verdict is Agreement.NOT_COMPARABLE
    assert str(one_not_comparable.reason).startswith("j = 0: ")
    # Plain Python: the output tile of sizes (2, 3) at offsets (a, b) reads
    # 2 rows and 3 columns of src, not 3 rows and 2 columns.
    a, b = 4, 1
    read = {(a + r, b + c) for r, c in itertools.product(range(2), range(3))}
    assert {r for r, _ in read} == {4, 5} and {c for _, c in read} == {1, 2, 3}
    assert wrong.verdict is Agreement.DIFFERENT
    assert str(wrong.witness).startswith("k = 0: ")


def _analysis_test(expectations: str) -> str:
    return f"""
TEST_F(SymbolicTileAnalysisTest, Window) {{
  TF_ASSERT_OK_AND_ASSIGN(std::unique_ptr<VerifiedHloModule> module,
                          ParseAndReturnVerifiedModule(R"(
f {{
  p0 = f32[20] parameter(0)
  p1 = s32[] parameter(1)
  ROOT ds = f32[6] dynamic-slice(p0, p1), dynamic_slice_sizes={{6}}
}}
ENTRY e {{
  p0 = f32[20] parameter(0)
  p1 = s32[] parameter(1)
  ROOT r = f32[6] fusion(p0, p1), kind=kLoop, calls=f
}})"));
  std::optional<SymbolicTileAnalysis> analysis = TryAnalyzeModule(module.get());
  const HloInstruction* root =
      module->entry_computation()->root_instruction()->fused_expression_root();
  TF_ASSERT_OK_AND_ASSIGN(TiledHloComputation tiled,
      analysis->ComputeTiledComputation(Tiling({{{{root, FlatTiling({{2}})}}}}),
          default_schedule_builder_, false, true));
  absl::flat_hash_map<int64_t, const TiledHloInstruction*> parameters =
      GetParametersTiling(&tiled);
{expectations}
}}
"""


def _offsets(pid: int, offset: int) -> int:
    """Plain Python: where program `pid`'s tile of 2 starts in p0, the
    offset clamped into [0, 20 - 6] as dynamic-slice does."""
    return pid * 2 + min(max(offset, 0), 14)


def test_parameters_and_runtime_variables_of_a_tiled_computation():
    # Three programs; at every clamped offset the tile starts at pid * 2 + rt0.
    assert all(_offsets(p, r) == p * 2 + r for p in range(3) for r in range(15))
    assert _offsets(1, 0) != 1 * 4 + 0
    text = _analysis_test(
        """
  EXPECT_THAT(*parameters[0], MatchTiledHloInstruction({2}, {1},
      "(pid_0){rt0} -> (pid_0 * 2 + rt0), domain: pid_0 in [0, 2], rt0 in [0, 14]"));
  EXPECT_THAT(*parameters[0], MatchTiledHloInstruction({2}, {1},
      "(pid_0){rt0} -> (pid_0 * 4 + rt0), domain: pid_0 in [0, 2], rt0 in [0, 14]"));
  EXPECT_THAT(*parameters[1], MatchTiledHloInstruction({}, {},
      "(pid_0) -> (), domain: pid_0 in [0, 2]"));
  EXPECT_THAT(*parameters[0]->runtime_variables()[0], MatchTiledHloInstruction({}, {},
      "(pid_0) -> (), domain: pid_0 in [0, 2]"));
  EXPECT_THAT(*parameters[0]->runtime_variables()[0], MatchTiledHloInstruction({}, {},
      "(pid_0) -> (), domain: pid_0 in [0, 1]"));
"""
    )
    verdicts = [e.verdict.value for e in check_text(text, "symbolic_tile_analysis_test.cc")]
    assert verdicts == ["equal", "different", "equal", "equal", "different"]


DOT_TEST = """
TEST_F(SymbolicTileAnalysisTest, DotSpace) {
  TF_ASSERT_OK_AND_ASSIGN(std::unique_ptr<VerifiedHloModule> module,
                          ParseAndReturnVerifiedModule(R"(
f {
  p0 = f32[4,6] parameter(0)
  t = f32[6,4] transpose(p0), dimensions={1,0}
  p1 = f32[4,10] parameter(1)
  ROOT d = f32[6,10] dot(t, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  p0 = f32[4,6] parameter(0)
  p1 = f32[4,10] parameter(1)
  ROOT r = f32[6,10] fusion(p0, p1), kind=kCustom, calls=f
})"));
  std::optional<SymbolicTileAnalysis> analysis = TryAnalyzeModule(module.get());
  const SymbolicTiledHloInstruction* dot =
      FindFirstInstruction(*analysis, HloOpcode::kDot);
  EXPECT_THAT(dot->indexing_map(), MatchIndexingMap(R"(
    (d0, d1, d2) -> (d1, d2), domain: d0 in [0, 3], d1 in [0, 5], d2 in [0, 9])"));
  EXPECT_THAT(dot->operands()[0]->operands()[0]->indexing_map(), MatchIndexingMap(R"(
    (d0, d1, d2) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 5], d2 in [0, 9])"));
  EXPECT_THAT(dot->operands()[1]->indexing_map(), MatchIndexingMap(R"(
    (d0, d1, d2) -> (d2, d0), domain: d0 in [0, 3], d1 in [0, 5], d2 in [0, 9])"));
}
"""


def test_indexing_maps_from_the_tiling_space_contraction_first():
    # Plain Python: out[m, n] = sum_k t[m, k] * p1[k, n], t[m, k] = p0[k, m];
    # at (k, m, n) of the tiling space p0 is read at (k, m), p1 at (k, n).
    def p1_read(k: int, n: int) -> tuple[int, int]:
        return (k, n)

    found = check_text(DOT_TEST, "symbolic_tile_analysis_test.cc")
    assert [e.verdict.value for e in found] == ["equal", "equal", "different"]
    point = found[2].witness_point
    assert point is not None
    at = point["point"]
    assert isinstance(at, dict)
    k, n = at["d0"], at["d2"]
    # The witness re-evaluated: p1 is read at (k, n), as verifier computes.
    assert list(p1_read(k, n)) == point["computed"] != point["expected"] == [n, k]


def _transposed_test(offsets: str) -> str:
    return f"""
TEST_F(SymbolicTileAnalysisTest, Transposed) {{
  TF_ASSERT_OK_AND_ASSIGN(std::unique_ptr<VerifiedHloModule> module,
                          ParseAndReturnVerifiedModule(R"(
f {{
  a = f32[6,4] parameter(0)
  b = f32[4,9] parameter(1)
  ROOT d = f32[6,9] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
ENTRY e {{
  a = f32[6,4] parameter(0)
  b = f32[4,9] parameter(1)
  ROOT r = f32[6,9] fusion(a, b), kind=kLoop, calls=f
}})"));
  std::optional<SymbolicTileAnalysis> analysis = TryAnalyzeModule(module.get());
  const HloInstruction* d =
      module->entry_computation()->root_instruction()->fused_expression_root();
  constexpr int kRows = 2;
  constexpr int kCols = 3;
  const Tiling tiling(Tiling::TileMapping{{{{d, {{4, kRows, kCols}}}}}});
  TF_ASSERT_OK_AND_ASSIGN(TiledHloComputation tiled,
      analysis->ComputeTiledComputation(tiling, TransposedDotTiledHloSchedule::Create,
          false, true));
  const int64_t rows = d->shape().dimensions(0);
  const int row_tiles = rows / kRows;
  EXPECT_THAT(*GetFirstRoot(tiled), MatchTiledHloInstruction({{2, 3}}, {{1, 1}},
      absl::Substitute("{offsets}, domain: pid_0 in [0, 8]", row_tiles, kRows, kCols)));
}}
"""


def test_transposed_dot_schedule_with_substituted_text():
    # Plain Python: 3 x 3 tiles, the rows' tile minor-most in the program id.
    starts = {pid: ((pid % 3) * 2, (pid // 3) * 3) for pid in range(9)}
    assert sorted(starts.values()) == [(r, c) for r in (0, 2, 4) for c in (0, 3, 6)]
    assert starts[1] == (2, 0)
    right = _transposed_test("(pid_0) -> ((pid_0 mod $0) * $1, (pid_0 / $0) * $2)")
    (found,) = check_text(right, "symbolic_tile_analysis_test.cc")
    assert found.verdict is Agreement.EQUAL
    major_to_minor = _transposed_test("(pid_0) -> ((pid_0 / $0) * $1, (pid_0 mod $0) * $2)")
    (wrong,) = check_text(major_to_minor, "symbolic_tile_analysis_test.cc")
    assert wrong.verdict is Agreement.DIFFERENT
    assert "pid_0 = 1: XLA's offsets (0, 3), verifier's (2, 0)" in str(wrong.witness)
