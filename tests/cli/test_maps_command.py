"""`verifier maps`: the JSON contract, exit codes and error messages."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from verifier.cli import EXIT_BAD_INPUT, EXIT_OK, main
from verifier.expr.parser import parse_map

EXAMPLE = Path(__file__).parents[2] / "examples" / "indexing_doc.hlo"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out)
    return code, out.getvalue()


def test_json_shape_of_one_instruction() -> None:
    code, text = run(
        "maps", str(EXAMPLE), "--instruction", "bc0", "--no-simplify", "--format", "json"
    )
    assert code == EXIT_OK
    report = json.loads(text)
    assert report["module"] == "indexing_doc"
    (entry,) = report["instructions"]
    assert (entry["name"], entry["opcode"]) == ("bc0", "broadcast")
    (o2i,) = entry["output_to_input"]
    assert (o2i["output"], o2i["operand"], o2i["operand_name"]) == (0, 0, "p20")
    (text_map,) = o2i["maps"]
    assert (
        parse_map(text_map).relation()
        == parse_map(
            "(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]"
        ).relation()
    )
    (i2o,) = entry["input_to_output"]
    assert i2o["operand"] == 0 and i2o["output"] == 0


def test_runtime_variables_name_their_source() -> None:
    code, text = run(
        "maps",
        str(EXAMPLE),
        "--instruction",
        "ds",
        "--no-simplify",
        "--direction",
        "o2i",
        "--format",
        "json",
    )
    assert code == EXIT_OK
    (entry,) = json.loads(text)["instructions"]
    assert "input_to_output" not in entry
    source = entry["output_to_input"][0]
    variables = {v["variable"]: v for v in source["runtime_variables"]}
    assert variables["rt0"]["instruction"] == "of1"
    assert variables["rt2"]["bounds"] == [0, 226]
    assert parse_map(variables["rt0"]["read_at"]).num_results == 0


def test_every_instruction_with_all() -> None:
    code, text = run("maps", str(EXAMPLE), "--all", "--no-simplify", "--format", "json")
    assert code == EXIT_OK
    names = [entry["name"] for entry in json.loads(text)["instructions"]]
    assert "pad" in names and "gather" in names and "p0" not in names


def test_unknown_instruction_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("maps", str(EXAMPLE), "--instruction", "nope")
    assert code == EXIT_BAD_INPUT
    assert "no instruction 'nope'" in capsys.readouterr().err


def test_malformed_hlo_names_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  p0 = f32[10 parameter(0)\n}\n")
    code, _ = run("maps", str(bad))
    assert code == EXIT_BAD_INPUT
    assert f"{bad}:3:" in capsys.readouterr().err


def test_missing_file_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("maps", "no/such/file.hlo")
    assert code == EXIT_BAD_INPUT
    assert "no/such/file.hlo" in capsys.readouterr().err


def test_help_explains_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("--help")
    assert code == EXIT_OK
    assert "exit codes" in capsys.readouterr().out
