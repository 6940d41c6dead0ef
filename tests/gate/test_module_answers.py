"""A module's answers — each distinct tuple once, with the places that share
it — read back as findings are the findings of each instruction checked
alone, place by place, in order; the counts are theirs (#34)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.examples import EVERY_EXAMPLE, example_id, valid_module
from verifier.analysis import InstructionError, ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.gate.answers import Findings, ModuleAnswers
from verifier.gate.finding import Finding
from verifier.gate.suite import check_module, module_places
from verifier.hlo import Module, parse_module

Row = tuple[object, ...]


def _row(finding: Finding) -> Row:
    """Everything of a finding, its place in the file included."""
    span = finding.span
    return (*finding[:-1], span.filename, span.line, span.column)


def _each_alone(module: Module) -> list[Row]:
    """The findings of every instruction checked by itself (a run of its
    own: no answer taken from another place), in the module's order."""
    maps, cache = ModuleMaps(module, by_structure=False), MemoryCache()
    errors: list[InstructionError] = []
    return [
        _row(finding)
        for position in range(len(module_places(module)))
        for finding in check_module(maps, cache, places=[position], on_error=errors.append)
    ]


def _shared(module: Module) -> ModuleAnswers:
    errors: list[InstructionError] = []
    return check_module(ModuleMaps(module), MemoryCache(), on_error=errors.append)


_KEEPS: list[Callable[[str, Outcome], bool]] = [
    lambda check, outcome: outcome is not Outcome.PROVED,
    lambda check, outcome: check == "in-bounds",
    lambda check, outcome: outcome is Outcome.PROVED and check != "inverse",
]


def assert_answers_read_as_each_alone(module: Module) -> None:
    alone = _each_alone(module)
    answers = _shared(module)
    assert [_row(f) for f in answers] == alone
    assert len(answers) == len(alone)
    # The counts, in the order the findings first show them.
    assert list(answers.tally().items()) == list(Counter((r[0], r[1]) for r in alone).items())
    for keep in _KEEPS:
        kept = [r for r in alone if keep(r[0], r[1])]  # type: ignore[arg-type]
        assert [_row(f) for f in answers.where(keep)] == kept
        assert [_row(f) for f in Findings((answers, ())).where(keep)] == kept


def _chain(length: int) -> str:
    lines = ["HloModule chain", "ENTRY e {", "  v0 = f32[8] parameter(0)"]
    for i in range(1, length):
        op = ("add", "multiply")[i % 2]
        lines.append(f"  v{i} = f32[8] {op}(v{i - 1}, v0)")
    lines.append(f"  ROOT c = f32[16] concatenate(v{length - 1}, v0), dimensions={{0}}")
    return "\n".join([*lines, "}"])


def test_a_chain_keeps_each_signatures_answers_once_with_their_multiplicity() -> None:
    module = parse_module(_chain(30), "chain.hlo")
    answers = _shared(module)
    # Adds and multiplies share one tuple each; the concatenate has its own.
    assert answers.multiplicities == (15, 14, 1)
    assert_answers_read_as_each_alone(module)
    every = list(answers)
    assert [f.instruction for f in every if f.subject == "output 0 -> operand 0 (v28)"] == [
        "v29",
        "v29",
    ]  # in-bounds and simplification, read with v29's operand


@pytest.mark.slow
@pytest.mark.parametrize("path", EVERY_EXAMPLE, ids=example_id)
def test_every_example_reads_as_each_instruction_alone(path: Path) -> None:
    assert_answers_read_as_each_alone(valid_module(path))


def test_the_shares_of_a_module_merge_into_its_answers() -> None:
    module = parse_module(_chain(12), "chain.hlo")
    maps, cache = ModuleMaps(module), MemoryCache()
    positions = range(len(module_places(module)))
    shares = [
        check_module(maps, cache, places=[p for p in positions if p % 3 == k]) for k in range(3)
    ]
    merged = ModuleAnswers.merged(module.name, shares)
    assert [_row(f) for f in merged] == [_row(f) for f in _shared(module)]
    assert merged.tally() == _shared(module).tally()
