"""Tuple-valued instructions are values like any other, checked leaf by leaf.

Each module of `examples/tuples/` once crashed `verifier check` or was
refuted falsely: a get-tuple-element whose result is a tuple, a tuple-shaped
parameter (nested too), a call or fusion whose parameter and root are
tuples ("isl … spaces don't match", which hid every other finding), a
`copy` of a tuple (an in-bounds refutation of a map with 0 results), the
empty tuple, a tuple-shaped while state.  Now every finding is proved,
a while loop's own too when its trip count is known; with a trip count
known only at run time they are unsupported with a reason naming the loop."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.cli import EXIT_OK, main
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module, parse_module_file

TUPLES = Path(__file__).resolve().parents[2] / "examples" / "tuples"
CASES = sorted(TUPLES.glob("*.hlo"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_every_finding_is_proved_but_the_unknown_loops(path: Path) -> None:
    module = parse_module_file(path)
    findings = list(run_checks(module, MemoryCache()))
    assert findings
    for finding in findings:
        if finding.instruction == "w" and path.stem == "while_unknown_trip_count":
            assert finding.outcome is Outcome.UNSUPPORTED, finding
            assert "while loop 'w'" in finding.message, finding
        else:
            assert finding.outcome is Outcome.PROVED, finding


def test_a_nested_get_tuple_element_reads_one_leaf_of_its_operand() -> None:
    module = parse_module_file(TUPLES / "gte_nested.hlo")
    subjects = {
        f.subject
        for f in run_checks(module, MemoryCache(), only=["in-bounds"])
        if f.instruction == "g"
    }
    assert subjects == {
        "output 0 -> operand 0 {0,0} (outer)",
        "output 1 -> operand 0 {0,1} (outer)",
        "operand 0 {0,0} (outer) -> output 0",
        "operand 0 {0,1} (outer) -> output 1",
    }


def test_the_empty_tuple_has_no_leaf_to_check() -> None:
    module = parse_module_file(TUPLES / "empty_tuple.hlo")
    assert not [f for f in run_checks(module, MemoryCache()) if f.instruction == "e"]


def test_check_lists_the_findings_around_a_tuple_shaped_while() -> None:
    out = io.StringIO()
    code = main(
        ["check", "--no-cache", "--format", "json", str(TUPLES / "while_unknown_trip_count.hlo")],
        out=out,
    )
    assert code == EXIT_OK
    text = out.getvalue()
    # The slice after the loop and the body's instructions are checked.
    for name in ('"instruction": "s"', '"instruction": "y"', '"instruction": "r"'):
        assert name in text
    assert "while loop 'w' (condition cond, body body)" in text
    assert "trip count is not a known constant" in text


_UPDATED_ROWS = """
HloModule updated_rows
cond {
  s = (s32[], f32[6,1]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[6,1]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ys = f32[6,1] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  row = f32[1,1] dynamic-slice(ys, i, zero), dynamic_slice_sizes={1,1}
  twice = f32[1,1] add(row, row)
  next = f32[6,1] dynamic-update-slice(ys, twice, i, zero)
  ROOT r = (s32[], f32[6,1]) tuple(j, next)
}
ENTRY e {
  x = f32[6,1] parameter(0)
  c = s32[] constant(0)
  t = (s32[], f32[6,1]) tuple(c, x)
  ROOT w = (s32[], f32[6,1]) while(t), condition=cond, body=body
}
"""


@pytest.mark.slow
def test_a_loop_whose_unsimplified_unions_outgrow_the_limit_is_proved_step_by_step() -> None:
    """Each iteration's dynamic-update-slice splits the surviving rows in two
    pieces: unsimplified, 6 iterations pass the 64-map limit; simplified, isl
    merges the equal relations and every other check is proved.  The
    simplification check proves the loop's composition step by step (#14),
    never against the unsimplified one, so it is proved too (it was one
    unsupported finding while it compared with the unknown composition)."""
    module = parse_module(_UPDATED_ROWS)
    findings = [f for f in run_checks(module, MemoryCache()) if f.instruction == "w"]
    assert all(f.outcome is Outcome.PROVED for f in findings), findings
    steps = [f.message for f in findings if f.check == "simplification"]
    assert any(m.startswith("every simplification step keeps its relation (") for m in steps)
