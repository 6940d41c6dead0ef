"""Every committed real XLA dump (examples/real/*.hlo) parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.hlo import parse_module_file

DUMPS = sorted((Path(__file__).resolve().parents[2] / "examples" / "real").glob("*.hlo"))


def test_there_are_real_dumps() -> None:
    assert len(DUMPS) >= 9


@pytest.mark.parametrize("path", DUMPS, ids=lambda path: path.stem)
def test_real_dump_parses(path: Path) -> None:
    module = parse_module_file(path)
    assert module.instruction_count > 0
    assert module.entry.is_entry
    for computation in module.computations:
        for instruction in computation.instructions:
            computation.operand_instructions(instruction)
            for callee in instruction.called_computations:
                assert module.has_computation(callee)
