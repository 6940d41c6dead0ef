"""The `maps` report: indexing maps of instructions as plain data and text.

The JSON shape (the README's) is one object per module::

    {"module": "m", "instructions": [
      {"name": "bc0", "opcode": "broadcast",
       "output_to_input": [{"output": 0, "operand": 0, "operand_name": "p0",
                            "maps": ["(d0, d1, d2) -> (d1), domain: ..."],
                            "runtime_variables": []}],
       "input_to_output": [{"operand": 0, "output": 0, "maps": [...]}]}]}

An instruction that could not be mapped is left out and listed under
``"errors"`` (`verifier.report.instruction_errors`).  An operand whose indexing is unknown gets ``"maps": "UNDEFINED"`` and a
``"reason"``; an operand that is not read gets ``"maps": []``.  A fusion's
(or call's) maps are composed through its computation in both directions,
with ``"multiplicities"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from verifier.analysis import InstructionError, ModuleMaps, isolated
from verifier.analysis.instruction_maps import ComposedIndexing, OperandLeaf, OutputLeaf, Progress
from verifier.expr import Undefined, print_map
from verifier.hlo import Computation, Instruction
from verifier.report.instruction_errors import errors_text

Direction = Literal["o2i", "i2o", "both"]


@dataclass(frozen=True)
class MapsOptions:
    direction: Direction = "both"
    simplified: bool = True  # False: the maps as the rules and composition give them


def _indexing_json(composed: ComposedIndexing, *, multiplicities: bool) -> dict[str, Any]:
    if isinstance(composed.maps, Undefined):
        return {"maps": "UNDEFINED", "reason": composed.maps.reason}
    maps = [counted.map for counted in composed.maps]
    runtime: list[dict[str, Any]] = []
    for position, indexing_map in enumerate(maps):
        for index, variable in enumerate(indexing_map.rt_vars):
            entry: dict[str, Any] = {
                "map": position,
                "variable": f"rt{index}",
                "bounds": [variable.bounds.lower, variable.bounds.upper],
            }
            if variable.source is not None:
                entry["instruction"] = variable.source.instruction
                entry["read_at"] = print_map(variable.source.index_map, one_line=True)
            runtime.append(entry)
    result: dict[str, Any] = {
        "maps": [print_map(m, one_line=True) for m in maps],
        "runtime_variables": runtime,
    }
    if multiplicities:
        result["multiplicities"] = [counted.multiplicity for counted in composed.maps]
    return result


def instruction_json(
    maps: ModuleMaps, computation: Computation, instruction: Instruction, options: MapsOptions
) -> dict[str, Any]:
    """The maps of one instruction as JSON-ready data (fusions and calls composed)."""
    entry: dict[str, Any] = {"name": instruction.name, "opcode": instruction.opcode}
    simplified = options.simplified
    view = maps.instruction(computation, instruction)
    if options.direction in ("o2i", "both"):
        rows = []
        for output in view.outputs:
            for operand, composed in view.o2i(output, simplified=simplified):
                rows.append(
                    {
                        "output": output.number,
                        **_output_index(output),
                        "operand": operand.operand,
                        **_operand_index(operand),
                        "operand_name": operand.name,
                        **_indexing_json(composed, multiplicities=True),
                    }
                )
        entry["output_to_input"] = rows
    if options.direction in ("i2o", "both"):
        rows = []
        for operand in view.operands:
            for output, reached in view.i2o(operand, simplified=simplified):
                rows.append(
                    {
                        "operand": operand.operand,
                        **_operand_index(operand),
                        "output": output.number,
                        **_output_index(output),
                        **_indexing_json(reached, multiplicities=view.composed),
                    }
                )
        entry["input_to_output"] = rows
    return entry


def _output_index(output: OutputLeaf) -> dict[str, Any]:
    """``"output_index"``: the output's shape index inside a nested tuple
    (in a flat tuple, output ``k`` is element ``k``)."""
    return {"output_index": list(output.index)} if len(output.index) > 1 else {}


def _operand_index(operand: OperandLeaf) -> dict[str, Any]:
    """``"operand_index"``: the shape index inside a tuple-shaped operand."""
    return {"operand_index": list(operand.index)} if operand.index else {}


def module_json(
    maps: ModuleMaps,
    instructions: Iterable[Instruction],
    options: MapsOptions,
    *,
    on_error: Callable[[InstructionError], None] | None = None,
) -> dict[str, Any]:
    """The `maps` report of `instructions` (of the entry computation).

    With `on_error`, one instruction never sinks the report: one whose maps
    raise is passed to `on_error` (`verifier.analysis.isolated`) and left
    out, the others are mapped; without it the exception propagates.  The
    caller lists them with `instruction_errors.errors_json`."""
    entry = maps.module.entry
    rows: list[dict[str, Any]] = []
    for instruction in instructions:

        def row(instruction: Instruction = instruction) -> dict[str, Any]:
            return instruction_json(maps, entry, instruction, options)

        answer = isolated(instruction, row, on_error)
        if answer is not None:
            rows.append(answer)
    return {"module": maps.module.name, "instructions": rows}


def to_parameters_json(
    maps: ModuleMaps, options: MapsOptions, progress: Progress | None = None
) -> dict[str, Any]:
    """The entry ROOT's maps composed through the whole entry computation
    (fusions included), one row per entry parameter; `progress` is told
    ``(done, total)`` instructions composed through, per output."""
    entry = maps.module.entry
    root = entry.root
    rows = []
    for output in maps.instruction(entry, root).outputs:
        for parameter, indexing in maps.to_parameters(
            output, simplified=options.simplified, progress=progress
        ):
            rows.append(
                {
                    "output": output.number,
                    **_output_index(output),
                    "operand": parameter.operand,
                    **_operand_index(parameter),
                    "operand_name": parameter.name,
                    **_indexing_json(indexing, multiplicities=True),
                }
            )
    return {
        "module": maps.module.name,
        "instructions": [{"name": root.name, "opcode": root.opcode, "output_to_input": rows}],
    }


def render_text(report: dict[str, Any]) -> str:
    """A readable rendering of `module_json`'s output."""
    lines = [f"module {report['module']}"]
    for entry in report["instructions"]:
        lines.append(f"\n{entry['name']} ({entry['opcode']})")
        for row in entry.get("output_to_input", []):
            lines.append(
                f"  output {row['output']} -> operand {row['operand']}"
                f"{_index_text(row, 'operand_index')} ({row['operand_name']}):"
            )
            lines += _render_maps(row)
        for row in entry.get("input_to_output", []):
            lines.append(
                f"  operand {row['operand']}{_index_text(row, 'operand_index')}"
                f" -> output {row['output']}:"
            )
            lines += _render_maps(row)
    return "\n".join(lines + errors_text(report))


def _index_text(row: dict[str, Any], key: str) -> str:
    """`` {1,0}`` for a leaf of a tuple-shaped operand, else nothing."""
    if key not in row:
        return ""
    return " {" + ",".join(map(str, row[key])) + "}"


def _render_maps(row: dict[str, Any]) -> list[str]:
    if row["maps"] == "UNDEFINED":
        return [f"    UNDEFINED ({row['reason']})"]
    if not row["maps"]:
        return ["    (not read)"]
    lines = [f"    {text}" for text in row["maps"]]
    for variable in row.get("runtime_variables", []):
        source = variable.get("instruction")
        where = f" = {source} at {variable['read_at']}" if source else ""
        lines.append(
            f"      map {variable['map']}: {variable['variable']} in "
            f"[{variable['bounds'][0]}, {variable['bounds'][1]}]{where}"
        )
    return lines
