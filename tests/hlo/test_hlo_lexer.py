"""The scanner: trivia, words, integers, strings, balanced value extents, spans."""

from __future__ import annotations

import pytest

from verifier.errors import ParseError, span_at
from verifier.hlo.lexer import Scanner


def test_trivia_is_skipped_between_tokens() -> None:
    scanner = Scanner("  /* a */ // b\n  %x.1-y ->")
    assert scanner.name() == "x.1-y"
    scanner.expect("->")
    assert scanner.at_end()


def test_identifier_stops_before_an_arrow() -> None:
    scanner = Scanner("b01f_01io->b01f")
    assert scanner.identifier() == "b01f_01io"
    assert scanner.accept("->")


def test_integers_are_int64() -> None:
    assert Scanner("-9223372036854775808").integer() == -(2**63)
    with pytest.raises(ParseError, match="does not fit in 64 bits"):
        Scanner("9223372036854775808").integer()
    with pytest.raises(ParseError, match="does not fit in 64 bits"):
        Scanner("1" * 5000).integer()
    with pytest.raises(ParseError, match="non-negative"):
        Scanner("-1").natural("a non-negative integer")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r'"plain"', "plain"),
        (r'"q\"uote\\"', 'q"uote\\'),
        (r'"\n\t"', "\n\t"),
        (r'"\x41\101"', "AA"),
        (r'"{not a brace}"', "{not a brace}"),
    ],
)
def test_strings_unescape(text: str, value: str) -> None:
    assert Scanner(text).string() == value


def test_unterminated_string_points_at_its_quote() -> None:
    with pytest.raises(ParseError, match="unterminated string") as info:
        Scanner('  "abc').string()
    assert info.value.span.column == 3


@pytest.mark.parametrize(
    ("text", "extent"),
    [
        ("{size=3x3 pad=0_1x1_1}, next", "{size=3x3 pad=0_1x1_1}"),
        ("[2,2]<=[4] rest", "[2,2]<=[4]"),
        ('"a, b"}', '"a, b"'),
        ("b01f_01io->b01f\n", "b01f_01io->b01f"),
        ("kLoop/*c*/", "kLoop"),
        ('{"k":"}"}x,', '{"k":"}"}x'),
    ],
)
def test_value_extent(text: str, extent: str) -> None:
    scanner = Scanner(text)
    start, end = scanner.value_extent()
    assert text[start:end] == extent
    assert scanner.pos == end


def test_span_matches_span_at() -> None:
    text = "ab\ncd\n\nefg"
    scanner = Scanner(text, filename="f")
    offsets = range(len(text) + 1)
    for offset in (*offsets, *reversed(offsets)):
        assert scanner.span(offset) == span_at(text, offset, "f")


def test_spans_on_one_line_share_its_text() -> None:
    # Each instruction's span quotes its line: a copy per span made a line of
    # n instructions cost n times its length (430 MB for 4,000 on one line).
    line = "a = f32[] add(p, p)  " * 3
    scanner = Scanner("x\n" + line)
    first, *others = (scanner.span(2 + column) for column in (0, 21, 42))
    assert first.line_text == line.rstrip("\n")
    assert all(span.line_text is first.line_text for span in others)


def test_sub_scanner_keeps_file_positions() -> None:
    scanner = Scanner("line one\nk=v w", filename="f.hlo")
    inner = scanner.sub_scanner(11, 12)
    assert inner.identifier() == "v"
    error = inner.error("boom")
    assert (error.span.line, error.span.column) == (2, 4)
