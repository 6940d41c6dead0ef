"""`verifier tile`: the JSON contract (validated by tests/report/tile-schema.json),
a refutation with its witness for sizes that break the condition, and bad
input as exit 2 with a message."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema

from verifier.cli import main

SCHEMA = json.loads((Path(__file__).parents[1] / "report" / "tile-schema.json").read_text())

MERGE = """HloModule m
ENTRY e {
  p0 = f32[1,8,6,4] parameter(0)
  ROOT r = f32[48,4] reshape(p0)
}"""


def _tile(tmp_path: Path, text: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "m.hlo"
    path.write_text(text)
    out = io.StringIO()
    code = main(["tile", str(path), *args], out)
    return code, out.getvalue()


def test_json_contract_for_admitted_sizes(tmp_path):
    code, text = _tile(tmp_path, MERGE, "--sizes", "12,4", "--format", "json")
    assert code == 0
    answer = json.loads(text)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(answer)
    (operand,) = answer["operands"]
    assert operand["tile"]["constraints"] == "6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]"
    assert operand["tile"]["exact"] == "proved" and operand["tile"]["witness"] is None
    assert answer["tiles"] == 4 and answer["constraints_hold"] is True
    # 2 rows of 6 by 4 columns of f32, every element loaded once.
    assert operand["tile"]["bytes_per_tile"] == 2 * 6 * 4 * 4
    assert operand["tile"]["elements_loaded_by_several_tiles"] == 0


def test_sizes_breaking_the_condition_are_refuted_with_a_witness(tmp_path):
    code, text = _tile(tmp_path, MERGE, "--sizes", "4,4", "--format", "json")
    assert code == 0
    answer = json.loads(text)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(answer)
    tile = answer["operands"][0]["tile"]
    assert answer["constraints_hold"] is False
    assert tile["exact"] == "refuted"
    # Tile 1 covers rows 4..7 of the 48: (0, 0, 4..5) and (0, 1, 0..1).
    assert tile["witness"] == (
        "sizes (4, 4), tile (1, 0): element (0, 1, 0, 0) is read but lies outside the tile"
    )
    assert (4 // 6, 4 % 6) == (0, 4) and (6 // 6, 6 % 6) == (1, 0)


def test_no_tile_gives_reason_and_covering_box(tmp_path):
    text = """HloModule m
ENTRY e {
  p0 = f32[6,2,3] parameter(0)
  ROOT r = f32[2,6,3] reshape(p0)
}"""
    code, out = _tile(tmp_path, text, "--sizes", "1,4,3", "--format", "json")
    assert code == 0
    answer = json.loads(out)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(answer)
    operand = answer["operands"][0]
    assert operand["tile"] is None and operand["reason"]
    # Output rows 0..3 of the first 6 are linear rows 0..3 of p0's 12 (6x2):
    # p0 rows 0..1, both columns.
    assert operand["covering_box"] == {"offsets": [0, 0, 0], "sizes": [2, 2, 3]}


def test_default_space_and_text(tmp_path):
    code, out = _tile(tmp_path, MERGE)
    assert code == 0
    assert "exact: proved (5 size vectors of the tiling space)" in out


def test_bad_sizes_exit_2(tmp_path):
    assert _tile(tmp_path, MERGE, "--sizes", "4")[0] == 2
    assert _tile(tmp_path, MERGE, "--sizes", "a,b")[0] == 2
    assert _tile(tmp_path, MERGE, "--instruction", "nope")[0] == 2
