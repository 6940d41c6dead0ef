"""Are two indexing maps equal? isl's answer, with a small witness when
they are not: as relations (`compare_relations`, `relations_equal`: symbols
existential) or as functions of all their variables (`compare_pointwise`);
and whether a domain is empty (`is_empty`).

``(d0)[s0] -> (d0 + s0)`` and ``(d0)[s0] -> (d0 + 1 - s0)`` over
``d0 in [0, 3], s0 in [0, 1]`` relate the same pairs (with other symbols),
so they are equal as relations and not pointwise:

>>> from verifier.expr import parse_map
>>> a = parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]")
>>> b = parse_map("(d0)[s0] -> (d0 + 1 - s0), domain: d0 in [0, 3], s0 in [0, 1]")
>>> compare_relations(a, b).differs
False
>>> compare_pointwise(a, b).witness
(('d0', 0), ('s0', 0))

Every question is translated by `verifier.bridges.isl` in a context of its
own under an operation budget; running out is the answer `None`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import islpy as isl

from verifier.bridges.isl import (
    BudgetExhausted,
    IslExprConverter,
    any_point,
    as_piecewise,
    as_set,
    domain_set,
    graph_in,
    int_value,
    isl_val,
    minimal_point,
    num_symbols,
    operation_budget,
    set_space,
    to_isl_set,
    variable_names,
)
from verifier.bridges.limits import ISL_OPERATIONS
from verifier.errors import InvalidMapError
from verifier.expr import (
    Add,
    Const,
    Expr,
    IndexingMap,
    Interval,
    Var,
    VarKind,
    add,
    const,
    linear_terms,
    variables_of,
)

_DIM = isl.dim_type.set
_IN = isl.dim_type.in_
_OUT = isl.dim_type.out


@dataclass(frozen=True)
class IslComparison:
    """isl's answer to "are these two maps equal?".

    `differs` is three-valued: `False` (equal), `True` (a witness follows),
    `None` (the operation budget ran out).  `vacuous` is set when both maps
    are empty.  The witness is any point, or (asked for the minimal one) the
    point a bounded search finds minimising first the sum of ``|d_i|``,
    then the sum of ``|symbol|``, then lexicographically; its coordinates are
    named ``d0 …`` and symbols ``s0 … rt0 …`` (of the map in `only_in`, in
    relation mode), results ``r0 …`` (relation mode only).
    """

    differs: bool | None
    vacuous: bool = False
    only_in: Literal["a", "b"] | None = None
    witness: tuple[tuple[str, int], ...] = ()


class _PairTranslation:
    """Two maps in isl, translated together and only as far as asked.

    Maps over the same variables share one converter, so a sub-expression
    both use is translated once; maps with the same domain — a map and its
    simplified form — share its isl set.  `graphs_equal` decides equality
    of the graphs without building them: ``{ [x] -> [a(x)] : x in A }`` and
    ``{ [x] -> [b(x)] : x in B }`` are equal iff ``A = B`` and no ``x`` of
    ``A`` has ``a_i(x) != b_i(x)`` — set questions, a few times cheaper
    than comparing the graphs, whose divisions isl must align.
    """

    def __init__(self, a: IndexingMap, b: IndexingMap) -> None:
        self.maps = a, b
        converter_a = IslExprConverter(variable_names(a))
        self.comparable = variable_names(b) == converter_a.names and _same_arity(a, b)
        converter_b = converter_a if self.comparable else IslExprConverter(variable_names(b))
        self.converters = converter_a, converter_b
        domain_a = domain_set(a, converter_a)
        same_domain = self.comparable and _same_domain(a, b)
        self.domains = domain_a, domain_a if same_domain else domain_set(b, converter_b)
        self._differences: dict[int, tuple[Any, ...]] = {}

    @functools.cached_property
    def graphs(self) -> tuple[Any, Any]:
        """``{ [d, s, rt] -> [results] : domain }`` of each map."""
        return (
            graph_in(self.maps[0], self.converters[0], self.domains[0]),
            graph_in(self.maps[1], self.converters[1], self.domains[1]),
        )

    def graphs_equal(self) -> bool:
        """Whether the maps have the same variables and equal graphs."""
        if not self.comparable:
            return False
        domain, other_domain = self.domains
        if domain is not other_domain and not as_set(domain).is_equal(as_set(other_domain)):
            return False
        return all(
            piece.is_empty()
            for i in range(self.maps[0].num_results)
            for piece in self._where_result_differs(i)
        )

    def only_in(self, side: int) -> Any:
        """The points ``[d, s, rt]`` (the maps being comparable) where map
        `side` (0 or 1) has a value the other has not: outside the other's
        domain, or in both with some result different.  Set questions, so
        no division of the results is aligned (as subtracting the graphs
        would): the points of ``side``'s graph not in the other's, without
        their results."""
        assert self.comparable
        differs = self._where_results_differ
        if self.domains[0] is self.domains[1]:
            return differs
        domain, other = as_set(self.domains[side]), as_set(self.domains[1 - side])
        return domain.subtract(other).union(differs)

    @functools.cached_property
    def _where_results_differ(self) -> Any:
        """The points of both domains where some result of `a` is not `b`'s."""
        where = isl.Set.empty(as_set(self.domains[0]).get_space())
        for i in range(self.maps[0].num_results):
            for piece in self._where_result_differs(i):
                where = where.union(as_set(piece))
        if self.domains[0] is not self.domains[1]:
            where = where.intersect(as_set(self.domains[1]))
        return where

    def relates(self, side: int, dims: Sequence[int], results: Sequence[int]) -> bool:
        """Whether map `side` relates ``dims -> results`` (for some symbols):
        a set question on its domain with the dims fixed and each result
        equal to its value, so nothing is projected."""
        converter, indexing_map = self.converters[side], self.maps[side]
        points = as_set(self.domains[side]).intersect(
            _point_set(set_space(converter.names).space, dims)
        )
        for expr, value in zip(indexing_map.results, results, strict=True):
            function, constant = converter.convert(expr), converter.map_const(value)
            if isinstance(function, isl.Aff):  # a basic set: cheaper than a piecewise one
                points = points.intersect(function.eq_basic_set(constant))
            else:  # pieces restricted to the points first, as in _where_result_differs
                function = function.intersect_domain(points)
                points = points.intersect(function.eq_set(as_piecewise(constant)))
        return not points.is_empty()

    def results_at(self, side: int, point: Sequence[int]) -> list[int]:
        """The results of one map (side 0 or 1) at a point of its domain, by isl."""
        space = self.converters[side].names
        at = isl.Point.zero(set_space(space).space)
        for position, value in enumerate(point):
            at = at.set_coordinate_val(_DIM, position, isl_val(value))
        return [
            int_value(as_piecewise(self.converters[side].convert(result)).eval(at))
            for result in self.maps[side].results
        ]

    def _where_result_differs(self, position: int) -> tuple[Any, ...]:
        """The points of the domain of `a` where result `position` of `a` is
        not `b`'s, in pieces: none when the results are one expression;
        ``a_i < b_i`` and ``a_i > b_i`` as two basic sets when both results
        are affine and the domain a basic set (intersecting basic sets skips
        the comparison of the operands for equality that isl makes before
        intersecting sets: a third of the cost); else one set."""
        differs = self._differences.get(position)
        if differs is None:
            converter, domain = self.converters[0], self.domains[0]
            result_a, result_b = (m.results[position] for m in self.maps)
            if result_a == result_b:  # nowhere: no set difference asked of isl
                differs = ()
            else:
                value_a, value_b = converter.convert(result_a), converter.convert(result_b)
                if isinstance(value_a, isl.Aff) and isinstance(value_b, isl.Aff):
                    if isinstance(domain, isl.BasicSet):
                        differs = (
                            domain.intersect(value_a.lt_basic_set(value_b)),
                            domain.intersect(value_a.gt_basic_set(value_b)),
                        )
                    else:
                        differs = (value_a.ne_set(value_b).intersect(domain),)
                else:
                    # Pieces (of min/max) restricted to the domain first:
                    # compared on the whole space, nested ones multiply.
                    piecewise_a, piecewise_b = (
                        as_piecewise(value).intersect_domain(as_set(domain))
                        for value in (value_a, value_b)
                    )
                    differs = (piecewise_a.ne_set(piecewise_b),)
            self._differences[position] = differs
        return differs

    def domain_is_empty(self, side: int) -> bool:
        """Emptiness of one map's domain (side 0 or 1); a box that is not
        known empty has points."""
        indexing_map = self.maps[side]
        if not indexing_map.constraints:
            return indexing_map.is_known_empty
        return bool(self.domains[side].is_empty())


