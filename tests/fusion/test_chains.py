"""Long reshape/transpose/bitcast chains compose linearly (issue #14): the
composed map and every simplification step behind it stay the size of one
op's maps however long the chain, the composed map is the chain walked on
integers, and the simplification check proves the composition step by step
(refuting a wrong step)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chains import chain_module, composed_chain, output_indices
from verifier.analysis.module_maps import ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.checks.result import CheckResult
from verifier.checks.simplification import check_simplification_steps, step_question
from verifier.checks.verdict import Outcome
from verifier.expr import IndexingMap, dim, parse_map
from verifier.fusion.compose import Composer
from verifier.fusion.composed import ComposedIndexing, Step
from verifier.hlo import Module, parse_module
from verifier.simplify import simplify_relation


def _fusion_maps(module: Module, composer: Composer | None = None) -> ComposedIndexing:
    fusion = module.entry.root
    if composer is None:
        view = ModuleMaps(module).instruction(module.entry, fusion)
        ((_, composed),) = view.o2i(view.outputs[0])
    else:
        (composed,) = composer.composed_output_to_input(module.entry, fusion)
    return composed


def _the_map(composed: ComposedIndexing) -> IndexingMap:
    maps = composed.indexing
    assert isinstance(maps, tuple)
    (only,) = maps
    return only


def _size(indexing_map: IndexingMap) -> int:
    """Text length plus symbols and constraints (each counted once more)."""
    return len(str(indexing_map)) + len(indexing_map.symbols) + len(indexing_map.constraints)


@pytest.mark.parametrize("n", [1, 7, 30])
def test_the_composed_map_is_the_chain_walked_on_integers(n: int) -> None:
    indexing_map = _the_map(_fusion_maps(parse_module(chain_module(n))))
    read = composed_chain(n)
    for index in output_indices(n):
        values = {dim(i): v for i, v in enumerate(index)}
        assert indexing_map.evaluate(values) == read(index), index


def test_the_reads_maps_are_the_chain_walked_on_integers_and_stay_small() -> None:
    # Counting reads composes pointwise-simplified maps (every variable
    # kept); the raw composition of 30 ops would be megabytes of text.
    n = 30
    module = parse_module(chain_module(n))
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    ((_, composed),) = view.reads(view.outputs[0])
    indexing_map = _the_map(composed)
    assert _size(indexing_map) < 1000
    read = composed_chain(n)
    for index in output_indices(n):
        assert indexing_map.evaluate({dim(i): v for i, v in enumerate(index)}) == read(index)


def test_the_composed_map_and_its_steps_grow_at_most_linearly() -> None:
    sizes = {}
    for n in (10, 20, 40, 80):
        composed = _fusion_maps(parse_module(chain_module(n)))
        # each op contributes its own map and one composition at most
        assert len(composed.steps) <= 2 * n
        largest_step = max(max(_size(s.before), _size(s.after)) for s in composed.steps)
        sizes[n] = max(_size(_the_map(composed)), largest_step)
    # The unsimplified composition grows exponentially (34 kB at 25 ops,
    # past 10 minutes at 50); a doubled chain may at most double the size.
    for n in (10, 20, 40):
        assert sizes[2 * n] <= 2 * sizes[n], sizes


def test_a_wrong_simplification_step_is_refuted() -> None:
    module = parse_module(chain_module(6))
    calls = 0

    def wrong_third(indexing_map: IndexingMap) -> IndexingMap:
        """simplify_relation, except that the third map it is given comes
        back with its first result off by one."""
        nonlocal calls
        calls += 1
        simplified = simplify_relation(indexing_map)
        if calls != 3 or not simplified.results:
            return simplified
        first, *rest = simplified.results
        return simplified.replaced(results=(first + 1, *rest))

    wrong = _fusion_maps(module, Composer(module, transform=wrong_third))
    result = check_simplification_steps(wrong.steps, MemoryCache())
    assert result.outcome is Outcome.REFUTED, result
    # Each step answered once by a memo (the gate's), the same result.
    answered: dict[Step, CheckResult] = {}

    def remembered(step: Step) -> CheckResult:
        if step not in answered:
            answered[step] = step_question(step, MemoryCache())
        return answered[step]

    assert check_simplification_steps(wrong.steps, MemoryCache(), check_step=remembered) == result
    assert set(answered) <= set(wrong.steps)
    assert result.message.startswith("step ") and "only by the" in result.message
    right = _fusion_maps(module)
    assert check_simplification_steps(right.steps, MemoryCache()).outcome is Outcome.PROVED


def _verifier(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("n", [100, 400])
def test_check_maps_and_utilization_on_a_long_chain_finish_with_exact_answers(
    n: int, tmp_path: Path
) -> None:
    path = tmp_path / f"chain_{n}.hlo"
    path.write_text(chain_module(n))
    checked = _verifier(["check", str(path), "--no-cache", "--format", "json"], timeout=300)
    assert checked.returncode == 0, checked.stderr
    totals = json.loads(checked.stdout)["summary"]["total"]
    assert totals["proved"] > 0
    assert totals["unknown"] == totals["refuted"] == totals["unsupported"] == 0, totals
    mapped = _verifier(
        ["maps", str(path), "--instruction", "chain", "--direction", "o2i", "--format", "json"],
        timeout=300,
    )
    assert mapped.returncode == 0, mapped.stderr
    (row,) = json.loads(mapped.stdout)["instructions"][0]["output_to_input"]
    (text,) = row["maps"]
    indexing_map = parse_map(text)
    counted = _verifier(["utilization", str(path), "--format", "json"], timeout=300)
    assert counted.returncode == 0, counted.stderr
    (operand,) = json.loads(counted.stdout)["instructions"][0]["operands"]
    assert operand["distinct_read"] == operand["reads"] == 64
    read = composed_chain(n)
    for index in output_indices(n):
        assert indexing_map.evaluate({dim(i): v for i, v in enumerate(index)}) == read(index)
