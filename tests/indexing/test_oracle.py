"""The reference interpreter itself, on cases worked out by hand from the
operation semantics, and the comparison harness's ability to fail."""

from __future__ import annotations

import pytest

from tests.oracle import Reads, reads, relation
from verifier.expr.parser import parse_map
from verifier.hlo import parse_module

from . import relations
from .relations import check_module

_ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"


def _root_reads(lines: str, output: int = 0, computations: str = "") -> Reads:
    module = parse_module(f"HloModule m\n{computations}ENTRY e {{\n{lines}\n}}")
    return reads(module.entry, module.entry.root, output)


def test_pad_reads_the_padding_value_exactly_off_the_operand() -> None:
    lines = """
      p0 = f32[4,4] parameter(0)
      p1 = f32[] parameter(1)
      ROOT pad = f32[12,16] pad(p0, p1), padding=1_4_1x4_8_0"""
    module = parse_module(f"HloModule m\nENTRY e {{\n{lines}\n}}")
    assert len(relation(module.entry, module.entry.root, 0, 0)) == 16
    assert len(relation(module.entry, module.entry.root, 0, 1)) == 176
    table = _root_reads(lines)
    assert table[(1, 4)] == {(0, (0, 0))}
    assert table[(7, 7)] == {(0, (3, 3))}
    assert table[(2, 4)] == {(1, ())}  # interior padding


def test_negative_edge_padding_drops_operand_elements() -> None:
    table = _root_reads("""
      p0 = f32[5] parameter(0)
      p1 = f32[] parameter(1)
      ROOT pad = f32[4] pad(p0, p1), padding=-2_1_0""")
    assert [sorted(table[(i,)]) for i in range(4)] == [
        [(0, (2,))],
        [(0, (3,))],
        [(0, (4,))],
        [(1, ())],
    ]


def test_dynamic_slice_clamps_a_constant_offset() -> None:
    table = _root_reads("""
      p0 = f32[5] parameter(0)
      of = s32[] constant(4)
      ROOT ds = f32[3] dynamic-slice(p0, of), dynamic_slice_sizes={3}""")
    assert table[(0,)] == {(0, (2,)), (1, ())}


def test_dynamic_slice_runtime_offset_reads_every_clamped_start() -> None:
    table = _root_reads("""
      p0 = f32[5] parameter(0)
      of = s32[] parameter(1)
      ROOT ds = f32[3] dynamic-slice(p0, of), dynamic_slice_sizes={3}""")
    assert table[(0,)] == {(0, (0,)), (0, (1,)), (0, (2,)), (1, ())}
    assert table[(2,)] == {(0, (2,)), (0, (3,)), (0, (4,)), (1, ())}


def test_dynamic_update_slice_reads_operand_outside_and_update_inside() -> None:
    table = _root_reads("""
      p0 = f32[4] parameter(0)
      p1 = f32[2] parameter(1)
      of = s32[] parameter(2)
      ROOT dus = f32[4] dynamic-update-slice(p0, p1, of)""")
    # starts 0, 1, 2: element 0 is the update's for start 0, the operand's otherwise
    assert table[(0,)] == {(1, (0,)), (0, (0,)), (2, ())}
    assert table[(1,)] == {(1, (1,)), (1, (0,)), (0, (1,)), (2, ())}
    constant = _root_reads("""
      p0 = f32[4] parameter(0)
      p1 = f32[2] parameter(1)
      of = s32[] constant(-7)
      ROOT dus = f32[4] dynamic-update-slice(p0, p1, of)""")
    assert constant[(0,)] == {(1, (0,)), (2, ())}
    assert constant[(3,)] == {(0, (3,)), (2, ())}


def test_gather_of_rows() -> None:
    # The semantics doc's example: gather whole rows of a [3,3] operand.
    table = _root_reads("""
      p0 = f32[3,3] parameter(0)
      p1 = s32[2] parameter(1)
      ROOT g = f32[2,3] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0},
          start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}""")
    assert table[(1, 2)] == {(1, (1,)), (0, (0, 2)), (0, (1, 2)), (0, (2, 2))}


def test_reduce_window_skips_base_dilation_holes() -> None:
    table = _root_reads(
        """
      p0 = f32[3] parameter(0)
      p1 = f32[] parameter(1)
      ROOT rw = f32[4] reduce-window(p0, p1), window={size=2 lhs_dilate=2}, to_apply=add""",
        computations=_ADD,
    )
    assert [sorted(table[(i,)]) for i in range(4)] == [
        [(0, (0,)), (1, ())],
        [(0, (1,)), (1, ())],
        [(0, (1,)), (1, ())],
        [(0, (2,)), (1, ())],
    ]


def test_dot_reads_a_row_and_a_column() -> None:
    table = _root_reads("""
      p0 = f32[2,3] parameter(0)
      p1 = f32[3,4] parameter(1)
      ROOT d = f32[2,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}""")
    assert table[(1, 2)] == {(0, (1, k)) for k in range(3)} | {(1, (k, 2)) for k in range(3)}


def test_bitcast_follows_the_physical_order() -> None:
    table = _root_reads("""
      p0 = f32[2,3]{0,1} parameter(0)
      ROOT b = f32[6]{0} bitcast(p0)""")
    # dim 0 is minor: physical offset of (i, j) is j * 2 + i
    assert table[(3,)] == {(0, (1, 1))}
    assert table[(4,)] == {(0, (0, 2))}


def test_reshape_keeps_row_major_order() -> None:
    table = _root_reads("""
      p0 = f32[2,3] parameter(0)
      ROOT r = f32[3,2] reshape(p0)""")
    assert table[(1, 0)] == {(0, (0, 2))}


def test_harness_rejects_a_wrong_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule that is off by one must fail the comparison."""
    text = """HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT r = f32[4] reverse(p0), dimensions={0}
}"""
    check_module(text)
    wrong = parse_map("(d0) -> (3 - d0), domain: d0 in [0, 2]")
    monkeypatch.setattr(relations, "own_output_to_input", lambda *_: ((wrong,),))
    with pytest.raises(AssertionError, match="relation differs"):
        check_module(text)


def test_harness_rejects_an_out_of_bounds_image(monkeypatch: pytest.MonkeyPatch) -> None:
    text = """HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT r = f32[4] negate(p0)
}"""
    wrong = parse_map("(d0) -> (d0 + 1), domain: d0 in [0, 3]")
    monkeypatch.setattr(relations, "own_input_to_output", lambda *_: ((wrong,),))
    with pytest.raises(AssertionError, match="image leaves"):
        check_module(text)