def _same_domain(a: IndexingMap, b: IndexingMap) -> bool:
    """Whether the domains are one set by the look of them: the same
    variables with the same bounds, and the same constraints up to their
    constant terms — ``d0 * 2 + s0 - 1 in [0, 55]`` is ``d0 * 2 + s0 in
    [1, 56]`` (a map and its simplified form: the simplifier moves constants
    into the interval; a third of the domains of the XLA-style pairs that
    are equal but written differently)."""
    if (a.dims, a.range_vars, a.rt_vars) != (b.dims, b.range_vars, b.rt_vars):
        return False
    return a.constraints == b.constraints or {
        _without_constant(expr, interval) for expr, interval in a.constraints
    } == {_without_constant(expr, interval) for expr, interval in b.constraints}


def _without_constant(expr: Expr, interval: Interval) -> tuple[Expr, Interval]:
    """``e + c in [l, u]`` as ``e in [l - c, u - c]``: the same points."""
    base: Expr
    if isinstance(expr, Const):
        base, shift = const(0), expr.value
    elif isinstance(expr, Add) and isinstance(constant := expr.operands[-1], Const):
        base, shift = add(*expr.operands[:-1]), constant.value
    else:
        return expr, interval
    return base, Interval(interval.lower - shift, interval.upper - shift)


