"""XLA's verdicts on its own coalescing test cases (`xla_cases`): the
emitter, the first-warp analysis on all 18 cases that ask it, the
heuristic on the three that ask it."""

from __future__ import annotations

import pytest

from tests.coalescing.xla_cases import CASES, HEURISTIC
from verifier.analysis import ModuleMaps
from verifier.coalescing.analysis import FusionCoalescing, fusion_coalescing
from verifier.coalescing.devices import DEVICES
from verifier.hlo import parse_module

EMITTERS = {
    "transpose": "transpose",
    "param": "concatenate",
    "row_reduction": "row reduction",
    "multi_row_reduction": "multi-row reduction",
    "column_reduction": "small column reduction",
    "variadic_reduce_via_reduction_emitter": "row reduction",
}


def _answer(text: str) -> FusionCoalescing:
    module = parse_module(text)
    return fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["rtx-a6000"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_warp_verdicts(name: str) -> None:
    text, expected = CASES[name]
    answer = _answer(text)
    assert answer.emitter.kind == EMITTERS.get(name, "loop")
    assert tuple(o.xla_coalesced for o in answer.operands) == expected


@pytest.mark.parametrize("name", sorted(HEURISTIC))
def test_heuristic_verdicts(name: str) -> None:
    text, expected = HEURISTIC[name]
    assert _answer(text).xla_heuristic is expected


def test_pad_where_xla_and_the_exact_count_disagree() -> None:
    # Rows of 436 elements after a 24-element low edge: XLA's sample lies
    # in the padding (empty: "coalesced"); most rows start off a sector
    # (every warp simulated: test_exact.test_the_readme_pad).
    (operand, _) = _answer(CASES["pad"][0]).operands
    assert operand.xla_coalesced
    assert operand.sectors is not None
    assert (operand.sectors.minimum, operand.sectors.maximum) == (10, 17)
    assert operand.coalesced is False
