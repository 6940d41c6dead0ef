"""Reads XLA's text form of indexing maps (the printer's exact inverse).

Grammar (whitespace and line breaks are insignificant)::

    map       := "UNDEFINED" | "KNOWN EMPTY"
               | header "->" "(" [expr {"," expr}] ")"
                 ["," "domain" ":" item {"," item}]
                 ["," "is_simplified" ":" ("true" | "false")]
    header    := "(" [ids] ")" ["[" [ids] "]"] ["{" [ids] "}"]
    item      := expr "in" interval    # a bare variable's first item is its bound,
                                       # every other item is a constraint
    interval  := "[" int "," int "]"   # inclusive
    expr      := term {("+" | "-") term}
    term      := unary {("*" | "/" | "floordiv" | "floorDiv" | "ceildiv"
                         | "ceilDiv" | "mod") unary}
    unary     := "-" unary | primary   # unary minus binds tightest
    primary   := int | ident | "(" expr ")" | ("min" | "max") "(" expr "," expr ")"

``/`` is ``floordiv`` (XLA's current spelling).  Every declared variable
needs a bound.  Errors are `ParseError`s with line, column and what was
expected — for any text: an integer literal must fit in int64 (XLA's
indices are int64), expressions nest at most `MAX_NESTING` levels deep (so
no later recursion over the expression can overflow the stack), and lexing
and parsing take time linear in the length of the text.

>>> str(parse_expr("d0 floorDiv 4 + d1 / 2", ["d0", "d1"]))
'd0 floordiv 4 + d1 floordiv 2'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, Protocol, TypeVar

from verifier.errors import InvalidMapError, NotQuasiAffineError, ParseError, span_at
from verifier.expr.indexing_map import IndexingMap, Undefined, Variable
from verifier.expr.interval import Interval
from verifier.expr.nodes import (
    Expr,
    Var,
    add,
    const,
    dim,
    range_var,
    rt_var,
)
from verifier.expr.syntax import (
    BinaryOp,
    Syntax,
    SyntaxBinary,
    SyntaxInt,
    SyntaxNeg,
    SyntaxSum,
    SyntaxVar,
    TypedMap,
    apply_operator,
)

# One alternative per token kind after optional blanks; `error` catches any
# other character, so consecutive matches cover the text.  The scan stops
# at the last non-blank character: a `\s*` prefix that could meet the end
# would be rescanned from every start position of a trailing run of blanks,
# which is quadratic, while before a non-blank character it always matches.
_TOKEN = re.compile(
    r"\s*(?:(?P<int>[0-9]+)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<punct>->|[()\[\]{},:+\-*/])|(?P<error>.))",
    re.DOTALL,
)
INT64_MAX = 2**63 - 1
MAX_NESTING = 100
"""How deep an expression may nest (operators and parentheses): far beyond
any map XLA prints, far below Python's recursion limit for the passes that
walk an expression."""
_MULTIPLICATIVE = {"*", "/", "floordiv", "floorDiv", "ceildiv", "ceilDiv", "mod"}


class _Token(NamedTuple):
    # A named tuple, not a dataclass: a map has dozens of tokens and
    # tokenizing is on the hot path of batch equivalence checks.
    kind: str  # "int", "ident", "punct", "end"
    text: str
    offset: int


def _tokenize(text: str, filename: str) -> list[_Token]:
    tokens: list[_Token] = []
    for match in _TOKEN.finditer(text, 0, len(text.rstrip())):
        kind = match.lastgroup
        assert kind is not None
        offset = match.start(kind)
        if kind == "error":
            raise ParseError(_unexpected(text[offset]), span_at(text, offset, filename))
        tokens.append(_Token(kind, match.group(kind), offset))
    tokens.append(_Token("end", "", len(text)))
    return tokens


def _unexpected(character: str) -> str:
    if "\udc80" <= character <= "\udcff":
        # A byte that is not UTF-8, as a surrogate escape (text read with
        # errors="surrogateescape", as the CLI reads map files).
        return f"byte 0x{ord(character) - 0xDC00:02x} is not UTF-8 (map text is UTF-8)"
    return f"unexpected character {character!r}"


_OPERATORS: dict[str, BinaryOp] = {
    "*": "*",
    "/": "floordiv",
    "floordiv": "floordiv",
    "floorDiv": "floordiv",
    "ceildiv": "ceildiv",
    "ceilDiv": "ceildiv",
    "mod": "mod",
}

T = TypeVar("T")


class _CanonicalBuilder:
    """Builds canonical expressions (`verifier.expr.nodes`' constructors)."""

    def integer(self, value: int) -> Expr:
        return const(value)

    def variable(self, variable: Var) -> Expr:
        return variable

    def negate(self, operand: Expr) -> Expr:
        return -operand

    def sum(self, first: Expr, rest: list[tuple[bool, Expr]]) -> Expr:
        # One canonical n-ary sum, not a chain of binary ones: the linear
        # terms are merged once.
        return add(first, *(-term if negate else term for negate, term in rest))

    def binary(self, op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr:
        return apply_operator(op, lhs, rhs)

    def as_variable(self, expr: Expr) -> Var | None:
        return expr if isinstance(expr, Var) else None


class _TypedBuilder:
    """Builds the parse tree as typed (`verifier.expr.syntax`)."""

    def integer(self, value: int) -> Syntax:
        return SyntaxInt(value)

    def variable(self, variable: Var) -> Syntax:
        return SyntaxVar(variable)

    def negate(self, operand: Syntax) -> Syntax:
        return SyntaxNeg(operand)

    def sum(self, first: Syntax, rest: list[tuple[bool, Syntax]]) -> Syntax:
        return SyntaxSum(first, tuple(rest))

    def binary(self, op: BinaryOp, lhs: Syntax, rhs: Syntax) -> Syntax:
        return SyntaxBinary(op, lhs, rhs)

    def as_variable(self, syntax: Syntax) -> Var | None:
        return syntax.variable if isinstance(syntax, SyntaxVar) else None


class _Builder(Protocol[T]):
    """What the parser builds each grammar rule into."""

    def integer(self, value: int) -> T: ...
    def variable(self, variable: Var) -> T: ...
    def negate(self, operand: T) -> T: ...
    def sum(self, first: T, rest: list[tuple[bool, T]]) -> T: ...
    def binary(self, op: BinaryOp, lhs: T, rhs: T) -> T: ...
    def as_variable(self, node: T) -> Var | None: ...


@dataclass(frozen=True)
class _MapParts(Generic[T]):
    """A map's text, read: variables by kind with their bounds, results and
    constraints as the builder made them."""

    dims: list[Interval]
    range_vars: list[Interval]
    rt_vars: list[Interval]
    results: list[T]
    constraints: list[tuple[T, Interval]]
    offset: int  # where the map starts, for errors about the whole map


class _Parser(Generic[T]):
    def __init__(self, text: str, filename: str, builder: _Builder[T]) -> None:
        self.text = text
        self.filename = filename
        self.tokens = _tokenize(text, filename)
        self.position = 0
        self.names: dict[str, Var] = {}
        self.build = builder
        self.open_groups = 0

    # ------------------------------------------------------------- primitives

    @property
    def peek(self) -> _Token:
        return self.tokens[self.position]

    def error(self, expected: str, token: _Token | None = None) -> ParseError:
        token = token or self.peek
        found = "end of input" if token.kind == "end" else repr(token.text)
        return ParseError(
            f"expected {expected}, found {found}", span_at(self.text, token.offset, self.filename)
        )

    def accept(self, text: str) -> bool:
        # `text` is never empty, so the end token ("") never matches.
        if self.tokens[self.position].text == text:
            self.position += 1
            return True
        return False

    def expect(self, text: str) -> _Token:
        token = self.peek
        if not self.accept(text):
            raise self.error(f"'{text}'")
        return token

    def integer(self) -> int:
        negative = self.accept("-")
        token = self.peek
        if token.kind != "int":
            raise self.error("an integer")
        self.position += 1
        return -self.int64(token, negative=True) if negative else self.int64(token)

    def int64(self, token: _Token, *, negative: bool = False) -> int:
        """The value of an integer literal, which must fit in int64 (its
        magnitude up to 2**63 after a minus sign)."""
        # Digits are counted before `int` converts them: converting
        # thousands of digits is quadratic, and past 4300 a ValueError.
        digits = token.text.lstrip("0") or "0"
        limit = INT64_MAX + 1 if negative else INT64_MAX
        if len(digits) > len(str(limit)) or int(digits) > limit:
            shown = token.text if len(token.text) <= 30 else f"{token.text[:20]}…"
            raise ParseError(
                f"integer {shown} ({len(token.text)} digits) does not fit in int64 "
                f"(XLA's indices are int64: from {-INT64_MAX - 1} to {INT64_MAX})",
                span_at(self.text, token.offset, self.filename),
            )
        return int(digits)

    # ------------------------------------------------------------- expressions
    #
    # Each method returns the expression and its nesting depth (1 for a
    # variable or a constant), so that `MAX_NESTING` bounds the depth of
    # every expression built, whatever mix of parentheses, operators and
    # min/max made it.

    def nested(self, depth: int, token: _Token) -> int:
        if depth > MAX_NESTING:
            raise ParseError(
                f"expression nested deeper than {MAX_NESTING} levels",
                span_at(self.text, token.offset, self.filename),
            )
        return depth

    def expr(self) -> T:
        return self.sum()[0]

    def sum(self) -> tuple[T, int]:
        first = self.peek
        summand, depth = self.term()
        rest: list[tuple[bool, T]] = []
        while self.peek.kind == "punct" and self.peek.text in ("+", "-"):
            negate = self.peek.text == "-"
            self.position += 1
            term, term_depth = self.term()
            rest.append((negate, term))
            depth = max(depth, term_depth)
        if not rest:
            return summand, depth
        return self.build.sum(summand, rest), self.nested(depth + 1, first)

    def term(self) -> tuple[T, int]:
        result, depth = self.unary()
        while self.peek.kind in ("punct", "ident") and self.peek.text in _MULTIPLICATIVE:
            op = self.peek
            self.position += 1
            rhs, rhs_depth = self.unary()
            result = self.combine(op, _OPERATORS[op.text], result, rhs)
            depth = self.nested(max(depth, rhs_depth) + 1, op)
        return result, depth

    def combine(self, token: _Token, op: BinaryOp, lhs: T, rhs: T) -> T:
        """``lhs op rhs``; a non-quasi-affine result is an error at `token`."""
        try:
            return self.build.binary(op, lhs, rhs)
        except NotQuasiAffineError as error:
            raise ParseError(
                f"not quasi-affine: {error}", span_at(self.text, token.offset, self.filename)
            ) from None

    def unary(self) -> tuple[T, int]:
        # A loop, not recursion: a run of minus signs costs no stack (an even
        # run is no negation, in the typed tree too).
        first = self.peek
        negations = 0
        while self.accept("-"):
            negations += 1
        operand, depth = self.primary()
        if negations % 2 == 0:
            return operand, depth
        return self.build.negate(operand), self.nested(depth + 1, first)

    def primary(self) -> tuple[T, int]:
        token = self.peek
        if token.kind == "int":
            self.position += 1
            return self.build.integer(self.int64(token)), 1
        if self.accept("("):
            self.nesting(token)
            inner = self.sum()
            self.open_groups -= 1
            self.expect(")")
            return inner
        if token.kind == "ident":
            if token.text in ("min", "max"):
                self.position += 1
                self.expect("(")
                self.nesting(token)
                lhs, lhs_depth = self.sum()
                self.expect(",")
                rhs, rhs_depth = self.sum()
                self.open_groups -= 1
                self.expect(")")
                combined = self.build.binary("min" if token.text == "min" else "max", lhs, rhs)
                return combined, self.nested(max(lhs_depth, rhs_depth) + 1, token)
            variable = self.names.get(token.text)
            if variable is None:
                raise ParseError(
                    f"unknown variable '{token.text}' (declared: {', '.join(self.names) or 'none'})",
                    span_at(self.text, token.offset, self.filename),
                )
            self.position += 1
            return self.build.variable(variable), 1
        raise self.error("an integer, a variable, '(', 'min' or 'max'")

    def nesting(self, token: _Token) -> None:
        """Enter a parenthesised group; the parser's own recursion is bounded
        by the groups open, even where the depth of the result is not (as
        in ``((((d0))))``)."""
        self.open_groups += 1
        self.nested(self.open_groups, token)

    # ------------------------------------------------------------- maps

    def identifiers(self, close: str) -> list[_Token]:
        names: list[_Token] = []
        if self.accept(close):
            return names
        while True:
            token = self.peek
            if token.kind != "ident":
                raise self.error("a variable name")
            if token.text in self.names or any(t.text == token.text for t in names):
                raise ParseError(
                    f"variable '{token.text}' declared twice",
                    span_at(self.text, token.offset, self.filename),
                )
            names.append(token)
            self.position += 1
            if self.accept(close):
                return names
            self.expect(",")

    def interval(self) -> Interval:
        self.expect("[")
        lower = self.integer()
        self.expect(",")
        upper = self.integer()
        self.expect("]")
        return Interval(lower, upper)

    def map_parts(self) -> _MapParts[T] | Undefined | None:
        """The map's parts; `Undefined` for ``UNDEFINED``, None for ``KNOWN EMPTY``."""
        if self.accept("UNDEFINED"):
            return Undefined()
        if self.accept("KNOWN"):
            self.expect("EMPTY")
            return None
        start = self.expect("(")
        dims = self.identifiers(")")
        self.declare(dims, dim)
        range_names: list[_Token] = []
        rt_names: list[_Token] = []
        if self.accept("["):
            range_names = self.identifiers("]")
            self.declare(range_names, range_var)
        if self.accept("{"):
            rt_names = self.identifiers("}")
            self.declare(rt_names, rt_var)
        self.expect("->")
        self.expect("(")
        results: list[T] = []
        if not self.accept(")"):
            results.append(self.expr())
            while not self.accept(")"):
                self.expect(",")
                results.append(self.expr())
        bounds: dict[Var, Interval] = {}
        constraints: list[tuple[T, Interval]] = []
        if self.accept(","):
            if self.accept("is_simplified"):
                self.simplified_flag()
            else:
                self.expect("domain")
                self.expect(":")
                self.domain_items(bounds, constraints)
        end = self.peek
        if end.kind != "end":
            raise self.error("end of map")
        for token in dims + range_names + rt_names:
            if self.names[token.text] not in bounds:
                raise ParseError(
                    f"no bound for variable '{token.text}' in the domain",
                    span_at(self.text, token.offset, self.filename),
                )

        def variables(tokens: list[_Token]) -> list[Interval]:
            return [bounds[self.names[t.text]] for t in tokens]

        return _MapParts(
            variables(dims),
            variables(range_names),
            variables(rt_names),
            results,
            constraints,
            start.offset,
        )

    def declare(self, tokens: list[_Token], make: Callable[[int], Var]) -> None:
        for index, token in enumerate(tokens):
            self.names[token.text] = make(index)

    def domain_items(
        self, bounds: dict[Var, Interval], constraints: list[tuple[T, Interval]]
    ) -> None:
        while True:
            if self.accept("is_simplified"):
                self.simplified_flag()
                return
            expr = self.expr()
            self.expect("in")
            interval = self.interval()
            variable = self.build.as_variable(expr)
            if variable is not None and variable not in bounds:
                bounds[variable] = interval
            else:
                constraints.append((expr, interval))
            if not self.accept(","):
                return

    def simplified_flag(self) -> None:
        self.expect(":")
        if not (self.accept("true") or self.accept("false")):
            raise self.error("'true' or 'false'")


def known_empty_map() -> IndexingMap:
    """The canonical "KNOWN EMPTY" map: no variables, no results, no points."""
    return IndexingMap.create([], [], constraints=[(const(0), Interval(1, 1))])


def parse_map_or_undefined(text: str, filename: str = "<map>") -> IndexingMap | Undefined:
    """An indexing map, or `Undefined` for the text ``UNDEFINED``."""
    parts = _Parser(text, filename, _CanonicalBuilder()).map_parts()
    if parts is None:
        return known_empty_map()
    if isinstance(parts, Undefined):
        return parts
    try:
        return IndexingMap.create(
            [Variable(b) for b in parts.dims],
            parts.results,
            range_vars=[Variable(b) for b in parts.range_vars],
            rt_vars=[Variable(b) for b in parts.rt_vars],
            constraints=parts.constraints,
        )
    except InvalidMapError as error:
        raise ParseError(str(error), span_at(text, parts.offset, filename)) from None


def parse_map(text: str, filename: str = "<map>") -> IndexingMap:
    """An indexing map from XLA's text form; ``UNDEFINED`` is a `ParseError`.

    >>> str(parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]"))
    '(d0)[s0] -> (d0 + s0),\\ndomain:\\nd0 in [0, 9],\\ns0 in [0, 3]'
    """
    parsed = parse_map_or_undefined(text, filename)
    if isinstance(parsed, Undefined):
        raise ParseError("expected an indexing map, found UNDEFINED", span_at(text, 0, filename))
    return parsed


def parse_typed_map(text: str, filename: str = "<map>") -> TypedMap | None:
    """The map's text as typed (`verifier.expr.syntax`), before construction
    canonicalises it; None for ``KNOWN EMPTY``.  The text is first read with
    `parse_map`, so it fails exactly where `parse_map` does.

    >>> from verifier.expr.syntax import print_syntax
    >>> typed = parse_typed_map("(d0, d1) -> (d1 + d0 * 1), domain: d0 in [0, 3], d1 in [0, 3]")
    >>> print_syntax(typed.results[0]), str(parse_map(
    ...     "(d0, d1) -> (d1 + d0 * 1), domain: d0 in [0, 3], d1 in [0, 3]").results[0])
    ('d1 + d0 * 1', 'd0 + d1')
    """
    parse_map(text, filename)
    parts = _Parser(text, filename, _TypedBuilder()).map_parts()
    if parts is None:
        return None
    assert not isinstance(parts, Undefined), "parse_map accepted it"
    header = (
        [(dim(i), b) for i, b in enumerate(parts.dims)]
        + [(range_var(i), b) for i, b in enumerate(parts.range_vars)]
        + [(rt_var(i), b) for i, b in enumerate(parts.rt_vars)]
    )
    return TypedMap(tuple(header), tuple(parts.results), tuple(parts.constraints))


def parse_expr(text: str, variable_names: Sequence[str], filename: str = "<expr>") -> Expr:
    """An expression over dims named by `variable_names` (``d0``, ``d1``, …)."""
    parser = _Parser(text, filename, _CanonicalBuilder())
    for index, name in enumerate(variable_names):
        parser.names[name] = dim(index)
    result = parser.expr()
    if parser.peek.kind != "end":
        raise parser.error("end of expression")
    return result
