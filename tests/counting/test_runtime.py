"""Per execution with runtime values read per output row (a gather): the
exact minimum and maximum against every assignment of the indices, by plain
loops; an explicit "depends on runtime values" where no exact span is known."""

from __future__ import annotations

import itertools

import pytest

from verifier.analysis import ModuleMaps
from verifier.counting.utilization import (
    REPEATED,
    RUNTIME_DEPENDENT,
    Span,
    Unknown,
    instruction_utilization,
)
from verifier.hlo import parse_module

from .judge import judge


def _gather(table: int, width: int, rows: int, slice_rows: int, slice_width: int) -> str:
    return (
        f"HloModule m\nENTRY e {{\n  t = f32[{table},{width}] parameter(0)\n"
        f"  i = s32[{rows}] parameter(1)\n"
        f"  ROOT g = f32[{rows},{slice_rows},{slice_width}] gather(t, i), offset_dims={{1,2}},"
        f" collapsed_slice_dims={{}}, start_index_map={{0}}, index_vector_dim=1,"
        f" slice_sizes={{{slice_rows},{slice_width}}}\n}}\n"
    )


def _every_execution(table: int, rows: int, slice_rows: int, slice_width: int) -> list[int]:
    """Distinct table elements read, for every value of every index (the
    start is clamped to [0, table - slice_rows])."""
    counts = []
    for starts in itertools.product(range(table), repeat=rows):
        read = set()
        for start in starts:
            clamped = min(max(start, 0), table - slice_rows)
            for r in range(slice_rows):
                for c in range(slice_width):
                    read.add((clamped + r, c))
        counts.append(len(read))
    return counts


@pytest.mark.parametrize(
    ("table", "width", "rows", "slice_width"),
    [(4, 3, 3, 2), (3, 2, 5, 2), (5, 4, 2, 1), (1, 3, 3, 3)],
)
def test_gather_of_rows_spans_one_row_to_every_distinct_row(
    table: int, width: int, rows: int, slice_width: int
) -> None:
    module = parse_module(_gather(table, width, rows, 1, slice_width))
    row = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands[0]
    counts = _every_execution(table, rows, 1, slice_width)
    low, high = min(counts), max(counts)
    assert row.per_execution == (low if low == high else Span(low, high))
    assert row.may_read == table * slice_width
    assert row.reads == rows * slice_width


def test_overlapping_windows_depend_on_the_values() -> None:
    # Windows of 2 rows overlap for neighbouring starts: the maximum is a
    # covering problem, not a product, so no exact span is claimed.
    module = parse_module(_gather(5, 2, 3, 2, 2))
    row = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands[0]
    assert row.per_execution == Unknown(RUNTIME_DEPENDENT)
    assert row.may_read == 10
    assert row.reads == 3 * 2 * 2


def _slices_of_one_array(offsets: tuple[int, ...] | None) -> str:
    """A multi-output fusion of four 3x3 dynamic slices of one 5x5 array at
    the offsets ``(a, b)``, ``(b, c)``, ``(c, a)`` and ``(a, a)``, beside a
    static slice: each read at two of the three offsets.  With `offsets`
    None they are runtime operands of the fusion; else constants inside it."""
    runtime = "".join(f"  {n} = s32[] parameter({k + 1})\n" for k, n in enumerate("abc"))
    if offsets is None:
        inside, outside, operands = runtime, runtime, "p, a, b, c"
    else:
        values = zip("abc", offsets, strict=True)
        inside, outside, operands = (
            "".join(f"  {n} = s32[] constant({v})\n" for n, v in values),
            "",
            "p",
        )
    shapes = "(f32[3,3], f32[3,3], f32[3,3], f32[3,3], f32[1,5])"
    slices = "".join(
        f"  s{k} = f32[3,3] dynamic-slice(p, {i}, {j}), dynamic_slice_sizes={{3,3}}\n"
        for k, (i, j) in enumerate([("a", "b"), ("b", "c"), ("c", "a"), ("a", "a")])
    )
    return (
        f"HloModule m\nfused {{\n  p = f32[5,5] parameter(0)\n{inside}{slices}"
        f"  s4 = f32[1,5] slice(p), slice={{[4:5], [0:5]}}\n"
        f"  ROOT t = {shapes} tuple(s0, s1, s2, s3, s4)\n}}\n"
        f"ENTRY e {{\n  p = f32[5,5] parameter(0)\n{outside}"
        f"  ROOT f = {shapes} fusion({operands}), kind=kLoop, calls=fused\n}}\n"
    )


