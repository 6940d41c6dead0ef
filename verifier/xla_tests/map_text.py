"""XLA's map text of every era, read into today's maps.

XLA has printed indexing maps in several forms; all of them read here as
the `verifier.expr` grammar reads today's:

* today's: ``(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]``;
* domain items one a line without commas (2024), with runtime variables
  followed by their ``hlo: …`` and ``(…) -> (…)`` lines (dropped: the
  variable's interval is what the map relates);
* half-open intervals ``d0 in [0, 10)`` (early 2024) — ``[0, 9]``;
* MLIR's ``affine_map<(d0)[s0] -> (d0 + s0)>`` around the map part;
* `operand id = N` blocks (`HloInstructionIndexing::ToString`), each with
  its maps (``unknown indexing`` is ``UNDEFINED``), and the sources of
  runtime variables after them (dropped, as above); an all-gather's
  ``replica id:`` map is dropped too (which replica holds an element is not
  part of the element relation compared here).

A map written without a domain (the oldest tests printed only the affine
part) cannot be read: it is the parser's `ParseError` (no bound for a
variable).

>>> m = read_map('''(d0)[s0] -> (d0 + s0)
...     domain:
...     d0 in [0, 10)
...     s0 in [0, 3]''')
>>> str(m).replace("\\n", " ")
'(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]'
>>> [(operand, len(maps)) for operand, maps in read_operands('''operand id = 0
...     (d0) -> (d0), domain: d0 in [0, 3]
...   operand id = 1 KNOWN EMPTY''')]
[(0, 1), (1, 1)]
"""

from __future__ import annotations

import re

from verifier.errors import ParseError, SourceSpan
from verifier.expr import IndexingMap, Undefined, parse_map

_AFFINE_MAP = re.compile(r"affine_map<(.*)>", re.S)
_HALF_OPEN = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
_ITEM = re.compile(
    r"\s*,?\s*(?P<expr>[^,]+?|.+?)\s+in\s+(?P<interval>\[\s*-?\d+\s*,\s*-?\d+\s*\])", re.S
)
_OPERAND = re.compile(r"operand id\s*=\s*(\d+)")
_MAP_START = re.compile(
    r"(?m)(?:^|(?<=\s))(?:\((?:[^()]*)\)\s*(?:\[[^\]]*\])?\s*(?:\{[^}]*\})?\s*->|KNOWN EMPTY|UNDEFINED|unknown indexing)"
)
_SIMPLIFIED_FLAG = re.compile(r",?\s*is_simplified\s*:\s*(true|false)")


def normalized(text: str) -> str:
    """`text` in today's grammar (see the module docstring)."""
    text = text.split("replica id:", 1)[0].strip()
    if text == "unknown indexing":
        return "UNDEFINED"
    affine = _AFFINE_MAP.search(text)
    if affine is not None:
        text = text[: affine.start()] + affine.group(1) + text[affine.end() :]
    text = _HALF_OPEN.sub(lambda m: f"[{m.group(1)}, {int(m.group(2)) - 1}]", text)
    text = _SIMPLIFIED_FLAG.sub("", text)
    lines = text.splitlines()
    kept: list[str] = []
    skip_map_line = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("hlo:"):
            skip_map_line = True
            continue
        if skip_map_line and "->" in stripped:
            skip_map_line = False
            continue
        skip_map_line = False
        kept.append(stripped)
    text = "\n".join(kept)
    if text in ("KNOWN EMPTY", "UNDEFINED") or "domain" not in text:
        return text
    head, domain = text.split("domain", 1)
    domain = domain.lstrip().removeprefix(":")
    items = []
    position = 0
    while position < len(domain.rstrip(" \n,")):
        item = _ITEM.match(domain, position)
        if item is None:
            return text  # not a domain this reader knows: the parser says where
        items.append(f"{' '.join(item.group('expr').split())} in {item.group('interval')}")
        position = item.end()
    head = head.rstrip().rstrip(",")
    return f"{head}, domain: " + ", ".join(items)


def read_map(text: str, filename: str = "<map>") -> IndexingMap | Undefined:
    """A map of any era's text; ``UNDEFINED`` is `Undefined`.  A map
    printed without its domain (the affine part only) is the parser's
    `ParseError`: ``no bound for variable 'd0' in the domain``."""
    text = normalized(text)
    if text == "UNDEFINED":
        return Undefined()
    return parse_map(text, filename)


def read_operands(
    text: str, filename: str = "<maps>"
) -> list[tuple[int, list[IndexingMap | Undefined]]]:
    """The ``operand id = N`` blocks of an instruction's indexing, each with
    its maps in order."""
    blocks = list(_OPERAND.finditer(text))
    if not blocks:
        raise ParseError(
            "expected 'operand id = N' blocks", SourceSpan(filename, 1, 1, text.strip()[:60])
        )
    found: list[tuple[int, list[IndexingMap | Undefined]]] = []
    for block, following in zip(blocks, [*blocks[1:], None], strict=True):
        body = text[block.end() : following.start() if following is not None else len(text)]
        # The sources of runtime variables (``rt0: parameter(1); (d0) -> (), …``)
        # follow the maps; the maps relate each runtime variable over its interval.
        body = body.split("runtime variables:", 1)[0].split("replica id:", 1)[0]
        starts = [m.start() for m in _MAP_START.finditer(body)]
        ends = [*starts[1:], len(body)] if starts else []
        maps = [
            read_map(body[start:end], filename) for start, end in zip(starts, ends, strict=True)
        ]
        found.append((int(block.group(1)), maps))
    return found
