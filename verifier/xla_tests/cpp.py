"""Reads the C++ of a gtest file far enough to follow its indexing tests:
the ``TEST``/``TEST_F``/``TEST_P`` bodies, split into statements, each
statement parsed into a small expression tree of calls, members, names and
string literals (ordinary, adjacent ones concatenated, and raw ``R"(…)"``).

It is not a C++ parser: what it does not recognise becomes an `Opaque`
node, which the interpreter reports as not comparable, never guesses at.

>>> (test,) = read_tests('''
... TEST_F(IndexingMapTest, Simple) {
...   auto m = Parse(R"((d0) -> (d0),
...                    domain: d0 in [0, 3])");  // a comment
...   EXPECT_TRUE(m.Simplify());
... }''')
>>> test.name, test.line, [s.line for s in test.statements]
('Simple', 2, [3, 5])
>>> test.statements[0].target, test.statements[0].value.callee
('m', Name(text='Parse'))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeAlias

# --------------------------------------------------------------- tokens


@dataclass(frozen=True)
class Token:
    """A token: ``kind`` is ``name``, ``number``, ``string`` (its value in
    `text`, escapes undone) or ``punct``; `line` is 1-based."""

    kind: str
    text: str
    line: int


_RAW = re.compile(r'R"([^()\\ ]{0,16})\(')
_PUNCT = ("::", "->", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "++", "--")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0", "r": "\r"}


def tokens(text: str) -> list[Token]:
    """The tokens of `text`, comments and preprocessor lines dropped and
    adjacent string literals joined (as the compiler joins them)."""
    found: list[Token] = []
    position, line, length = 0, 1, len(text)
    at_line_start = True
    while position < length:
        char = text[position]
        if char == "\n":
            line += 1
            position += 1
            at_line_start = True
            continue
        if char.isspace():
            position += 1
            continue
        if char == "#" and at_line_start:  # a preprocessor line (with its continuations)
            while position < length and text[position] != "\n":
                if text.startswith("\\\n", position):
                    line += 1
                    position += 1
                position += 1
            continue
        at_line_start = False
        if text.startswith("//", position):
            end = text.find("\n", position)
            position = length if end < 0 else end
            continue
        if text.startswith("/*", position):
            end = text.find("*/", position + 2)
            end = length if end < 0 else end + 2
            line += text.count("\n", position, end)
            position = end
            continue
        raw = _RAW.match(text, position)
        if raw is not None:
            close = ")" + raw.group(1) + '"'
            end = text.find(close, raw.end())
            end = length if end < 0 else end
            _add_string(found, text[raw.end() : end], line)
            line += text.count("\n", position, end)
            position = end + len(close)
            continue
        if char in "\"'":
            value, end = _quoted(text, position)
            if char == '"':
                _add_string(found, value, line)
            else:
                found.append(Token("number", str(ord(value[:1] or "\0")), line))
            position = end
            continue
        if char.isalpha() or char == "_":
            end = position + 1
            while end < length and (text[end].isalnum() or text[end] == "_"):
                end += 1
            found.append(Token("name", text[position:end], line))
            position = end
            continue
        if char.isdigit():
            end = position + 1
            while end < length and (text[end].isalnum() or text[end] in "'."):
                end += 1
            found.append(Token("number", text[position:end].replace("'", ""), line))
            position = end
            continue
        two = text[position : position + 2]
        width = 2 if two in _PUNCT else 1
        found.append(Token("punct", text[position : position + width], line))
        position += width
    return found


def _add_string(found: list[Token], value: str, line: int) -> None:
    if found and found[-1].kind == "string":
        previous = found.pop()
        found.append(Token("string", previous.text + value, previous.line))
    else:
        found.append(Token("string", value, line))


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The value of the literal quoted at `start` and the position after it."""
    quote, position, value = text[start], start + 1, []
    while position < len(text) and text[position] not in (quote, "\n"):
        if text[position] == "\\" and position + 1 < len(text):
            value.append(_ESCAPES.get(text[position + 1], text[position + 1]))
            position += 2
        else:
            value.append(text[position])
            position += 1
    return "".join(value), position + 1


# ------------------------------------------------------------ expressions


@dataclass(frozen=True)
class Name:
    """An identifier, qualified names joined with ``::`` (``IndexingMap::Variable``)."""

    text: str


@dataclass(frozen=True)
class Literal:
    """A string literal (joined), or a number (its text)."""

    value: str
    line: int
    is_string: bool = True


@dataclass(frozen=True)
class Call:
    """``callee(args…)``; ``callee{args…}`` has `braced` set."""

    callee: Node
    args: tuple[Node, ...]
    braced: bool = False


