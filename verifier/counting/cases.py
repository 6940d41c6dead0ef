"""The points of a map's domain, counted exactly by splitting it: into
independent pieces, and a coupled piece by cases on one variable's values.

A domain is a box of variable bounds cut by constraints.  Variables that no
constraint links are counted apart (the count is a product), a constraint
on one variable that is linear in it only narrows that variable's bounds,
and a variable with one value is that value.  What is left are pieces whose
variables constraints couple.  isl counts such a piece by scanning its box
point by point, which the reads of a convolution chain defeat: there a
dozen small window symbols are coupled through the floordivs and mods of
one large flattened position (24 million points, isl out of its budget
after 5 s).  Fixing that position to each of its values folds its floordivs
and mods to constants and splits the rest into small pieces which repeat:
the count is the sum over the cases, and each distinct piece is counted
once (a memo).

``(s1 floordiv 8) mod 4`` takes each of its 4 values for 16 of the 64
values of ``s1``; with that value ``c`` fixed, ``c + s0 in [1, 4]`` leaves
2, 3, 3 and 2 values of ``s0``: 16 * (2 + 3 + 3 + 2) = 160 points.  ``s1``
occurs only divided by 8, so its cases are its 8 blocks of 8 values, each
weighing 8:

>>> from verifier.expr import parse_map
>>> domain = split_domain(parse_map("()[s0, s1] -> (), domain: s0 in [0, 2], "
...                                 "s1 in [0, 63], (s1 floordiv 8) mod 4 + s0 in [1, 4]"))
>>> domain.factor, [count_by_cases(piece) for piece in domain.pieces]
(1, [160])

Runtime variables are existential (a point of the dims and range variables
counts when some runtime value is feasible): cases are never summed over
one.  A piece of runtime variables alone counts 1 when some case is
feasible, and 0 when none is.

The enumeration is bounded: `CASE_LIMIT` cases per count, remembered ones
free; past it the count is None, and the caller asks isl.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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
    VarKind,
    const,
    linear_terms,
    substitute,
    subterms,
    var,
    variables_of,
)

# The most cases one count enumerates, over every level of the split: the
# reads of the 3-conv/3-pool fusions of examples/benchmarks/ and
# tests/convnets.py take 86 to 984, 3,656 for a 224x224 input.
CASE_LIMIT = 20_000

_Constraint = tuple[Expr, Interval]


@dataclass(frozen=True)
class Piece:
    """Variables that constraints couple, their bounds, and the
    constraints: a domain of its own, counted apart from the rest."""

    bounds: tuple[tuple[Var, Interval], ...]
    constraints: tuple[_Constraint, ...]

    def as_map(self) -> IndexingMap:
        """The piece as a map with no results, its variables renumbered
        per kind in order (what isl counts)."""
        by_kind: dict[VarKind, list[Interval]] = {kind: [] for kind in VarKind}
        renamed: dict[Var, Expr] = {}
        for v, interval in self.bounds:
            renamed[v] = var(v.kind, len(by_kind[v.kind]))
            by_kind[v.kind].append(interval)
        return IndexingMap.create(
            by_kind[VarKind.DIM],
            [],
            range_vars=by_kind[VarKind.RANGE],
            rt_vars=by_kind[VarKind.RT],
            constraints=[(substitute(e, renamed.__getitem__), i) for e, i in self.constraints],
        )


@dataclass(frozen=True)
class Domain:
    """A domain as ``factor`` (the values of the variables no constraint
    links: their sizes multiplied, a runtime variable's taken once)
    times the counts of its coupled `pieces`; ``factor`` is 0 when the
    domain is empty."""

    factor: int
    pieces: tuple[Piece, ...]


def split_domain(indexing_map: IndexingMap) -> Domain:
    """The domain of `indexing_map` split into independent pieces, every
    single-variable linear constraint folded into its variable's bounds
    and every variable with one value replaced by it."""
    bounds = {v: indexing_map.bounds(v) for v in indexing_map.all_variables}
    return _split(bounds, indexing_map.constraints)


def bound_of_linear(a: int, constant: int, interval: Interval) -> Interval:
    """The values of ``x`` with ``a * x + constant`` in `interval` (a ≠ 0).

    >>> bound_of_linear(-2, 3, Interval(0, 9))
    Interval(lower=-3, upper=1)
    """
    lower, upper = interval.lower - constant, interval.upper - constant
    if a < 0:
        lower, upper, a = -upper, -lower, -a
    return Interval(-(-lower // a), upper // a)


def count_by_cases(piece: Piece, limit: int = CASE_LIMIT) -> int | None:
    """The number of points of `piece` (runtime variables existential), or
    None past `limit` cases."""
    return _Cases(limit).count(piece)


@dataclass
class _Cases:
    """One count's cases left to enumerate and the pieces counted so far."""

    left: int
    counted: dict[Piece, int] = field(default_factory=dict)

    def count(self, piece: Piece) -> int | None:
        known = self.counted.get(piece)
        if known is not None:
            return known
        counted = self._by_cases(piece)
        if counted is not None:
            self.counted[piece] = counted
        return counted

    def _by_cases(self, piece: Piece) -> int | None:
        """The sum over the values of the variable `_pivot` chooses of the
        points with that value (for a runtime variable: whether any), one
        case per block of values on which every constraint is the same
        (`_block`), weighted by the block's size."""
        bounds = dict(piece.bounds)
        pivot = _pivot(piece)
        values = bounds[pivot]
        step = _block(pivot, piece.constraints)
        blocks = range(values.lower // step, values.upper // step + 1)
        if len(blocks) > self.left:
            return None
        self.left -= len(blocks)
        total = 0
        for block in blocks:
            first = max(values.lower, block * step)
            bounds[pivot] = Interval(first, first)
            case = _split(bounds, piece.constraints)
            product = case.factor
            for sub in case.pieces:
                if not product:
                    break
                counted = self.count(sub)
                if counted is None:
                    return None
                product *= counted
            if pivot.kind is VarKind.RT and product:
                return 1
            total += product * (min(values.upper, block * step + step - 1) - first + 1)
        return total


def _pivot(piece: Piece) -> Var:
    """The variable to split `piece` on: not a runtime variable unless all
    are; then the one inside most floordivs, mods, mins and maxes (fixing
    it makes them constants), in most constraints, with fewest values."""
    inside: dict[Var, int] = {}
    used: dict[Var, int] = {}
    for expr, _ in piece.constraints:
        terms, _ = linear_terms(expr)
        for v in variables_of(expr):
            used[v] = used.get(v, 0) + 1
        for base in terms:
            if not isinstance(base, Var):
                for v in variables_of(base):
                    inside[v] = inside.get(v, 0) + 1
    summed = [v for v, _ in piece.bounds if v.kind is not VarKind.RT]
    bounds = dict(piece.bounds)
    return max(
        summed or [v for v, _ in piece.bounds],
        key=lambda v: (inside.get(v, 0), used.get(v, 0), -bounds[v].size),
    )


def _block(pivot: Var, constraints: Sequence[_Constraint]) -> int:
    """The size of the aligned blocks of values of `pivot` on which every
    constraint takes one value: the gcd of the divisors ``k`` when `pivot`
    occurs only as ``pivot floordiv k`` (a flattened position of 200,704
    values read as ``(s8 floordiv 256) mod 28`` and ``s8 floordiv 7168``
    is 784 blocks of 256), else 1."""
    step = 0
    for expr, _ in constraints:
        if expr is pivot:
            return 1
        for term in subterms(expr):
            match term:
                case FloorDiv(operand, divisor) if operand is pivot:
                    step = math.gcd(step, divisor)
                case Add(operands) if pivot in operands:
                    return 1
                case Mul(operand) | CeilDiv(operand) | Mod(operand) if operand is pivot:
                    return 1
                case Min(lhs, rhs) | Max(lhs, rhs) if pivot in (lhs, rhs):
                    return 1
    return max(step, 1)


def _split(bounds: Mapping[Var, Interval], constraints: Sequence[_Constraint]) -> Domain:
    """`split_domain` of the domain `bounds` cut by `constraints`."""
    bounds = dict(bounds)
    pending: list[tuple[Expr, Interval, frozenset[Var]]] = [
        (e, i, variables_of(e)) for e, i in constraints
    ]
    while True:
        if any(b.is_empty for b in bounds.values()):
            return Domain(0, ())
        fixed: dict[Var, Expr] = {v: const(b.lower) for v, b in bounds.items() if b.is_point}
        value_of = _value_of(fixed)
        narrowed = False
        kept: list[tuple[Expr, Interval, frozenset[Var]]] = []
        for expr, interval, used in pending:
            if not used.isdisjoint(fixed):
                expr = substitute(expr, value_of)
                used = variables_of(expr)
            if not used:
                assert isinstance(expr, Const)
                if expr.value not in interval:
                    return Domain(0, ())
                continue
            if len(used) == 1:
                (only,) = used
                terms, constant = linear_terms(expr)
                if set(terms) == {only}:
                    bounds[only] = bounds[only].intersect(
                        bound_of_linear(terms[only], constant, interval)
                    )
                    narrowed = True
                    continue
            kept.append((expr, interval, used))
        pending = kept
        if not narrowed:
            break
    return Domain(_free_values(bounds, pending), _pieces(bounds, pending))


def _value_of(fixed: Mapping[Var, Expr]) -> Callable[[Var], Expr]:
    return lambda v: fixed.get(v, v)


def _free_values(
    bounds: Mapping[Var, Interval], coupled: Iterable[tuple[Expr, Interval, frozenset[Var]]]
) -> int:
    linked = frozenset().union(*(used for _, _, used in coupled))
    factor = 1
    for v, interval in bounds.items():
        if v not in linked and v.kind is not VarKind.RT:
            factor *= interval.size
    return factor


def _pieces(
    bounds: Mapping[Var, Interval], coupled: Sequence[tuple[Expr, Interval, frozenset[Var]]]
) -> tuple[Piece, ...]:
    """The constraints grouped by the variables they link (connected
    components), each group with its variables in the order of `bounds`."""
    root: dict[Var, Var] = {}

    def find(v: Var) -> Var:
        while root.setdefault(v, v) != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    for _, _, used in coupled:
        first, *rest = used
        for other in rest:
            root[find(other)] = find(first)
    groups: dict[Var, list[_Constraint]] = {}
    for expr, interval, used in coupled:
        groups.setdefault(find(next(iter(used))), []).append((expr, interval))
    return tuple(
        Piece(
            tuple((v, b) for v, b in bounds.items() if v in root and find(v) == leader),
            tuple(constraints),
        )
        for leader, constraints in groups.items()
    )
