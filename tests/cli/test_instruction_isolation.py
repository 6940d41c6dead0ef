"""`verifier maps` and `verifier utilization` isolate a bad instruction as
`check` does: it is reported at its line and column, every other
instruction is still mapped or counted, and the exit code says why (2 for
an instruction that is not valid HLO, 70 for a bug)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from verifier.analysis import InstructionMaps
from verifier.cli import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_OK, main

# `odd`'s dim_labels cannot be read (its rule needs them); the others can.
ONE_BAD = """HloModule one_bad
ENTRY main {
  x = f32[1,4,4,2] parameter(0)
  k = f32[3,3,2,2] parameter(1)
  conv = f32[1,4,4,2] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  odd = f32[1,4,4,2] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01?
  ROOT n = f32[1,4,4,2] negate(conv)
}
"""


def run(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "m.hlo"
    path.write_text(ONE_BAD)
    out = io.StringIO()
    code = main([*argv[:1], str(path), *argv[1:], "--format", "json"], out)
    report: dict[str, Any] = json.loads(out.getvalue())
    return code, report


def names(report: dict[str, Any]) -> set[str]:
    return {entry["name"] for entry in report["instructions"]}


@pytest.mark.parametrize("command", [["maps", "--all"], ["utilization"]])
def test_an_invalid_instruction_is_located_and_the_others_answered(
    tmp_path: Path, command: list[str]
) -> None:
    code, report = run(tmp_path, *command)
    assert code == EXIT_BAD_INPUT
    assert names(report) >= {"conv", "n"} and "odd" not in names(report)
    (error,) = report["errors"]
    assert (error["file"], error["line"], error["column"]) == (str(tmp_path / "m.hlo"), 6, 97)
    assert "dim_labels" in error["message"] and "internal" not in error


@pytest.mark.parametrize("command", [["maps", "--all"], ["utilization"]])
def test_a_bug_at_one_instruction_exits_70_and_the_others_are_answered(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = InstructionMaps.o2i

    def broken(self: InstructionMaps, *args: Any, **kw: Any) -> Any:
        if self.instruction.name == "conv":
            raise IndexError("tuple index out of range")
        return real(self, *args, **kw)

    monkeypatch.setattr(InstructionMaps, "o2i", broken)
    code, report = run(tmp_path, *command)
    assert code == EXIT_INTERNAL_ERROR
    assert "n" in names(report) and "conv" not in names(report)
    internal = [error for error in report["errors"] if error.get("internal")]
    (error,) = internal
    assert error["line"] == 5 and "'conv'" in error["message"] and "IndexError" in error["message"]


@pytest.mark.parametrize("command", [["maps", "--all"], ["utilization"]])
def test_the_text_report_lists_what_could_not_be_analysed(
    tmp_path: Path, command: list[str]
) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(ONE_BAD)
    out = io.StringIO()
    assert main([command[0], str(path), *command[1:]], out) == EXIT_BAD_INPUT
    text = out.getvalue()
    assert "could not be analysed (1):" in text
    assert f"{path}:6:97: convolution 'odd' needs the attribute 'dim_labels'" in text


def test_a_module_with_no_bad_instruction_has_no_errors_key(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(ONE_BAD.replace("b01?", "b01f"))
    out = io.StringIO()
    assert main(["maps", str(path), "--all", "--format", "json"], out) == EXIT_OK
    assert "errors" not in json.loads(out.getvalue())
