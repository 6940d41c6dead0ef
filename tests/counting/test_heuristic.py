"""XLA's utilization heuristic on cases computed by hand (the arithmetic is
in each test), and beside the exact counts."""

from __future__ import annotations

from fractions import Fraction

from verifier.analysis import ModuleMaps
from verifier.counting.heuristic import operand_utilizations
from verifier.counting.utilization import instruction_utilization
from verifier.hlo import Module, parse_module

_ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"


def _fusion(body: str, entry_parameters: str, arguments: str, shape: str) -> Module:
    return parse_module(
        f"HloModule m\n{_ADD}fused {{\n{body}\n}}\nENTRY e {{\n{entry_parameters}\n"
        f"  ROOT f = {shape} fusion({arguments}), kind=kLoop, calls=fused\n}}\n"
    )


def _heuristic(module: Module) -> tuple[Fraction, ...]:
    return operand_utilizations(module, module.entry, module.entry.root)


def test_elementwise_paths_to_one_root_count_once() -> None:
    # add(p0, p0): both edges are elementwise, so p0 inherits the root {add}
    # once: utilization 1 (XLA), while a naive evaluation reads p0 twice.
    module = _fusion(
        "  p0 = f32[8] parameter(0)\n  ROOT a = f32[8] add(p0, p0)",
        "  x = f32[8] parameter(0)",
        "x",
        "f32[8]",
    )
    assert _heuristic(module) == (Fraction(1),)
    (row,) = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands
    assert (row.distinct_read, row.reads) == (8, 16)


def test_non_elementwise_users_each_add_a_root() -> None:
    # dot(p0, p0): dot is not elementwise; each of its two operand edges adds
    # 1 * 1 (ratio 1) to p0's own root: 1 + 1 = 2, i.e. 32 of 16 elements.
    module = _fusion(
        "  p0 = f32[4,4] parameter(0)\n"
        "  ROOT d = f32[4,4] dot(p0, p0), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        "  x = f32[4,4] parameter(0)",
        "x",
        "f32[4,4]",
    )
    assert _heuristic(module) == (Fraction(2),)
    (row,) = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands
    assert row.distinct_read == 16 and row.heuristic_vs_exact == 2


def test_slice_of_a_broadcast_underestimates() -> None:
    # slice takes rows 0..1 of a [10,5] broadcast of p0[5]: ratio 10/50, so the
    # broadcast gets ceil(1 * 1/5 * 50) / 50 = 1/5; broadcast's ratio is 1, so
    # p0 gets ceil(1/5 * 5) / 5 = 1/5: one element.  Every row of the
    # broadcast is all of p0: exactly 5 elements are read.
    module = _fusion(
        "  p0 = f32[5] parameter(0)\n"
        "  b = f32[10,5] broadcast(p0), dimensions={1}\n"
        "  ROOT s = f32[2,5] slice(b), slice={[0:2], [0:5]}",
        "  x = f32[5] parameter(0)",
        "x",
        "f32[2,5]",
    )
    assert _heuristic(module) == (Fraction(1, 5),)
    (row,) = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands
    assert (row.distinct_read, row.heuristic_elements, row.heuristic_vs_exact) == (
        5,
        Fraction(1),
        Fraction(1, 5),
    )


def test_fractions_round_up_to_whole_elements() -> None:
    # slice [0:5] of a [10] dynamic-update-slice: the DUS gets 5/10 = 1/2.
    # The DUS ratio for operand 0 is update/output = 3/10, so p0 gets
    # 1/2 * 3/10 = 3/20 of 10 elements = 1.5, rounded up to 2: 2/10 = 1/5.
    # The update (ratio 1) gets ceil(1/2 * 3) / 3 = 2/3; the offset 1/2 * 1 of
    # one element rounds up to 1.
    module = _fusion(
        "  p0 = f32[10] parameter(0)\n  p1 = f32[3] parameter(1)\n  p2 = s32[] parameter(2)\n"
        "  u = f32[10] dynamic-update-slice(p0, p1, p2)\n"
        "  ROOT s = f32[5] slice(u), slice={[0:5]}",
        "  x = f32[10] parameter(0)\n  y = f32[3] parameter(1)\n  z = s32[] parameter(2)",
        "x, y, z",
        "f32[5]",
    )
    assert _heuristic(module) == (Fraction(1, 5), Fraction(2, 3), Fraction(1))


def test_a_transpose_beside_its_operand_doubles() -> None:
    # p0 + transpose(p0): the root's root {add} reaches p0 (1) and, through
    # the non-elementwise transpose, p0 becomes a root with 1 * 1: 2 in all.
    module = _fusion(
        "  p0 = f32[3,3] parameter(0)\n"
        "  t = f32[3,3] transpose(p0), dimensions={1,0}\n"
        "  ROOT a = f32[3,3] add(p0, t)",
        "  x = f32[3,3] parameter(0)",
        "x",
        "f32[3,3]",
    )
    assert _heuristic(module) == (Fraction(2),)


def test_unfused_ops_use_their_own_ratio() -> None:
    # gather of 2 rows of 4 from a [6,4] table: 8/24 = 1/3; the indices 1.
    module = parse_module(
        "HloModule m\nENTRY e {\n  t = f32[6,4] parameter(0)\n  i = s32[2] parameter(1)\n"
        "  ROOT g = f32[2,4] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},"
        " start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}\n}\n"
    )
    assert _heuristic(module) == (Fraction(1, 3), Fraction(1))