def test_slices_sharing_offsets_span_every_joint_assignment() -> None:
    # Each map is fixed once per value of its own offsets and shared by the
    # joint assignments that agree on them: the span is still the one over
    # every joint assignment, as the interpreters count it.
    module = parse_module(_slices_of_one_array(None))
    row = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands[0]
    counts = []
    for offsets in itertools.product(range(3), repeat=3):
        fixed = parse_module(_slices_of_one_array(offsets))
        counts.append(judge(fixed, fixed.entry.root).distinct[0])
    assert row.per_execution == Span(min(counts), max(counts))
    assert row.may_read == 25
    assert row.reads == 4 * 9 + 5


_LOOP_OF_WRITES = """
HloModule m
body {
  s = (s32[], f32[10], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[10] get-tuple-element(s), index=1
  idx = s32[3] get-tuple-element(s), index=2
  slot = s32[1] dynamic-slice(idx, i), dynamic_slice_sizes={1}
  at = s32[] reshape(slot)
  zero = f32[] constant(0)
  zeros = f32[2] broadcast(zero), dimensions={}
  next = f32[10] dynamic-update-slice(acc, zeros, at)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[10], s32[3]) tuple(i1, next, idx)
}
cond {
  s = (s32[], f32[10], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  acc = f32[10] parameter(0)
  idx = s32[3] parameter(1)
  init = (s32[], f32[10], s32[3]) tuple(zero, acc, idx)
  ROOT w = (s32[], f32[10], s32[3]) while(init), condition=cond, body=body
}
"""


def test_a_loop_writing_at_an_offset_per_iteration_is_not_one_offset() -> None:
    # Three iterations write 2 elements each at idx[i] (clamped to [0, 8]):
    # the elements of `acc` that reach the output are those no iteration
    # overwrote, between 10 - 6 and 10 - 2 by plain loops over the offsets.
    # Every iteration's variable has the same source (`at`), so fixing one
    # value for it (every write at one offset) gave 8 as if it were exact.
    survivors = [
        10 - len({o + k for o in offsets for k in range(2)})
        for offsets in itertools.product(range(9), repeat=3)
    ]
    assert (min(survivors), max(survivors)) == (4, 8)
    module = parse_module(_LOOP_OF_WRITES)
    row = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands[0]
    assert row.per_execution == Unknown(REPEATED)
    assert row.reads == Unknown(REPEATED)
    assert row.may_read == 1 + 10 + 3


_TWO_CALLS = """
HloModule m
g {
  p = f32[10] parameter(0)
  off = s32[] parameter(1)
  ROOT ds = f32[2] dynamic-slice(p, off), dynamic_slice_sizes={2}
}
outer {
  x = f32[10] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  first = f32[2] call(x, a), to_apply=g
  second = f32[2] call(x, b), to_apply=g
  ROOT both = f32[4] concatenate(first, second), dimensions={0}
}
ENTRY e {
  x = f32[10] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT c = f32[4] call(x, a, b), to_apply=outer
}
"""


def test_two_calls_of_one_computation_are_two_offsets() -> None:
    # `g` runs twice, at `a` and at `b`: both maps' variables have the
    # source `off`, so one value for it read one window of 2 elements, as
    # if exact; by plain loops over the clamped offsets it is 2 to 4.
    distinct = [len({o + k for o in (a, b) for k in range(2)}) for a in range(9) for b in range(9)]
    assert (min(distinct), max(distinct)) == (2, 4)
    module = parse_module(_TWO_CALLS)
    row = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands[0]
    assert row.per_execution == Unknown(REPEATED)
    assert row.may_read == 10


@pytest.mark.parametrize(("index_type", "values"), [("u8", range(256)), ("s8", range(-128, 128))])
def test_a_narrow_offset_type_reaches_only_its_own_values(index_type: str, values: range) -> None:
    # XLA clamps a start into [0, 1000 - 300]; an 8-bit start never gets
    # past 255 (127) before clamping, so most of the array is never read.
    text = (
        f"HloModule m\nENTRY e {{\n  x = f32[1000] parameter(0)\n"
        f"  o = {index_type}[] parameter(1)\n"
        f"  ROOT ds = f32[300] dynamic-slice(x, o), dynamic_slice_sizes={{300}}\n}}\n"
    )
    read = {min(max(v, 0), 700) + k for v in values for k in range(300)}
    module = parse_module(text)
    row = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root).operands[0]
    assert row.may_read == len(read)
    assert row.per_execution == 300
