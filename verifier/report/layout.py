"""The `layout` report: where each element of a shape sits in its buffer,
and how big the buffer is, as plain data and as text.

The JSON shape::

    {"shape": "f32[3,5]{1,0:T(2,2)}",
     "map": "(d0, d1) -> (...), domain: ...",       # logical index → offset (slots)
     "inverse": "(d0) -> (...), domain: ...",       # offset → logical index; padding outside
     "elements": 15, "buffer_elements": 24, "padding_elements": 9,
     "offset_extent": 24,      # slots the offsets span (> buffer_elements when a
                               # later tiling pads beyond the first)
     "slot_bits": 32, "buffer_bytes": 96, "memory_space": 0}

Offsets count element slots, tile padding included (XLA's nested tiling);
the buffer is XLA's ``ShapeUtil::ArraySize`` (`verifier.indexing.layout`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verifier.analysis.layout import (
    buffer_bytes,
    buffer_elements,
    logical_index,
    offset_extent,
    physical_offset,
    slot_bits,
)
from verifier.errors import ParseError, span_at
from verifier.expr import IndexingMap
from verifier.hlo import parse_shape

Transform = Callable[[IndexingMap], IndexingMap]


def layout_json(text: str, transform: Transform | None = None, filename: str = "SHAPE") -> Any:
    """The report for the shape written `text` (maps passed through `transform`,
    e.g. the simplifier); an impossible layout is a `ParseError` at its ``{``.

    >>> report = layout_json("f32[3,5]{1,0:T(2,2)}")
    >>> report["buffer_elements"], report["buffer_bytes"], report["padding_elements"]
    (24, 96, 9)
    """
    shape = parse_shape(text, filename)

    def shown(indexing_map: IndexingMap) -> str:
        final = transform(indexing_map) if transform is not None else indexing_map
        return str(final).replace("\n", " ")

    try:
        elements = buffer_elements(shape)
        return {
            "shape": str(shape),
            "map": shown(physical_offset(shape)),
            "inverse": shown(logical_index(shape)),
            "elements": shape.num_elements,
            "buffer_elements": elements,
            "padding_elements": elements - shape.num_elements,
            "offset_extent": offset_extent(shape),
            "slot_bits": slot_bits(shape),
            "buffer_bytes": buffer_bytes(shape),
            "memory_space": shape.layout_or_default.memory_space or 0,
        }
    except ValueError as error:
        raise ParseError(str(error), span_at(text, max(0, text.find("{")), filename)) from error


def render_text(report: dict[str, Any]) -> str:
    """A readable rendering of `layout_json`'s output."""
    lines = [
        f"shape: {report['shape']}",
        "offset: " + report["map"].replace(", domain: ", ",\ndomain: "),
        "inverse: " + report["inverse"].replace(", domain: ", ",\ndomain: "),
        f"buffer: {report['buffer_elements']} slots of {report['slot_bits']} bits = "
        f"{report['buffer_bytes']} bytes ({report['elements']} elements, "
        f"{report['padding_elements']} padding)",
    ]
    if report["offset_extent"] > report["buffer_elements"]:
        lines.append(
            f"warning: offsets span {report['offset_extent']} slots, past the buffer "
            "(a later tiling pads beyond the first)"
        )
    lines.append(f"memory space: {report['memory_space']}")
    return "\n".join(lines)
