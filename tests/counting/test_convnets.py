"""The 3-conv/3-pool fusions of `tests/convnets.py`: at the sizes networks
use, every check proved and every count exact (none `unknown`); at small
sizes, every count equal to the reference interpreter's, which follows each
output element's reads through the fusion (`tests/counting/judge.py`)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.convnets import CONVNETS, Convnet, convnet_module
from tests.counting.judge import judge
from verifier.analysis import ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.counting.utilization import Unknown, instruction_utilization
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module

_NETS = {net.name: net for net in CONVNETS}


@pytest.mark.slow
@pytest.mark.parametrize("net", CONVNETS, ids=lambda net: net.name)
def test_every_check_is_proved_and_every_count_exact(net: Convnet) -> None:
    module = parse_module(convnet_module(net))
    maps = ModuleMaps(module)
    findings = list(run_checks(maps, MemoryCache()))
    assert {f.outcome for f in findings} == {Outcome.PROVED}, [
        f for f in findings if f.outcome is not Outcome.PROVED
    ]
    counts = instruction_utilization(maps, module.entry, module.entry.root)
    for row in counts.operands:
        assert not any(isinstance(n, Unknown) for n in (row.may_read, row.reads)), row


def _counts_match_the_interpreter(net: Convnet) -> None:
    module = parse_module(convnet_module(net))
    root = module.entry.root
    judged = judge(module, root)
    counted = instruction_utilization(ModuleMaps(module), module.entry, root)
    rows = zip(counted.operands, judged.distinct, judged.pairs, strict=True)
    for row, distinct, pairs in rows:
        assert (row.may_read, row.reads) == (distinct, pairs), row
    assert judged.pairs[0] > 0


def test_a_small_fusion_counts_as_the_interpreter_reads() -> None:
    # 16x16 and 1x1 kernels: the flattened 2x2 of the last pool reads the
    # image through the floordivs and mods of its position.
    _counts_match_the_interpreter(
        dataclasses.replace(_NETS["k1"], size=16, batch=1, channels=(1, 1, 1, 1))
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["base", "dilated", "nchw"])
def test_small_fusions_count_as_the_interpreter_reads(name: str) -> None:
    _counts_match_the_interpreter(
        dataclasses.replace(_NETS[name], size=8, batch=1, channels=(1, 1, 1, 1))
    )
