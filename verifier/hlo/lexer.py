"""A character scanner shared by the HLO shape, attribute and module parsers.

HLO text is not context free at the token level: `padding=1_4_1x4_8_0`,
`dim_labels=b01f_01io->b01f` and `f32[2]{1,0:T(8,128)}` each lex differently.
So instead of one token stream, every parser drives a `Scanner` and asks for
the token kind it expects at that point (an identifier, an integer, a quoted
string, a balanced value).  Trivia — whitespace, `/* ... */` and `// ...`
comments — is skipped by `skip_trivia`, which every `accept`/`expect` calls.

Positions are offsets into the *whole* text, so an error raised while parsing
an attribute value points at the right line and column of the file:

>>> s = Scanner("  add(p0)", filename="m.hlo")
>>> s.identifier()
'add'
>>> s.expect("(")
>>> s.name()
'p0'
>>> str(s.error("expected ','").span)
'm.hlo:1:9'
"""

from __future__ import annotations

import re
from bisect import bisect_right

from verifier.errors import ParseError, SourceSpan, span_at

MAX_NESTING = 256
"""How deep brackets may nest in one value (XLA's own text never comes close)."""

# The lexer is a set of regular expressions matched at the cursor (no step
# per character in Python): `skip_trivia`, `identifier` and `integer` are one
# `match` each, and balanced values jump from bracket to bracket by `search`.
_TRIVIA = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
_TRIVIA_START = frozenset(" \t\n\r\f\v/")
IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_.]*(?:-(?!>)[A-Za-z0-9_.]*)*"
"""The pattern of an identifier: `-` belongs to it unless it starts a `->`."""
_IDENTIFIER = re.compile(IDENTIFIER)
_IDENTIFIER_AHEAD = re.compile(r"%?[A-Za-z_]")
_INTEGER = re.compile(r"-?[0-9]+")
_PLAIN_STRING = re.compile(r'"([^"\\]*)"')
_STRING = {'"': re.compile(r'"(?:[^"\\]|\\.)*"', re.S), "'": re.compile(r"'(?:[^'\\]|\\.)*'", re.S)}
_SPECIAL = re.compile(r"[()\[\]{}\"'/]")
_VALUE_STOP = re.compile(r"[()\[\]{}\"',\n]|//|/\*")
_WORD_STOP = re.compile(r"[()\[\]{}\"',\s]|//|/\*")
# A value with no bracket, quote, comment or space, that ends the value where
# `value_extent` would end it: before a comma, closer or line break (spaces
# and tabs before them allowed), or at the end.
_PLAIN_WORD = re.compile(r"[^()\[\]{}\"',\s/]+(?=[ \t]*(?:[,)\]}\n]|$))")
# Where a value written with spaces ends early: at the next instruction of
# the same line (`to_apply=add  ROOT t = f32[2] transpose(r), ...`), or at a
# `ROOT` that ends the line, its instruction on the next (`body=b ROOT`).  A match
# starts only where a run of spaces does: tried at every space of a run, the
# search would rescan the rest of the run each time (quadratic in its length).
_NEXT_INSTRUCTION = re.compile(
    r"(?<![ \t])[ \t]+(?:(?:ROOT[ \t]+)?%?[A-Za-z_][\w.-]*[ \t]*=(?![=>])|ROOT[ \t]*$)"
)
_LINE_BREAK = re.compile("\n")
_INT64_LIMIT = 2**63
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(")]}")
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "?": "?",
}


