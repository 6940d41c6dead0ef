"""`verifier check` on inputs as users have them: an `--xla_dump_to`
directory, `--glob`, MLIR text, and a bug in one instruction (exit 70, with
the module's other findings still listed)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from verifier.cli import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_OK, main
from verifier.gate import suite

DUMPS = Path(__file__).parents[2] / "examples" / "corpus" / "dumps"

TWO_OPS = """HloModule two
ENTRY main {
  p0 = f32[4,8] parameter(0)
  t = f32[8,4] transpose(p0), dimensions={1,0}
  ROOT n = f32[8,4] negate(t)
}
"""


def json_report(*argv: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = main(["check", "--no-cache", "--format", "json", *argv], out)
    report: dict[str, Any] = json.loads(out.getvalue())
    return code, report


def test_a_dump_directory_yields_its_modules_and_skips_the_rest() -> None:
    code, report = json_report(str(DUMPS))
    assert code == EXIT_OK
    names = [Path(f).name for f in report["files"]]
    assert names == [
        "module_0006.jit__lambda.before_optimizations.txt",
        "module_0006.jit__lambda.cpu_after_optimizations.txt",
    ]


def test_glob_chooses_the_files(tmp_path: Path) -> None:
    (tmp_path / "kept.module").write_text(TWO_OPS)
    (tmp_path / "other.hlo").write_text(TWO_OPS)
    code, report = json_report("--glob", "*.module", str(tmp_path))
    assert code == EXIT_OK
    assert report["files"] == [str(tmp_path / "kept.module")]


def test_mlir_text_is_one_line_saying_how_to_get_hlo(tmp_path: Path) -> None:
    path = tmp_path / "f.mlir.hlo"
    path.write_text("module @jit_f {\n  func.func public @main() {\n  }\n}\n")
    code, report = json_report(str(path))
    assert code == EXIT_BAD_INPUT
    (error,) = report["errors"]
    assert "compile().as_text()" in error["message"] and "dialect='hlo'" in error["message"]


def test_an_internal_error_in_one_instruction_keeps_the_others_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "two.hlo"
    path.write_text(TWO_OPS)
    real = suite._REGISTRY["in-bounds"]

    def broken(place: Any, run: Any) -> Any:
        if place.instruction.name == "t":
            raise IndexError("tuple index out of range")
        return real.run(place, run)

    monkeypatch.setitem(suite._REGISTRY, "in-bounds", replace(real, run=broken))
    code, report = json_report(str(path))
    assert code == EXIT_INTERNAL_ERROR
    assert report["status"] == "internal-error"
    (error,) = report["errors"]
    assert error["internal"] is True
    assert (error["file"], error["line"]) == (str(path), 4)
    assert "'t'" in error["message"] and "IndexError" in error["message"]
    assert {f["instruction"] for f in report["findings"]} == {"n"}


def test_an_escaping_exception_in_maps_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.hlo"
    path.write_text(TWO_OPS)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("bug")

    monkeypatch.setattr("verifier.hlo.parser.parse_module", broken)
    code = main(["maps", str(path)], io.StringIO())
    assert code == EXIT_INTERNAL_ERROR
    assert f"internal error while reading {path}" in capsys.readouterr().err