def _relation_with_witnesses(indexing_map: IndexingMap, graph: Any) -> Any:
    """``{ [d] -> [results, s, rt] : domain }`` from the map's `graph`: the
    relation with the symbols kept as trailing outputs, so a related pair
    comes with its witness."""
    return graph.move_dims(
        _OUT, indexing_map.num_results, _IN, indexing_map.num_dims, num_symbols(indexing_map)
    )


def relations_equal(
    a: IndexingMap, b: IndexingMap, *, max_operations: int = ISL_OPERATIONS
) -> bool | None:
    """Whether `a` and `b` relate the same pairs (symbols existential); None
    when the budget runs out.  The decision alone, without the witness work
    of `compare_relations`: what merging equal maps needs.

    ``(d0)[s0] -> (d0 + s0)`` and ``(d0)[s0] -> (d0 + 1 - s0)`` over
    ``d0 in [0, 3], s0 in [0, 1]`` are equal.
    """
    if not _same_arity(a, b):
        return False  # relations of different spaces are never the same set
    try:
        with operation_budget(max_operations):
            pair = _PairTranslation(a, b)
            if pair.graphs_equal():
                return True
            relation_a, relation_b = (
                graph.project_out(_IN, m.num_dims, num_symbols(m))
                for graph, m in zip(pair.graphs, pair.maps, strict=True)
            )
            return bool(relation_a.is_equal(relation_b))
    except BudgetExhausted:
        return None


def _witness(
    points: Any, *, minimal: bool, primary: range, secondary: range, nonnegative: bool
) -> list[int]:
    """A point of `points`: the smallest a bounded search finds when
    `minimal`, else isl's sample."""
    if not minimal:
        return any_point(points)
    return minimal_point(points, primary=primary, secondary=secondary, nonnegative=nonnegative)


def _pointwise_refutation(pair: _PairTranslation, minimal: bool) -> IslComparison | None:
    """A cheap refutation for comparable maps (the same variables) whose
    graphs differ: a point where one map's value is not the other's, kept
    when the other map relates that ``dims -> result`` for *no* symbols — a
    question with dims and results fixed, so no quantifier alternation
    (projecting symbols out of a difference is what makes relation
    questions costly).  `None` when there is no such candidate; the full
    comparison decides.  Maps with one domain differ where their results
    do, so both sides try the same point."""
    a, b = pair.maps
    width = len(variable_names(a))
    groups = {"primary": range(a.num_dims), "secondary": range(a.num_dims, width)}
    nonnegative = _nonnegative(a, b)
    sides: tuple[tuple[Literal["a", "b"], int, IndexingMap], ...] = ((("a", 0, a)), ("b", 1, b))
    point: list[int] | None = None
    for side, index, shown in sides:
        if point is None or pair.domains[0] is not pair.domains[1]:
            candidates = pair.only_in(index)
            point = (
                None
                if candidates.is_empty()
                else _witness(candidates, minimal=minimal, **groups, nonnegative=nonnegative)
            )
        if point is None:
            continue
        dims, symbols = point[: shown.num_dims], point[shown.num_dims :]
        results = pair.results_at(index, point)
        # Without symbols the other map is a function of the dims, with no
        # value or another one at this point: it relates nothing else to
        # these dims (two thirds of the XLA-style refutations).
        if not symbols or not pair.relates(1 - index, dims, results):
            witness = (
                [(f"d{i}", x) for i, x in enumerate(dims)]
                + [(f"r{i}", x) for i, x in enumerate(results)]
                + [(v.name, x) for v, x in zip(shown.symbols, symbols, strict=True)]
            )
            return IslComparison(differs=True, only_in=side, witness=tuple(witness))
    return None