@dataclass(frozen=True)
class Member:
    """``value.name`` or ``value->name``."""

    value: Node
    name: str


@dataclass(frozen=True)
class Unary:
    """``*value``, ``&value``, ``!value`` or ``-value``."""

    op: str
    value: Node


@dataclass(frozen=True)
class Binary:
    """``lhs op rhs``: ``+``, ``-``, ``*``, ``/``, ``%`` (with C++'s precedence)."""

    op: str
    lhs: Node
    rhs: Node


@dataclass(frozen=True)
class BraceList:
    """``{a, b, …}`` (an initializer list)."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Opaque:
    """Tokens this reader does not parse; `text` is what they were, with
    the string literals among them kept."""

    text: str
    strings: tuple[Literal, ...] = ()


Node: TypeAlias = Name | Literal | Call | Member | Unary | Binary | BraceList | Opaque


class _Expressions:
    """A recursive-descent reader of the expressions of one statement."""

    def __init__(self, items: list[Token]) -> None:
        self.items = items
        self.position = 0

    def peek(self, offset: int = 0) -> Token | None:
        index = self.position + offset
        return self.items[index] if index < len(self.items) else None

    def accept(self, text: str) -> bool:
        token = self.peek()
        if token is not None and token.kind in ("punct", "name") and token.text == text:
            self.position += 1
            return True
        return False

    def expression(self) -> Node:
        """``term {("+" | "-") term}``, then ``term := unary {("*" | "/" | "%") unary}``."""
        return self.binary(("+", "-"), lambda: self.binary(("*", "/", "%"), self.unary))

    def binary(self, operators: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        lhs = operand()
        while True:
            token = self.peek()
            if token is None or token.kind != "punct" or token.text not in operators:
                return lhs
            self.position += 1
            lhs = Binary(token.text, lhs, operand())

    def unary(self) -> Node:
        token = self.peek()
        if token is not None and token.kind == "punct" and token.text in ("*", "&", "!", "-"):
            self.position += 1
            return Unary(token.text, self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Node:
        token = self.peek()
        if token is None:
            raise _Unparsed
        self.position += 1
        if token.kind == "string":
            return Literal(token.text, token.line)
        if token.kind == "number":
            return Literal(token.text, token.line, is_string=False)
        if token.kind == "name":
            parts = [token.text]
            while self.accept("::"):
                following = self.peek()
                if following is None or following.kind != "name":
                    raise _Unparsed
                parts.append(following.text)
                self.position += 1
            if self.peek() is not None and self.peek().text == "<":  # type: ignore[union-attr]
                self.template_arguments()
            return Name("::".join(parts))
        if token.text == "::":
            return self.primary()
        if token.text == "(":
            inner = self.expression()
            if not self.accept(")"):
                raise _Unparsed
            return inner
        if token.text == "{":
            return BraceList(self.arguments("}"))
        raise _Unparsed

    def template_arguments(self) -> None:
        """Skips ``<…>`` after a name when it closes before the statement ends
        (``std::vector<IndexingMap::Variable>``); else it is a comparison."""
        depth, index = 0, self.position
        while index < len(self.items):
            text = self.items[index].text
            depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
            if text in (";", "(", ")") and self.items[index].kind == "punct":
                return
            index += 1
            if depth <= 0:
                self.position = index
                return

    def postfix(self, node: Node) -> Node:
        while True:
            if self.accept("("):
                node = Call(node, self.arguments(")"))
            elif self.peek() is not None and self.peek().text == "{" and isinstance(node, Name):  # type: ignore[union-attr]
                self.position += 1
                node = Call(node, self.arguments("}"), braced=True)
            elif self.accept(".") or self.accept("->"):
                token = self.peek()
                if token is None or token.kind != "name":
                    raise _Unparsed
                self.position += 1
                node = Member(node, token.text)
                if self.peek() is not None and self.peek().text == "<":  # type: ignore[union-attr]
                    self.template_arguments()
            elif self.accept("["):
                index = self.expression()
                if not self.accept("]"):
                    raise _Unparsed
                node = Call(Member(node, "[]"), (index,))
            else:
                return node

    def arguments(self, close: str) -> tuple[Node, ...]:
        found: list[Node] = []
        if self.accept(close):
            return ()
        while True:
            found.append(self.argument(close))
            if self.accept(close):
                return tuple(found)
            if not self.accept(","):
                found.append(self.skip_argument(close))
                if self.accept(close):
                    return tuple(found)
                if not self.accept(","):
                    raise _Unparsed

    def argument(self, close: str) -> Node:
        start = self.position
        try:
            node = self.expression()
        except _Unparsed:
            self.position = start
            return self.skip_argument(close)
        following = self.peek()
        if following is not None and following.text not in (",", close):
            self.position = start
            return self.skip_argument(close)
        return node

    def skip_argument(self, close: str) -> Node:
        """An argument this reader cannot parse (a lambda, a comparison), up
        to the next ``,`` or `close` at its own depth, as `Opaque`; the
        literals inside stay findable."""
        start, depth = self.position, 0
        while (token := self.peek()) is not None:
            if token.kind == "punct":
                if depth == 0 and token.text in (",", close):
                    break
                depth += token.text in "([{"
                depth -= token.text in ")]}"
            self.position += 1
        return _opaque(self.items[start : self.position])


class _Unparsed(Exception):
    """The statement is not in the fragment this reader parses."""


def literals(node: Node) -> Iterator[Literal]:
    """The string literals in `node`, in source order."""
    match node:
        case Literal(is_string=True):
            yield node
        case Opaque(_, strings):
            yield from strings
        case Literal() | Name():
            return
        case Call(callee, args):
            yield from literals(callee)
            for arg in args:
                yield from literals(arg)
        case Member(value) | Unary(_, value):
            yield from literals(value)
        case Binary(_, lhs, rhs):
            yield from literals(lhs)
            yield from literals(rhs)
        case BraceList(items):
            for item in items:
                yield from literals(item)


def callee_name(node: Node) -> str | None:
    """The last name of a call's callee: ``a.b::C(…)`` → ``C``, ``x.F(…)`` → ``F``."""
    if not isinstance(node, Call):
        return None
    match node.callee:
        case Name(text):
            return text.rsplit("::", 1)[-1]
        case Member(_, name):
            return name
        case _:
            return None


