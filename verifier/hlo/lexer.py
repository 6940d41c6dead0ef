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

from bisect import bisect_right

from verifier.errors import ParseError, SourceSpan, span_at

_IDENTIFIER_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENTIFIER_PART = _IDENTIFIER_START | frozenset("0123456789.-")
_DIGITS = frozenset("0123456789")
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

    __slots__ = ("_line_starts", "end", "filename", "pos", "text")

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

    def sub_scanner(self, start: int, end: int) -> Scanner:
        """A scanner over `text[start:end]` of the same text (for a value extent)."""
        return Scanner(self.text, filename=self.filename, pos=start, end=end)

    # -- positions and errors -------------------------------------------------

    def error(self, message: str, offset: int | None = None) -> ParseError:
        """A ParseError at `offset` (default: the current position)."""
        where = self.pos if offset is None else offset
        return ParseError(message, span_at(self.text, where, self.filename))

    def span(self, offset: int) -> SourceSpan:
        """The span of `offset`; equal to `span_at` but O(log n) after the first call.

        Used for the span of every instruction, where `span_at`'s linear
        newline count would make parsing quadratic in the file size.
        """
        if self._line_starts is None:
            starts = [0]
            index = self.text.find("\n")
            while index != -1:
                starts.append(index + 1)
                index = self.text.find("\n", index + 1)
            self._line_starts = starts
        line = bisect_right(self._line_starts, offset)
        start = self._line_starts[line - 1]
        line_end = self.text.find("\n", start)
        if line_end == -1:
            line_end = len(self.text)
        return SourceSpan(self.filename, line, offset - start + 1, self.text[start:line_end])

    def describe_here(self) -> str:
        """A short quote of the text at the current position, for error messages."""
        if self.pos >= self.end:
            return "end of input"
        snippet = self.text[self.pos : min(self.end, self.pos + 12)].split("\n")[0]
        return repr(snippet) if snippet else "end of line"

    # -- trivia -----------------------------------------------------------------

    def skip_trivia(self) -> None:
        """Skip whitespace and comments (`/* ... */`, `// ...` to end of line)."""
        text, end = self.text, self.end
        pos = self.pos
        while pos < end:
            char = text[pos]
            if char.isspace():
                pos += 1
            elif text.startswith("/*", pos):
                close = text.find("*/", pos + 2, end)
                if close == -1:
                    raise self.error("unterminated comment: expected '*/'", pos)
                pos = close + 2
            elif text.startswith("//", pos):
                newline = text.find("\n", pos, end)
                pos = end if newline == -1 else newline + 1
            else:
                break
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
        self.skip_trivia()
        return self.text.startswith(token, self.pos) and self.pos + len(token) <= self.end

    def accept(self, token: str) -> bool:
        """Consume `token` if it comes next."""
        if self.at(token):
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
        pos = self.pos + 1 if self.at("%") else self.pos
        return pos < self.end and self.text[pos] in _IDENTIFIER_START

    def identifier(self, what: str = "an identifier") -> str:
        """Read `[A-Za-z_][A-Za-z0-9_.-]*`, never swallowing the `-` of a `->`."""
        self.skip_trivia()
        text, end = self.text, self.end
        start = pos = self.pos
        if pos >= end or text[pos] not in _IDENTIFIER_START:
            raise self.error(f"expected {what}, found {self.describe_here()}")
        pos += 1
        while pos < end and text[pos] in _IDENTIFIER_PART:
            if text[pos] == "-" and pos + 1 < end and text[pos + 1] == ">":
                break
            pos += 1
        self.pos = pos
        return text[start:pos]

    def name(self, what: str = "a name") -> str:
        """An instruction or computation name; a leading `%` is dropped."""
        self.skip_trivia()
        if self.pos < self.end and self.text[self.pos] == "%":
            self.pos += 1
            if self.pos >= self.end or self.text[self.pos] not in _IDENTIFIER_START:
                raise self.error(f"expected {what} after '%', found {self.describe_here()}")
        return self.identifier(what)

    def at_integer(self) -> bool:
        """Whether an (optionally negative) decimal integer comes next."""
        self.skip_trivia()
        pos = self.pos + 1 if self.at("-") else self.pos
        return pos < self.end and self.text[pos] in _DIGITS

    def integer(self, what: str = "an integer") -> int:
        """Read an optionally negative decimal integer."""
        self.skip_trivia()
        text, end = self.text, self.end
        start = pos = self.pos
        if pos < end and text[pos] == "-":
            pos += 1
        digits_start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        if pos == digits_start:
            raise self.error(f"expected {what}, found {self.describe_here()}")
        # XLA integers are int64; bounding the length first also keeps int() fast.
        value = int(text[start:pos]) if pos - digits_start <= 19 else _INT64_LIMIT
        if not -_INT64_LIMIT <= value < _INT64_LIMIT:
            raise self.error(f"integer {text[start:pos][:24]} does not fit in 64 bits", start)
        self.pos = pos
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
        """The offset just after the quoted string starting at `pos`."""
        text, end = self.text, self.end
        index = pos + 1
        while index < end:
            char = text[index]
            if char == "\\":
                index += 2
            elif char == '"':
                return index + 1
            else:
                index += 1
        raise self.error("unterminated string: expected '\"'", pos)

    def skip_balanced(self, pos: int) -> int:
        """The offset just after the bracket group opening at `pos` (strings, comments skipped)."""
        text, end = self.text, self.end
        stack: list[tuple[str, int]] = []
        index = pos
        while True:
            if index >= end:
                opener, where = stack[-1]
                raise self.error(f"unclosed '{opener}': expected '{_OPENERS[opener]}'", where)
            char = text[index]
            if char in _OPENERS:
                stack.append((char, index))
                index += 1
            elif char in _CLOSERS:
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
            elif char == '"':
                index = self.skip_string(index)
            elif _at_comment(text, index):
                saved, self.pos = self.pos, index
                self.skip_trivia()
                index, self.pos = self.pos, saved
            else:
                index += 1

    def value_extent(self) -> tuple[int, int]:
        """The extent of one attribute value; the scanner moves past it.

        A value is a run of characters without top-level whitespace or commas,
        in which brackets balance and quoted strings are opaque:
        `{size=3x3 pad=0_1x1_1}`, `[2,2]<=[4]`, `"a, b"`, `b01f_01io->b01f`.
        It ends at whitespace, a comma or an unmatched closer at depth zero.
        """
        self.skip_trivia()
        text, end = self.text, self.end
        start = index = self.pos
        while index < end:
            char = text[index]
            if char in _OPENERS:
                index = self.skip_balanced(index)
            elif char == '"':
                index = self.skip_string(index)
            elif char.isspace() or char == "," or char in _CLOSERS or _at_comment(text, index):
                break
            else:
                index += 1
        self.pos = index
        return start, index


def _at_comment(text: str, index: int) -> bool:
    """Whether a `/* ... */` or `// ...` comment starts at `index`."""
    return text.startswith("/*", index) or text.startswith("//", index)
