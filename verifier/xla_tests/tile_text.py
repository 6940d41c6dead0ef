"""XLA's printout of a symbolic tile, read into expressions of the tile
sizes that plain Python evaluates.

XLA prints a ``SymbolicTile`` as ``offset_map``, ``size_map`` and
``stride_map`` (maps whose variables are the output's tile sizes),
``constraints`` (a disjunction of conjunctions of ``EXPR in [lo, hi]`` on
the sizes, half-open ``[lo, hi)`` in mid-2024; absent: always) and ``rt_vars`` (the ranges of the runtime
offsets).  Its expressions are not affine: sizes multiply sizes, ``mod``
and ``/`` (floor division, earlier ``floordiv``) take sizes as divisors,
so they are read here by a grammar of their own, not `verifier.expr`'s.

Two conventions of the tile sizes: since mid-2024 they are the dims
``(d0, d1) -> …`` and the offset map's symbols are the runtime offsets;
before, they were symbols ``()[s0, s1] -> …``, the offset map's symbols
after them the runtime offsets.  Both read into `XlaTile`, whose maps are
evaluated at a size vector and runtime values.

>>> tile = read_tile('''Symbolic tile with
...   offset_map: (d0, d1) -> (0, 0)
...   size_map: (d0, d1) -> ((d0 + 5) / 6, d1)
...   stride_map: (d0, d1) -> (1, 1)
...   constraints: 6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]''')
>>> tile.sizes((12, 4), ()), tile.admits((4, 4)), tile.admits((3, 4))
((2, 4), False, True)
>>> old = read_tile_parts("()[s0] -> (0)", "()[s0] -> (s0)", "()[s0] -> (1)")
>>> old.rank, old.sizes((7,), ())
(1, (7,))
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from verifier.errors import VerifierError


class TileTextError(VerifierError):
    """A tile printout this reader does not read (its expectation is then
    not comparable, with this message)."""


# An expression: a number, a variable's name, or (operator, operands...).
TileExpr: TypeAlias = int | str | tuple[object, ...]

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(->|&&|\|\||[-+*/(),\[\]{}]))")
_BINARY = {"+": 1, "-": 1, "*": 2, "/": 2, "floordiv": 2, "ceildiv": 2, "mod": 2}


class _Reader:
    """A recursive-descent reader of XLA's symbolic expressions and maps."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            match = _TOKEN.match(text, position)
            if match is None:
                raise TileTextError(f"unexpected character {text[position:].strip()[:1]!r}")
            self.tokens.append(next(g for g in match.groups() if g is not None))
            position = match.end()
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise TileTextError(f"expected {expected or 'more'} in {self.text.strip()!r}")
        self.at += 1
        return token

    def expression(self, level: int = 1) -> TileExpr:
        left = self.unary() if level == 2 else self.expression(2)
        while (token := self.peek()) in _BINARY and _BINARY[token] == level:
            self.take()
            right = self.unary() if level == 2 else self.expression(2)
            left = ("floordiv" if token == "/" else token, left, right)
        return left

    def unary(self) -> TileExpr:
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        token = self.take()
        if token == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if token.isdigit():
            return int(token)
        if token in ("min", "max"):
            self.take("(")
            operands = [self.expression()]
            while self.peek() == ",":
                self.take()
                operands.append(self.expression())
            self.take(")")
            return (token, *operands)
        if re.fullmatch(r"(d|s|rt)\d+", token):
            return token
        raise TileTextError(f"unexpected {token!r} in {self.text.strip()!r}")

    def names(self, opening: str, closing: str) -> list[str]:
        self.take(opening)
        found: list[str] = []
        while self.peek() != closing:
            found.append(self.take())
            if self.peek() == ",":
                self.take()
        self.take(closing)
        return found

    def map(self) -> tuple[list[str], list[str], list[TileExpr]]:
        dims = self.names("(", ")")
        symbols = self.names("[", "]") if self.peek() == "[" else []
        if self.peek() == "{":
            symbols += self.names("{", "}")
        self.take("->")
        self.take("(")
        results: list[TileExpr] = []
        while self.peek() != ")":
            results.append(self.expression())
            if self.peek() == ",":
                self.take()
        self.take(")")
        return dims, symbols, results


