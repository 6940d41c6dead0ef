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

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeAlias, TypeVar

from verifier.errors import (
    NotQuasiAffineError,
    ParseError,
    SourceSpan,
    span_at,
)
from verifier.expr.indexing_map import IndexingMap, Undefined, Variable, declared_map
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

# A token is an integer, an identifier, ``->`` or one character; blanks
# between tokens are skipped.  `findall` gives the tokens as strings, the
# one object per token that the parser needs; where a token starts is only
# needed for an error message, and is found then (`_Parser.offset`).  A
# character that no token may hold is found first, by one search.  Both
# scans are linear in the length of the text.
_TOKEN = re.compile(r"[0-9]+|[A-Za-z_][A-Za-z0-9_]*|->|\S")
# ">" is valid only after "-", and then always read as "->" ("-" is a token
# of its own or starts "->"; no other token holds a "-").
_INVALID = re.compile(r"[^\sA-Za-z0-9_()\[\]{},:+\-*/>]|(?<!-)>")
_DIGITS = frozenset("0123456789")
_IDENTIFIER_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_END = ""  # the token after the last one
# Where a result or a constraint ends (outside parentheses): tokens that
# cannot continue an expression, so its tokens read alone (`MapReader`).
_ITEM_END = frozenset((",", ")", "in", _END))
_OPEN = frozenset(("(", "["))
_CLOSE = frozenset((")", "]"))
INT64_MAX = 2**63 - 1
_INT64_DIGITS = len(str(INT64_MAX))
MAX_NESTING = 100
"""How deep an expression may nest (operators and parentheses): far beyond
any map XLA prints, far below Python's recursion limit for the passes that
walk an expression."""


