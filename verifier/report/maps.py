"""The `maps` report: indexing maps of instructions as plain data and text.

The JSON shape (DESIGN.md) is one object per module::

    {"module": "m", "instructions": [
      {"name": "bc0", "opcode": "broadcast",
       "output_to_input": [{"output": 0, "operand": 0, "operand_name": "p0",
                            "maps": ["(d0, d1, d2) -> (d1), domain: ..."],
                            "runtime_variables": []}],
       "input_to_output": [{"operand": 0, "output": 0, "maps": [...]}]}]}

An operand whose indexing is unknown gets ``"maps": "UNDEFINED"`` and a
``"reason"``; an operand that is not read gets ``"maps": []``.  A fusion's
(or call's) maps are composed through its computation in both directions,
with ``"multiplicities"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from verifier.analysis import ModuleMaps
from verifier.expr.indexing_map import Undefined
from verifier.expr.printer import print_map
from verifier.fusion.compose import CALLING_OPCODES, ComposedIndexing
from verifier.hlo.module import Computation, Instruction
from verifier.indexing.analysis import output_count

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
    if options.direction in ("o2i", "both"):
        rows = []
        for output in range(output_count(instruction)):
            per_operand = maps.output_to_input(
                computation, instruction, output, simplified=simplified
            )
            for operand, composed in enumerate(per_operand):
                rows.append(
                    {
                        "output": output,
                        "operand": operand,
                        "operand_name": instruction.operands[operand],
                        **_indexing_json(composed, multiplicities=True),
                    }
                )
        entry["output_to_input"] = rows
    if options.direction in ("i2o", "both"):
        rows = []
        calling = instruction.opcode in CALLING_OPCODES
        for operand in range(len(instruction.operands)):
            per_output = maps.input_to_output(
                computation, instruction, operand, simplified=simplified
            )
            for output, reached in enumerate(per_output):
                rows.append(
                    {
                        "operand": operand,
                        "output": output,
                        **_indexing_json(reached, multiplicities=calling),
                    }
                )
        entry["input_to_output"] = rows
    return entry


def module_json(
    maps: ModuleMaps, instructions: Iterable[Instruction], options: MapsOptions
) -> dict[str, Any]:
    """The `maps` report of `instructions` (of the entry computation)."""
    return {
        "module": maps.module.name,
        "instructions": [
            instruction_json(maps, maps.module.entry, instruction, options)
            for instruction in instructions
        ],
    }


def to_parameters_json(maps: ModuleMaps, options: MapsOptions) -> dict[str, Any]:
    """The entry ROOT's maps composed through the whole entry computation
    (fusions included), one row per entry parameter."""
    entry = maps.module.entry
    root = entry.root
    rows = []
    for output in range(output_count(root)):
        composed = maps.to_parameters(output, simplified=options.simplified)
        for number, (parameter, indexing) in enumerate(
            zip(entry.parameters, composed, strict=True)
        ):
            rows.append(
                {
                    "output": output,
                    "operand": number,
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
                f"  output {row['output']} -> operand {row['operand']} ({row['operand_name']}):"
            )
            lines += _render_maps(row)
        for row in entry.get("input_to_output", []):
            lines.append(f"  operand {row['operand']} -> output {row['output']}:")
            lines += _render_maps(row)
    return "\n".join(lines)


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
