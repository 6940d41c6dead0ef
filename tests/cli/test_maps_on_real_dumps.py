"""`verifier maps --all` over every committed real XLA dump (examples/real/*.hlo):
exit code 0, every map printed parses back, and every UNDEFINED names its reason.
An empty list of maps means the output does not read that operand (a tuple's
output 0 does not read its operand 1).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from verifier.cli import EXIT_OK, main
from verifier.expr.parser import parse_map

DUMPS = sorted((Path(__file__).resolve().parents[2] / "examples" / "real").glob("*.hlo"))
# The target-size module of the performance targets takes seconds: it runs in the slow tier.
LARGE = {"transformer_train_step"}
SIZED_DUMPS = [
    pytest.param(path, marks=pytest.mark.slow) if path.stem in LARGE else path for path in DUMPS
]


def maps_json(*argv: str) -> dict[str, object]:
    out = io.StringIO()
    code = main(["maps", *argv, "--format", "json"], out)
    assert code == EXIT_OK, out.getvalue()
    report: dict[str, object] = json.loads(out.getvalue())
    return report


def check_entries(entries: list[dict[str, object]]) -> None:
    for entry in entries:
        maps = entry["maps"]
        if maps == "UNDEFINED":
            assert isinstance(entry["reason"], str) and entry["reason"], entry
        else:
            assert isinstance(maps, list), entry
            for text in maps:
                assert isinstance(text, str)
                parse_map(text)


def test_the_dumps_include_the_target_module() -> None:
    assert "transformer_train_step.hlo" in {path.name for path in DUMPS}


@pytest.mark.parametrize("path", SIZED_DUMPS, ids=lambda path: path.stem)
def test_maps_all_answers_every_instruction(path: Path) -> None:
    report = maps_json(str(path), "--all")
    instructions = report["instructions"]
    assert isinstance(instructions, list) and instructions
    for instruction in instructions:
        check_entries(instruction.get("output_to_input", []))
        check_entries(instruction.get("input_to_output", []))


@pytest.mark.slow
@pytest.mark.parametrize("path", DUMPS, ids=lambda path: path.stem)
def test_maps_to_parameters_composes_every_dump(path: Path) -> None:
    report = maps_json(str(path), "--to-parameters", "--direction", "o2i")
    assert report["instructions"]
