"""The text of a JSON report: its top-level keys one per line as
``json.dumps(value, indent=2)`` writes them, each element of a top-level
list on a line of its own — in one line when it is an object holding no
list (a finding, an error), so that a diff of two reports shows one line
per finding that changed — at about half the cost of the standard
library's indented encoder.

With ``indent`` set, the standard library leaves its C encoder for a general
Python one (``default`` hooks, circular-reference checks, key sorting and
coercion); a gate report of 20,000 findings spent a quarter of a warm
`verifier check` there.  A report holds only dicts with string keys, lists,
strings, integers, booleans and None: `indented` writes just those (strings
through the standard library's C escaping, ASCII only), and a one-line
element goes through the C encoder:

>>> print(report_json({"status": "ok", "findings": [{"check": "in-bounds", "witness": {"d0": 3}}],
...                    "summary": {"total": 1}, "files": ["a.hlo"], "é": [True, None]}))
{
  "status": "ok",
  "findings": [
    {"check": "in-bounds", "witness": {"d0": 3}}
  ],
  "summary": {
    "total": 1
  },
  "files": [
    "a.hlo"
  ],
  "\\u00e9": [
    true,
    null
  ]
}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring_ascii

_STEP = "  "
_ITEM = _STEP + _STEP  # the margin of an element of a top-level list
_BLOCK = 1 << 20  # characters per block `report_chunks` gives
_LABELS: dict[str, str] = {}  # a key, encoded and followed by ": "
_ONE_LINE = json.JSONEncoder(check_circular=False).encode  # ", " and ": " between items


class JsonLine(str):
    """An element of a top-level list already written as its one line of
    JSON by its owner (`Finding.json_line`, a third of the encoder's
    cost): written as it is."""

    __slots__ = ()


class JsonLines:
    """A top-level list whose elements come one by one, each already
    written as its one line of JSON (`JsonLine`): written as they come, so
    that the list is never whole in memory (a report's findings).  Read
    once.

    >>> print(report_json({"findings": JsonLines(iter(['{"a": 1}', '{"b": 2}'])),
    ...                    "errors": JsonLines(iter([]))}))
    {
      "findings": [
        {"a": 1},
        {"b": 2}
      ],
      "errors": []
    }
    """

    __slots__ = ("lines",)

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = lines


def report_json(document: object) -> str:
    """The text a report file holds (the layout above) of `document`.

    Every string is exact: JSON's own escapes for control characters
    (``\\r``, ``\\u001b``), and the bytes of a file name that are not
    UTF-8 as the lone surrogates ``os.fsdecode`` gives them
    (``\\udcff`` for the byte 0xff; ``os.fsencode`` of the string read back
    is the name's bytes).  Only text meant for a terminal is escaped
    (`verifier.report.printable`).

    >>> print(report_json({"files": ["m\\udcff\\r.hlo"], "n": 1}))
    {
      "files": [
        "m\\udcff\\r.hlo"
      ],
      "n": 1
    }
    """
    return "".join(report_chunks(document))


def report_chunks(document: object) -> Iterator[str]:
    """`report_json(document)` in blocks of about a megabyte, to be written
    as they come: a gate report of 20,000 findings (7 MB) is never whole in
    memory, and a pipe gets a few large writes (the 8 KB writes of a
    stream cost the writer more than the report's rendering saves).
    """
    return in_blocks(_pieces(document))


def in_blocks(pieces: Iterable[str]) -> Iterator[str]:
    """`pieces` joined into blocks of about a megabyte, as they come.

    >>> [len(block) for block in in_blocks(["x" * 2**19] * 5)]
    [1048576, 1048576, 524288]
    """
    block: list[str] = []
    size = 0
    for piece in pieces:
        block.append(piece)
        size += len(piece)
        if size >= _BLOCK:
            yield "".join(block)
            block, size = [], 0
    yield "".join(block)


def _pieces(document: object) -> Iterator[str]:
    """The text of `document` piece by piece: each key of a top-level
    object, and each element of its lists, is written on its own."""
    if document.__class__ is not dict or not document:
        yield indented(document)
        return
    assert isinstance(document, dict)
    separator = "{\n" + _STEP
    for key, value in document.items():
        yield separator + encode_basestring_ascii(key) + ": "
        separator = ",\n" + _STEP
        if value.__class__ is JsonLines:
            opening = "[\n"
            for line in value.lines:
                yield opening + _ITEM + line
                opening = ",\n"
            yield "[]" if opening == "[\n" else "\n" + _STEP + "]"
        elif value.__class__ is list and value:
            for position, item in enumerate(value):
                yield ("[\n" if position == 0 else ",\n") + _ITEM + _element_text(item)
            yield "\n" + _STEP + "]"
        else:
            yield indented(value, _STEP)
    yield "\n}"


def _element_text(item: object) -> str:
    """An element of a top-level list: one line for an object holding no
    list (or already written as one, a `JsonLine`), indented otherwise."""
    if item.__class__ is JsonLine:
        assert isinstance(item, JsonLine)
        return item
    if item.__class__ is dict and not any(value.__class__ is list for value in item.values()):
        return _ONE_LINE(item)
    return indented(item, _ITEM)


def indented(value: object, margin: str = "") -> str:
    """``json.dumps(value, indent=2)`` of a value made of dicts with string
    keys, lists, tuples, strings, integers, booleans and None (`margin`:
    the indentation of the line it starts on)."""
    kind = value.__class__
    if kind is str:
        return encode_basestring_ascii(value)  # type: ignore[arg-type]
    if kind is dict:
        if not value:
            return "{}"
        inner = margin + _STEP
        items = []
        # A report's values are mostly strings and integers, written here
        # without a call each; a key is encoded once per run.
        for key, item in value.items():  # type: ignore[attr-defined]
            label = _LABELS.get(key)
            if label is None:
                label = _LABELS[key] = encode_basestring_ascii(key) + ": "
            if item.__class__ is str:
                items.append(label + encode_basestring_ascii(item))
            elif item.__class__ is int:
                items.append(label + int.__repr__(item))
            else:
                items.append(label + indented(item, inner))
        return "{\n" + inner + (",\n" + inner).join(items) + "\n" + margin + "}"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = margin + _STEP
        items = [indented(item, inner) for item in value]
        return "[\n" + inner + (",\n" + inner).join(items) + "\n" + margin + "]"
    raise TypeError(f"a report holds no {type(value).__name__}: {value!r}")