def evaluate(expr: TileExpr, values: Mapping[str, int]) -> int:
    """`expr` at `values` (floor division and modulo, as XLA's)."""
    if isinstance(expr, int):
        return expr
    if isinstance(expr, str):
        return values[expr]
    op, *operands = expr
    args = [evaluate(o, values) for o in operands]  # type: ignore[arg-type]
    match op:
        case "neg":
            return -args[0]
        case "+":
            return args[0] + args[1]
        case "-":
            return args[0] - args[1]
        case "*":
            return args[0] * args[1]
        case "floordiv":
            return args[0] // args[1]
        case "ceildiv":
            return -(-args[0] // args[1])
        case "mod":
            return args[0] % args[1]
        case "min":
            return min(args)
        case _:
            return max(args)


@dataclass(frozen=True)
class Atom:
    expr: TileExpr
    lower: int
    upper: int


@dataclass(frozen=True)
class XlaTile:
    """XLA's tile: the names of its tile sizes and runtime offsets (in
    order), its maps' results and its constraints (None: always)."""

    size_names: tuple[str, ...]
    rt_names: tuple[str, ...]
    rt_ranges: tuple[tuple[int, int], ...]
    offsets: tuple[TileExpr, ...]
    box: tuple[TileExpr, ...]
    strides: tuple[TileExpr, ...]
    constraints: tuple[tuple[Atom, ...], ...] | None

    @property
    def rank(self) -> int:
        return len(self.size_names)

    def _values(self, sizes: Sequence[int], runtime: Sequence[int]) -> dict[str, int]:
        values = dict(zip(self.size_names, sizes, strict=True))
        values.update(zip(self.rt_names, runtime, strict=True))
        return values

    def admits(self, sizes: Sequence[int]) -> bool:
        """Whether the constraints hold at `sizes` (a division by zero: no)."""
        if self.constraints is None:
            return True
        values = self._values(sizes, [0] * len(self.rt_names))
        try:
            return any(
                all(a.lower <= evaluate(a.expr, values) <= a.upper for a in conjunction)
                for conjunction in self.constraints
            )
        except ZeroDivisionError:
            return False

    def sizes(self, sizes: Sequence[int], runtime: Sequence[int]) -> tuple[int, ...]:
        values = self._values(sizes, runtime)
        return tuple(evaluate(e, values) for e in self.box)

    def stride_values(self, sizes: Sequence[int], runtime: Sequence[int]) -> tuple[int, ...]:
        values = self._values(sizes, runtime)
        return tuple(evaluate(e, values) for e in self.strides)

    def offset_values(self, sizes: Sequence[int], runtime: Sequence[int]) -> tuple[int, ...]:
        values = self._values(sizes, runtime)
        return tuple(evaluate(e, values) for e in self.offsets)


_SECTIONS = re.compile(r"\b(offset_map|size_map|stride_map|constraints|rt_vars)\s*:")
# ``[lo, hi]``, or ``[lo, hi)`` as XLA printed intervals in mid-2024.
_RANGE = re.compile(r"(s\d+|rt\d+)\s+in\s+\[\s*(-?\d+)\s*,\s*(-?\d+)\s*([\])])")


def read_tile(text: str) -> XlaTile:
    """``Symbolic tile with offset_map: … size_map: … stride_map: …
    [constraints: …] [rt_vars: …]`` (`TileTextError` where not)."""
    parts = _SECTIONS.split(text)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    if not {"offset_map", "size_map", "stride_map"} <= set(sections):
        raise TileTextError("a symbolic tile without its offset_map, size_map and stride_map")
    ranges = read_rt_ranges(sections.get("rt_vars", ""))
    return read_tile_parts(
        sections["offset_map"],
        sections["size_map"],
        sections["stride_map"],
        sections.get("constraints"),
        ranges,
    )


def read_rt_ranges(text: str) -> list[tuple[str, int, int]]:
    """The runtime offsets' ranges ``s0 in [lo, hi]`` (or ``[lo, hi)``) of `text`."""
    return [(name, int(lo), int(hi) - (end == ")")) for name, lo, hi, end in _RANGE.findall(text)]


def read_tile_parts(
    offset_text: str,
    size_text: str,
    stride_text: str,
    constraints_text: str | None = None,
    rt_ranges: Sequence[tuple[str, int, int]] = (),
) -> XlaTile:
    """The three maps (and the constraints, the runtime ranges) read apart."""
    size_dims, size_symbols, box = _map(size_text)
    _, _, strides = _map(stride_text)
    offset_dims, offset_symbols, offsets = _map(offset_text)
    # Before mid-2024 the tile sizes were the symbols of maps without dims.
    names = size_dims if size_dims or not size_symbols else size_symbols
    if not size_dims and not offset_dims and offset_symbols[: len(names)] == names:
        runtime = offset_symbols[len(names) :]
    else:
        runtime = offset_symbols
    known = {name: (lo, hi) for name, lo, hi in rt_ranges}
    # A runtime offset of one value is that value (verifier folds it too).
    fixed = {n: known[n][0] for n in runtime if n in known and known[n][0] == known[n][1]}
    rt_names = tuple(n for n in runtime if n not in fixed)
    return XlaTile(
        tuple(names),
        rt_names,
        tuple(known.get(n, (0, 0)) for n in rt_names),
        tuple(_fixed(e, fixed) for e in offsets),
        tuple(box),
        tuple(strides),
        _constraints(constraints_text),
    )


def _fixed(expr: TileExpr, values: Mapping[str, int]) -> TileExpr:
    """`expr` with the variables of `values` replaced by them."""
    if isinstance(expr, str):
        return values.get(expr, expr)
    if isinstance(expr, tuple):
        return (expr[0], *(_fixed(e, values) for e in expr[1:]))  # type: ignore[arg-type]
    return expr


def _map(text: str) -> tuple[list[str], list[str], list[TileExpr]]:
    reader = _Reader(text)
    dims, symbols, results = reader.map()
    if reader.peek() is not None:
        raise TileTextError(f"unexpected {reader.peek()!r} after the map {text.strip()!r}")
    return dims, symbols, results


def _constraints(text: str | None) -> tuple[tuple[Atom, ...], ...] | None:
    if text is None or not text.strip():
        return None
    if text.strip() == "unsatisfiable":
        return ()
    disjunction = []
    for conjunction in text.split("||"):
        atoms = []
        for atom in conjunction.split("&&"):
            found = re.fullmatch(
                r"\s*(.+?)\s+in\s+\[\s*(-?\d+)\s*,\s*(-?\d+)\s*([\])])\s*", atom, re.S
            )
            if found is None:
                raise TileTextError(
                    f"a constraint not of the form 'EXPR in [lo, hi]': {atom.strip()}"
                )
            reader = _Reader(found.group(1))
            expr = reader.expression()
            if reader.peek() is not None:
                raise TileTextError(
                    f"unexpected {reader.peek()!r} in the constraint {atom.strip()}"
                )
            upper = int(found.group(3)) - (found.group(4) == ")")
            atoms.append(Atom(expr, int(found.group(2)), upper))
        disjunction.append(tuple(atoms))
    return tuple(disjunction)


def read_constraints(text: str, num_sizes: int) -> XlaTile:
    """Constraints alone (``MatchConstraintExpressionString``) as a tile of
    no results over `num_sizes` sizes ``d0…``."""
    names = tuple(f"d{i}" for i in range(num_sizes))
    return XlaTile(names, (), (), (), (), (), _constraints(text))