# A counted loop's header: ``for (int i = 1; i <= 3; i++)``, literal bounds.
_COUNTED_LOOP = re.compile(
    r"(?:(?:const )?(?:int|int64_t|size_t|auto) )?(\w+) = (-?\d+) ; \1 (<=|<) (-?\d+) ; "
    r"(?:\1 \+\+|\+\+ \1)"
)


def counted_loop(node: Node) -> tuple[str, range] | None:
    """The variable and values of a ``for`` header with literal bounds, else None.

    >>> counted_loop(Call(Name("for"), (Opaque("int i = 1 ; i <= 3 ; i ++"),)))
    ('i', range(1, 4))
    """
    match node:
        case Call(Name("for"), (Opaque(text),)):
            found = _COUNTED_LOOP.fullmatch(text.strip())
            if found is None:
                return None
            variable, first, op, last = found.groups()
            return variable, range(int(first), int(last) + (op == "<="))
        case _:
            return None


def substituted(node: Node, name: str, value: Literal) -> Node:
    """`node` with every ``Name(name)`` replaced by `value`."""
    match node:
        case Name(text) if text == name:
            return value
        case Call(callee, args, braced):
            return Call(
                substituted(callee, name, value),
                tuple(substituted(a, name, value) for a in args),
                braced,
            )
        case Member(inner, member):
            return Member(substituted(inner, name, value), member)
        case Unary(op, inner):
            return Unary(op, substituted(inner, name, value))
        case Binary(op, lhs, rhs):
            return Binary(op, substituted(lhs, name, value), substituted(rhs, name, value))
        case BraceList(items):
            return BraceList(tuple(substituted(i, name, value) for i in items))
        case _:
            return node


# ------------------------------------------------------------ statements


@dataclass(frozen=True)
class Statement:
    """One statement of a test body: ``target = value`` (a declaration or an
    assignment; ``TF_ASSERT_OK_AND_ASSIGN(auto x, value)`` too) or a bare
    expression (`target` None).  `line` is its first token's."""

    line: int
    target: str | None
    value: Node
    text: str


@dataclass(frozen=True)
class TestCase:
    """A ``TEST*(Fixture, Name)`` and its statements, in order."""

    fixture: str
    name: str
    line: int
    statements: tuple[Statement, ...]


_TEST_MACROS = frozenset({"TEST", "TEST_F", "TEST_P"})
_ASSIGN_MACROS = frozenset({"TF_ASSERT_OK_AND_ASSIGN", "ASSERT_OK_AND_ASSIGN"})