def _tokenize(text: str, filename: str) -> list[str]:
    invalid = _INVALID.search(text)
    if invalid is not None:
        offset = invalid.start()
        raise ParseError(_unexpected(text[offset]), span_at(text, offset, filename))
    tokens: list[str] = _TOKEN.findall(text)
    tokens.append(_END)
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
        return _canonical_sum(first, tuple(rest))

    def binary(self, op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr:
        return _canonical_binary(op, lhs, rhs)

    def as_variable(self, expr: Expr) -> Var | None:
        return expr if isinstance(expr, Var) else None


# Nodes are immutable and interned, so a node built again is the node built
# before: a sum or an operation on the same operands is built once.  A map
# repeats them — ``((d0 * 16 + d1 * 8 + d2) floordiv 16) mod 16, ((d0 * 16
# + d1 * 8 + d2) floordiv 8) mod 2, …`` — and so do the maps of a batch
# (a map and its rewritten form): a fifth of reading the pointwise pairs of
# benchmarks/equivalence.py.
@functools.lru_cache(maxsize=1 << 14)
def _canonical_sum(first: Expr, rest: tuple[tuple[bool, Expr], ...]) -> Expr:
    # One canonical n-ary sum, not a chain of binary ones: the linear
    # terms are merged once.
    return add(first, *(-term if negate else term for negate, term in rest))


@functools.lru_cache(maxsize=1 << 14)
def _canonical_binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr:
    return apply_operator(op, lhs, rhs)


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


class _Parser(Generic[T]):
    """Recursive descent over the tokens; a token is named by its position
    in `tokens` (its text is ``tokens[position]``, where it starts is
    `offset`)."""

    def __init__(
        self,
        text: str,
        filename: str,
        builder: _Builder[T],
        memo: _Memo[T] | None = None,
    ) -> None:
        self.text = text
        self.filename = filename
        self.tokens = _tokenize(text, filename)
        self.position = 0
        self.names: dict[str, Var] = {}
        self.build = builder
        self.open_groups = 0
        self.memo = memo
        # The items read under this map's header (`item`), once it is read.
        self.items: dict[tuple[str, ...], T] | None = None
        self.header_key: _HeaderKey = ()

    # ------------------------------------------------------------- primitives

    def offset(self, position: int) -> int:
        """Where token `position` starts in the text (the end token: at the
        end); found again by the tokenizer's scan, as only errors ask."""
        if position >= len(self.tokens) - 1:
            return len(self.text)
        return next(itertools.islice(_TOKEN.finditer(self.text), position, None)).start()

    def span(self, position: int) -> SourceSpan:
        return span_at(self.text, self.offset(position), self.filename)

    def error(self, expected: str, position: int | None = None) -> ParseError:
        position = self.position if position is None else position
        token = self.tokens[position]
        found = "end of input" if token == _END else repr(token)
        return ParseError(f"expected {expected}, found {found}", self.span(position))

    def accept(self, text: str) -> bool:
        # `text` is never empty, so the end token never matches.
        if self.tokens[self.position] == text:
            self.position += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.error(f"'{text}'")

    def integer(self) -> int:
        negative = self.accept("-")
        position = self.position
        if self.tokens[position][:1] not in _DIGITS:
            raise self.error("an integer")
        self.position += 1
        return -self.int64(position, negative=True) if negative else self.int64(position)

    def int64(self, position: int, *, negative: bool = False) -> int:
        """The value of the integer literal at `position`, which must fit in
        int64 (its magnitude up to 2**63 after a minus sign)."""
        # Digits are counted before `int` converts them: converting
        # thousands of digits is quadratic, and past 4300 a ValueError.
        text = self.tokens[position]
        if len(text) < _INT64_DIGITS:  # below 10**18: fits
            return int(text)
        digits = text.lstrip("0") or "0"
        limit = INT64_MAX + 1 if negative else INT64_MAX
        if len(digits) > _INT64_DIGITS or int(digits) > limit:
            shown = text if len(text) <= 30 else f"{text[:20]}…"
            raise ParseError(
                f"integer {shown} ({len(text)} digits) does not fit in int64 "
                f"(XLA's indices are int64: from {-INT64_MAX - 1} to {INT64_MAX})",
                self.span(position),
            )
        return int(digits)

    # ------------------------------------------------------------- expressions
    #
    # Each method returns the expression and its nesting depth (1 for a
    # variable or a constant), so that `MAX_NESTING` bounds the depth of
    # every expression built, whatever mix of parentheses, operators and
    # min/max made it.

    def nested(self, depth: int, position: int) -> int:
        if depth > MAX_NESTING:
            raise ParseError(
                f"expression nested deeper than {MAX_NESTING} levels", self.span(position)
            )
        return depth

    def expr(self) -> T:
        return self.sum()[0]

    def item(self) -> T:
        """A result or a constraint's expression: read once per `memo`.

        Its tokens run to the first ``,``, ``)`` or ``in`` outside
        parentheses.  When the expression read from them ends there, they
        read as that expression wherever they stand under the same header
        (what a token means depends on the names declared, and recursive
        descent looks one token ahead: a token that cannot continue an
        expression ends it), so they are kept with it and not read again.
        """
        items = self.items
        if items is None:
            return self.expr()
        tokens, start = self.tokens, self.position
        end, depth = start, 0
        while (token := tokens[end]) != _END:
            if token in _OPEN:
                depth += 1
            elif depth and token in _CLOSE:
                depth -= 1
            elif not depth and token in _ITEM_END:
                break
            end += 1
        key = tuple(tokens[start:end])
        found = items.get(key)
        if found is not None:
            self.position = end
            return found
        expr = self.expr()
        if self.position == end:
            items[key] = expr
        return expr

    def sum(self) -> tuple[T, int]:
        first = self.position
        summand, depth = self.term()
        tokens = self.tokens
        rest: list[tuple[bool, T]] = []
        while (token := tokens[self.position]) in ("+", "-"):
            self.position += 1
            term, term_depth = self.term()
            rest.append((token == "-", term))
            depth = max(depth, term_depth)
        if not rest:
            return summand, depth
        return self.build.sum(summand, rest), self.nested(depth + 1, first)

    def term(self) -> tuple[T, int]:
        tokens = self.tokens
        # `unary` only when a minus sign starts the operand (one call less per operand).
        result, depth = self.unary() if tokens[self.position] == "-" else self.primary()
        while (token := tokens[self.position]) in _OPERATORS:
            position = self.position
            self.position += 1
            rhs, rhs_depth = self.unary() if tokens[self.position] == "-" else self.primary()
            result = self.combine(position, _OPERATORS[token], result, rhs)
            depth = self.nested(max(depth, rhs_depth) + 1, position)
        return result, depth

    def combine(self, position: int, op: BinaryOp, lhs: T, rhs: T) -> T:
        """``lhs op rhs``; a non-quasi-affine result is an error at token `position`."""
        try:
            return self.build.binary(op, lhs, rhs)
        except NotQuasiAffineError as error:
            raise ParseError(f"not quasi-affine: {error}", self.span(position)) from None

    def unary(self) -> tuple[T, int]:
        # A loop, not recursion: a run of minus signs costs no stack (an even
        # run is no negation, in the typed tree too).
        first = self.position
        negations = 0
        while self.accept("-"):
            negations += 1
        operand, depth = self.primary()
        if negations % 2 == 0:
            return operand, depth
        return self.build.negate(operand), self.nested(depth + 1, first)

    def primary(self) -> tuple[T, int]:
        position = self.position
        token = self.tokens[position]
        first = token[:1]
        if first in _DIGITS:
            self.position += 1
            return self.build.integer(self.int64(position)), 1
        if first in _IDENTIFIER_START:
            if token in ("min", "max"):
                self.position += 1
                self.expect("(")
                self.nesting(position)
                lhs, lhs_depth = self.sum()
                self.expect(",")
                rhs, rhs_depth = self.sum()
                self.open_groups -= 1
                self.expect(")")
                combined = self.build.binary("min" if token == "min" else "max", lhs, rhs)
                return combined, self.nested(max(lhs_depth, rhs_depth) + 1, position)
            variable = self.names.get(token)
            if variable is None:
                raise ParseError(
                    f"unknown variable '{token}' (declared: {', '.join(self.names) or 'none'})",
                    self.span(position),
                )
            self.position += 1
            return self.build.variable(variable), 1
        if token == "(":
            self.position += 1
            self.nesting(position)
            inner = self.sum()
            self.open_groups -= 1
            self.expect(")")
            return inner
        raise self.error("an integer, a variable, '(', 'min' or 'max'")

    def nesting(self, position: int) -> None:
        """Enter a parenthesised group; the parser's own recursion is bounded
        by the groups open, even where the depth of the result is not (as
        in ``((((d0))))``)."""
        self.open_groups += 1
        self.nested(self.open_groups, position)

    # ------------------------------------------------------------- maps

    def identifiers(self, close: str) -> list[int]:
        """The positions of the names declared up to `close`."""
        names: list[int] = []
        if self.accept(close):
            return names
        while True:
            position = self.position
            token = self.tokens[position]
            if token[:1] not in _IDENTIFIER_START:
                raise self.error("a variable name")
            if token in self.names or any(self.tokens[p] == token for p in names):
                raise ParseError(f"variable '{token}' declared twice", self.span(position))
            names.append(position)
            self.position += 1
            if self.accept(close):
                return names
            self.expect(",")

    def interval(self) -> Interval:
        tokens, position = self.tokens, self.position
        if (
            tokens[position : position + 5 : 2] == ["[", ",", "]"]
            and tokens[position + 1][:1] in _DIGITS
            and tokens[position + 3][:1] in _DIGITS
        ):
            # ``[lower, upper]`` without minus signs: what a domain mostly is.
            self.position = position + 5
            return Interval(self.int64(position + 1), self.int64(position + 3))
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
        dims, range_names, rt_names = self.header()
        self.expect("->")
        self.expect("(")
        if self.memo is not None:
            self.header_key = tuple(self.names.items())
            self.items = self.memo.items_under(self.header_key)
        opened = self.position - 1
        results: list[T] = []
        if not self.accept(")"):
            results.append(self.item())
            while not self.accept(")"):
                if not self.accept(","):
                    where = self.span(opened)
                    raise self.error(
                        f"',' or ')' closing the results opened at {where.line}:{where.column}"
                    )
                self.unclosed_results(opened)
                results.append(self.item())
        bounds: dict[Var, Interval] = {}
        constraints: list[tuple[T, Interval]] = []
        if self.accept(","):
            if self.accept("is_simplified"):
                self.simplified_flag()
            else:
                self.expect("domain")
                self.expect(":")
                self.domain(bounds, constraints)
        if self.tokens[self.position] != _END:
            raise self.error("end of map")
        for position in dims + range_names + rt_names:
            if self.names[self.tokens[position]] not in bounds:
                raise ParseError(
                    f"no bound for variable '{self.tokens[position]}' in the domain",
                    self.span(position),
                )

        def variables(positions: list[int]) -> list[Interval]:
            return [bounds[self.names[self.tokens[p]]] for p in positions]

        return _MapParts(
            variables(dims), variables(range_names), variables(rt_names), results, constraints
        )

    def unclosed_results(self, opened: int) -> None:
        """Raise at a ``domain:`` or ``is_simplified`` that stands where a
        result should: the ``)`` closing the results (opened at token
        `opened`) is missing — not an unknown variable ``domain``."""
        tokens, position = self.tokens, self.position
        token = tokens[position]
        if token == "is_simplified" or (token == "domain" and tokens[position + 1] == ":"):
            where = self.span(opened)
            raise ParseError(
                f"expected ')' closing the results opened at {where.line}:{where.column}, "
                f"found '{token}'",
                self.span(self.position - 1),
            )

    def header(self) -> _Header:
        """The positions of the names of the dims, range and runtime
        variables, up to ``->``, declared in `names`; a header the `memo`
        has read is not read again (a header is a map's first tokens, so
        the same tokens are at the same positions)."""
        if self.memo is None:
            return self.declarations()
        tokens = self.tokens
        end = tokens.index("->") if "->" in tokens else 0
        key = tuple(tokens[:end])
        found = self.memo.headers.get(key)
        if found is not None:
            names, positions = found
            self.names = dict(names)
            self.position = end
            return positions
        positions = self.declarations()
        if self.position == end:
            self.memo.headers[key] = (dict(self.names), positions)
        return positions

    def declarations(self) -> _Header:
        self.expect("(")
        dims = self.identifiers(")")
        self.declare(dims, dim)
        range_names: list[int] = []
        rt_names: list[int] = []
        if self.accept("["):
            range_names = self.identifiers("]")
            self.declare(range_names, range_var)
        if self.accept("{"):
            rt_names = self.identifiers("}")
            self.declare(rt_names, rt_var)
        return dims, range_names, rt_names

    def declare(self, positions: list[int], make: Callable[[int], Var]) -> None:
        for index, position in enumerate(positions):
            self.names[self.tokens[position]] = make(index)

    def domain(self, bounds: dict[Var, Interval], constraints: list[tuple[T, Interval]]) -> None:
        """The domain's items, read once per `memo`: its tokens, when they
        run to the end of the map, read as the same bounds and constraints
        wherever they stand under the same header (a map and its rewritten
        form mostly have one domain: half the domains of the pairs of
        benchmarks/equivalence.py)."""
        if self.memo is None:
            self.domain_items(bounds, constraints)
            return
        key = self.header_key, tuple(self.tokens[self.position :])
        found = self.memo.domains.get(key)
        if found is not None:
            bounds.update(found[0])
            constraints.extend(found[1])
            self.position = len(self.tokens) - 1
            return
        self.domain_items(bounds, constraints)
        if self.tokens[self.position] == _END:
            self.memo.domains[key] = (dict(bounds), list(constraints))

    def domain_items(
        self, bounds: dict[Var, Interval], constraints: list[tuple[T, Interval]]
    ) -> None:
        while True:
            if self.accept("is_simplified"):
                self.simplified_flag()
                return
            variable = self.names.get(self.tokens[self.position])
            if (
                variable is not None
                and variable not in bounds
                and self.tokens[self.position + 1] == "in"
            ):
                # A variable's bound, the common item, without the expression grammar.
                self.position += 2
                bounds[variable] = self.interval()
                if not self.accept(","):
                    return
                continue
            expr = self.item()
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


_Header: TypeAlias = tuple[list[int], list[int], list[int]]
# A header as the names it declares, with their variables.
_HeaderKey: TypeAlias = tuple[tuple[str, Var], ...]


class _Memo(Generic[T]):
    """What maps read as: their headers (the names declared, by tokens), and
    the expressions of their results and constraints, by header (the names
    with their variables) and tokens; at most `capacity` expressions,
    forgotten all at once beyond."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.headers: dict[tuple[str, ...], tuple[dict[str, Var], _Header]] = {}
        self.items: dict[_HeaderKey, dict[tuple[str, ...], T]] = {}
        self.domains: dict[
            tuple[_HeaderKey, tuple[str, ...]],
            tuple[dict[Var, Interval], list[tuple[T, Interval]]],
        ] = {}

    def items_under(self, header: _HeaderKey) -> dict[tuple[str, ...], T]:
        if sum(map(len, self.items.values())) + len(self.domains) >= self.capacity:
            self.items.clear()
            self.headers.clear()
            self.domains.clear()
        return self.items.setdefault(header, {})


class MapReader:
    """Reads many maps, each distinct header once, and each distinct result
    and constraint once per header.

    The maps of a batch repeat expressions: a map and its simplified form
    share constraints and results, and a family of maps shares them across
    pairs.  The reader keeps what it read (up to `capacity` expressions) and
    reads the same tokens under the same header as the same expression: the
    5,105 maps of ``benchmarks/equivalence.py`` have 18,495 results and
    constraints, 4,625 distinct ones.  What a map reads as, and where it is
    wrong, are `parse_map`'s.

    >>> reader = MapReader()
    >>> a = reader.read("(d0) -> (d0 floordiv 4), domain: d0 in [0, 9], d0 mod 2 in [0, 0]")
    >>> b = reader.read("(d0) -> (d0 floordiv 4 + 1), domain: d0 in [0, 7], d0 mod 2 in [0, 0]")
    >>> a.constraints == b.constraints and a.results != b.results
    True
    """

    def __init__(self, capacity: int = 1 << 16) -> None:
        self._memo: _Memo[Expr] = _Memo(capacity)

    def read(self, text: str, filename: str = "<map>") -> IndexingMap:
        """The map `text` reads as: `parse_map`, with what was read before."""
        return _map(text, filename, self._memo)


def known_empty_map() -> IndexingMap:
    """The canonical "KNOWN EMPTY" map: no variables, no results, no points."""
    return IndexingMap.create([], [], constraints=[(const(0), Interval(1, 1))])


def parse_map_or_undefined(text: str, filename: str = "<map>") -> IndexingMap | Undefined:
    """An indexing map, or `Undefined` for the text ``UNDEFINED``."""
    return _map_or_undefined(text, filename, None)


def _map_or_undefined(
    text: str, filename: str, memo: _Memo[Expr] | None
) -> IndexingMap | Undefined:
    parser = _Parser(text, filename, _CanonicalBuilder(), memo)
    parts = parser.map_parts()
    if parts is None:
        return known_empty_map()
    if isinstance(parts, Undefined):
        return parts
    # Every name was resolved against the header: no undeclared variable to look for.
    return declared_map(
        [Variable(b) for b in parts.dims],
        parts.results,
        range_vars=[Variable(b) for b in parts.range_vars],
        rt_vars=[Variable(b) for b in parts.rt_vars],
        constraints=parts.constraints,
    )


def parse_map(text: str, filename: str = "<map>") -> IndexingMap:
    """An indexing map from XLA's text form; ``UNDEFINED`` is a `ParseError`.

    >>> str(parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]"))
    '(d0)[s0] -> (d0 + s0),\\ndomain:\\nd0 in [0, 9],\\ns0 in [0, 3]'
    """
    return _map(text, filename, None)


def _map(text: str, filename: str, memo: _Memo[Expr] | None) -> IndexingMap:
    parsed = _map_or_undefined(text, filename, memo)
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
    if parser.tokens[parser.position] != _END:
        raise parser.error("end of expression")
    return result
