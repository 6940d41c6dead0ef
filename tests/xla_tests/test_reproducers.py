"""Brute-force reproducers, written here, of each kind of `different` that
`verifier xla-tests` reports on XLA's current tests (our own shapes and
numbers, never XLA's text): the op's semantics evaluated in plain Python
decide which side reads what, at the witness the tool gives."""

import itertools
from typing import Any

from verifier.xla_tests.files import check_text
from verifier.xla_tests.result import Agreement


def expectation(hlo: str, expected: str):
    text = f"""TEST_P(IndexingAnalysisTest, Case) {{
  auto input_indexing = GetOutputToInputIndexing(ParseAndGetRoot(R"({hlo})"));
  EXPECT_THAT(input_indexing.ToString(), MatchIndexingString(R"({expected})"));
}}
"""
    (found,) = check_text(text, "indexing_analysis_test.cc")
    return found


def test_gather_of_an_iota_reads_clamped_rows():
    # Gather's start indices are clamped into the operand; an expected map
    # that replaces the index by the iota without the clamp reads rows the
    # operand does not have.
    found = expectation(
        """
HloModule m
fused {
  p0 = f32[5,3] parameter(0)
  iota = s64[8,1] iota(), iota_dimension=0
  ROOT g = f32[8,1,1] gather(p0, iota), offset_dims={1,2}, collapsed_slice_dims={},
    start_index_map={0}, index_vector_dim=1, slice_sizes={1,1}
}
ENTRY e {
  p0 = f32[5,3] parameter(0)
  ROOT f = f32[8,1,1] fusion(p0), kind=kInput, calls=fused
}""",
        "operand id = 0 (d0, d1, d2) -> (d0, 0), domain: d0 in [0, 7], d1 in [0, 0], d2 in [0, 0]",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    dims, result = tuple(w["dims"]), tuple(w["result"])

    def reads(d0: int) -> tuple[int, int]:  # XLA's gather: start clamped to [0, 5 - 1]
        return (min(max(d0, 0), 5 - 1), 0)

    truth = {((d0, 0, 0), reads(d0)) for d0 in range(8)}
    expected = {((d0, 0, 0), (d0, 0)) for d0 in range(8)}
    assert ((dims, result) in truth) == (w["only_in"] == "computed")
    assert ((dims, result) in expected) == (w["only_in"] == "expected")
    assert any(row >= 5 for (_, (row, _)) in expected - truth)  # rows p0 does not have


def test_dynamic_update_slice_update_indices_outside_the_update():
    found = expectation(
        """
HloModule m
ENTRY e {
  src = s32[6,7] parameter(0)
  upd = s32[2,3] parameter(1)
  o0 = s32[] parameter(2)
  o1 = s32[] parameter(3)
  ROOT dus = s32[6,7] dynamic-update-slice(src, upd, o0, o1)
}""",
        """operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 5], d1 in [0, 6]
           operand id = 1 (d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),
             domain: d0 in [0, 5], d1 in [0, 6], rt0 in [0, 4], rt1 in [0, 4]""",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["operand"] == 1 and w["only_in"] == "expected"
    (d0, d1), (u0, u1) = w["dims"], w["result"]
    # Plain Python: with offsets o (clamped so the update fits), output
    # (d0, d1) reads upd[d0 - o0, d1 - o1] only inside the update.
    reads_update = {
        ((i, j), (i - o0, j - o1))
        for o0, o1 in itertools.product(range(5), range(5))
        for i, j in itertools.product(range(6), range(7))
        if 0 <= i - o0 < 2 and 0 <= j - o1 < 3
    }
    assert ((d0, d1), (u0, u1)) not in reads_update
    assert not (0 <= u0 < 2 and 0 <= u1 < 3)  # an element the update does not have


def test_pad_reads_the_padding_value_only_in_the_padding():
    found = expectation(
        """
HloModule m
ENTRY e {
  p0 = f32[3,2] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[8,4] pad(p0, p1), padding=1_2_1x1_1_0
}""",
        """operand id = 0 (d0, d1) -> ((d0 - 1) / 2, d1 - 1),
             domain: d0 in [1, 5], d1 in [1, 2], (d0 - 1) mod 2 in [0, 0]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 7], d1 in [0, 3]""",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["operand"] == 1 and w["only_in"] == "expected"
    d0, d1 = w["dims"]

    def source(i: int, j: int) -> str:  # which operand output (i, j) is copied from
        row, rem = divmod(i - 1, 2)
        return "p0" if rem == 0 and 0 <= row < 3 and 0 <= j - 1 < 2 else "p1"

    assert source(d0, d1) == "p0"  # the expected map says p1 is read here
    assert {source(i, j) for i in range(8) for j in range(4)} == {"p0", "p1"}


def test_composition_with_swapped_symbol_ranges():
    # The shape of a historical XLA bug (fixed in 2024): the bound a
    # producer's dim puts on the consumer's symbol given to another symbol.
    (found,) = check_text(
        """TEST_F(IndexingMapTest, Case) {
  auto producer = Parse("(d0, d1)[s0, s1] -> (d1, d0, s1, s0), "
      "domain: d0 in [0, 2], d1 in [0, 3], s0 in [0, 4], s1 in [0, 1]");
  auto consumer = Parse("(d0)[s0] -> (d0, s0), domain: d0 in [0, 5], s0 in [0, 6]");
  EXPECT_THAT(ComposeIndexingMaps(consumer, producer), MatchIndexingMap(
      "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), "
      "domain: d0 in [0, 2], s0 in [0, 3], s1 in [0, 1], s2 in [0, 6]"));
}""",
        "indexing_map_test.cc",
    )
    assert found.verdict is Agreement.DIFFERENT
    # Plain Python: the consumer's output d0 reads (d0, c) for c < 7; the
    # producer reads (d1, d0, s1, s0) at its output (d0, d1) = (d0, c).
    truth = {
        ((d0,), (c, d0, s1, s0))
        for d0 in range(6)
        for c in range(7)
        for s0 in range(5)
        for s1 in range(2)
        if d0 <= 2 and c <= 3  # inside the producer's domain
    }
    expected = {
        ((d0,), (s2, d0, s1, s0))
        for d0 in range(3)
        for s0 in range(4)
        for s1 in range(2)
        for s2 in range(7)
    }
    w: Any = found.witness_point
    pair = (tuple(w["dims"]), tuple(w["result"]))
    assert (pair in truth) != (pair in expected)
    assert (pair in expected) == (w["only_in"] == "expected")


def test_dynamic_slice_with_a_constant_offset_reads_the_clamped_window():
    found = expectation(
        """
HloModule m
fused {
  p0 = f32[20] parameter(0)
  c = s32[] constant(15)
  ROOT ds = f32[8] dynamic-slice(p0, c), dynamic_slice_sizes={8}
}
ENTRY e {
  p0 = f32[20] parameter(0)
  ROOT f = f32[8] fusion(p0), kind=kLoop, calls=fused
}""",
        "operand id = 0 (d0){rt0} -> (d0 + rt0), domain: d0 in [0, 7], rt0 in [0, 12]",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["only_in"] == "expected"
    (d0,), (index,) = w["dims"], w["result"]
    start = min(max(15, 0), 20 - 8)  # dynamic-slice clamps its start
    assert index != start + d0 and 0 <= d0 < 8  # the window starts at 12, always


def test_scan_with_a_pass_through_body_reads_one_element_per_step():
    # verifier's over-approximation: its scan map follows the carry
    # through every earlier step, whatever the body does with it.
    found = expectation(
        """
HloModule m
body {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  ROOT t = (f32[], f32[]) tuple(x, c)
}
ENTRY e {
  p0 = f32[6] parameter(0)
  p1 = f32[] parameter(1)
  ROOT s = (f32[6], f32[]) scan(p0, p1), dimensions={0}, num_carries=1, to_apply=body
}""",
        """operand id = 0 (d0) -> (d0), domain: d0 in [0, 5]
           operand id = 1 (d0) -> (), domain: d0 in [0, 5]""",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["only_in"] == "computed"
    (step,), (element,) = w["dims"], w["result"]

    def reads(i: int) -> set[int]:  # y[i] = body(x[i], c_i)[0] = x[i]
        return {i}

    assert element not in reads(step)


def test_batch_groups_each_output_feature_reads_its_own_group():
    found = expectation(
        """
HloModule m
ENTRY e {
  p0 = f32[4,3,1] parameter(0)
  p1 = f32[1,1,2] parameter(1)
  ROOT c = f32[2,3,2] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f,
    batch_group_count=2
}""",
        """operand id = 0 (d0, d1, d2)[s0] -> (s0 * 2 + d0, d1, 0),
             domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 1], s0 in [0, 1]
           operand id = 1 (d0, d1, d2) -> (0, 0, d2),
             domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 1]""",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["operand"] == 0 and w["only_in"] == "expected"
    (b, x, o), (batch, position, _) = w["dims"], w["result"]

    def lhs_batches(b: int, o: int) -> set[int]:
        # XLA's convolution (HloEvaluator): output feature o is in batch
        # group o // (2 / 2); the group's lhs batch is b + group * (4 / 2).
        return {b + o * 2}

    assert position == x and batch not in lhs_batches(b, o)


def test_kernel_elements_that_meet_only_padding():
    found = expectation(
        """
HloModule m
ENTRY e {
  p0 = f32[1,3,1] parameter(0)
  p1 = f32[3,1,1] parameter(1)
  ROOT c = f32[1,3,1] convolution(p0, p1), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f
}""",
        """operand id = 0 (d0, d1, d2)[s0, s1] -> (d0, d1 + s0 - 1, s1),
             domain: d0 in [0, 0], d1 in [0, 2], d2 in [0, 0], s0 in [0, 2], s1 in [0, 0],
             d1 + s0 in [1, 3]
           operand id = 1 (d0, d1, d2)[s0, s1] -> (s0, s1, d2),
             domain: d0 in [0, 0], d1 in [0, 2], d2 in [0, 0], s0 in [0, 2], s1 in [0, 0]""",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["operand"] == 1 and w["only_in"] == "expected"
    (_, x, _), (k, _, _) = w["dims"], w["result"]
    # Plain Python: output x multiplies kernel element k with input x + k - 1,
    # which is the padding outside [0, 3).
    assert not 0 <= x + k - 1 < 3


def test_kernel_elements_that_meet_only_dilation_holes():
    found = expectation(
        """
HloModule m
ENTRY e {
  p0 = f32[1,3,1] parameter(0)
  p1 = f32[3,1,1] parameter(1)
  ROOT c = f32[1,3,1] convolution(p0, p1), window={size=3 lhs_dilate=2}, dim_labels=b0f_0io->b0f
}""",
        """operand id = 0 (d0, d1, d2)[s0, s1] -> (d0, (d1 + s0) / 2, s1),
             domain: d0 in [0, 0], d1 in [0, 2], d2 in [0, 0], s0 in [0, 2], s1 in [0, 0],
             (d1 + s0) mod 2 in [0, 0]
           operand id = 1 (d0, d1, d2)[s0, s1] -> (s0, s1, d2),
             domain: d0 in [0, 0], d1 in [0, 2], d2 in [0, 0], s0 in [0, 2], s1 in [0, 0]""",
    )
    assert found.verdict is Agreement.DIFFERENT
    w: Any = found.witness_point
    assert w["operand"] == 1 and w["only_in"] == "expected"
    (_, x, _), (k, _, _) = w["dims"], w["result"]
    # Plain Python: the input dilated by 2 has its elements at even positions;
    # output x multiplies kernel element k with position x + k, a hole when odd.
    assert (x + k) % 2 == 1
