"""`verifier utilization`: the JSON shape of the README, the order (largest
disagreement first), --instruction, and the text table."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

from verifier.cli import EXIT_BAD_INPUT, EXIT_OK, main

EXAMPLES = Path(__file__).parents[2] / "examples"

_KEYS = {
    "operand", "operand_name", "elements", "distinct_read", "reads", "utilization",
    "may_read", "per_execution", "xla_heuristic", "xla_heuristic_elements",
    "heuristic_vs_exact",
}  # fmt: skip


def _run(*arguments: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["utilization", *arguments], out)
    return code, out.getvalue()


def test_json_shape_and_order() -> None:
    code, text = _run(str(EXAMPLES / "real" / "softmax.hlo"), "--format", "json")
    assert code == EXIT_OK
    report = json.loads(text)
    assert isinstance(report["module"], str)
    rows = [(entry["name"], row) for entry in report["instructions"] for row in entry["operands"]]
    assert rows
    for _, row in rows:
        assert set(row) == _KEYS
        if isinstance(row["distinct_read"], int):
            assert row["utilization"] == _fraction(row["distinct_read"], row["elements"])
    # ynn_fusion.1 reads x twice over (a reduce and an elementwise use): XLA
    # says 2, exactly 16250 distinct of 16250 are read.
    first = report["instructions"][0]
    assert first["name"] == "ynn_fusion.1"
    assert first["operands"][0]["heuristic_vs_exact"] == 2.0
    assert first["operands"][0]["reads"] > first["operands"][0]["distinct_read"]


def _fraction(numerator: int, denominator: int) -> str:
    return str(Fraction(numerator, denominator))


def test_one_instruction_and_the_text_table() -> None:
    code, text = _run(
        str(EXAMPLES / "real" / "concat_pad.hlo"), "--instruction", "pad_slice_fusion"
    )
    assert code == EXIT_OK
    lines = text.splitlines()
    assert lines[1].split()[:3] == ["instruction", "operand", "elements"]
    # a.1 loses 4 of its 20 elements to the negative padding; XLA counts 20.
    assert lines[3].split()[:8] == ["pad_slice_fusion", "a.1", "20", "16", "16", "16", "4/5", "20"]


def test_unknown_instruction_is_bad_input() -> None:
    code, _ = _run(str(EXAMPLES / "real" / "concat_pad.hlo"), "--instruction", "nope")
    assert code == EXIT_BAD_INPUT


def test_runtime_answers_in_json() -> None:
    code, text = _run(str(EXAMPLES / "real" / "embedding_step.hlo"), "--format", "json")
    assert code == EXIT_OK
    rows = {
        (entry["name"], row["operand_name"]): row
        for entry in json.loads(text)["instructions"]
        for row in entry["operands"]
    }
    table = rows[("bitcast_copy_fusion", "table.1")]
    # 12 ids pick rows of 8 of a [50,8] table: one row if all are equal,
    # 12 rows if all differ; any row may be picked.
    assert table["per_execution"] == {"min": 8, "max": 96}
    assert table["utilization"] == {"min": "1/50", "max": "6/25"}
    assert (table["may_read"], table["distinct_read"], table["heuristic_vs_exact"]) == (
        400,
        None,
        None,
    )


def test_a_reason_is_a_note_under_the_table_not_a_cell() -> None:
    out = io.StringIO()
    path = EXAMPLES / "tuples" / "while_unknown_trip_count.hlo"
    assert main(["utilization", str(path)], out=out) == EXIT_OK
    lines = out.getvalue().splitlines()
    (loop,) = [line for line in lines if line.startswith("w ")]
    assert loop.split()[2:7] == ["6", "[1]", "[1]", "[1]", "[1]"]
    notes = [line for line in lines if line.startswith("[")]
    # The loop's trip count is a run-time value: the note names the loop.
    assert len(notes) == 1
    assert notes[0].startswith("[1] unknown indexing (while loop 'w' (condition ")
