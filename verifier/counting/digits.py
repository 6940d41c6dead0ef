"""A map's image without ``floordiv`` and ``mod``: the same image as a union
of pieces whose results and constraints are affine, by splitting a variable
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
``{5} × {0, 2, 4, 6}``, 10 + 4 = 14 elements (variables are numbered:
``d0`` is ``v0``, the digits ``m`` and ``u`` are ``v1`` and ``v2``):

>>> from verifier.expr import parse_map
>>> for piece in without_divisions(piece_of(parse_map(
...         "(d0) -> ((d0 floordiv 5) * 2 + 1, (d0 mod 5) * 2), domain: d0 in [0, 13]"))):
...     print(piece)
(v1 * 2 + 1, v2 * 2), v1 in [0, 1], v2 in [0, 4]
(v1 * 2 + 1, v2 * 2), v1 in [2, 2], v2 in [0, 3]

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

Every variable is existential (the image is what counting asks for).  The
pieces are plain integers — a `Form` is a sum of numbered variables and
divisions with integer coefficients — because counting asks for them once
per use of a map and building expressions would cost more than the count.
A ``ceildiv``, ``min`` or ``max``, or more than `PIECE_LIMIT` pieces, is
not split: None, and the caller counts another way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple, TypeAlias

from verifier.expr import Add, Const, Expr, FloorDiv, IndexingMap, Mod, Mul, Var, VarKind

# Most pieces one map is split into.
PIECE_LIMIT = 64

Atom: TypeAlias = "int | Division"  # a numbered variable, or a division


class Form(NamedTuple):
    """``Σ coefficient * atom + constant`` (no zero coefficient)."""

    terms: frozenset[tuple[Atom, int]]
    constant: int

    def __str__(self) -> str:
        parts = [
            f"{_atom_text(atom)} * {a}" if a != 1 else _atom_text(atom)
            for atom, a in sorted(self.terms, key=str)
        ]
        if self.constant or not parts:
            parts.append(str(self.constant))
        return " + ".join(parts)


class Division(NamedTuple):
    """``operand floordiv divisor``, or ``operand mod divisor`` (divisor > 0)."""

    operand: Form
    divisor: int
    is_mod: bool


Bounds: TypeAlias = Mapping[int, tuple[int, int]]  # variable: (lower, upper)


class Piece(NamedTuple):
    """Results and constraints ``(form, lower, upper)`` over existential
    variables with bounds."""

    results: tuple[Form, ...]
    constraints: tuple[tuple[Form, int, int], ...]
    bounds: Bounds

    def __str__(self) -> str:
        results = ", ".join(map(str, self.results))
        parts = [f"({results})"]
        parts += [f"{form} in [{lower}, {upper}]" for form, lower, upper in self.constraints]
        parts += [f"v{v} in [{lower}, {upper}]" for v, (lower, upper) in self.bounds.items()]
        return ", ".join(parts)


def _atom_text(atom: Atom) -> str:
    if isinstance(atom, int):
        return f"v{atom}"
    return f"({atom.operand}) {'mod' if atom.is_mod else 'floordiv'} {atom.divisor}"


ZERO = Form(frozenset(), 0)


def _form(terms: dict[Atom, int], constant: int) -> Form:
    return Form(frozenset((atom, a) for atom, a in terms.items() if a), constant)


def piece_of(indexing_map: IndexingMap) -> Piece | None:
    """The map as a piece, its variables numbered in the order of
    `IndexingMap.all_variables`; None for a ``ceildiv``, ``min`` or ``max``."""
    dims, range_vars = len(indexing_map.dims), len(indexing_map.range_vars)
    number = {VarKind.DIM: 0, VarKind.RANGE: dims, VarKind.RT: dims + range_vars}
    seen: dict[int, Form | None] = {}
    results = tuple([_form_of(r, number, seen) for r in indexing_map.results])
    constraints = tuple(
        [(_form_of(e, number, seen), i.lower, i.upper) for e, i in indexing_map.constraints]
    )
    if None in results or any(form is None for form, _, _ in constraints):
        return None
    declared = (*indexing_map.dims, *indexing_map.range_vars, *indexing_map.rt_vars)
    bounds = {k: (v.bounds.lower, v.bounds.upper) for k, v in enumerate(declared)}
    return Piece(results, constraints, bounds)  # type: ignore[arg-type]


def _form_of(
    expr: Expr, number: Mapping[VarKind, int], seen: dict[int, Form | None]
) -> Form | None:
    """`expr` as a form, a variable numbered from its kind's first number.
    (A canonical sum has no like terms, so its operands are the terms, read
    without hashing an expression; a division's operand is converted once
    per map, `seen` by the identity of its interned expression: a reshape's
    ``floordiv`` and ``mod`` share theirs.)"""
    operands = expr.operands if isinstance(expr, Add) else (expr,)
    atoms: list[tuple[Atom, int]] = []
    constant = 0
    for operand in operands:
        if isinstance(operand, Const):
            constant += operand.value
            continue
        base, a = (operand.operand, operand.factor) if isinstance(operand, Mul) else (operand, 1)
        if isinstance(base, Var):
            atoms.append((number[base.kind] + base.index, a))
            continue
        if isinstance(base, FloorDiv):
            inner, divisor, is_mod = base.operand, base.divisor, False
        elif isinstance(base, Mod):
            inner, divisor, is_mod = base.operand, base.modulus, True
        else:
            return None
        key = id(inner)
        form = seen[key] if key in seen else seen.setdefault(key, _form_of(inner, number, seen))
        if form is None:
            return None
        atoms.append((Division(form, divisor, is_mod), a))
    return Form(frozenset(atoms), constant)


def without_divisions(piece: Piece) -> list[Piece] | None:
    """Pieces without divisions whose images' union is the image of
    `piece` (every variable existential), or None."""
    if any(lower > upper for lower, upper in piece.bounds.values()):
        return []
    pending = [piece]
    done: list[Piece] = []
    fresh = max(piece.bounds, default=-1) + 1
    while pending:
        piece = pending.pop()
        division = _next_division(piece)
        if division is None:
            done.append(piece)
            continue
        split = (
            _enumerate(piece, division)
            if isinstance(division, int)
            else _split(piece, division, fresh)
        )
        if split is None:
            return None
        fresh += 2
        if isinstance(division, _Split) and division.last:
            done += split  # the piece's only division: none is left
        else:
            pending += reversed(split)
        if len(done) + len(pending) > PIECE_LIMIT:
            return None
    return done


class _Split(NamedTuple):
    """``(a * v + c * R + b) floordiv c`` and ``… mod c``: the operand, the
    divisor, the one variable ``v`` whose coefficient ``a`` the divisor does
    not divide, ``R`` and ``b``."""

    operand: Form
    divisor: int
    variable: int | None  # None when c divides every coefficient
    coefficient: int
    quotient: tuple[tuple[Atom, int], ...]  # R: the terms c divides, divided by c
    constant: int
    last: bool  # the piece has no other division (a reshape's): its pieces have none


def _next_division(piece: Piece) -> _Split | int | None:
    """The division to split next (largest divisor first); else the
    variable to enumerate (of fewest values, in a division that keeps
    several); None when there is no division."""
    innermost: dict[tuple[Form, int], None] = {}  # (operand, divisor), in order, once each
    flat = [_innermost(form, innermost) for form in piece.results]
    flat += [_innermost(form, innermost) for form, _, _ in piece.constraints]
    if not innermost:
        return None
    last = len(innermost) == 1 and all(flat)
    order = sorted(innermost, key=lambda d: -d[1]) if len(innermost) > 1 else innermost
    for operand, divisor in order:
        division = _division(operand, divisor, last)
        if division is not None:
            return division
    sizes = {v: upper - lower for v, (lower, upper) in piece.bounds.items()}
    variables = (v for operand, _ in innermost for v, _ in operand.terms if isinstance(v, int))
    return min(variables, key=sizes.__getitem__)


def _innermost(form: Form, found: dict[tuple[Form, int], None]) -> bool:
    """Add the divisions of `form` whose operands are linear (a ``floordiv``
    and a ``mod`` of one operand by one divisor are split together); False
    when some division has a division in its operand."""
    flat = True
    for atom, _ in form.terms:
        if isinstance(atom, int):
            continue
        operand = atom.operand
        if all(isinstance(inner, int) for inner, _ in operand.terms):
            found[operand, atom.divisor] = None
        else:
            _innermost(operand, found)  # an inner division is split first
            flat = False
    return flat


def _division(operand: Form, divisor: int, last: bool) -> _Split | None:
    """The split of ``operand floordiv divisor`` (a linear operand): None
    unless exactly one variable has a coefficient the divisor does not
    divide, and that coefficient is positive."""
    kept = [(v, a) for v, a in operand.terms if a % divisor]
    if len(kept) > 1 or (kept and kept[0][1] < 0):
        return None
    variable, coefficient = kept[0] if kept else (None, 0)
    assert variable is None or isinstance(variable, int)
    quotient = tuple((v, a // divisor) for v, a in operand.terms if v != variable)
    return _Split(operand, divisor, variable, coefficient, quotient, operand.constant, last)


def _split(piece: Piece, division: _Split, fresh: int) -> list[Piece] | None:
    """`piece` with ``v = p * m + u`` (module doc), one piece per block of
    ``v`` and value of ``(a * u + b) floordiv c``."""
    a, c, b, v = division.coefficient, division.divisor, division.constant, division.variable
    floor, remainder = Division(division.operand, c, False), Division(division.operand, c, True)
    if v is None:
        table = {
            floor: Form(frozenset(division.quotient), b // c),
            remainder: Form(frozenset(), b % c),
        }
        return [_replaced(piece, table, None, ZERO, piece.bounds)]
    g = math.gcd(a, c)
    p = c // g
    bounds = dict(piece.bounds)
    values = bounds.pop(v)
    m, u = fresh, fresh + 1
    digits = Form(frozenset({(m, p), (u, 1)}), 0)
    found = cells(a, b, c, values)
    if found is None:
        return None
    pieces: list[Piece] = []
    for q, lower, upper, m_first, m_last in found:
        table = {
            floor: Form(frozenset((*division.quotient, (m, a // g))), q),
            remainder: Form(frozenset({(u, a)}), b - c * q),
        }
        block = {**bounds, m: (m_first, m_last), u: (lower, upper)}
        pieces.append(_replaced(piece, table, v, digits, block))
    return pieces


class Cell(NamedTuple):
    """Where ``(a * v + b) floordiv c`` is ``(a / g) * m + q`` and ``… mod
    c`` is ``a * u + b - c * q``: ``v = p * m + u`` (``g = gcd(a, c)``,
    ``p = c / g``) for ``u`` in ``[lower, upper]`` and ``m`` in ``[m_first,
    m_last]``."""

    q: int
    lower: int
    upper: int
    m_first: int
    m_last: int


def cells(a: int, b: int, c: int, values: tuple[int, int]) -> list[Cell] | None:
    """The cells of ``v`` in `values` (``a`` > 0, module doc) for each block
    of ``v``'s interval and value ``q`` of ``(a * u + b) floordiv c``; None
    past `PIECE_LIMIT`.  A cell of the same ``q`` and ``u``'s interval in the
    next block extends the last one (a partial block reads what a full one
    does for most ``q``: one cell, not two).  ``(v * 3) floordiv 10`` for
    ``v`` in [0, 9]: ``p`` is 10, one block, ``q`` 0 for ``u`` ≤ 3, 1 for
    4 ≤ ``u`` ≤ 6, 2 for ``u`` ≥ 7:

    >>> [tuple(cell) for cell in cells(3, 0, 10, (0, 9))]
    [(0, 0, 3, 0, 0), (1, 4, 6, 0, 0), (2, 7, 9, 0, 0)]
    """
    found: list[Cell] = []
    last_of: dict[tuple[int, int, int], int] = {}
    for (m_first, m_last), (first, last) in _blocks(values, c // math.gcd(a, c)):
        for q in range((a * first + b) // c, (a * last + b) // c + 1):
            lower = max(first, -((b - q * c) // a))  # a * u + b >= q * c
            upper = min(last, (q * c + c - 1 - b) // a)
            if lower > upper:
                continue
            k = last_of.get((q, lower, upper), -1)
            if k >= 0 and found[k].m_last + 1 == m_first:
                found[k] = found[k]._replace(m_last=m_last)
                continue
            last_of[q, lower, upper] = len(found)
            found.append(Cell(q, lower, upper, m_first, m_last))
            if len(found) > PIECE_LIMIT:
                return None
    return found


def _enumerate(piece: Piece, variable: int) -> list[Piece] | None:
    """`piece` once per value of `variable` (None past `PIECE_LIMIT`)."""
    bounds = dict(piece.bounds)
    lower, upper = bounds.pop(variable)
    if upper - lower + 1 > PIECE_LIMIT:
        return None
    return [
        _replaced(piece, {}, variable, Form(frozenset(), x), bounds)
        for x in range(lower, upper + 1)
    ]


def _replaced(
    piece: Piece, table: dict[Division, Form], variable: int | None, value: Form, bounds: Bounds
) -> Piece:
    results = tuple([_replace(r, table, variable, value) for r in piece.results])
    if not piece.constraints:
        return Piece(results, (), bounds)
    constraints = [(_replace(e, table, variable, value), lo, hi) for e, lo, hi in piece.constraints]
    return Piece(results, tuple(constraints), bounds)


def _replace(form: Form, table: dict[Division, Form], variable: int | None, value: Form) -> Form:
    """`form` with each division of `table` replaced, then `variable` by
    `value` (each division of `table` has `variable`, when one is given)."""
    if len(form.terms) == 1 and not form.constant:  # one division, as a reshape's result
        ((atom, a),) = form.terms
        if a == 1 and not isinstance(atom, int) and atom in table:
            return table[atom]
    terms: dict[Atom, int] = {}
    constant = form.constant
    changed = False
    for atom, a in form.terms:
        if isinstance(atom, int):
            if atom != variable:
                terms[atom] = terms.get(atom, 0) + a
                continue
            replacement = value
        else:
            found = table.get(atom)
            if found is None:
                operand = _replace(atom.operand, table, variable, value)
                if operand is atom.operand:
                    terms[atom] = terms.get(atom, 0) + a
                    continue
                found = _divide(operand, atom.divisor, atom.is_mod)
            replacement = found
        changed = True
        constant += a * replacement.constant
        for inner, k in replacement.terms:
            terms[inner] = terms.get(inner, 0) + a * k
    return _form(terms, constant) if changed else form


def _divide(operand: Form, divisor: int, is_mod: bool) -> Form:
    """``operand floordiv divisor`` (``mod`` when `is_mod`), folded as the
    expression constructors fold it: a constant, a divisor of 1, a single
    term the divisor divides."""
    if not operand.terms:
        value = operand.constant
        return Form(frozenset(), value % divisor if is_mod else value // divisor)
    if divisor == 1:
        return ZERO if is_mod else operand
    if not operand.constant and len(operand.terms) == 1:
        ((atom, a),) = operand.terms
        if a % divisor == 0:
            return ZERO if is_mod else Form(frozenset({(atom, a // divisor)}), 0)
    return Form(frozenset({(Division(operand, divisor, is_mod), 1)}), 0)


def _blocks(values: tuple[int, int], p: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``(m, u)`` boxes of ``v = p * m + u`` for ``v`` in `values`: the partial
    first block, the full blocks, the partial last block (those not empty).

    >>> _blocks((3, 21), 5)
    [((0, 0), (3, 4)), ((1, 3), (0, 4)), ((4, 4), (0, 1))]
    """
    lowest, highest = values
    first, last = lowest // p, highest // p
    if first == last:
        return [((first, first), (lowest - first * p, highest - first * p))]
    full_first = first if lowest % p == 0 else first + 1
    full_last = last if highest % p == p - 1 else last - 1
    blocks = []
    if full_first != first:
        blocks.append(((first, first), (lowest - first * p, p - 1)))
    if full_first <= full_last:
        blocks.append(((full_first, full_last), (0, p - 1)))
    if full_last != last:
        blocks.append(((last, last), (0, highest - last * p)))
    return blocks