class Scanner:
    """A cursor over `text[pos:end]` that reads HLO tokens on demand.

    `end` limits the scanner to a sub-range (an attribute value) while offsets
    stay relative to the whole text, so spans stay exact.
    """

    __slots__ = ("_line", "_line_starts", "end", "filename", "pos", "text")

    def __init__(
        self,
        text: str,
        *,
        filename: str = "<input>",
        pos: int = 0,
        end: int | None = None,
    ) -> None:
        self.text = text
        self.filename = filename
        self.pos = pos
        self.end = len(text) if end is None else end
        self._line_starts: list[int] | None = None
        # The last line a span quoted (its start, end, number, text): the
        # instructions of one line share its text instead of a copy each.
        self._line: tuple[int, int, int, str] | None = None

    def sub_scanner(self, start: int, end: int) -> Scanner:
        """A scanner over `text[start:end]` of the same text (for a value extent)."""
        return Scanner(self.text, filename=self.filename, pos=start, end=end)

    # -- positions and errors -------------------------------------------------

    def error(self, message: str, offset: int | None = None) -> ParseError:
        """A ParseError at `offset` (default: the current position)."""
        where = self.pos if offset is None else offset
        return ParseError(message, span_at(self.text, where, self.filename))

    def span(self, offset: int) -> SourceSpan:
        """The span of `offset`; equal to `span_at` but without its count of
        every line above: the span of every instruction is asked for, and
        `span_at`'s would make parsing quadratic in the file size (and a copy
        of the line per span, quadratic in a line of many instructions).

        The last line asked for is kept (its start, end, number and text):
        an offset on it or below it counts only the lines in between (the
        parser asks in source order), one above it finds its line by
        bisection in the line starts.
        """
        text, last = self.text, self._line
        if last is not None and last[0] <= offset <= last[1]:
            return SourceSpan(self.filename, last[2], offset - last[0] + 1, last[3])
        if last is not None and offset > last[1]:
            number = last[2] + text.count("\n", last[1], offset)
            start = text.rfind("\n", last[1], offset) + 1
        else:
            if self._line_starts is None:
                self._line_starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
            number = bisect_right(self._line_starts, offset)
            start = self._line_starts[number - 1]
        end = text.find("\n", start)
        if end == -1:
            end = len(text)
        line_text = text[start:end]
        self._line = (start, end, number, line_text)
        return SourceSpan(self.filename, number, offset - start + 1, line_text)

    def describe_here(self) -> str:
        """A short quote of the text at the current position, for error messages."""
        if self.pos >= self.end:
            return "end of input"
        snippet = self.text[self.pos : min(self.end, self.pos + 12)].split("\n")[0]
        return repr(snippet) if snippet else "end of line"

    # -- trivia -----------------------------------------------------------------

    def skip_trivia(self) -> None:
        """Skip whitespace and comments (`/* ... */`, `// ...` to end of line)."""
        pos, text = self.pos, self.text
        if pos < self.end and text[pos] not in _TRIVIA_START:
            return
        if pos + 1 < self.end and text[pos] == " " and text[pos + 1] not in _TRIVIA_START:
            self.pos = pos + 1  # one space, the usual separator
            return
        trivia = _TRIVIA.match(self.text, self.pos, self.end)
        pos = trivia.end() if trivia is not None else self.pos
        if self.text.startswith("/*", pos) and pos < self.end:
            raise self.error("unterminated comment: expected '*/'", pos)
        self.pos = pos

    def at_end(self) -> bool:
        """Whether only trivia is left."""
        self.skip_trivia()
        return self.pos >= self.end

    # -- punctuation --------------------------------------------------------

    def peek(self) -> str:
        """The next non-trivia character, or '' at the end."""
        self.skip_trivia()
        return self.text[self.pos] if self.pos < self.end else ""

    def at(self, token: str) -> bool:
        """Whether the next non-trivia text starts with `token` (not consumed)."""
        if self.pos < self.end and self.text[self.pos] in _TRIVIA_START:
            self.skip_trivia()
        return self.text.startswith(token, self.pos, self.end)

    def accept(self, token: str) -> bool:
        """Consume `token` if it comes next."""
        if self.pos < self.end and self.text[self.pos] in _TRIVIA_START:
            self.skip_trivia()
        if self.text.startswith(token, self.pos, self.end):
            self.pos += len(token)
            return True
        return False

    def expect(self, token: str, context: str = "") -> None:
        """Consume `token` or raise a ParseError naming what was expected."""
        if not self.accept(token):
            where = f" {context}" if context else ""
            raise self.error(f"expected '{token}'{where}, found {self.describe_here()}")

    # -- words ----------------------------------------------------------------

    def at_identifier(self) -> bool:
        """Whether an identifier (optionally `%`-prefixed) comes next."""
        self.skip_trivia()
        return _IDENTIFIER_AHEAD.match(self.text, self.pos, self.end) is not None

    def identifier(self, what: str = "an identifier") -> str:
        """Read `[A-Za-z_][A-Za-z0-9_.-]*`, never swallowing the `-` of a `->`."""
        if self.pos >= self.end or self.text[self.pos] in _TRIVIA_START:
            self.skip_trivia()
        match = _IDENTIFIER.match(self.text, self.pos, self.end)
        if match is None:
            raise self.error(f"expected {what}, found {self.describe_here()}")
        self.pos = match.end()
        return match.group()

    def name(self, what: str = "a name") -> str:
        """An instruction or computation name; a leading `%` is dropped."""
        if self.pos >= self.end or self.text[self.pos] in _TRIVIA_START:
            self.skip_trivia()
        if self.pos < self.end and self.text[self.pos] == "%":
            self.pos += 1
            if _IDENTIFIER.match(self.text, self.pos, self.end) is None:
                raise self.error(f"expected {what} after '%', found {self.describe_here()}")
        return self.identifier(what)

    def at_integer(self) -> bool:
        """Whether an (optionally negative) decimal integer comes next."""
        self.skip_trivia()
        return _INTEGER.match(self.text, self.pos, self.end) is not None

    def integer(self, what: str = "an integer") -> int:
        """Read an optionally negative decimal integer; XLA integers are int64."""
        self.skip_trivia()
        start = self.pos
        match = _INTEGER.match(self.text, start, self.end)
        if match is None:
            raise self.error(f"expected {what}, found {self.describe_here()}")
        digits = match.group()
        # Bounding the length first keeps int() linear on a 10^6-digit line.
        value = int(digits) if len(digits.lstrip("-")) <= 19 else _INT64_LIMIT
        if not -_INT64_LIMIT <= value < _INT64_LIMIT:
            shown = digits if len(digits) <= 24 else digits[:20] + "..."
            raise self.error(
                f"integer {shown} does not fit in 64 bits (XLA sizes and indices are int64)",
                start,
            )
        self.pos = match.end()
        return value

    def natural(self, what: str = "a non-negative integer") -> int:
        """Read a decimal integer that must be >= 0."""
        start = self.pos
        value = self.integer(what)
        if value < 0:
            raise self.error(f"expected {what}, found {value}", start)
        return value

    def string(self) -> str:
        """Read a double-quoted string with C escapes and return its value."""
        self.skip_trivia()
        text, end = self.text, self.end
        if self.pos >= end or text[self.pos] != '"':
            raise self.error(f"expected a quoted string, found {self.describe_here()}")
        start = self.pos
        plain = _PLAIN_STRING.match(text, start, end)
        if plain is not None:
            self.pos = plain.end()
            return plain.group(1)
        pos = start + 1
        pieces: list[str] = []
        while True:
            if pos >= end:
                raise self.error("unterminated string: expected '\"'", start)
            char = text[pos]
            if char == '"':
                break
            if char != "\\":
                pieces.append(char)
                pos += 1
                continue
            if pos + 1 >= end:
                raise self.error("unterminated string: expected '\"'", start)
            escape = text[pos + 1]
            if escape in _SIMPLE_ESCAPES:
                pieces.append(_SIMPLE_ESCAPES[escape])
                pos += 2
            elif escape == "x":
                digits_end = pos + 2
                while digits_end < end and text[digits_end] in "0123456789abcdefABCDEF":
                    digits_end += 1
                if digits_end == pos + 2:
                    raise self.error("expected hex digits after '\\x'", pos)
                pieces.append(chr(int(text[pos + 2 : digits_end], 16) % 256))
                pos = digits_end
            elif escape in "01234567":
                digits_end = pos + 1
                while digits_end < min(end, pos + 4) and text[digits_end] in "01234567":
                    digits_end += 1
                pieces.append(chr(int(text[pos + 1 : digits_end], 8) % 256))
                pos = digits_end
            else:
                pieces.append(escape)
                pos += 2
        self.pos = pos + 1
        return "".join(pieces)

    # -- balanced values ----------------------------------------------------------

    def skip_string(self, pos: int) -> int:
        """The offset just after the quoted string starting at `pos` (`"` or `'`)."""
        match = _STRING[self.text[pos]].match(self.text, pos, self.end)
        if match is None:
            raise self.error("unterminated string: expected a closing quote", pos)
        return match.end()

    def skip_balanced(self, pos: int) -> int:
        """The offset just after the bracket group opening at `pos` (strings, comments skipped).

        Linear in the group's length: one regular-expression search per
        bracket, quote or comment, never a step per character.
        """
        text, end = self.text, self.end
        stack: list[tuple[str, int]] = []
        index = pos
        while True:
            match = _SPECIAL.search(text, index, end)
            if match is None:
                opener, where = stack[-1]
                raise self.error(f"unclosed '{opener}': expected '{_OPENERS[opener]}'", where)
            index = match.start()
            char = text[index]
            if char in _OPENERS:
                if len(stack) >= MAX_NESTING:
                    raise self.error(f"brackets nested deeper than {MAX_NESTING} levels", index)
                stack.append((char, index))
                index += 1
            elif char in _CLOSERS:
                if not stack:
                    raise self.error(f"unmatched '{char}'", index)
                opener, where = stack.pop()
                if char != _OPENERS[opener]:
                    raise self.error(
                        f"expected '{_OPENERS[opener]}' to close '{opener}' at "
                        f"{span_at(text, where, self.filename)}, found '{char}'",
                        index,
                    )
                index += 1
                if not stack:
                    return index
            elif char in "\"'":
                index = self.skip_string(index)
            elif _at_comment(text, index):
                saved, self.pos = self.pos, index
                self.skip_trivia()
                index, self.pos = self.pos, saved
            else:
                index += 1

    def value_extent(self, *, spaces: bool = False) -> tuple[int, int]:
        """The extent of one value; the scanner moves past it.

        A value runs to the next top-level comma, unmatched closer or
        whitespace; brackets balance inside it and quoted strings (`"..."`,
        `'...'`) are opaque: `{size=3x3 pad=0_1x1_1}`, `[2,2]<=[4]`,
        `"a, b"`, `b01f_01io->b01f`.  With `spaces` (an attribute's whole
        value), spaces and tabs are part of it and only a line break ends it:
        `mesh['x'=2,'y'=2] {'y'}`, `s32[] 1`; trailing ones are dropped, and
        the next instruction on the same line (`name = ...`) is not part of it.
        """
        self.skip_trivia()
        text, end = self.text, self.end
        start = index = self.pos
        word = _PLAIN_WORD.match(text, start, end)
        if word is not None:  # `kLoop`, `%fused_computation.3`, `0`: no brackets, quotes
            self.pos = word.end()
            return start, self.pos
        stop = _VALUE_STOP if spaces else _WORD_STOP
        while index < end:
            match = stop.search(text, index, end)
            if match is None:
                head = _NEXT_INSTRUCTION.search(text, index, end) if spaces else None
                index = end if head is None else head.start()
                break
            if spaces and (head := _NEXT_INSTRUCTION.search(text, index, match.start())):
                index = head.start()
                break
            index = match.start()
            char = text[index]
            if char in _OPENERS:
                index = self.skip_balanced(index)
            elif char in "\"'":
                index = self.skip_string(index)
            else:
                break  # a comma, space, closer or comment ends the value
        self.pos = start + len(text[start:index].rstrip())
        return start, self.pos


def _at_comment(text: str, index: int) -> bool:
    """Whether a `/* ... */` or `// ...` comment starts at `index`."""
    return text.startswith("/*", index) or text.startswith("//", index)
