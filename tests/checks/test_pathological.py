"""Pathological questions end within their budgets: the answer of `equiv`,
`simplify --prove` and the in-bounds check is the true verdict or `unknown`,
never a hang (the slow tier runs each full-size case through the command
line under a subprocess timeout) and never a wrong verdict."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.pathological import Case, cases
from verifier.checks import Verdict, check_equivalence
from verifier.checks.bounds import check_in_bounds
from verifier.checks.cache import MemoryCache
from verifier.checks.proven_simplification import simplify_and_prove
from verifier.checks.verdict import Outcome
from verifier.expr.parser import parse_map

# Far beyond any budget's cost (seconds): a case that takes this long hangs.
_HANG_SECONDS = 120


def _allowed(case: Case) -> set[str]:
    return {"equal", "different", "unknown"} if case.truth is None else {case.truth, "unknown"}


@pytest.mark.parametrize("case", cases(scale=4), ids=lambda c: c.name)
def test_small_pathological_questions_answer_exactly_or_unknown(case: Case) -> None:
    a, b = parse_map(case.a), parse_map(case.b)
    assert check_equivalence(a, b).verdict.value in _allowed(case)
    assert simplify_and_prove(a).verdict in (Verdict.EQUAL, Verdict.UNKNOWN)
    box = [1 << 40] * a.num_results
    assert check_in_bounds((a,), box, MemoryCache()).outcome in (Outcome.PROVED, Outcome.UNKNOWN)


def _verifier(*argv: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-m", "verifier", *argv, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=_HANG_SECONDS,
        check=False,
    )
    assert completed.returncode in (0, 1, 3), completed.stderr
    answer: dict[str, object] = json.loads(completed.stdout)
    return answer


_IN_BOUNDS = """
import sys
from verifier.checks.bounds import check_in_bounds
from verifier.checks.cache import MemoryCache
from verifier.expr.parser import parse_map
m = parse_map(sys.argv[1])
print(check_in_bounds((m,), [1 << 40] * m.num_results, MemoryCache()).outcome.value)
"""


@pytest.mark.slow
@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_pathological_questions_never_hang(case: Case) -> None:
    assert _verifier("equiv", case.a, case.b)["verdict"] in _allowed(case)
    assert _verifier("simplify", "--prove", case.a)["verdict"] in ("equal", "unknown")
    completed = subprocess.run(
        [sys.executable, "-c", _IN_BOUNDS, case.a],
        capture_output=True,
        text=True,
        timeout=_HANG_SECONDS,
        check=True,
    )
    assert completed.stdout.strip() in ("proved", "unknown")
