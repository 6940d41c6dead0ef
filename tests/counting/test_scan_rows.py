"""Utilization of a 12-step ``lax.scan`` (`examples/ops/while_scan_rows.hlo`):
each step reads row ``i`` of ``xs`` and writes the carry into row ``i`` of
``ys``.  What survives of the initial ``ys`` depends on the 12 offsets, each
read from the loop's counter once per iteration: per execution is no single
number, while "may read" is the union the interpreter finds over the loop.
(Each dynamic-update-slice keeps the rows below and above its offset as two
pieces: unjoined, 4,094 maps after 12 steps, past the loop's union limit,
and the answer was "unknown indexing".)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.computations import ComputationOracle
from verifier.analysis import ModuleMaps
from verifier.counting.utilization import (
    REPEATED,
    OperandUtilization,
    Unknown,
    module_utilization,
)
from verifier.hlo import parse_module_file

_SCAN = Path(__file__).parents[2] / "examples" / "ops" / "while_scan_rows.hlo"


def test_survivors_of_ys_depend_on_the_offsets() -> None:
    # Rows of the initial ys not written by any of the 12 offsets, 4 elements each.
    def survivors(offsets: list[int]) -> int:
        return 4 * (12 - len(set(offsets)))

    assert survivors([0] * 12) != survivors(list(range(12)))


def _state() -> OperandUtilization:
    module = parse_module_file(_SCAN)
    (loop,) = (i for i in module_utilization(ModuleMaps(module)) if i.opcode == "while")
    (state,) = loop.operands
    return state


@pytest.mark.slow
def test_twelve_step_scan_is_counted_through_the_loop() -> None:
    # About 4 CPU-s: 12 iterations composed, then counted.
    state = _state()
    assert state.per_execution == Unknown(REPEATED)
    assert state.reads == Unknown(REPEATED)


@pytest.mark.slow
def test_twelve_step_scan_may_read_what_the_interpreter_reads() -> None:
    # The interpreter runs the body 12 times element by element (tens of CPU-s).
    state = _state()
    module = parse_module_file(_SCAN)
    oracle = ComputationOracle(module)
    instruction = next(i for i in module.entry.instructions if i.opcode == "while")
    read: set[object] = set()
    for leaf in range(4):
        for elements in oracle.instruction_reads(module.entry, instruction, leaf).values():
            read |= elements
    assert state.may_read == len(read)
