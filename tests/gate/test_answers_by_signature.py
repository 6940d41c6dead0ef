"""Answers taken from an instruction of the same signature: each
instruction's findings are those the gate finds for it alone — its own
names in subjects and messages, and the same outcomes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.examples import EVERY_EXAMPLE, SMALL_REAL_DUMPS, example_id, valid_module
from verifier.analysis import InstructionError, ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.gate.suite import run_checks
from verifier.hlo import Module, parse_module, parse_module_file

_TWO_LAYERS = """
HloModule m
fa {
  q0 = f32[2] parameter(0)
  q1 = f32[3] parameter(1)
  ROOT c = f32[5] concatenate(q0, q1), dimensions={0}
}
fb {
  x0 = f32[2] parameter(0)
  x1 = f32[3] parameter(1)
  ROOT c = f32[5] concatenate(x0, x1), dimensions={0}
}
ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = f32[3] parameter(1)
  a = f32[5] fusion(p0, p1), kind=kLoop, calls=fa
  ROOT b = f32[5] fusion(p0, p1), kind=kLoop, calls=fb
}"""


def _findings(maps: ModuleMaps) -> tuple[list[dict[str, Any]], list[str]]:
    """The findings, and each instruction that could not be checked."""
    errors: list[InstructionError] = []
    found = [f.to_json() for f in run_checks(maps, MemoryCache(), on_error=errors.append)]
    return found, [str(error) for error in errors]


def assert_same_findings_as_per_place(module: Module) -> None:
    assert _findings(ModuleMaps(module)) == _findings(ModuleMaps(module, by_structure=False))


def test_an_instruction_of_the_same_structure_is_reported_with_its_own_names() -> None:
    module = parse_module(_TWO_LAYERS)
    findings = run_checks(module, MemoryCache())
    in_fb = {(f.check, f.subject): f.message for f in findings if f.computation == "fb"}
    assert ("in-bounds", "output 0 -> operand 1 (x1)") in in_fb
    assert ("inverse", "operand 0 (x0) <-> output 0") in in_fb
    # Partition's message names the pieces: never taken from fa's.
    assert in_fb[("partition", "output 0")] == (
        "operand 0 (x0), operand 1 (x1) partition the output [5]"
    )
    assert_same_findings_as_per_place(module)


@pytest.mark.parametrize("path", SMALL_REAL_DUMPS, ids=example_id)
def test_real_dumps_get_the_findings_of_each_instruction_alone(path: Path) -> None:
    assert_same_findings_as_per_place(parse_module_file(path))


@pytest.mark.slow
@pytest.mark.parametrize("path", EVERY_EXAMPLE, ids=example_id)
def test_every_example_gets_the_findings_of_each_instruction_alone(path: Path) -> None:
    assert_same_findings_as_per_place(valid_module(path))


_TWO_LOOPS = """
HloModule loops
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(2)
  ROOT lt = pred[] compare(i, limit), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[4] get-tuple-element(s), index=1
  flipped = f32[4] reverse(x), dimensions={0}
  ROOT t = (s32[], f32[4]) tuple(next, flipped)
}
ENTRY e {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  far = s32[] constant(-100)
  ta = (s32[], f32[4]) tuple(zero, p)
  tb = (s32[], f32[4]) tuple(far, p)
  a = (s32[], f32[4]) while(ta), condition=cond, body=body
  b = (s32[], f32[4]) while(tb), condition=cond, body=body
  ROOT r = ((s32[], f32[4]), (s32[], f32[4])) tuple(a, b)
}"""


def test_loops_of_the_same_signature_with_other_trip_counts_get_their_own_answers() -> None:
    # Two trips flip x twice; 102 trips are more than are composed, so b's
    # indexing is unknown: the same signature (the start value is an
    # operand of the init tuple), other maps, other findings.
    module = parse_module(_TWO_LOOPS)
    entry = module.entry
    signatures = ModuleMaps(module).signatures
    assert signatures is not None
    a, b = entry.instruction("a"), entry.instruction("b")
    assert signatures.instruction(entry, a) == signatures.instruction(entry, b)
    maps = ModuleMaps(module)
    view_a, view_b = maps.instruction(entry, a), maps.instruction(entry, b)
    read_a = [composed for _, composed in view_a.o2i(view_a.outputs[1])]
    assert read_a != [composed for _, composed in view_b.o2i(view_b.outputs[1])]
    outcomes = {(f.instruction, f.outcome.value) for f in run_checks(module, MemoryCache())}
    assert ("a", "proved") in outcomes and ("b", "unsupported") in outcomes
    assert ("b", "proved") not in outcomes
    assert_same_findings_as_per_place(module)