def _point_set(space: Any, values: Sequence[int]) -> Any:
    """``{ [x…] : x_i = values_i }`` in the set `space` (its first
    ``len(values)`` coordinates fixed, the others free)."""
    points = isl.BasicSet.universe(space)
    for position, value in enumerate(values):
        points = points.fix_val(_DIM, position, isl_val(value))
    return isl.Set.from_basic_set(points)


def compare_relations(
    a: IndexingMap, b: IndexingMap, *, max_operations: int = ISL_OPERATIONS, minimal: bool = True
) -> IslComparison:
    """Compare ``{ [d] -> [e] : exists symbols }`` of `a` and `b`; a witness
    is the smallest a bounded search finds (`minimal`), or any.

    ``(d0)[s0] -> (d0 + s0)`` and ``(d0)[s0] -> (d0 + 1 - s0)`` over
    ``d0 in [0, 3], s0 in [0, 1]`` are equal (the same pairs, different
    witnesses).  The maps must have the same numbers of dims and results
    unless one of them is empty.
    """
    try:
        with operation_budget(max_operations):
            pair = _PairTranslation(a, b)
            # Symbols that occur only in affine terms project out without
            # divisions: comparing the relations outright is cheaper than
            # the shortcuts below (a window's symbol reversed: 0.22 ms a
            # pair instead of 0.35).
            if pair.comparable and _symbols_affine(a) and _symbols_affine(b):
                return _compare_projections(pair, minimal)
            # Equality first: it is the common answer.  Equal graphs over
            # the same variables (what a simplification that keeps its
            # symbols gives) have equal projections, and comparing them
            # needs no existential variable; then the relations proper.
            if pair.graphs_equal():
                return IslComparison(differs=False, vacuous=pair.domain_is_empty(0))
            refuted = _pointwise_refutation(pair, minimal) if pair.comparable else None
            if refuted is not None:
                return refuted
            return _compare_projections(pair, minimal)
    except BudgetExhausted:
        return IslComparison(differs=None)


def _symbols_affine(indexing_map: IndexingMap) -> bool:
    """Whether the map has symbols and none occurs under a ``floordiv``,
    ``ceildiv``, ``mod``, ``min`` or ``max`` of a result or constraint:
    ``(d0)[s0] -> (d0 + 3 - s0)`` has, ``(d0)[s0] -> ((d0 + s0) floordiv 2)``
    has not."""
    return bool(indexing_map.symbols) and all(
        _affine_in_symbols(expr)
        for expr in (*indexing_map.results, *(expr for expr, _ in indexing_map.constraints))
    )


@functools.lru_cache(maxsize=1 << 14)
def _affine_in_symbols(expr: Expr) -> bool:
    # Asked of every result and constraint of most maps compared; a batch
    # repeats them (a map and its rewritten form share their constraints).
    return all(
        isinstance(term, Var) or all(v.kind is VarKind.DIM for v in variables_of(term))
        for term in linear_terms(expr)[0]
    )


def _compare_projections(pair: _PairTranslation, minimal: bool) -> IslComparison:
    """The relations of the pair compared, symbols projected out, with a
    witness of a side's pair the other has not."""
    a, b = pair.maps
    graphs = pair.graphs
    full_a = _relation_with_witnesses(a, graphs[0])
    full_b = _relation_with_witnesses(b, graphs[1])
    relation_a = full_a.project_out(_OUT, a.num_results, num_symbols(a))
    relation_b = full_b.project_out(_OUT, b.num_results, num_symbols(b))
    side, difference = _one_sided_difference(a, b, relation_a, relation_b)
    if difference is None:
        return IslComparison(differs=False, vacuous=relation_a.is_empty())
    shown, full = (a, full_a) if side == "a" else (b, full_b)
    witnesses = full.intersect(difference.add_dims(_OUT, num_symbols(shown)))
    names = (
        [f"d{i}" for i in range(shown.num_dims)]
        + [f"r{i}" for i in range(shown.num_results)]
        + [v.name for v in shown.symbols]
    )
    coordinates = _witness(
        witnesses.wrap().flatten(),
        minimal=minimal,
        primary=range(shown.num_dims),
        secondary=range(shown.num_dims + shown.num_results, len(names)),
        nonnegative=_nonnegative(shown),
    )
    return IslComparison(
        differs=True, only_in=side, witness=tuple(zip(names, coordinates, strict=True))
    )


