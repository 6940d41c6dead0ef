"""One module of a corpus as rows of the two corpus tables: plain, JSON-able
values (ints, floats, strings, None), the same whichever process computes
them.

* the **module row** — `MODULE_COLUMNS`: the file, the content hash and the
  verifier version it was analysed with (what ``--resume`` compares), the
  module's name, ``status`` (``ok``, ``error`` or ``timeout``), the wall
  ``seconds`` it took and the ``cpu_seconds`` of its analysis process (null
  for a timeout; the only columns that change between two runs), the
  number of instructions of every computation, the findings of every check
  counted per outcome (``proved`` … ``vacuous``), and the error message;
* the **operand rows** — `OPERAND_COLUMNS`: one per operand of every entry
  instruction that reads elements (``verifier utilization``'s rows):
  ``distinct_read`` is null when the count depends on run-time values
  (``distinct_read_min``/``_max`` are then the exact span over every run-time
  assignment, when there is one), ``utilization_exact`` is ``"p/q"``,
  ``undefined_reason`` says why there is no exact count; with a coalescing
  device (`verifier corpus --coalescing DEVICE`) the `COALESCING_COLUMNS`
  of a fusion's operand: the emitter XLA picks, the exact 32-byte sectors
  per warp request (min / mean / max over every request), the ideal, the
  exact verdict and XLA's first-warp and heuristic verdicts, or
  ``coalescing_reason`` saying why the counts are null (an emitter or
  layout not modelled; every column null for other instructions and when
  the option is off — the module row's ``coalescing_device`` says which).

Worked example, ``f32[5,20] slice(f32[10,20] p0), slice={[0:10:2], [0:20]}``
reads ``(d0, d1) -> (d0 * 2, d1)``: 100 of 200 elements, once each:

>>> text = '''
... HloModule m
... ENTRY e {
...   p0 = f32[10,20] parameter(0)
...   ROOT s = f32[5,20] slice(p0), slice={[0:10:2], [0:20]}
... }'''
>>> answer = analyse_text(text, "m.hlo")
>>> answer.module["module"], answer.module["instructions"], answer.module["refuted"]
('m', 2, 0)
>>> (row,) = answer.operands
>>> row["distinct_read"], row["reads"], row["utilization_exact"], row["xla_heuristic_elements"]
(100, 100, '1/2', 100.0)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from verifier.analysis import ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.coalescing.analysis import FusionCoalescing, fusion_coalescing
from verifier.coalescing.devices import Device, device
from verifier.counting.utilization import (
    OperandUtilization,
    Span,
    Unknown,
    module_utilization,
)
from verifier.errors import UnsupportedError
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module

Status = Literal["ok", "error", "timeout"]

OUTCOME_COLUMNS = tuple(outcome.value for outcome in Outcome)

MODULE_COLUMNS = (
    "file",
    "sha256",
    "verifier_version",
    "module",
    "status",
    "seconds",
    "cpu_seconds",
    "coalescing_device",
    "instructions",
    *OUTCOME_COLUMNS,
    "error",
)

COALESCING_COLUMNS = (
    "coalescing_emitter",
    "sectors_per_request_min",
    "sectors_per_request_mean",
    "sectors_per_request_max",
    "ideal_sectors",
    "coalesced",
    "xla_coalesced",
    "xla_heuristic_coalesced",
    "coalescing_reason",
)

OPERAND_COLUMNS = (
    "file",
    "instruction",
    "opcode",
    "operand",
    "operand_name",
    "elements",
    "distinct_read",
    "distinct_read_min",
    "distinct_read_max",
    "reads",
    "utilization",
    "utilization_exact",
    "xla_heuristic_elements",
    "undefined_reason",
    *COALESCING_COLUMNS,
)


Row = dict[str, Any]


@dataclass(frozen=True)
class ModuleAnswer:
    """What the analysis of one module found: the columns of its module row
    that the analysis decides, and its operand rows."""

    module: Row
    operands: tuple[Row, ...]


def ratio_text(value: Fraction) -> str:
    """``"p/q"``, also for integers (``"1/1"``), so every value parses alike."""
    return f"{value.numerator}/{value.denominator}"


def operand_row(file: str, instruction: str, opcode: str, row: OperandUtilization) -> Row:
    """One operand's row of the operand table."""
    answer = row.per_execution
    low: int | None
    high: int | None
    match answer:
        case int():
            low = high = answer
        case Span():
            low, high = answer.minimum, answer.maximum
        case Unknown():
            low = high = None
    utilization = row.utilization
    return {
        "file": file,
        "instruction": instruction,
        "opcode": opcode,
        "operand": row.operand,
        "operand_name": row.operand_name,
        "elements": row.elements,
        "distinct_read": row.distinct_read,
        "distinct_read_min": low,
        "distinct_read_max": high,
        "reads": row.reads if isinstance(row.reads, int) else None,
        "utilization": None if utilization is None else float(utilization),
        "utilization_exact": None if utilization is None else ratio_text(utilization),
        "xla_heuristic_elements": float(row.heuristic_elements),
        "undefined_reason": answer.reason if isinstance(answer, Unknown) else None,
    }


