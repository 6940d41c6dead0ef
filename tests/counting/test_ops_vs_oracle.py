"""Utilization of every op on generated small configurations, judged by the
reference interpreters: distinct elements (may read), per execution
(dynamic offsets fixed to every value in turn), and reads."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.indexing import compound_strategies as more
from tests.indexing.hlo_strategies import STRATEGIES
from tests.oracle import UnsupportedByOracle
from verifier.analysis import ModuleMaps
from verifier.counting.utilization import Span, Unknown, instruction_utilization
from verifier.hlo import parse_module

from .judge import judge, per_execution, runtime_offsets

_ALL = {
    **{k: v for k, v in STRATEGIES.items() if k not in ("constant", "iota", "parameter")},
    "convolution": more.convolution(),
    "sort": more.sort(),
    "scatter": more.scatter(),
    "select-and-scatter": more.select_and_scatter(),
}
_LEAVES = {"partition-id", "replica-id", "rng-get-and-update-state"}
# Ops whose naive evaluation reads one element several times for one output
# element (overlapping pieces of the update window's complement; overlapping
# windows of select-and-scatter; a scale element of scaled-dot, once per
# element of its block): reads count every time, the interpreter's sets once.
_REPEATED = {"dynamic-update-slice", "select-and-scatter", "scaled-dot"}
# Ops that read at runtime indices (an operand of the module, not a constant;
# ragged-dot's groups come from its group_sizes operand).
_RUNTIME_INDICES = {"gather", "scatter", "ragged-dot"}


@pytest.mark.parametrize("opcode", sorted(set(_ALL) - _LEAVES))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_counts_match_the_interpreter(opcode: str, data: st.DataObject) -> None:
    text = data.draw(_ALL[opcode], label="hlo")
    module = parse_module(text)
    root = module.entry.root
    try:
        judged = judge(module, root)
    except UnsupportedByOracle:
        assume(False)
    result = instruction_utilization(ModuleMaps(module), module.entry, root)
    fixed = runtime_offsets(text) == 0 and opcode not in _RUNTIME_INDICES
    for row, distinct, pairs in zip(result.operands, judged.distinct, judged.pairs, strict=True):
        if isinstance(row.may_read, Unknown):
            assert row.may_read.reason.startswith("unknown indexing"), row
            continue
        assert row.may_read == distinct, (row, text)
        if fixed:
            assert row.per_execution == distinct, (row, text)
        if fixed and opcode not in _REPEATED:
            assert row.reads == pairs, (row, text)


@pytest.mark.parametrize("opcode", ["dynamic-slice", "dynamic-update-slice"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_per_execution_fixes_every_offset(opcode: str, data: st.DataObject) -> None:
    text = data.draw(_ALL[opcode], label="hlo")
    assume(runtime_offsets(text) > 0)
    module = parse_module(text)
    result = instruction_utilization(ModuleMaps(module), module.entry, module.entry.root)
    # Operand dims are at most 5, so starts 0..5 cover every clamped value.
    executions = per_execution(text, range(6))
    data_operands = 1 if opcode == "dynamic-slice" else 2
    for number in range(data_operands):
        counts = [distinct[number] for distinct in executions]
        low, high = min(counts), max(counts)
        expected: int | Span = low if low == high else Span(low, high)
        assert result.operands[number].per_execution == expected, text
