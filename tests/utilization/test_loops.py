"""Utilization of real loops (`examples/real_ops`): what the counts of one
operand must satisfy between themselves, whatever the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.analysis import ModuleMaps
from verifier.counting.utilization import Span, Unknown, module_utilization
from verifier.hlo import parse_module_file

_REAL_OPS = Path(__file__).parents[2] / "examples" / "real_ops"


@pytest.mark.parametrize(
    "name", ["fori_dynamic_window", "kv_cache_scan", "while_carry_roll", "scan_cumulative"]
)
def test_every_element_read_is_read_at_least_once(name: str) -> None:
    # Reads (with multiplicity) count every element read at least once: a
    # loop whose reads maps passed its union limit (the simplified ones did
    # not) counted them over no maps at all, 0 reads of 769 distinct elements.
    module = parse_module_file(_REAL_OPS / f"{name}.hlo")
    for instruction in module_utilization(ModuleMaps(module)):
        for row in instruction.operands:
            distinct = row.per_execution
            if isinstance(distinct, Span):
                distinct = distinct.minimum
            if isinstance(distinct, Unknown) or isinstance(row.reads, Unknown):
                continue
            assert not isinstance(row.reads, Span), (instruction.name, row)
            assert row.reads >= distinct, (instruction.name, row)
