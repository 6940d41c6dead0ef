"""`verifier tile`'s answer: JSON (the contract) and text.

One instruction's output tile and, per operand, its symbolic tile in XLA's
terms (offset, size and stride maps of the tile sizes ``d0 …``, the
condition on the sizes) with isl's verdict, or ``null`` and the reason::

    {"module": "m", "instruction": "t", "output_shape": [48, 16],
     "tile_sizes": [8, 16],
     "operands": [{"operand": 0, "name": "p0", "shape": [16, 48],
                   "tile": {"offset_map": "(d0, d1) -> (0, 0), domain: …",
                            "size_map": "(d0, d1) -> (d1, d0)",
                            "stride_map": "(d0, d1) -> (1, 1)",
                            "constraints": "", "exact": "proved",
                            "covering": "proved", "witness": null, …},
                   "reason": null}]}

``exact`` is ``proved`` when every tile reads exactly its box (within what
the operation reads at all), ``refuted`` with a witness otherwise (then
``covering`` tells whether the box still holds every element read), and
``unknown`` when isl's budget ran out or the tiling space is too large.
"""

from __future__ import annotations

from typing import Any

from verifier.tiling.analysis import InstructionTiling, OperandTiling
from verifier.tiling.sizes import render_condition

_EXACT = {"exact": "proved", "covering": "refuted", "refuted": "refuted", "unknown": "unknown"}
_COVERING = {"exact": "proved", "covering": "proved", "refuted": "refuted", "unknown": "unknown"}


def tiling_json(module: str, result: InstructionTiling) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "module": module,
        "instruction": result.instruction,
        "opcode": result.opcode,
        "output_shape": list(result.output_shape),
        "tile_sizes": None if result.sizes is None else list(result.sizes),
        "operands": [_operand_json(o) for o in result.operands],
        "constraints": render_condition(result.condition),
        "constraints_hold": result.condition_holds,
        "tiles": result.tiles,
    }
    if result.inner:
        answer["instructions"] = [
            {
                "name": inner.name,
                "opcode": inner.opcode,
                "tile": None
                if inner.tile is None
                else {
                    "offset_map": inner.tile.offset_text(),
                    "size_map": inner.tile.size_map(),
                    "stride_map": inner.tile.stride_map(),
                    "constraints": inner.tile.condition_text(),
                },
                "reason": inner.reason,
            }
            for inner in result.inner
        ]
    return answer


def _operand_json(operand: OperandTiling) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "operand": operand.operand,
        "name": operand.name,
        "shape": list(operand.shape),
        "tile": None,
        "reason": operand.reason,
    }
    if operand.tile is None:
        box = operand.covering_box
        answer["covering_box"] = (
            None if box is None else {"offsets": list(box.offsets), "sizes": list(box.sizes)}
        )
        return answer
    proof = operand.proof
    verdict = "unknown" if proof is None else proof.verdict
    answer["tile"] = {
        "offset_map": operand.tile.offset_text(),
        "size_map": operand.tile.size_map(),
        "stride_map": operand.tile.stride_map(),
        "constraints": operand.tile.condition_text(),
        "exact": _EXACT[verdict],
        "covering": _COVERING[verdict],
        "witness": None if proof is None else proof.witness,
        "proved_for": operand.proved_for,
        "bytes_per_tile": operand.bytes_per_tile,
        "elements_loaded_by_several_tiles": operand.shared_elements,
    }
    return answer


def render_text(answer: dict[str, Any]) -> str:
    sizes = answer["tile_sizes"]
    lines = [
        f"module {answer['module']}",
        "",
        f"{answer['instruction']} ({answer['opcode']}) output {answer['output_shape']}"
        + ("" if sizes is None else f", tile sizes {sizes}, {answer['tiles']} tiles"),
    ]
    if answer["constraints"]:
        held = answer["constraints_hold"]
        suffix = "" if held is None else (" (hold)" if held else " (do NOT hold)")
        lines.append(f"  constraints: {answer['constraints']}{suffix}")
    for operand in answer["operands"]:
        lines.append(f"  operand {operand['operand']} ({operand['name']}) {operand['shape']}:")
        tile = operand["tile"]
        if tile is None:
            lines.append(f"    no tile: {operand['reason']}")
            box = operand.get("covering_box")
            if box is not None:
                lines.append(
                    f"    covering box at tile 0: offsets {box['offsets']}, sizes {box['sizes']}"
                )
            continue
        lines.append(f"    offset_map: {tile['offset_map']}")
        lines.append(f"    size_map:   {tile['size_map']}")
        lines.append(f"    stride_map: {tile['stride_map']}")
        if tile["constraints"]:
            lines.append(f"    constraints: {tile['constraints']}")
        lines.append(
            f"    exact: {tile['exact']} ({tile['proved_for']}), covering: {tile['covering']}"
        )
        if tile["witness"]:
            lines.append(f"    witness: {tile['witness']}")
        if tile["bytes_per_tile"] is not None:
            lines.append(
                f"    {tile['bytes_per_tile']} bytes per tile, "
                f"{tile['elements_loaded_by_several_tiles']} elements loaded by more than one tile"
            )
    for inner in answer.get("instructions", ()):
        tile = inner["tile"]
        if tile is None:
            lines.append(f"  {inner['name']} ({inner['opcode']}): no tile: {inner['reason']}")
        else:
            extra = f", constraints {tile['constraints']}" if tile["constraints"] else ""
            lines.append(f"  {inner['name']} ({inner['opcode']}): sizes {tile['size_map']}{extra}")
    return "\n".join(lines)
