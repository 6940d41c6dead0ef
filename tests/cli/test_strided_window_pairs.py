"""`equiv --batch` on a strided window over a padded input (issue #34): isl's
lexmin failed on the difference of these maps, and the batch answered exit
2 as if the input were bad.  Every verdict and counterexample is judged by
brute force: the relations below are the maps' text written as Python loops.

Map a reads ``x = 2 * d0 + s0 - 2`` (and ``y`` likewise) where it is even
and in ``[0, 62]``, at ``x // 2``; map b names the quotient with a symbol,
``x - 2 * s4 = 0``, ``s4 in [0, 31]``.  Both read feature ``4 * s2 + s3``.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
from pathlib import Path

import pytest

from verifier.checks.equivalence import BatchFailure, check_equivalence_batch
from verifier.cli import EXIT_INTERNAL_ERROR, EXIT_REFUTED, main
from verifier.errors import SolverError

PAIRS = Path(__file__).parent / "strided_window_pairs.tsv"
DIMS = list(itertools.product(range(33), range(33), range(8)))

Results = frozenset[tuple[int, int, int]]


@functools.cache
def reads_a(d0: int, d1: int) -> Results:
    """Map a's results at ``(d0, d1, any d2)``."""
    found = set()
    for s0, s1, s2, s3 in itertools.product(range(3), range(2), range(4), range(4)):
        x, y = 2 * d0 + s0 - 2, 2 * d1 + s1 - 2
        if 0 <= x <= 62 and 0 <= y <= 62 and x % 2 == 0 and y % 2 == 0:
            found.add((x // 2, y // 2, 4 * s2 + s3))
    return frozenset(found)


@functools.cache
def reads_b(d0: int, d1: int, s3_upper: int) -> Results:
    """Map b's results at ``(d0, d1, any d2)``, its s3 in ``[0, s3_upper]``."""
    found = set()
    for s0, s1, s2, s3 in itertools.product(range(3), range(2), range(4), range(s3_upper + 1)):
        x, y = 2 * d0 + s0 - 2, 2 * d1 + s1 - 2
        # s4 and s5 each in [0, 31], each in one equation of its own.
        for s4, s5 in itertools.product(
            [s for s in range(32) if x - 2 * s == 0], [s for s in range(32) if y - 2 * s == 0]
        ):
            found.add((s4, s5, 4 * s2 + s3))
    return frozenset(found)


def answers(*options: str) -> tuple[int, list[dict[str, object]]]:
    out = io.StringIO()
    code = main(["equiv", "--batch", str(PAIRS), "--jobs", "1", *options], out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_pair_as_written_is_equal() -> None:
    assert all(reads_a(d0, d1) == reads_b(d0, d1, 3) for d0, d1, _ in DIMS)
    code, lines = answers()
    assert code == EXIT_REFUTED  # the two other lines
    assert lines[0] == {"verdict": "equal"}


@pytest.mark.parametrize("minimal", [False, True])
def test_with_fewer_features_in_b_it_is_different_with_a_witness(minimal: bool) -> None:
    code, lines = answers(*(["--minimal"] if minimal else []))
    assert code == EXIT_REFUTED
    only_in_a = {
        (dims, result) for dims in DIMS for result in reads_a(*dims[:2]) - reads_b(*dims[:2], 2)
    }
    assert only_in_a  # the judge sees a difference
    for line, shown in zip(lines[1:], ("a", "b"), strict=True):
        assert line["verdict"] == "different"
        witness = line["counterexample"]
        assert isinstance(witness, dict) and witness["only_in"] == shown
        dims = tuple(witness["dims"].values())
        result = tuple(witness["result"])
        assert (dims, result) in only_in_a
        s0, s1, s2, s3 = witness["symbols"].values()
        x, y = 2 * dims[0] + s0 - 2, 2 * dims[1] + s1 - 2
        assert 0 <= s3 <= 3 and result == (x // 2, y // 2, 4 * s2 + s3)
        if minimal:
            assert sum(dims) == min(sum(d) for d, _ in only_in_a)


def test_a_solver_failure_in_a_batch_is_an_internal_error_never_bad_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def failing(*args: object, **kwargs: object) -> object:
        raise SolverError("isl failed: a fault of the solver's")

    monkeypatch.setattr("verifier.checks.equivalence.check_equivalence", failing)
    # Maps no other test asks about: the batch's memo of answers has none.
    pair = ("(d0) -> (d0 + 7), domain: d0 in [0, 70]", "(d0) -> (d0), domain: d0 in [7, 77]")
    batch = tmp_path / "pairs.tsv"
    batch.write_text("\t".join(pair) + "\n")
    out = io.StringIO()
    assert main(["equiv", "--batch", str(batch), "--jobs", "1"], out) == EXIT_INTERNAL_ERROR
    assert json.loads(out.getvalue()) == {
        "error": f"{batch}:1: isl failed: a fault of the solver's"
    }
    assert check_equivalence_batch([pair], workers=1) == [
        BatchFailure("isl failed: a fault of the solver's", internal=True)
    ]
