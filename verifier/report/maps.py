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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from verifier.bridges.isl import relations_equal
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.printer import print_map
from verifier.fusion.compose import CALLING_OPCODES, ComposedIndexing, Composer
from verifier.hlo.module import Computation, Instruction, Module
from verifier.indexing.analysis import input_to_output
from verifier.indexing.leaves import (
    OperandLeaf,
    OutputLeaf,
    instruction_operand_leaves,
    output_leaves,
    parameter_leaves,
)
from verifier.indexing.registry import Indexing

Direction = Literal["o2i", "i2o", "both"]
MapTransform = Callable[[IndexingMap], IndexingMap]


@dataclass(frozen=True)
class MapsOptions:
    direction: Direction = "both"
    transform: MapTransform | None = None  # e.g. the simplifier


def _one_line(indexing_map: IndexingMap) -> str:
    return print_map(indexing_map).replace("\n", " ")


def _indexing_json(
    indexing: Indexing | ComposedIndexing, transform: MapTransform | None
) -> dict[str, Any]:
    multiplicities: list[int] | None = None
    plain: Indexing
    if isinstance(indexing, ComposedIndexing):
        if not isinstance(indexing.maps, Undefined):
            multiplicities = [counted.multiplicity for counted in indexing.maps]
        plain = indexing.indexing
    else:
        plain = indexing
    if isinstance(plain, Undefined):
        return {"maps": "UNDEFINED", "reason": plain.reason}
    maps = [transform(m) if transform else m for m in plain]
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
                entry["read_at"] = _one_line(variable.source.index_map)
            runtime.append(entry)
    result: dict[str, Any] = {"maps": [_one_line(m) for m in maps], "runtime_variables": runtime}
    if multiplicities is not None:
        result["multiplicities"] = multiplicities
    return result


def instruction_json(
    composer: Composer, computation: Computation, instruction: Instruction, options: MapsOptions
) -> dict[str, Any]:
    """The maps of one instruction as JSON-ready data (fusions and calls composed)."""
    entry: dict[str, Any] = {"name": instruction.name, "opcode": instruction.opcode}
    operands = instruction_operand_leaves(computation, instruction)
    if options.direction in ("o2i", "both"):
        rows = []
        for output in output_leaves(instruction.shape):
            per_operand = composer.output_to_input(computation, instruction, output.number)
            for operand, indexing in zip(operands, per_operand, strict=True):
                rows.append(
                    {
                        "output": output.number,
                        **_output_index(output),
                        "operand": operand.operand,
                        **_operand_index(operand),
                        "operand_name": operand.name,
                        **_indexing_json(indexing, None),  # the composer simplified
                    }
                )
        entry["output_to_input"] = rows
    if options.direction in ("i2o", "both"):
        rows = []
        outputs = output_leaves(instruction.shape)
        for operand in operands:
            per_output: tuple[Indexing | ComposedIndexing, ...]
            transform: MapTransform | None = options.transform
            if instruction.opcode in CALLING_OPCODES:
                per_output = composer.input_to_output(computation, instruction, operand.number)
                transform = None  # the composer simplified
            else:
                per_output = input_to_output(computation, instruction, operand.number)
            for output, reached in zip(outputs, per_output, strict=True):
                rows.append(
                    {
                        "operand": operand.operand,
                        **_operand_index(operand),
                        "output": output.number,
                        **_output_index(output),
                        **_indexing_json(reached, transform),
                    }
                )
        entry["input_to_output"] = rows
    return entry


def _output_index(output: OutputLeaf) -> dict[str, Any]:
    """``"output_index"``: the output's shape index, when inside a tuple."""
    return {"output_index": list(output.index)} if output.index else {}


def _operand_index(operand: OperandLeaf) -> dict[str, Any]:
    """``"operand_index"``: the shape index inside a tuple-shaped operand."""
    return {"operand_index": list(operand.index)} if operand.index else {}


def module_json(
    module: Module, instructions: Iterable[Instruction], options: MapsOptions
) -> dict[str, Any]:
    """The `maps` report of `instructions` (of the entry computation)."""
    composer = _composer(module, options)
    return {
        "module": module.name,
        "instructions": [
            instruction_json(composer, module.entry, instruction, options)
            for instruction in instructions
        ],
    }


def to_parameters_json(module: Module, options: MapsOptions) -> dict[str, Any]:
    """The entry ROOT's maps composed through the whole entry computation
    (fusions included), one row per entry parameter."""
    composer = _composer(module, options)
    root = module.entry.root
    rows = []
    for output in output_leaves(root.shape):
        composed = composer.computation_output_to_input(module.entry, output.number)
        for parameter, indexing in zip(parameter_leaves(module.entry), composed, strict=True):
            rows.append(
                {
                    "output": output.number,
                    **_output_index(output),
                    "operand": parameter.operand,
                    **_operand_index(parameter),
                    "operand_name": parameter.name,
                    **_indexing_json(indexing, None),
                }
            )
    return {
        "module": module.name,
        "instructions": [{"name": root.name, "opcode": root.opcode, "output_to_input": rows}],
    }


def _equal_relations(a: IndexingMap, b: IndexingMap) -> bool:
    """Merge maps only when isl proves them equal as relations; an exhausted
    budget keeps both (a union with a duplicate is still exact)."""
    return relations_equal(a, b) is True


def _composer(module: Module, options: MapsOptions) -> Composer:
    """A composer applying the report's transform (none: maps printed raw)."""
    transform = options.transform or (lambda m: m)
    return Composer(module, transform=transform, same=_equal_relations)


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
    return "\n".join(lines)


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
