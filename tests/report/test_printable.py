"""printable_json: its fast path (no string needs escaping, told from the
JSON text) agrees with escaping every string, for every character;
report_json keeps every string exact, in the layout `laid_out` writes with
json.dumps alone."""

from __future__ import annotations

import json

import pytest

from verifier.report import json_text
from verifier.report.json_text import report_json
from verifier.report.printable import printable, printable_json


def laid_out(document: object) -> str:
    """The report layout: a top-level object's keys as json.dumps(indent=2)
    writes them, each element of its lists on a line of its own, in one
    line (json.dumps) when it is an object holding no list."""

    def element(item: object) -> str:
        if isinstance(item, dict) and not any(isinstance(v, list) for v in item.values()):
            return json.dumps(item)
        return json.dumps(item, indent=2).replace("\n", "\n    ")

    if not isinstance(document, dict) or not document:
        return json.dumps(document, indent=2)
    lines = []
    for key, value in document.items():
        if isinstance(value, list) and value:
            text = "[\n    " + ",\n    ".join(map(element, value)) + "\n  ]"
        else:
            text = json.dumps(value, indent=2).replace("\n", "\n  ")
        lines.append(f"{json.dumps(key)}: {text}")
    return "{\n  " + ",\n  ".join(lines) + "\n}"


# Every character printable treats specially, their neighbours, and a few
# that JSON escapes although printable keeps them.
_CHARACTERS = [chr(c) for c in [*range(0x00, 0xA1), *range(0xD7FF, 0xE001), 0xFFFD, 0xFFFE]]
_CHARACTERS += ["\uffff", "\\", '"', "\\b", "\\u0000", "é", "\U0001f600"]


def test_every_character_is_escaped_the_same_in_a_value_or_a_key() -> None:
    for character in _CHARACTERS:
        text = f"name{character}end"
        document = {"files": [text], text: {"message": "fine"}}
        expected = {"files": [printable(text)], printable(text): {"message": "fine"}}
        assert printable_json(document) == expected, repr(character)


def test_a_report_holds_every_character_exactly() -> None:
    for character in _CHARACTERS:
        text = f"name{character}end"
        document = {"files": [text], text: {"message": text}, "errors": [{"file": text}]}
        written = report_json(document)
        assert written.isascii() and written == laid_out(document), repr(character)
        assert json.loads(written) == document, repr(character)


def test_a_document_with_nothing_to_escape_is_returned_as_it_is() -> None:
    document = {"findings": [{"check": "in-bounds", "witness": {"d0": 1}}], "strict": False}
    assert printable_json(document) is document


def test_a_report_written_in_pieces_is_the_whole_document() -> None:
    dirty = "m\udcff\x1b\r"
    document = {
        dirty: "key",
        "findings": [{"check": "a"}, {"instruction": dirty, "witness": {dirty: 1}}, {"n": 2}],
        "files": [],
        "errors": [dirty, "fine"],
        "summary": {"nested": [dirty]},
        "strict": False,
    }
    assert report_json(document) == laid_out(document)
    assert json.loads(report_json(document)) == document
    assert report_json([dirty]) == json.dumps([dirty], indent=2)
    assert report_json({}) == "{}"


def test_a_report_comes_in_blocks_that_join_into_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    document = {
        "findings": [{"check": "a", "n": k, "at": {"line": k}} for k in range(50)],
        "runs": [{"results": [{"n": k}]} for k in range(3)],
        "files": ["m.hlo"],
    }
    monkeypatch.setattr(json_text, "_BLOCK", 200)
    blocks = list(json_text.report_chunks(document))
    assert len(blocks) > 5
    assert all(len(block) >= 200 for block in blocks[:-1])
    assert "".join(blocks) == laid_out(document)
    assert json.loads("".join(blocks)) == document
