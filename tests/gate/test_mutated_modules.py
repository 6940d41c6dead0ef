"""Mutated real modules never make verifier crash: each is read and checked,
or rejected with a located error; an instruction that fails is an error of
its own, never an escaping exception and never an `InternalError` (a bug).

The mutations are the edits that keep a module plausible HLO and reach the
indexing rules: a dimension size, an integer in an attribute, an operand
swapped for another name, a line deleted.  Seeded, so a failure reproduces:
the seed and the mutated text are in the assertion message.  The fast tier
mutates the small corpus modules; the slow tier every module, more often.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from verifier.checks.cache import MemoryCache
from verifier.checks.result import DEFAULT_BUDGET
from verifier.errors import InternalError, ParseError, VerifierError
from verifier.gate.suite import run_checks
from verifier.hlo.files import hlo_files_under
from verifier.hlo.parser import parse_module

EXAMPLES = Path(__file__).parents[2] / "examples"
CORPUS = [
    path
    for directory in ("corpus", "syntax", "spec")
    for path in hlo_files_under(EXAMPLES / directory)
]
SMALL = [path for path in CORPUS if path.stat().st_size < 4_000]

_INTEGER = re.compile(r"(?<![\w.%])\d+(?![\w.])")
_NAME = re.compile(r"%[\w.-]+")


def mutate(text: str, rng: random.Random) -> str:
    """One plausible edit of `text`."""
    kind = rng.choice(["integer", "integer", "operand", "line", "zero"])
    if kind in ("integer", "zero"):
        numbers = list(_INTEGER.finditer(text))
        if numbers:
            match = rng.choice(numbers)
            value = (
                "0" if kind == "zero" else str(max(0, int(match.group()) + rng.choice([-1, 1, 2])))
            )
            return text[: match.start()] + value + text[match.end() :]
    if kind == "operand":
        names = list(_NAME.finditer(text))
        if len(names) > 1:
            match, other = rng.sample(names, 2)
            return text[: match.start()] + other.group() + text[match.end() :]
    lines = text.splitlines()
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def check_without_crash(text: str, seed: int) -> None:
    try:
        module = parse_module(text, "mutated.hlo")
    except ParseError as error:
        assert error.span.line >= 1
        return
    errors: list[ParseError | InternalError] = []
    try:
        list(run_checks(module, MemoryCache(), budget=DEFAULT_BUDGET, on_error=errors.append))
    except VerifierError:
        pytest.fail(f"seed {seed}: run_checks raised despite on_error\n{text}")
    internal = [e for e in errors if isinstance(e, InternalError)]
    assert not internal, f"seed {seed}: {internal[0]}\n{text}"


def _run(paths: list[Path], count: int, first_seed: int) -> None:
    for seed in range(first_seed, first_seed + count):
        rng = random.Random(seed)
        text = rng.choice(paths).read_text(encoding="utf-8")
        for _ in range(rng.randint(1, 3)):
            text = mutate(text, rng)
        check_without_crash(text, seed)


def test_mutated_small_modules_never_crash() -> None:
    _run(SMALL, 25, 0)


@pytest.mark.slow
def test_mutated_modules_never_crash() -> None:
    _run(CORPUS, 400, 1000)
