"""The gate's in-run question memo: each distinct question is answered once,
and questions that differ in one detail never share an answer (a key that
forgot the detail would give the second question the first one's answer)."""

from __future__ import annotations

from functools import partial

from verifier.checks.cache import MemoryCache
from verifier.checks.result import CheckResult
from verifier.checks.verdict import Outcome
from verifier.gate.questions import QuestionMemo
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module


def _outcomes(text: str, checks: list[str]) -> dict[tuple[str, str], str]:
    findings = run_checks(parse_module(text), MemoryCache(), only=checks)
    return {(f.check, f.instruction): f.outcome.value for f in findings}


def test_two_bitcasts_that_differ_only_in_the_operands_tiling_get_their_own_answers() -> None:
    # The same shapes, the same indexing map; only the operand's layout
    # differs, and with it the answer.
    outcomes = _outcomes(
        """
HloModule twins
ENTRY main {
  p0 = f32[3,5]{1,0} parameter(0)
  p1 = f32[3,5]{1,0:T(2,2)} parameter(1)
  plain = f32[15]{0} bitcast(p0)
  ROOT tiled = f32[15]{0} bitcast(p1)
}""",
        ["bitcast"],
    )
    assert outcomes == {("bitcast", "plain"): "proved", ("bitcast", "tiled"): "refuted"}


def test_the_same_maps_asked_about_int64_and_int32_get_their_own_answers() -> None:
    outcomes = _outcomes(
        """
HloModule flat
flatten {
  q0 = f32[65536,65536] parameter(0)
  ROOT r = f32[4294967296] reshape(q0)
}
ENTRY main {
  p0 = f32[65536,65536] parameter(0)
  ROOT big = f32[4294967296] fusion(p0), kind=kLoop, calls=flatten
}""",
        ["overflow", "overflow-int32"],
    )
    assert outcomes[("overflow", "big")] == "proved"
    assert outcomes[("overflow-int32", "big")] == "refuted"


def test_a_question_differing_in_one_bound_is_computed_again() -> None:
    memo, asked = QuestionMemo(), []

    def ask(question: tuple[object, ...]) -> CheckResult:
        asked.append(question)
        return CheckResult(Outcome.PROVED, str(question))

    same = ("in-bounds", "(d0) -> (d0), domain: d0 in [0, 7]", (8,))
    wider = ("in-bounds", "(d0) -> (d0), domain: d0 in [0, 8]", (8,))
    for question in (same, same, wider, same):
        assert memo.answer(question, partial(ask, question)).message == str(question)
    assert asked == [same, wider]
    assert (memo.asked, memo.answered) == (4, 2)
