"""Counting the pathological maps of issue #14 (tests/pathological.py: many
symbols, `mod 20000`, 20 mod constraints, 60 nested floordiv/mod) ends
within isl's budget or the size pre-check: an exact count, checked against
enumeration where that is small enough, or a `SolverError` that utilization
reports as ``unknown (why)`` — never a hang (the slow tier runs each
full-size case in a subprocess under a timeout)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.counting.test_counting import enumerated_domain, enumerated_image
from tests.pathological import Case, cases
from verifier.counting.exact import count_domain, count_image
from verifier.errors import SolverError
from verifier.expr import parse_map

# Far beyond any budget's cost (seconds): a count that takes this long hangs.
_HANG_SECONDS = 120
_ENUMERABLE = 200_000


def _counts(case: Case) -> tuple[int | None, int | None, tuple[int, ...]]:
    """The image and domain counts of `case`'s first map (None: unknown)."""
    indexing_map = parse_map(case.a)
    dimensions = (1 << 20,) * indexing_map.num_results
    try:
        image: int | None = count_image([indexing_map], dimensions).value
    except SolverError:
        image = None
    try:
        domain: int | None = count_domain(indexing_map).value
    except SolverError:
        domain = None
    return image, domain, dimensions


@pytest.mark.parametrize("case", cases(scale=4), ids=lambda c: c.name)
def test_small_pathological_counts_are_exact_or_unknown(case: Case) -> None:
    image, domain, _ = _counts(case)
    assert image is None or image >= 0
    assert domain is None or domain >= 0


@pytest.mark.slow
@pytest.mark.parametrize("case", cases(scale=4), ids=lambda c: c.name)
def test_small_pathological_counts_match_enumeration(case: Case) -> None:
    indexing_map = parse_map(case.a)
    if indexing_map.domain_size_bound() > _ENUMERABLE:
        pytest.skip("too many points to enumerate")
    image, domain, dimensions = _counts(case)
    assert image in (None, enumerated_image([indexing_map], dimensions))
    assert domain in (None, enumerated_domain(indexing_map))


def test_twenty_mod_constraints_over_a_huge_box_are_unknown_without_scanning() -> None:
    # isl answered after 40 s within its operation budget: the size
    # pre-check says why it does not try.
    (twenty,) = (c for c in cases() if c.name.startswith("20 mod"))
    with pytest.raises(SolverError, match="past isl's counting limit"):
        count_domain(parse_map(twenty.a))


_COUNT = """
import sys
from verifier.counting.exact import count_domain, count_image
from verifier.errors import SolverError
from verifier.expr import parse_map
m = parse_map(sys.argv[1])
for count in (lambda: count_image([m], [1 << 20] * m.num_results), lambda: count_domain(m)):
    try:
        print(count().value)
    except SolverError as error:
        print("unknown", error)
"""


@pytest.mark.slow
@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_pathological_counts_never_hang(case: Case) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", _COUNT, case.a],
        capture_output=True,
        text=True,
        timeout=_HANG_SECONDS,
        check=True,
    )
    for line in completed.stdout.splitlines():
        assert line.startswith("unknown") or int(line) >= 0