def read_tests(text: str) -> tuple[TestCase, ...]:
    """Every test of the file `text`, with its statements."""
    items = tokens(text)
    found: list[TestCase] = []
    index = 0
    while index < len(items):
        token = items[index]
        if (
            token.kind == "name"
            and token.text in _TEST_MACROS
            and index + 5 < len(items)
            and items[index + 1].text == "("
            and items[index + 3].text == ","
            and items[index + 5].text == ")"
        ):
            body_start = index + 6
            if body_start < len(items) and items[body_start].text == "{":
                body_end = _matching(items, body_start)
                body = items[body_start + 1 : body_end]
                found.append(
                    TestCase(
                        items[index + 2].text,
                        items[index + 4].text,
                        token.line,
                        tuple(_statements(body)),
                    )
                )
                index = body_end
        index += 1
    return tuple(found)


def _matching(items: list[Token], start: int) -> int:
    depth = 0
    for index in range(start, len(items)):
        if items[index].kind != "punct":
            continue
        depth += items[index].text in "([{"
        depth -= items[index].text in ")]}"
        if depth == 0:
            return index
    return len(items)


def _statements(body: list[Token]) -> Iterator[Statement]:
    """The statements of a block, blocks inside it (loops, ifs, lambdas at
    statement level) flattened: a brace after ``)``, ``else``, ``do`` or at
    a statement's start opens a block; any other brace an initializer."""
    current: list[Token] = []
    depth = 0
    for token in body:
        is_punct = token.kind == "punct"
        if is_punct and depth == 0 and token.text == "{":
            opens_block = not current or current[-1].text in (")", "else", "do", "try")
            if opens_block:
                yield from _statement(current)
                current = []
                continue
        if is_punct and depth == 0 and token.text == "}" and not current:
            continue
        if is_punct and depth == 0 and token.text in (";", "}"):
            yield from _statement(current)
            current = []
            continue
        if is_punct and token.text in "([{":
            depth += 1
        elif is_punct and token.text in ")]}":
            depth = max(0, depth - 1)
        current.append(token)
    yield from _statement(current)


def _statement(items: list[Token]) -> Iterator[Statement]:
    if not items:
        return
    text = " ".join(t.text for t in items)
    line = items[0].line
    if items[0].kind == "name" and items[0].text in _ASSIGN_MACROS and len(items) > 2:
        comma = _top_level(items, ",", start=2, depth_at=1)
        if comma is not None and items[-1].text == ")":
            target = items[comma - 1].text
            yield Statement(line, target, _expression(items[comma + 1 : -1], text), text)
            return
    declared = _constructor_declaration(items)
    if declared is not None:
        target, open_index = declared
        callee = Name(
            items[0].text if open_index == 2 else " ".join(t.text for t in items[: open_index - 1])
        )
        args = _expression([Token("name", "_", line), *items[open_index:]], text)
        if isinstance(args, Call):
            yield Statement(line, target, Call(callee, args.args, args.braced), text)
            return
    equals = _top_level(items, "=")
    if equals is not None and equals > 0 and items[equals - 1].kind == "name":
        target = items[equals - 1].text
        yield Statement(line, target, _expression(items[equals + 1 :], text), text)
        return
    yield Statement(line, None, _expression(items, text), text)


def _constructor_declaration(items: list[Token]) -> tuple[str, int] | None:
    """``Type name(args…)`` or ``Type name{args…}``: the name and the position
    of the opening bracket (the statement must end with its match)."""
    for index in range(1, len(items) - 1):
        token = items[index]
        if token.kind == "punct" and token.text in ("(", "{", "="):
            if token.text == "=" or index < 2 or items[index - 1].kind != "name":
                return None
            before = items[index - 2]
            if before.kind != "name" and before.text not in (">", "::"):
                return None
            if before.kind == "name" and before.text in ("return", "else", "case"):
                return None
            if _matching(items, index) != len(items) - 1:
                return None
            return items[index - 1].text, index
    return None


def _top_level(items: list[Token], text: str, *, start: int = 0, depth_at: int = 0) -> int | None:
    depth = 0
    for index, token in enumerate(items):
        if token.kind != "punct":
            continue
        if token.text == text and depth == depth_at and index >= start:
            return index
        depth += token.text in "([{"
        depth -= token.text in ")]}"
    return None


def _expression(items: list[Token], text: str) -> Node:
    reader = _Expressions(items)
    try:
        node = reader.expression()
    except _Unparsed:
        return _opaque(items)
    if reader.position != len(items):
        return _opaque(items)
    return node


def _opaque(items: list[Token]) -> Opaque:
    strings = tuple(Literal(t.text, t.line) for t in items if t.kind == "string")
    return Opaque(" ".join(t.text for t in items), strings)