def _one_sided_difference(
    a: IndexingMap, b: IndexingMap, relation_a: Any, relation_b: Any
) -> tuple[Literal["a", "b"], Any | None]:
    """The pairs one relation has and the other has not — ``a``'s first —
    or ``None`` when the relations are equal.

    The differences are the ∀∃ questions (each side's symbols are
    existential), the costly part of a comparison: each is computed once
    and kept as the witnesses' set, not decided by ``is_equal`` (which
    subtracts both ways) and then subtracted again.  Relations of
    different arities are equal only when both are empty.
    """
    if not _same_arity(a, b):
        empty_a, empty_b = relation_a.is_empty(), relation_b.is_empty()
        if empty_a and empty_b:
            return "a", None
        if not (empty_a or empty_b):
            _require_same_arity(a, b)
        return ("b", relation_b) if empty_a else ("a", relation_a)
    only_in_a = relation_a.subtract(relation_b)
    if not only_in_a.is_empty():
        return "a", only_in_a
    only_in_b = relation_b.subtract(relation_a)
    return "b", None if only_in_b.is_empty() else only_in_b


def compare_pointwise(
    a: IndexingMap, b: IndexingMap, *, max_operations: int = ISL_OPERATIONS, minimal: bool = True
) -> IslComparison:
    """Compare `a` and `b` as functions of all their variables: equal iff the
    domains are equal and the results agree at every point of the domain.
    A witness is the smallest a bounded search finds (`minimal`), or any.

    The maps must declare the same variables unless one of them is empty.
    """
    try:
        with operation_budget(max_operations):
            pair = _PairTranslation(a, b)
            if pair.graphs_equal():
                return IslComparison(differs=False, vacuous=pair.domain_is_empty(0))
            empty_a, empty_b = pair.domain_is_empty(0), pair.domain_is_empty(1)
            if empty_a and empty_b:
                return IslComparison(differs=False, vacuous=True)
            if empty_a or empty_b:
                shown = b if empty_a else a
                difference = as_set(pair.domains[1 if empty_a else 0])
            else:
                if variable_names(a) != variable_names(b):
                    raise InvalidMapError(
                        "pointwise comparison needs the same variables, got "
                        f"{', '.join(variable_names(a))} and {', '.join(variable_names(b))}"
                    )
                _require_same_arity(a, b)
                shown = a
                difference = pair.only_in(0).union(pair.only_in(1))
            names = variable_names(shown)
            coordinates = _witness(
                difference,
                minimal=minimal,
                primary=range(shown.num_dims),
                secondary=range(shown.num_dims, len(names)),
                nonnegative=_nonnegative(a, b),
            )
            return IslComparison(differs=True, witness=tuple(zip(names, coordinates, strict=True)))
    except BudgetExhausted:
        return IslComparison(differs=None)


def is_empty(indexing_map: IndexingMap, *, max_operations: int = ISL_OPERATIONS) -> bool | None:
    """Whether the domain has no integer point (`None`: budget exhausted)."""
    try:
        with operation_budget(max_operations):
            result: bool = to_isl_set(indexing_map).is_empty()
            return result
    except BudgetExhausted:
        return None


def _nonnegative(*maps: IndexingMap) -> bool:
    """Whether no variable of the maps can be negative (lower bounds >= 0)."""
    return all(m.bounds(v).lower >= 0 for m in maps for v in m.all_variables)


def _same_arity(a: IndexingMap, b: IndexingMap) -> bool:
    return (a.num_dims, a.num_results) == (b.num_dims, b.num_results)


def _require_same_arity(a: IndexingMap, b: IndexingMap) -> None:
    if not _same_arity(a, b):
        raise InvalidMapError(
            f"cannot compare a map with {a.num_dims} dims and {a.num_results} results "
            f"to one with {b.num_dims} dims and {b.num_results} results"
        )
