"""Map rules: `mod` constraints merged and turned into bounds, symbols removed,
projected out or rescaled, empty domains recognised.

Each rewrites the whole map into one with the same relation.  The first
three also keep every variable's meaning (pointwise equal); `rescale_symbol`,
`project_lone_symbol` and `remove_unused_symbols` change symbols, so the
driver runs them only on request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    Mod,
    Ranges,
    Var,
    Variable,
    VarKind,
    const,
    from_linear_terms,
    linear_terms,
    mod,
    point_predicate,
    range_var,
    rt_var,
    substitute,
    variables_of,
)
from verifier.simplify.rules.base import MapRule, SymbolSubstitution
from verifier.simplify.size import map_size

FAMILY = "symbols"


def known_empty_like(indexing_map: IndexingMap) -> IndexingMap:
    """The KNOWN EMPTY map with the same variables and number of results.

    >>> from verifier.expr import parse_map
    >>> str(known_empty_like(parse_map("(d0) -> (d0), domain: d0 in [3, 1]")))
    'KNOWN EMPTY'
    """
    return IndexingMap.create(
        indexing_map.dims,
        [const(0)] * indexing_map.num_results,
        range_vars=indexing_map.range_vars,
        rt_vars=indexing_map.rt_vars,
        constraints=[(const(0), Interval(1, 1))],
    )


def _has_empty_bounds(indexing_map: IndexingMap) -> IndexingMap | None:
    variables = indexing_map.dims + indexing_map.range_vars + indexing_map.rt_vars
    if any(v.bounds.is_empty for v in variables) and indexing_map.constraints != (
        (const(0), Interval(1, 1)),
    ):
        return indexing_map
    return None


# ---------------------------------------------------------------- mod constraints


def _residues(indexing_map: IndexingMap) -> list[tuple[Mod, int]]:
    """The constraints ``x mod c in [r, r]`` with ``0 <= r < c`` (the lemmas'
    hypothesis: a residue outside is infeasible, not a lattice)."""
    return [
        (expr, interval.lower)
        for expr, interval in indexing_map.constraints
        if isinstance(expr, Mod) and interval.is_point and 0 <= interval.lower < expr.modulus
    ]


@dataclass(frozen=True)
class _ModPair:
    indexing_map: IndexingMap
    first: tuple[Mod, int]
    second: tuple[Mod, int]


def _match_mod_pair(indexing_map: IndexingMap) -> _ModPair | None:
    residues = _residues(indexing_map)
    for i, first in enumerate(residues):
        for second in residues[i + 1 :]:
            if first[0].operand is second[0].operand:
                return _ModPair(indexing_map, first, second)
    return None


def crt(r1: int, a: int, r2: int, b: int) -> int | None:
    """The ``r`` in ``[0, lcm(a, b))`` with ``r ≡ r1 (mod a)`` and ``r ≡ r2 (mod b)``,
    or None when there is none.

    >>> crt(1, 4, 3, 6)
    9
    >>> crt(0, 4, 1, 6) is None
    True
    """
    g = math.gcd(a, b)
    if (r2 - r1) % g:
        return None
    lcm = a // g * b
    # a * t ≡ r2 - r1 (mod b)  <=>  (a / g) * t ≡ (r2 - r1) / g (mod b / g)
    t = ((r2 - r1) // g * pow(a // g, -1, b // g)) % (b // g) if b // g > 1 else 0
    return (r1 + a * t) % lcm


def _merge_mods(match: _ModPair, ranges: Ranges) -> IndexingMap:
    (mod_a, r1), (mod_b, r2) = match.first, match.second
    residue = crt(r1, mod_a.modulus, r2, mod_b.modulus)
    if residue is None:
        return known_empty_like(match.indexing_map)
    lcm = math.lcm(mod_a.modulus, mod_b.modulus)
    kept = [c for c in match.indexing_map.constraints if c[0] is not mod_a and c[0] is not mod_b]
    kept.append((mod(mod_a.operand, lcm), Interval.point(residue)))
    return match.indexing_map.replaced(constraints=kept)


@dataclass(frozen=True)
class _Lattice:
    """A variable ``v`` with ``v mod c in [r, r]`` and its bounds."""

    indexing_map: IndexingMap
    variable: Var
    modulus: int
    residue: int

    @property
    def aligned(self) -> Interval:
        """The bounds rounded inward to the lattice ``r + c * t``."""
        bounds = self.indexing_map.bounds(self.variable)
        c, r = self.modulus, self.residue
        return Interval(
            bounds.lower + (r - bounds.lower) % c, bounds.upper - (bounds.upper - r) % c
        )


def _lattices(indexing_map: IndexingMap) -> list[_Lattice]:
    return [
        _Lattice(indexing_map, expr.operand, expr.modulus, residue)
        for expr, residue in _residues(indexing_map)
        if isinstance(expr.operand, Var)
    ]


def _match_unaligned(indexing_map: IndexingMap) -> _Lattice | None:
    for lattice in _lattices(indexing_map):
        if lattice.aligned != indexing_map.bounds(lattice.variable):
            return lattice
    return None


def _with_bounds(indexing_map: IndexingMap, variable: Var, bounds: Interval) -> IndexingMap:
    return indexing_map.replaced(constraints=[*indexing_map.constraints, (variable, bounds)])


# The widest interval whose values `_match_enumerable` tries one by one.
_ENUMERATED_VALUES = 64


@dataclass(frozen=True)
class _Feasible:
    """A variable's values that meet every constraint on it alone (none:
    `values` empty), when that is fewer than its bounds."""

    indexing_map: IndexingMap
    variable: Var
    values: tuple[int, ...]


def _match_enumerable(indexing_map: IndexingMap) -> _Feasible | None:
    """A variable of at most `_ENUMERATED_VALUES` values constrained alone
    by an expression that is not itself (``(-(d1 floordiv 2)) mod 2 in [1,
    1]``), whose bounds are wider than the values meeting those constraints."""
    alone: dict[Var, list[tuple[Expr, Interval]]] = {}
    for expr, allowed in indexing_map.constraints:
        (variable, *others) = variables_of(expr) or (None,)
        if variable is not None and not others and expr is not variable:
            alone.setdefault(variable, []).append((expr, allowed))
    for variable, constraints in alone.items():
        bounds = indexing_map.bounds(variable)
        if bounds.size > _ENUMERATED_VALUES:
            continue
        holds = point_predicate([variable], constraints)
        if holds is None:  # too deep for Python to compile
            continue
        values = tuple(value for value in range(bounds.lower, bounds.upper + 1) if holds(value))
        if not values or Interval(values[0], values[-1]) != bounds:
            return _Feasible(indexing_map, variable, values)
    return None


def _within_feasible(feasible: _Feasible) -> IndexingMap:
    if not feasible.values:
        return known_empty_like(feasible.indexing_map)
    hull = Interval(feasible.values[0], feasible.values[-1])
    return _with_bounds(feasible.indexing_map, feasible.variable, hull)


def _match_rescalable(indexing_map: IndexingMap) -> _Lattice | None:
    for lattice in _lattices(indexing_map):
        if lattice.variable.kind is VarKind.RANGE and lattice.aligned == indexing_map.bounds(
            lattice.variable
        ):
            return lattice
    return None


def _rescaled(lattice: _Lattice) -> IndexingMap:
    """``s -> s * c + r`` with ``s`` in ``[(lo - r) / c, (hi - r) / c]``."""
    indexing_map, s = lattice.indexing_map, lattice.variable
    c, r = lattice.modulus, lattice.residue
    bounds = indexing_map.bounds(s)
    image = s * c + r

    def replacement(v: Var) -> Expr:
        return image if v is s else v

    range_vars = list(indexing_map.range_vars)
    range_vars[s.index] = Variable(Interval((bounds.lower - r) // c, (bounds.upper - r) // c))
    return IndexingMap.create(
        indexing_map.dims,
        [substitute(e, replacement) for e in indexing_map.results],
        range_vars=range_vars,
        rt_vars=indexing_map.rt_vars,
        constraints=[
            (substitute(e, replacement), b)
            for e, b in indexing_map.constraints
            if e is not mod(s, c)
        ],
    )


# ---------------------------------------------------------------- lone symbols


@dataclass(frozen=True)
class _LoneSymbol:
    """A symbol ``s`` in no result and in one constraint only, ``c * s + r
    in [lo, hi]`` with ``c`` = ±1 and ``r`` a non-constant expression
    without ``s`` (`rest`)."""

    indexing_map: IndexingMap
    symbol: Var
    constraint: tuple[Expr, Interval]
    coefficient: int
    rest: Expr

    @property
    def projected(self) -> Interval:
        """The values of `rest` for which some ``s`` in its bounds ``[a, b]``
        meets the constraint: ``[lo - max(c * a, c * b), hi - min(c * a, c * b)]``
        (with ``c`` = ±1, ``c * s`` takes every integer between its ends)."""
        bounds, allowed = self.indexing_map.bounds(self.symbol), self.constraint[1]
        ends = (self.coefficient * bounds.lower, self.coefficient * bounds.upper)
        return Interval(allowed.lower - max(ends), allowed.upper - min(ends))


def _match_lone_symbol(indexing_map: IndexingMap) -> _LoneSymbol | None:
    in_results: set[Var] = set()
    for result in indexing_map.results:
        in_results |= variables_of(result)
    readers: dict[Var, list[tuple[Expr, Interval]]] = {}
    for constraint in indexing_map.constraints:
        for v in variables_of(constraint[0]):
            readers.setdefault(v, []).append(constraint)
    for symbol in indexing_map.symbols:
        constraints = readers.get(symbol, [])
        if symbol in in_results or len(constraints) != 1:
            continue
        (constraint,) = constraints
        if indexing_map.bounds(symbol).is_empty or constraint[1].is_empty:
            continue
        terms, constant = linear_terms(constraint[0])
        coefficient = terms.pop(symbol, 0)
        if coefficient not in (1, -1) or any(symbol in variables_of(t) for t in terms):
            continue
        rest = from_linear_terms(terms, constant)
        if variables_of(rest):
            return _LoneSymbol(indexing_map, symbol, constraint, coefficient, rest)
    return None


def _projected(lone: _LoneSymbol) -> IndexingMap:
    """The map with the lone symbol's constraint on `rest` alone; the symbol
    is then unconstrained (`remove_unused_symbols` drops it)."""
    constraints = [c for c in lone.indexing_map.constraints if c is not lone.constraint]
    return lone.indexing_map.replaced(constraints=[*constraints, (lone.rest, lone.projected)])


def _renumbering(indexing_map: IndexingMap) -> SymbolSubstitution:
    """Each removable symbol to None, each later kept one to its new name."""
    removed = indexing_map.removable_symbols()
    substitution: SymbolSubstitution = {}
    for kind, make in ((VarKind.RANGE, range_var), (VarKind.RT, rt_var)):
        kept = 0
        for symbol in indexing_map.symbols:
            if symbol.kind is not kind:
                continue
            if symbol in removed:
                substitution[symbol] = None
                continue
            if symbol.index != kept:
                substitution[symbol] = make(kept)
            kept += 1
    return substitution


RULES: tuple[MapRule[Any], ...] = (
    MapRule(
        name="domain_empty_bounds",
        family=FAMILY,
        description="a variable with an empty interval makes the map KNOWN EMPTY:"
        " (d0) -> (d0), d0 in [3, 1] -> KNOWN EMPTY",
        lemma="lo > hi ⇒ ¬(lo <= x <= hi)",
        matches=_has_empty_bounds,
        side_condition=lambda m, ranges: True,
        rewrite=lambda m, ranges: known_empty_like(m),
    ),
    MapRule(
        name="constraint_mod_merge_lcm",
        family=FAMILY,
        description="x mod a in [r1, r1] and x mod b in [r2, r2] become x mod lcm(a, b)"
        " in [r, r] (Chinese remainders), or KNOWN EMPTY when no r exists:"
        " d0 mod 4 in [1, 1], d0 mod 6 in [3, 3] -> d0 mod 12 in [9, 9]",
        lemma="r = r1 + a * t ≡ r2 (mod b) ∧ l = lcm(a, b) ⇒"
        " (x mod a = r1 ∧ x mod b = r2 ⇔ x mod l = r mod l)",
        matches=_match_mod_pair,
        side_condition=lambda match, ranges: True,
        rewrite=_merge_mods,
    ),
    MapRule(
        name="constraint_mod_tighten_bounds",
        family=FAMILY,
        description="x mod c in [r, r] rounds x's bounds inward to the lattice r + c * t:"
        " d0 in [0, 10], d0 mod 4 in [1, 1] -> d0 in [1, 9]",
        lemma="0 <= r < c ⇒ (x mod c = r ∧ lo <= x <= hi ⇔"
        " x mod c = r ∧ lo + (r - lo) mod c <= x <= hi - (hi - r) mod c)",
        matches=_match_unaligned,
        side_condition=lambda lattice, ranges: True,
        rewrite=lambda lattice, ranges: _with_bounds(
            lattice.indexing_map, lattice.variable, lattice.aligned
        ),
    ),
    MapRule(
        name="constraint_enumerate_bounds",
        family=FAMILY,
        description="a variable of at most 64 values constrained alone gets the bounds of the"
        " values that meet those constraints (KNOWN EMPTY when none does):"
        " d1 in [29, 31], d1 mod 2 in [1, 1], (-((d1 - 1) floordiv 2)) mod 2 in [1, 1]"
        " -> d1 in [31, 31]",
        lemma="(∀v. (lo <= v < a ∨ b < v <= hi) ⇒ ¬C(v)) ∧ lo <= a ∧ b <= hi ⇒"
        " (lo <= x <= hi ∧ C(x) ⇔ a <= x <= b ∧ C(x)); (∀v. lo <= v <= hi ⇒ ¬C(v))"
        " ⇒ ¬(lo <= x <= hi ∧ C(x))",
        matches=_match_enumerable,
        side_condition=lambda feasible, ranges: True,
        rewrite=lambda feasible, ranges: _within_feasible(feasible),
    ),
    MapRule(
        name="rescale_symbol",
        family=FAMILY,
        description="a range variable pinned to a lattice by s mod c in [r, r] is replaced"
        " by s * c + r (when the map does not grow): (d0)[s0] -> (d0 + s0),"
        " s0 in [1, 9], s0 mod 4 in [1, 1] -> (d0)[s0] -> (d0 + s0 * 4 + 1), s0 in [0, 2]",
        lemma="0 <= r < c ⇒ ((s mod c = r ∧ lo <= s <= hi) ⇔"
        " ∃t. s = c * t + r ∧ (lo - r) ceildiv c <= t <= (hi - r) floordiv c)",
        matches=_match_rescalable,
        side_condition=lambda lattice, ranges: (
            map_size(_rescaled(lattice)) <= map_size(lattice.indexing_map)
        ),
        rewrite=lambda lattice, ranges: _rescaled(lattice),
        symbol_rewrite="rescale",
        substitution=lambda lattice: {
            lattice.variable: lattice.variable * lattice.modulus + lattice.residue
        },
    ),
    MapRule(
        name="project_lone_symbol",
        family=FAMILY,
        description="a symbol in no result and in one constraint c * s + r in [lo, hi],"
        " c = ±1, is projected out of it (r keeps the values some s in [a, b] reaches):"
        " (d0){rt0} -> (d0), d0 in [0, 49], rt0 in [0, 49], d0 - rt0 in [-49, -1]"
        " -> (d0) -> (d0), d0 in [0, 48]",
        lemma="a <= b ∧ lo <= hi ∧ c ∈ {1, -1} ⇒ ((∃s. a <= s <= b ∧ lo <= c * s + r <= hi)"
        " ⇔ lo - max(c * a, c * b) <= r <= hi - min(c * a, c * b))",
        matches=_match_lone_symbol,
        side_condition=lambda lone, ranges: True,
        rewrite=lambda lone, ranges: _projected(lone),
        symbol_rewrite="remove_unused",
        substitution=lambda lone: {lone.symbol: None},
    ),
    MapRule(
        name="remove_unused_symbols",
        family=FAMILY,
        description="symbols that occur in no result and share no constraint with a kept"
        " variable are removed when their own constraints are satisfiable:"
        " (d0)[s0, s1] -> (d0 + s1) -> (d0)[s0] -> (d0 + s0)",
        lemma="(∃y. Q(y)) ⇒ ((∃y. P(x) ∧ Q(y)) ⇔ P(x))",
        matches=lambda m: m if m.removable_symbols() else None,
        side_condition=lambda m, ranges: True,
        rewrite=lambda m, ranges: m.remove_unused_symbols(),
        symbol_rewrite="remove_unused",
        substitution=_renumbering,
    ),
)