def coalescing_cells(answer: FusionCoalescing | str | None, operand: int) -> Row:
    """The `COALESCING_COLUMNS` of operand `operand` of a fusion (`answer`,
    or why the fusion has none; None: not a fusion, or coalescing not asked
    for)."""
    cells: Row = dict.fromkeys(COALESCING_COLUMNS)
    if answer is None:
        return cells
    if isinstance(answer, str):
        return cells | {"coalescing_reason": answer}
    cells["coalescing_emitter"] = answer.emitter.kind
    cells["xla_heuristic_coalesced"] = answer.xla_heuristic
    rows = {row.operand: row for row in answer.operands}
    row = rows.get(operand)
    if row is None:
        return cells | {"coalescing_reason": answer.emitter.unsupported}
    counts = row.sectors
    cells |= {"ideal_sectors": row.ideal_sectors, "xla_coalesced": row.xla_coalesced}
    if counts is None:
        return cells | {"coalescing_reason": row.reason}
    if not counts.requests:
        return cells | {"coalesced": True, "coalescing_reason": "no request reads it"}
    return cells | {
        "sectors_per_request_min": counts.minimum,
        "sectors_per_request_mean": float(counts.mean),
        "sectors_per_request_max": counts.maximum,
        "coalesced": row.coalesced,
    }


def _fusions_coalescing(maps: ModuleMaps, on: Device) -> dict[str, FusionCoalescing | str]:
    """Every fusion of the entry's coalescing, or why it has none (one
    fusion the analysis does not model never costs the module its row)."""
    answers: dict[str, FusionCoalescing | str] = {}
    for instruction in maps.module.entry.instructions:
        if instruction.opcode == "fusion":
            try:
                answers[instruction.name] = fusion_coalescing(maps, instruction, on)
            except UnsupportedError as error:
                answers[instruction.name] = str(error)
    return answers


def analyse_text(text: str, file: str, coalescing: str | None = None) -> ModuleAnswer:
    """Parse `text` (named `file` in messages and rows), run every check and
    count every operand's utilization, and with `coalescing` (a device name)
    every fusion operand's sectors per request.  Raises `VerifierError` on
    bad HLO or an unknown device."""
    module = parse_module(text, file)
    maps = ModuleMaps(module)
    outcomes = Counter(f.outcome.value for f in run_checks(maps, MemoryCache()))
    fusions = {} if coalescing is None else _fusions_coalescing(maps, device(coalescing))
    operands = tuple(
        operand_row(file, result.name, result.opcode, row)
        | coalescing_cells(fusions.get(result.name), row.operand)
        for result in module_utilization(maps)
        for row in result.operands
    )
    counts: Row = {
        "module": module.name,
        "instructions": sum(len(c.instructions) for c in module.computations),
        **{outcome: outcomes[outcome] for outcome in OUTCOME_COLUMNS},
    }
    return ModuleAnswer(counts, operands)
