"""A failure while a check runs is never a refutation: isl failing (a
`SolverError`), a bug (any exception), running out of memory, or a cached
answer that does not decode.  The failure is injected where the inverse
check asks isl; the module is one whose inverse is proved when nothing
fails, so a wrong answer cannot hide behind a right one."""

from __future__ import annotations

import pytest

from verifier.analysis import InstructionError
from verifier.bridges import isl_sets
from verifier.checks import inverse
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.errors import InternalError, SolverError
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module

_MODULE = """HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  ROOT s = f32[4] slice(p), slice={[1:5]}
}"""


def _inverse_outcomes(cache: MemoryCache, errors: list[InstructionError]) -> list[Outcome]:
    findings = run_checks(parse_module(_MODULE), cache, only=["inverse"], on_error=errors.append)
    return [f.outcome for f in findings]


def test_without_a_failure_the_inverse_is_proved() -> None:
    errors: list[InstructionError] = []
    assert _inverse_outcomes(MemoryCache(), errors) == [Outcome.PROVED]
    assert not errors


@pytest.mark.parametrize(
    "failure", [SolverError("isl failed: out of memory"), RecursionError(), ValueError("bug")]
)
def test_a_failing_solver_is_an_internal_error_not_a_refutation(
    failure: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: object, **kwargs: object) -> object:
        raise failure

    monkeypatch.setattr(isl_sets, "compare_unions", fail)
    errors: list[InstructionError] = []
    assert _inverse_outcomes(MemoryCache(), errors) == []
    (error,) = errors
    assert isinstance(error, InternalError) and type(failure).__name__ in error.message


def test_running_out_of_memory_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> object:
        raise MemoryError

    monkeypatch.setattr(isl_sets, "compare_unions", fail)
    with pytest.raises(MemoryError):
        _inverse_outcomes(MemoryCache(), [])


@pytest.mark.parametrize(
    "row",
    [
        {"outcome": "refuted", "message": "forged", "witness": [["o0", "not a number"]]},
        {"outcome": "refuted"},
        {"outcome": "refutation", "message": "a misspelt outcome"},
    ],
)
def test_a_cached_answer_that_does_not_decode_is_asked_again(row: dict[str, object]) -> None:
    cache = MemoryCache()
    _inverse_outcomes(cache, [])
    (key,) = [k for k in cache._answers if k.startswith(inverse.CHECK)]
    cache.store(key, row)
    assert _inverse_outcomes(cache, []) == [Outcome.PROVED]
