"""run_checks: nothing refuted on the examples, the hand-broken ones refuted,
deterministic findings, a warm cache answering every solver question, the
`only` and `progress` options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.errors import InvalidHloError, ParseError, UsageError
from verifier.gate.catalog import CHECKS, INFORMATIONAL_CHECKS
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = sorted(
    [*EXAMPLES.glob("spec/*.hlo"), *EXAMPLES.glob("fusion/*.hlo")]
    + [p for p in EXAMPLES.glob("real/*.hlo") if p.stat().st_size < 100_000]
)


class CountingCache(MemoryCache):
    def __init__(self) -> None:
        super().__init__()
        self.stores = 0

    def store(self, key: str, answer: dict[str, Any]) -> None:
        self.stores += 1
        super().store(key, answer)


@pytest.mark.parametrize("path", SMALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_example_is_refuted_and_a_warm_cache_asks_nothing(path: Path) -> None:
    module = parse_module_file(path)
    cache = CountingCache()
    cold = list(run_checks(module, cache))
    refuted = [f for f in cold if f.outcome is Outcome.REFUTED]
    assert not [f for f in refuted if f.check not in INFORMATIONAL_CHECKS], refuted
    assert not [f for f in cold if f.outcome is Outcome.UNKNOWN]
    # A floor, not only the absence of refutations: most findings are proved,
    # and every instruction that reads an operand has a proved finding unless
    # its indexing is unknown (then all of its findings say unsupported).
    proved = [f for f in cold if f.outcome is Outcome.PROVED]
    assert len(proved) >= 0.75 * len(cold)
    by_instruction: dict[str, set[Outcome]] = {}
    for finding in cold:
        by_instruction.setdefault(finding.instruction, set()).add(finding.outcome)
    readers = {i.name for c in module.computations for i in c.instructions if i.operands}
    assert readers <= set(by_instruction)
    assert all(
        Outcome.PROVED in by_instruction[name] or by_instruction[name] == {Outcome.UNSUPPORTED}
        for name in readers
    )
    stored = cache.stores
    warm = list(run_checks(module, cache))
    assert warm == cold and cache.stores == stored


def test_a_bitcast_that_moves_elements_is_refuted_with_its_place() -> None:
    module = parse_module_file(EXAMPLES / "checks" / "bitcast_tiled.hlo")
    refuted = [f for f in run_checks(module, MemoryCache()) if f.outcome is Outcome.REFUTED]
    assert {f.check for f in refuted} == {"bitcast"}
    assert all(f.witness and f.span.line > 0 for f in refuted)


@pytest.mark.parametrize("name", ["concat_too_wide.hlo", "concat_too_narrow.hlo"])
def test_a_concatenate_whose_output_disagrees_with_its_operands_is_invalid_hlo(name: str) -> None:
    with pytest.raises(
        InvalidHloError, match=r"is not valid HLO: it is written f32\[2,1[57]\]"
    ) as error:
        parse_module_file(EXAMPLES / "checks" / name)
    assert (error.value.span.line, error.value.span.column) == (8, 8)


def test_a_convolution_whose_output_ignores_its_batch_groups_is_invalid_hlo() -> None:
    with pytest.raises(
        InvalidHloError,
        match=r"it is written f32\[3,3,4,4\], its operands and attributes give f32\[3,3,1,4\]",
    ) as error:
        parse_module_file(EXAMPLES / "checks" / "conv_output_shape.hlo")
    assert (error.value.span.line, error.value.span.column) == (9, 8)


@pytest.mark.parametrize(
    ("name", "place", "message"),
    [
        (
            "slice_past_operand.hlo",
            (6, 8),
            r"slice \[8:12:1\] is not inside a dimension of size 10",
        ),
        ("tuple_element_shape.hlo", (7, 8), r"written \(f32\[4\], f32\[5\]\), .* give \("),
        ("fusion_operand_count.hlo", (12, 8), "passes 1 operands to 'fused', which has 2"),
        ("unknown_opcode.hlo", (8, 19), "did you mean 'dynamic-update-slice'"),
    ],
)
def test_what_xla_rejects_is_rejected_at_its_place(
    name: str, place: tuple[int, int], message: str
) -> None:
    with pytest.raises(ParseError, match=message) as error:
        parse_module_file(EXAMPLES / "checks" / name)
    assert (error.value.span.line, error.value.span.column) == place


def test_only_selects_checks_and_rejects_unknown_names() -> None:
    module = parse_module_file(EXAMPLES / "spec" / "concatenate.hlo")
    findings = list(run_checks(module, MemoryCache(), only=["partition", "bitcast"]))
    assert {f.check for f in findings} == {"partition"}
    with pytest.raises(UsageError, match="in-bound"):
        list(run_checks(module, MemoryCache(), only=["in-bound"]))
    with pytest.raises(UsageError, match="none given"):
        list(run_checks(module, MemoryCache(), only=[]))
    assert set(CHECKS) >= INFORMATIONAL_CHECKS


def test_progress_counts_every_instruction() -> None:
    module = parse_module_file(EXAMPLES / "fusion" / "spec_cases.hlo")
    calls: list[tuple[int, int]] = []
    list(
        run_checks(module, MemoryCache(), progress=lambda done, total: calls.append((done, total)))
    )
    total = sum(len(c.instructions) for c in module.computations)
    assert calls == [(n, total) for n in range(1, total + 1)]


@pytest.mark.slow
def test_the_large_real_module_has_no_refutation() -> None:
    module = parse_module_file(EXAMPLES / "real" / "transformer_train_step.hlo")
    findings = list(run_checks(module, MemoryCache()))
    assert not [f for f in findings if f.outcome in (Outcome.REFUTED, Outcome.UNKNOWN)]
