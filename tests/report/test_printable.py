"""printable_json and report_json: their fast paths (no string needs
escaping, told from the JSON text) agree with escaping every string, for
every character."""

from __future__ import annotations

import json

import pytest

from verifier.report import json_text
from verifier.report.json_text import report_json
from verifier.report.printable import printable, printable_json

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
        assert report_json(document) == json.dumps(expected, indent=2), repr(character)


def test_a_document_with_nothing_to_escape_is_returned_as_it_is() -> None:
    document = {"findings": [{"check": "in-bounds", "witness": {"d0": 1}}], "strict": False}
    assert printable_json(document) is document


def test_a_report_written_in_pieces_escapes_each_piece_on_its_own() -> None:
    # Only the findings holding an unprintable string are written again
    # escaped; the pieces together are the whole document's text.
    dirty = "m\udcff\x1b"
    document = {
        dirty: "key",
        "findings": [{"check": "a"}, {"instruction": dirty, "witness": {dirty: 1}}, {"n": 2}],
        "files": [],
        "errors": [dirty, "fine"],
        "summary": {"nested": [dirty]},
        "strict": False,
    }
    escaped = printable_json(document)
    assert escaped != document
    assert report_json(document) == json.dumps(escaped, indent=2)
    assert report_json([dirty]) == json.dumps([printable(dirty)], indent=2)
    assert report_json({}) == "{}"


def test_a_report_comes_in_blocks_that_join_into_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    document = {"findings": [{"check": "a", "n": k} for k in range(50)], "files": ["m.hlo"]}
    monkeypatch.setattr(json_text, "_BLOCK", 200)
    blocks = list(json_text.report_chunks(document))
    assert len(blocks) > 5
    assert all(len(block) >= 200 for block in blocks[:-1])
    assert "".join(blocks) == json.dumps(document, indent=2)
