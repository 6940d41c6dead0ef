"""A map's image without ``floordiv`` and ``mod``: the same image as a union
of maps whose results and constraints are affine, by splitting a variable
into the digits the divisions read.

The image of a reshape of a slice, or of a slice of a reshape, is a union of
strided boxes of the operand, but its map reads them through the digits of
one position: ``(d0) -> ((d0 floordiv 5) * 2 + 1, (d0 mod 5) * 2)`` for
d0 ∈ [0, 13] (a ``[3, 5]`` stride-2 slice of a ``[6, 10]`` operand from row
1, flattened; the slice's last row cut at its 4th element).  Writing ``d0 =
5 * m + u`` with the digit ``u`` ∈ [0, 4] turns ``d0 floordiv 5`` into ``m``
and ``d0 mod 5`` into ``u``; the interval [0, 13] of ``d0`` is the full rows
``m`` ∈ [0, 1] (every ``u``) and the partial last row ``m = 2``, ``u`` ∈
[0, 3], so the image is two strided boxes, ``{1, 3} × {0, 2, …, 8}`` and
``{5} × {0, 2, 4, 6}``, 10 + 4 = 14 elements:

>>> from verifier.expr import parse_map
>>> for piece in without_divisions(parse_map(
...         "(d0) -> ((d0 floordiv 5) * 2 + 1, (d0 mod 5) * 2), domain: d0 in [0, 13]")):
...     print(str(piece).replace("\\n", " "))
()[s0, s1] -> (s0 * 2 + 1, s1 * 2), domain: s0 in [0, 1], s1 in [0, 4]
()[s0, s1] -> (s0 * 2 + 1, s1 * 2), domain: s0 in [2, 2], s1 in [0, 3]

In general a division ``(a * v + c * R + b) floordiv c`` (``R`` the terms
whose coefficients ``c`` divides, ``a`` > 0) advances by ``a / g`` every
``p = c / g`` values of ``v`` (``g = gcd(a, c)``).  So ``v = p * m + u``
with ``u`` ∈ [0, p - 1], cut into the partial first block, the full blocks
and the partial last block of ``v``'s interval, and each block's ``u`` cut
where ``q = (a * u + b) floordiv c`` changes (at most ``a / g + 1`` values):
on each piece ``floordiv`` is ``(a / g) * m + R + q`` and ``mod`` is ``a *
u + b - c * q``, both affine.  A slice of a reshape, ``(d0 * 3) floordiv
10``, splits into 3 pieces per block.  The divisions are split largest
divisor first (``d0 floordiv 100`` before ``(d0 floordiv 10) mod 10``: the
digits of a mixed radix), one at a time until none is left.

A division whose operand keeps several variables its divisor does not
divide (``(d0 + s0) floordiv 2``, a window of stride 1 over an input
dilated by 2; ``(d0 * 15 + d1) floordiv 10``, a ``[4, 15]`` operand
reshaped to ``[6, 10]``), or one of negative coefficient, is split once per
value of its variable of fewest values, which leaves one.

Every variable is existential (the image is what counting asks for), so
the pieces have no dims: each piece's variables are its range variables.
A ``ceildiv``, ``min`` or ``max``, or more than `PIECE_LIMIT` pieces, is
not split: None, and the caller counts another way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from verifier.expr import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    IndexingMap,
    Interval,
    Max,
    Min,
    Mod,
    Mul,
    Var,
    add,
    const,
    linear_terms,
    range_var,
    substitute,
    subterms,
    variables_of,
)

# Most pieces one map is split into.
PIECE_LIMIT = 64

_Constraint = tuple[Expr, Interval]


@dataclass(frozen=True)
class _Piece:
    """Results and constraints over existential variables with bounds."""

    results: tuple[Expr, ...]
    constraints: tuple[_Constraint, ...]
    bounds: tuple[tuple[Var, Interval], ...]


@dataclass(frozen=True)
class _Division:
    """``(a * v + c * R + b) floordiv c`` and ``… mod c``: the operand, the
    divisor, the one variable ``v`` whose coefficient ``a`` the divisor does
    not divide, ``R`` and ``b``."""

    operand: Expr
    divisor: int
    variable: Var | None  # None when c divides every coefficient
    coefficient: int
    quotient: Expr  # R: the terms c divides, divided by c
    constant: int


def without_divisions(indexing_map: IndexingMap) -> tuple[IndexingMap, ...] | None:
    """Maps without ``floordiv`` and ``mod`` whose images' union is the
    image of `indexing_map` (every variable existential), or None."""
    bounds = tuple((v, indexing_map.bounds(v)) for v in indexing_map.all_variables)
    if any(b.is_empty for _, b in bounds):
        return ()
    pending = [_Piece(indexing_map.results, indexing_map.constraints, bounds)]
    done: list[_Piece] = []
    fresh = len(indexing_map.range_vars)
    while pending:
        piece = pending.pop()
        division = _next_division(piece)
        if division is None:
            return None
        if division is True:
            done.append(piece)
            continue
        split = (
            _enumerate(piece, division)
            if isinstance(division, Var)
            else _split(piece, division, fresh)
        )
        if split is None:
            return None
        fresh += 2
        pending += reversed(split)
        if len(done) + len(pending) > PIECE_LIMIT:
            return None
    return tuple(_as_map(piece) for piece in done)


def _next_division(piece: _Piece) -> _Division | Var | Literal[True] | None:
    """The division to split next (largest divisor first); else the
    variable to enumerate (of fewest values, in a division that keeps
    several); True when there is no division, None for a ``ceildiv``,
    ``min`` or ``max``."""
    found: list[_Division] = []
    many: list[Expr] = []  # operands with several variables the divisor does not divide
    exprs = (*piece.results, *(e for e, _ in piece.constraints))
    for expr in exprs:
        for term in subterms(expr):
            match term:
                case FloorDiv(operand, divisor) | Mod(operand, divisor):
                    if not _is_linear(operand):
                        continue  # an inner division is split first
                    division = _division(operand, divisor)
                    if division is None:
                        many.append(operand)
                    else:
                        found.append(division)
                case CeilDiv() | Min() | Max():
                    return None
                case Const() | Var() | Add() | Mul():
                    pass
    if found:
        return max(found, key=lambda d: d.divisor)
    if many:
        bounds = dict(piece.bounds)
        return min(
            (v for operand in many for v in linear_terms(operand)[0] if isinstance(v, Var)),
            key=lambda v: bounds[v].size,
        )
    return True


def _is_linear(expr: Expr) -> bool:
    return all(isinstance(base, Var) for base in linear_terms(expr)[0])


def _division(operand: Expr, divisor: int) -> _Division | None:
    """The split of ``operand floordiv divisor``: None unless the operand is
    linear with exactly one variable whose positive coefficient the divisor
    does not divide."""
    terms, constant = linear_terms(operand)
    if not all(isinstance(base, Var) for base in terms):
        return None
    kept = [(v, a) for v, a in terms.items() if a % divisor]
    if len(kept) > 1 or (kept and kept[0][1] < 0):
        return None
    variable, coefficient = kept[0] if kept else (None, 0)
    assert variable is None or isinstance(variable, Var)
    quotient = add(
        const(0),
        *(v * (a // divisor) for v, a in terms.items() if v != variable),
    )
    return _Division(operand, divisor, variable, coefficient, quotient, constant)


def _split(piece: _Piece, division: _Division, fresh: int) -> list[_Piece] | None:
    """`piece` with ``v = p * m + u`` (module doc), one piece per block of
    ``v`` and value of ``(a * u + b) floordiv c``."""
    a, c, b = division.coefficient, division.divisor, division.constant
    if division.variable is None:
        constant = {
            division.operand // c: division.quotient + b // c,
            division.operand % c: const(b % c),
        }
        return [
            _Piece(
                tuple(_replace(r, constant) for r in piece.results),
                tuple((_replace(e, constant), i) for e, i in piece.constraints),
                piece.bounds,
            )
        ]
    p = c // math.gcd(a, c)
    bounds = dict(piece.bounds)
    values = bounds.pop(division.variable)
    m, u = range_var(fresh), range_var(fresh + 1)
    digits = m * p + u
    pieces: list[_Piece] = []
    for block, digit in _blocks(values, p):
        for q in range((a * digit.lower + b) // c, (a * digit.upper + b) // c + 1):
            lower = max(digit.lower, -((b - q * c) // a))  # a * u + b >= q * c
            upper = min(digit.upper, (q * c + c - 1 - b) // a)
            if lower > upper:
                continue
            table: dict[Expr, Expr] = {
                division.operand // c: m * (a // math.gcd(a, c)) + division.quotient + q,
                division.operand % c: u * a + (b - c * q),
            }
            pieces.append(
                _Piece(
                    tuple(_replace(r, table, division.variable, digits) for r in piece.results),
                    tuple(
                        (_replace(e, table, division.variable, digits), i)
                        for e, i in piece.constraints
                    ),
                    (*bounds.items(), (m, block), (u, Interval(lower, upper))),
                )
            )
            if len(pieces) > PIECE_LIMIT:
                return None
    return pieces


def _enumerate(piece: _Piece, variable: Var) -> list[_Piece] | None:
    """`piece` once per value of `variable` (None past `PIECE_LIMIT`)."""
    bounds = dict(piece.bounds)
    values = bounds.pop(variable)
    if values.size > PIECE_LIMIT:
        return None
    return [
        _Piece(
            tuple(_replace(r, {}, variable, const(x)) for r in piece.results),
            tuple((_replace(e, {}, variable, const(x)), i) for e, i in piece.constraints),
            tuple(bounds.items()),
        )
        for x in range(values.lower, values.upper + 1)
    ]


def _blocks(values: Interval, p: int) -> list[tuple[Interval, Interval]]:
    """``(m, u)`` boxes of ``v = p * m + u`` for ``v`` in `values`: the partial
    first block, the full blocks, the partial last block (those not empty).

    >>> _blocks(Interval(3, 21), 5)
    [(Interval(lower=0, upper=0), Interval(lower=3, upper=4)), \
(Interval(lower=1, upper=3), Interval(lower=0, upper=4)), \
(Interval(lower=4, upper=4), Interval(lower=0, upper=1))]
    """
    first, last = values.lower // p, values.upper // p
    if first == last:
        return [
            (Interval(first, first), Interval(values.lower - first * p, values.upper - first * p))
        ]
    full_first = first if values.lower % p == 0 else first + 1
    full_last = last if values.upper % p == p - 1 else last - 1
    blocks = []
    if full_first != first:
        blocks.append((Interval(first, first), Interval(values.lower - first * p, p - 1)))
    if full_first <= full_last:
        blocks.append((Interval(full_first, full_last), Interval(0, p - 1)))
    if full_last != last:
        blocks.append((Interval(last, last), Interval(0, values.upper - last * p)))
    return blocks


def _replace(
    expr: Expr, table: dict[Expr, Expr], variable: Var | None = None, value: Expr | None = None
) -> Expr:
    """`expr` with each term of `table` replaced, then `variable` by `value`
    (each term of `table` has `variable`, when one is given)."""
    if variable is not None and variable not in variables_of(expr):
        return expr
    found = table.get(expr)
    if found is not None:
        return found
    match expr:
        case Const():
            return expr
        case Var():
            return value if expr == variable and value is not None else expr
        case Add(operands):
            return add(*(_replace(o, table, variable, value) for o in operands))
        case Mul(operand, factor):
            return _replace(operand, table, variable, value) * factor
        case FloorDiv(operand, divisor):
            return _replace(operand, table, variable, value) // divisor
        case Mod(operand, modulus):
            return _replace(operand, table, variable, value) % modulus
        case CeilDiv() | Min() | Max():
            return substitute(expr, lambda v: value if v == variable and value is not None else v)
    raise AssertionError(f"not an expression: {expr!r}")


def _as_map(piece: _Piece) -> IndexingMap:
    """The piece as a map of range variables only (those still used, in
    order), every one renamed ``s0, s1, …``."""
    used = frozenset(
        v
        for expr in (*piece.results, *(e for e, _ in piece.constraints))
        for v in subterms(expr)
        if isinstance(v, Var)
    )
    kept = [(v, b) for v, b in piece.bounds if v in used]
    renamed = {v: range_var(k) for k, (v, _) in enumerate(kept)}
    return IndexingMap.create(
        [],
        [substitute(r, renamed.__getitem__) for r in piece.results],
        range_vars=[b for _, b in kept],
        constraints=[(substitute(e, renamed.__getitem__), i) for e, i in piece.constraints],
    )
