"""Expectations of small C++-like tests written here, checked; every
`different` is confirmed by brute force in plain Python — the witness
re-evaluated from the maps' meaning, not from the tool's answer."""

import itertools
from typing import Any

from verifier.xla_tests.files import check_text
from verifier.xla_tests.result import Agreement, Expectation


def check(body: str) -> list[Expectation]:
    return check_text("TEST_F(IndexingMapTest, Case) {\n" + body + "\n}\n", "case_test.cc")


def test_a_right_simplification_is_equal_and_a_wrong_one_different_at_a_real_point():
    right, wrong = check("""
  auto m = Parse("(d0, d1) -> (d0 * 4 + d1 floordiv 8), domain: d0 in [0, 2], d1 in [0, 15]");
  EXPECT_TRUE(m.Simplify());
  EXPECT_THAT(m, MatchIndexingMap("(d0, d1) -> (d0 * 4 + d1 / 8), domain: d0 in [0, 2], d1 in [0, 15]"));
  EXPECT_THAT(ToString(m), MatchIndexingString(R"(
    (d0, d1) -> (d0 * 4 + d1 / 4),
    domain: d0 in [0, 2], d1 in [0, 15])"));""")
    assert (right.verdict, right.kind, right.line) == (Agreement.EQUAL, "simplify", 5)
    assert (wrong.verdict, wrong.line) == (Agreement.DIFFERENT, 6)
    point: Any = wrong.witness_point
    assert point["semantics"] == "pointwise"
    d0, d1 = point["point"]["d0"], point["point"]["d1"]
    # Plain Python: the input's value and the expected one at the witness.
    assert 0 <= d0 <= 2 and 0 <= d1 <= 15
    assert point["computed"] == [d0 * 4 + d1 // 8]
    assert point["expected"] == [d0 * 4 + d1 // 4]
    assert point["computed"] != point["expected"]


def test_negative_divisor_bounds_reproducer():
    # The shape of the one wrong expectation of XLA's current
    # indexing_map_test.cc (our own numbers): a constraint `s0 / -c in [lo, hi]`
    # whose bound on s0 was derived as if / truncated instead of flooring.
    (found,) = check("""
  auto m = Parse("(d0)[s0] -> (d0), domain: d0 in [0, 4], s0 in [-50, 50], s0 / -4 in [-6, -3]");
  EXPECT_TRUE(m.Simplify());
  EXPECT_THAT(ToString(m), MatchIndexingString("(d0)[s0] -> (d0), domain: d0 in [0, 4], s0 in [12, 27]"));""")
    assert found.verdict is Agreement.DIFFERENT and found.kind == "simplify"
    # Brute force: the s0 that satisfy floor(s0 / -4) in [-6, -3].
    kept = [s0 for s0 in range(-50, 51) if -6 <= s0 // -4 <= -3]
    assert (min(kept), max(kept)) == (9, 24)  # not [12, 27]: that is truncation's answer
    truncated = [s0 for s0 in range(-50, 51) if -6 <= int(s0 / -4) <= -3]
    assert (min(truncated), max(truncated)) == (12, 27)
    point: Any = found.witness_point
    assert point["point"]["s0"] in kept and not 12 <= point["point"]["s0"] <= 27
    assert point["expected"] is None  # outside XLA's expected domain


def test_symbol_removal_and_rescaling_compare_relations():
    same, other = check("""
  auto m = Parse("(d0)[s0, s1] -> (d0 + s0 * 2), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 5]");
  m.RemoveUnusedSymbols();
  EXPECT_THAT(m, MatchIndexingMap("(d0)[s0] -> (d0 + s0 * 2), domain: d0 in [0, 3], s0 in [0, 1]"));
  EXPECT_THAT(m, MatchIndexingMap("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]"));""")
    assert same.verdict is Agreement.EQUAL
    assert other.verdict is Agreement.DIFFERENT
    w: Any = other.witness_point
    assert w["semantics"] == "relation"
    (d0,), (r,) = w["dims"], w["result"]
    reads_input = {(x, x + 2 * s0) for x in range(4) for s0 in range(2)}
    reads_expected = {(x, x + s0) for x in range(4) for s0 in range(2)}
    assert ((d0, r) in reads_input) != ((d0, r) in reads_expected)
    assert ((d0, r) in reads_expected) == (w["only_in"] == "expected")


def test_composition_unused_dims_and_old_constructors_are_followed():
    found = check("""
  IndexingMap producer = IndexingMap::FromTensorSizes(
      ParseAffineMap("(d0, d1) -> (d1, d0)", &mlir_context_), {4, 6}, {});
  auto consumer = Parse("(d0) -> (d0 floordiv 6, d0 mod 6), domain: d0 in [0, 23]");
  auto composed = ComposeIndexingMaps(consumer, producer);
  EXPECT_THAT(composed, MatchIndexingMap("(d0) -> (d0 mod 6, d0 floordiv 6), domain: d0 in [0, 23]"));
  EXPECT_THAT(consumer * producer, MatchIndexingMap("(d0) -> (d0 mod 6, d0 / 5), domain: d0 in [0, 23]"));
  auto unused = Parse("(d0, d1) -> (d1), domain: d0 in [0, 3], d1 in [0, 5]");
  unused.RemoveUnusedVars();
  EXPECT_THAT(unused, MatchIndexingMap("(d0) -> (d0), domain: d0 in [0, 5]"));""")
    assert [e.verdict for e in found] == [Agreement.EQUAL, Agreement.DIFFERENT, Agreement.EQUAL]
    w: Any = found[1].witness_point
    (d0,) = w["dims"]
    assert w["result"] in ([d0 % 6, d0 // 6], [d0 % 6, d0 // 5])
    assert ([d0 % 6, d0 // 6] == w["result"]) == (w["only_in"] == "computed")


def test_what_is_not_followed_is_not_comparable_with_the_construct_named():
    (found,) = check("""
  auto m = Parse("(d0) -> (d0), domain: d0 in [0, 3]");
  m.Frobnicate();
  EXPECT_THAT(m, MatchIndexingMap("(d0) -> (d0), domain: d0 in [0, 3]"));""")
    assert found.verdict is Agreement.NOT_COMPARABLE
    assert "Frobnicate" in (found.reason or "")


HLO_TEST = """
TEST_P(IndexingAnalysisTest, Transpose) {
  auto root = ParseAndGetRoot(R"(
    HloModule m
    ENTRY e {
      p0 = f32[3, 5] parameter(0)
      ROOT t = f32[5, 3] transpose(p0), dimensions={1, 0}
    }
  )");
  auto input_indexing = GetOutputToInputIndexing(root);
  EXPECT_THAT(input_indexing.ToString(), MatchIndexingString(R"(
    operand id = 0
      (d0, d1) -> (d1, d0),
      domain:
      d0 in [0, 4],
      d1 in [0, 2]
  )"));
  auto output_indexing = GetInputToOutputIndexing(root, /*input_id=*/0);
  EXPECT_THAT(output_indexing.ToString(), MatchIndexingString(R"(
    operand id = 0
      (d0, d1) -> (d1, d0 + 1),
      domain:
      d0 in [0, 2],
      d1 in [0, 4]
  )"));
}
"""


def test_hlo_expectations_against_verifiers_maps():
    right, wrong = check_text(HLO_TEST, "indexing_analysis_test.cc")
    assert (right.kind, right.verdict) == ("hlo-maps", Agreement.EQUAL)
    assert wrong.verdict is Agreement.DIFFERENT
    w: Any = wrong.witness_point
    assert w["operand"] == 0
    # Plain Python: input element (i, j) of f32[3, 5] is output element (j, i).
    transpose = {((i, j), (j, i)) for i, j in itertools.product(range(3), range(5))}
    expected = {((i, j), (j, i + 1)) for i, j in itertools.product(range(3), range(5))}
    pair = (tuple(w["dims"]), tuple(w["result"]))
    assert (pair in transpose) != (pair in expected)
    assert (pair in expected) == (w["only_in"] == "expected")


LAYOUT_TEST = """
TEST_P(IndexingAnalysisTest, Layouts) {
  auto root = ParseAndGetRoot(R"(
    HloModule m
    ENTRY e {
      p0 = f32[2, 3, 4]{0, 2, 1} parameter(0)
      ROOT e = f32[2, 3, 4] exponential(p0)
    }
  )");
  constexpr absl::string_view kPhysical = R"(
    (d0, d1, d2) -> (d1, d2, d0), domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 3])";
  auto physical = GetOutputToInputIndexing(root, /*output_id=*/0, /*use_physical_layout=*/true);
  EXPECT_THAT(physical.indexing_maps, ElementsAre(ElementsAre(MatchOperandIndexing(kPhysical))));
  EXPECT_THAT(physical.indexing_maps, ElementsAre(UnorderedElementsAre(MatchOperandIndexing(R"(
    (d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 3])"))));
}
"""


def test_physical_layouts_and_per_operand_matchers():
    right, wrong = check_text(LAYOUT_TEST, "indexing_analysis_test.cc")
    assert right.verdict is Agreement.EQUAL
    assert wrong.verdict is Agreement.DIFFERENT
    # Plain Python: p0's physical order is dims (1, 2, 0), major first.
    w: Any = wrong.witness_point
    physical = {((a, b, c), (b, c, a)) for a in range(2) for b in range(3) for c in range(4)}
    pair = (tuple(w["dims"]), tuple(w["result"]))
    assert (pair in physical) == (w["only_in"] == "computed")


def test_constraints_built_from_cpp_expressions():
    same, wrong = check("""
  auto m = Parse("(d0) -> (d0), domain: d0 in [0, 9]");
  SymbolicExpr d0 = CreateDimExpr(0, &mlir_context_);
  m.AddConstraint((d0 + 1) % 4, {0, 0});
  EXPECT_THAT(m, MatchIndexingMap("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 4 in [3, 3]"));
  EXPECT_THAT(m, MatchIndexingMap("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 4 in [0, 0]"));""")
    assert same.verdict is Agreement.EQUAL
    assert wrong.verdict is Agreement.DIFFERENT
    # Plain Python: the constrained domain, and the point the witness names.
    domain = {d for d in range(10) if (d + 1) % 4 == 0}
    assert domain == {d for d in range(10) if d % 4 == 3}
    w: Any = wrong.witness_point
    d0 = w["point"]["d0"]
    assert (d0 in domain) == (w["computed"] is not None)
    assert (d0 % 4 == 0) == (w["expected"] is not None)
