"""Utilization of real loops (`examples/real_ops`): what the counts of one
operand must satisfy between themselves, whatever the loop."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from verifier.analysis import ModuleMaps
from verifier.counting.utilization import REPEATED, Span, Unknown, module_utilization
from verifier.hlo import parse_module_file

_REAL_OPS = Path(__file__).parents[2] / "examples" / "real_ops"


@pytest.mark.parametrize(
    "name",
    [
        # Its reads through the loop take 4 CPU-s: in the slow tier.
        pytest.param("fori_dynamic_window", marks=pytest.mark.slow),
        "kv_cache_scan",
        "while_carry_roll",
        "scan_cumulative",
    ],
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


@pytest.mark.parametrize(
    "name", ["fori_writes_at_indices.hlo", "fori_writes_at_indices.before.hlo"]
)
def test_writes_at_a_runtime_index_per_iteration_depend_on_every_iteration(name: str) -> None:
    # Three iterations zero 2 of 10 elements at idx[i]: 4 to 8 elements of
    # the initial array reach the output (plain loops over the offsets), so
    # per execution is no single number; fixing one value for the three
    # iterations' offsets (one source, `idx[i]`) gave 8.
    survivors = {
        10 - len({o + k for o in offsets for k in range(2)})
        for offsets in itertools.product(range(9), repeat=3)
    }
    assert len(survivors) > 1
    module = parse_module_file(_REAL_OPS / name)
    (loop,) = (i for i in module_utilization(ModuleMaps(module)) if i.opcode in ("call", "while"))
    (state,) = loop.operands
    assert state.per_execution == Unknown(REPEATED)
