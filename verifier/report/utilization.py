"""The `utilization` report: exact counts beside XLA's heuristic, as plain
data and as a table.

The JSON shape (the README's) is one object per module::

    {"module": "m", "instructions": [{"name": "fusion", "opcode": "fusion",
      "operands": [{"operand": 0, "operand_name": "p0", "elements": 1000,
                    "distinct_read": 250, "reads": 500, "utilization": "1/4",
                    "may_read": 250, "per_execution": 250,
                    "xla_heuristic": 0.25, "xla_heuristic_elements": 250,
                    "heuristic_vs_exact": 1.0}]}]}

An exact count is an integer; a per-execution count (and the reads and
utilization that go with it) that varies with the runtime values is
``{"min": …, "max": …}``; no exact answer is a string saying why
(``"depends on runtime values"``, ``"unknown indexing (…)"``), and then
``distinct_read`` and ``heuristic_vs_exact`` are ``null``.  Instructions and
their operands come largest disagreement first.  An instruction that could
not be counted is left out and listed under ``"errors"``
(`verifier.report.instruction_errors`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from verifier.counting.utilization import (
    InstructionUtilization,
    OperandUtilization,
    ReadCount,
    Span,
    Unknown,
)
from verifier.report.instruction_errors import errors_text


def _answer(answer: ReadCount) -> Any:
    if isinstance(answer, Unknown):
        return answer.reason
    if isinstance(answer, Span):
        return {"min": answer.minimum, "max": answer.maximum}
    return answer


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _utilization(row: OperandUtilization) -> Any:
    answer = row.per_execution
    if isinstance(answer, Unknown):
        return answer.reason
    if not row.elements:
        return "0"
    if isinstance(answer, Span):
        return {
            "min": str(Fraction(answer.minimum, row.elements)),
            "max": str(Fraction(answer.maximum, row.elements)),
        }
    return str(Fraction(answer, row.elements))


def operand_json(row: OperandUtilization) -> dict[str, Any]:
    ratio = row.heuristic_vs_exact
    return {
        "operand": row.operand,
        "operand_name": row.operand_name,
        "elements": row.elements,
        "distinct_read": row.distinct_read,
        "reads": _answer(row.reads),
        "utilization": _utilization(row),
        "may_read": _answer(row.may_read),
        "per_execution": _answer(row.per_execution),
        "xla_heuristic": float(row.xla_heuristic),
        "xla_heuristic_elements": _number(row.heuristic_elements),
        "heuristic_vs_exact": None if ratio is None else float(ratio),
    }


def module_json(module: str, instructions: tuple[InstructionUtilization, ...]) -> dict[str, Any]:
    return {
        "module": module,
        "instructions": [
            {
                "name": result.name,
                "opcode": result.opcode,
                "operands": [operand_json(row) for row in result.operands],
            }
            for result in instructions
        ],
    }


_COLUMNS = (
    ("instruction", "name"),
    ("operand", "operand_name"),
    ("elements", "elements"),
    ("distinct", "per_execution"),
    ("may read", "may_read"),
    ("reads", "reads"),
    ("utilization", "utilization"),
    ("XLA elements", "xla_heuristic_elements"),
    ("XLA/exact", "heuristic_vs_exact"),
)
_NAMES = 2  # the leading columns that name the row; the others are numbers


def _cell(value: Any, notes: dict[str, int]) -> str:
    """A table cell; a reason (no exact number) becomes a numbered note."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        return f"{value['min']}..{value['max']}"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str) and not _EXACT.fullmatch(value):
        return f"[{notes.setdefault(value, len(notes) + 1)}]"
    return str(value)


def _row_cells(fields: dict[str, Any], notes: dict[str, int]) -> list[str]:
    names = [str(fields[key]) for _, key in _COLUMNS[:_NAMES]]
    return names + [_cell(fields[key], notes) for _, key in _COLUMNS[_NAMES:]]


# An exact number as the JSON writes it: an integer or a fraction ("1/4").
_EXACT = re.compile(r"-?\d+(/\d+)?")


def render_text(report: dict[str, Any]) -> str:
    """One row per operand, all instructions together, largest disagreement
    first (the JSON's order, merged); where there is no exact number, a
    note number, and the notes below the table."""
    notes: dict[str, int] = {}
    rows: list[list[str]] = []
    for entry in report["instructions"]:
        for operand in entry["operands"]:
            fields = {"name": entry["name"], **operand}
            rows.append(_row_cells(fields, notes))
    order = _disagreement_order(report)
    rows = [rows[i] for i in order]
    header = [title for title, _ in _COLUMNS]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))

    text = [f"module {report['module']}", line(header), line(["-" * w for w in widths])]
    text += [line(row).rstrip() for row in rows]
    text += [f"[{number}] {reason}" for reason, number in notes.items()]
    return "\n".join(text + errors_text(report))


def _disagreement_order(report: dict[str, Any]) -> list[int]:
    """Row positions sorted by ``|log(XLA/exact)|`` (as
    `OperandUtilization.disagreement`), unknown ratios last."""
    keys: list[float] = []
    for entry in report["instructions"]:
        for operand in entry["operands"]:
            ratio = operand["heuristic_vs_exact"]
            if ratio is None:
                keys.append(float("inf") if operand["distinct_read"] == 0 else -1.0)
            else:
                keys.append(abs(math.log(ratio)) if ratio > 0 else math.inf)
    return sorted(range(len(keys)), key=lambda i: -keys[i])
