"""`check --format sarif`: every file that cannot be read and every
instruction rejected as invalid HLO is a result (level ``error``) at its
file, line and column, so code scanning shows an alert at the broken line —
not only a notification of the tool's run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema

from verifier.cli import EXIT_BAD_INPUT, main

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())

MODULES = {
    "slice.hlo": """HloModule slice

ENTRY main {
  p0 = f32[10,20] parameter(0)
  ROOT s = f32[5,20] slice(p0), slice={[0:12:2], [0:20]}
}
""",
    "concat.hlo": """HloModule concat

ENTRY main {
  p0 = f32[10,20] parameter(0)
  n = f32[10,20] negate(p0)
  ROOT c = f32[13,20] concatenate(p0, n), dimensions={0}
}
""",
    "bitcast.hlo": """HloModule bitcast

ENTRY main {
  p0 = f32[3,4]{1,0} parameter(0)
  ROOT b = f32[7]{0} bitcast(p0)
}
""",
    "latin1.hlo": "HloModule latin1\n\xe9\n",
}

# (line, column) of each broken instruction (its name, after ROOT); the Latin-1 byte at 2:1.
PLACES = {"slice.hlo": (5, 8), "concat.hlo": (6, 8), "bitcast.hlo": (5, 8), "latin1.hlo": (2, 1)}


def sarif(tmp_path: Path) -> dict[str, Any]:
    for name, text in MODULES.items():
        (tmp_path / name).write_bytes(text.encode("latin-1"))
    out = io.StringIO()
    code = main(["check", "--no-cache", "--format", "sarif", str(tmp_path)], out)
    assert code == EXIT_BAD_INPUT
    log: dict[str, Any] = json.loads(out.getvalue())
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    return log


def test_each_rejected_file_is_an_error_result_at_its_line(tmp_path: Path) -> None:
    (run,) = sarif(tmp_path)["runs"]
    errors = [r for r in run["results"] if r["ruleId"] == "invalid-input"]
    places = {}
    for result in errors:
        assert result["level"] == "error"
        location = result["locations"][0]["physicalLocation"]
        region = location["region"]
        places[Path(location["artifactLocation"]["uri"]).name] = (
            region["startLine"],
            region["startColumn"],
        )
    assert places == PLACES
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])
    texts = " ".join(r["message"]["text"] for r in errors)
    assert "slice [0:12:2]" in texts and "bitcasts f32[3,4]" in texts and "0xe9" in texts


def test_a_missing_file_is_an_error_result_without_a_line(tmp_path: Path) -> None:
    out = io.StringIO()
    missing = str(tmp_path / "gone.hlo")
    assert main(["check", "--no-cache", "--format", "sarif", missing], out) == EXIT_BAD_INPUT
    (result,) = json.loads(out.getvalue())["runs"][0]["results"]
    assert result["level"] == "error" and "region" not in result["locations"][0]["physicalLocation"]
    assert result["message"]["text"] == "no such file or directory"
