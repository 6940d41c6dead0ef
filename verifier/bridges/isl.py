"""IndexingMap ↔ isl (islpy): exact Presburger translations and the
set-algebra questions the checks ask.

Translation (`IslExprConverter`, one method per node kind): every variable of
a map becomes a named set dimension (``d0 …, s0 …, rt0 …``) and every
expression an isl affine function over that space — ``floordiv`` is
``floor(e / c)``, ``ceildiv`` is ``ceil(e / c)``, ``mod`` is isl's ``mod``
(``e - c * floor(e / c)``), all with the positive divisors the nodes guarantee,
which is exactly isl's semantics; ``min``/``max`` become piecewise functions.
isl introduces the existentially quantified division variables itself.  The
objects are built through isl's API, not its string parser (which alone costs
about a millisecond a pair).

For example ``(d0)[s0] -> (d0 floordiv 2 + s0), domain: d0 in [0, 9],
s0 in [0, 1]`` becomes the relation
``{ [d0] -> [o0] : exists s0 : 0 <= d0 <= 9 and 0 <= s0 <= 1
and o0 = floor(d0 / 2) + s0 }``.

Spaces are aligned by variable *name*: two maps with the same variables get
the same space, so their graphs compare directly.

Budget: every question runs under ``isl_ctx_set_max_operations``, in an isl
context of its own (`operation_budget`); running out is the three-valued
answer `None`, never an exception or a hang.

The building blocks (`operation_budget`, `question_context`, `graph_of`,
`domain_set`, `minimal_point`, `set_space`, `isl_val`, `variable_names`) are
public within the bridges: `isl_sets` and `isl_text` ask their questions
with them.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import islpy as isl

from verifier.bridges.limits import ISL_COUNT_OPERATIONS, ISL_MINIMISE_OPERATIONS, ISL_OPERATIONS
from verifier.errors import InvalidMapError, SolverError, UnsupportedError
from verifier.expr import (
    Add,
    Const,
    Expr,
    ExprTranslator,
    IndexingMap,
    Interval,
    Var,
    Variable,
    VarKind,
    add,
    const,
    floordiv,
    interval_of,
    linear_terms,
    mul,
    split_term,
    var,
    variables_of,
)

# islpy reports an exhausted operation budget as an `isl.Error` carrying the
# message of `isl_error_quota`; nothing else distinguishes it.
_QUOTA_MESSAGE = "maximal number of operations exceeded"

_DIM = isl.dim_type.set
_IN = isl.dim_type.in_
_OUT = isl.dim_type.out
_DIV = isl.dim_type.div


@dataclass
class _Question:
    """The isl context of the question being asked, and the spaces its
    translations share: a set space with its local space and zero function
    per tuple of names (combining affine functions over one local space is
    cheaper), and a map space per (names, number of results).

    Each question (`operation_budget`) gets a new one, and nothing isl makes
    outlives its question.  isl keeps state in its context from one
    question to the next, so with one context per process a question's operation
    count — and, near its budget, its verdict — depended on the questions
    asked before it: a reverse-cumsum fusion's inverse check was proved or
    `unknown` by the order in which the checks ran, and ``check --jobs N``
    could have differed from one job.  A context costs half a microsecond.
    """

    context: Any = field(default_factory=isl.Context)
    set_spaces: dict[tuple[str, ...], _SetSpace] = field(default_factory=dict)
    map_spaces: dict[tuple[tuple[str, ...], int], Any] = field(default_factory=dict)


_question = _Question()


class BudgetExhausted(Exception):
    """isl ran out of operations (internal: surfaces as a `None` answer)."""


@contextlib.contextmanager
def operation_budget(max_operations: int) -> Iterator[None]:
    """Run the body under an operation budget; translate isl's failures.

    isl counts an operation per simplex pivot, so the budget bounds the
    work of every question, deterministically.  An exhausted budget shows
    up as `isl.Error`, or — when isl returned NULL into one of islpy's
    implicit conversions — as a `TypeError`; a probe that needs a pivot
    tells that case from a real type error.
    """
    global _question
    _question = _Question()
    context = _question.context
    context.set_max_operations(max_operations)
    try:
        yield
    except isl.Error as error:
        if _QUOTA_MESSAGE in str(error):
            raise BudgetExhausted from error
        raise SolverError(f"isl failed: {error}") from error
    except TypeError as error:
        if _quota_reached():
            raise BudgetExhausted from error
        raise
    finally:
        context.set_max_operations(0)


def question_context() -> Any:
    """The isl context of the question being asked (`operation_budget`)."""
    return _question.context


def _quota_reached() -> bool:
    """Whether the operation budget of the current question is used up."""
    try:
        isl.BasicSet.universe(set_space(("x",)).space).sample_point()
    except isl.Error as error:
        return _QUOTA_MESSAGE in str(error)
    return False


def isl_val(value: int) -> Any:
    """`value` as an `isl.Val` (any size)."""
    # isl.Val's int constructor takes a C long; larger Python ints go as text.
    if -(1 << 62) <= value < (1 << 62):
        return isl.Val(value, _question.context)
    return isl.Val(str(value), _question.context)


def _int(value: Any) -> int:
    result = value.to_python()
    assert isinstance(result, int), f"isl value {value} is not an integer"
    return result


@dataclass(frozen=True)
class _SetSpace:
    """A set space with named dimensions, with the local space and the zero
    function every converter of one question starts from."""

    names: tuple[str, ...]
    space: Any
    local_space: Any
    zero: Any


def set_space(names: tuple[str, ...]) -> _SetSpace:
    """A set space over `names`, with its local space and zero function
    (made once per question)."""
    found = _question.set_spaces.get(names)
    if found is None:
        space = isl.Space.create_from_names(_question.context, set=list(names))
        local_space = isl.LocalSpace.from_space(space)
        found = _question.set_spaces[names] = _SetSpace(
            names, space, local_space, isl.Aff.zero_on_domain(local_space)
        )
    return found


def _map_space(names: tuple[str, ...], num_results: int) -> Any:
    found = _question.map_spaces.get((names, num_results))
    if found is None:
        found = _question.map_spaces[names, num_results] = isl.Space.map_from_domain_and_range(
            set_space(names).space, isl.Space.set_alloc(_question.context, 0, num_results)
        )
    return found


def _as_piecewise(function: Any) -> Any:
    return function if isinstance(function, isl.PwAff) else isl.PwAff.from_aff(function)


class IslExprConverter(ExprTranslator[Any]):
    """Expression → isl affine function (`isl.Aff`, or `isl.PwAff` once a
    ``min``/``max`` is involved) over the set space of `names`.

    >>> from verifier.expr import dim
    >>> print(IslExprConverter(["d0", "d1"]).convert(dim(0) // 4 + dim(1)))
    { [d0, d1] -> [(d1 + floor((d0)/4))] }
    """

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__()
        self._space = set_space(tuple(names))
        self._positions = {name: i for i, name in enumerate(self._space.names)}
        self._variables: dict[Var, int] = {}

    @property
    def names(self) -> tuple[str, ...]:
        """The variables, in the order of the set space's dimensions."""
        return self._space.names

    def map_const(self, value: int) -> Any:
        return self._space.zero.set_constant_val(isl_val(value))

    def map_var(self, variable: Var) -> Any:
        return isl.Aff.var_on_domain(self._space.local_space, _DIM, self._position(variable))

    def _position(self, variable: Var) -> int:
        position = self._variables.get(variable)
        if position is None:
            position = self._positions.get(variable.name)
            if position is None:
                raise InvalidMapError(
                    f"'{variable.name}' is not one of the variables {', '.join(self._space.names)}"
                )
            self._variables[variable] = position  # a variable's name is made on each ask
        return position

    def map_add(self, operands: tuple[Expr, ...]) -> Any:
        # The variables' terms are coefficients, set on a function of none
        # (canonical sums hold each variable once) before the other terms
        # are added: half the cost of adding each variable's own function,
        # scaled (4 terms: 20 µs, not 46).
        total = self._space.zero
        others: list[Expr] = []
        for operand in operands:
            base, factor = split_term(operand)
            if isinstance(base, Var):
                total = total.set_coefficient_val(_IN, self._position(base), isl_val(factor))
            elif isinstance(operand, Const):
                total = total.set_constant_val(isl_val(operand.value))
            else:
                others.append(operand)
        for operand in others:
            term = self.convert(operand)
            if isinstance(total, isl.Aff) and isinstance(term, isl.Aff):
                total = total.add(term)
            else:
                total = _as_piecewise(total).add(_as_piecewise(term))
        return total

    def map_mul(self, operand: Expr, factor: int) -> Any:
        if isinstance(operand, Var):
            return self._space.zero.set_coefficient_val(
                _IN, self._position(operand), isl_val(factor)
            )
        return self.convert(operand).scale_val(isl_val(factor))

    def map_floordiv(self, operand: Expr, divisor: int) -> Any:
        # Nodes keep divisors > 1, so isl's floor(e / c) is Python's e // c.
        return self.convert(operand).scale_down_val(isl_val(divisor)).floor()

    def map_ceildiv(self, operand: Expr, divisor: int) -> Any:
        return self.convert(operand).scale_down_val(isl_val(divisor)).ceil()

    def map_mod(self, operand: Expr, modulus: int) -> Any:
        # isl's mod by a positive constant lies in [0, modulus): Python's %.
        return self.convert(operand).mod_val(isl_val(modulus))

    def map_min(self, lhs: Expr, rhs: Expr) -> Any:
        return _as_piecewise(self.convert(lhs)).min(_as_piecewise(self.convert(rhs)))

    def map_max(self, lhs: Expr, rhs: Expr) -> Any:
        return _as_piecewise(self.convert(lhs)).max(_as_piecewise(self.convert(rhs)))


def variable_names(indexing_map: IndexingMap) -> tuple[str, ...]:
    """The isl names of the map's variables, in header order (d, s, rt)."""
    return _header_names(
        len(indexing_map.dims), len(indexing_map.range_vars), len(indexing_map.rt_vars)
    )


@functools.lru_cache(maxsize=256)
def _header_names(dims: int, range_vars: int, rt_vars: int) -> tuple[str, ...]:
    # Asked several times per question; a header's names depend on its counts only.
    return (
        tuple(f"d{i}" for i in range(dims))
        + tuple(f"s{i}" for i in range(range_vars))
        + tuple(f"rt{i}" for i in range(rt_vars))
    )


def domain_set(indexing_map: IndexingMap, converter: IslExprConverter) -> Any:
    """The domain over all variables: bounds, then constraints."""
    space = set_space(variable_names(indexing_map))
    domain = _box_of(space, [indexing_map.bounds(v) for v in indexing_map.all_variables])
    for expr, interval in indexing_map.constraints:
        function = converter.convert(expr)
        lower_bound = converter.map_const(interval.lower)
        upper_bound = converter.map_const(interval.upper)
        if isinstance(function, isl.Aff) and interval.lower == interval.upper:
            part = function.eq_basic_set(lower_bound)  # ``mod 2 in [0, 0]``: one set, not two
        elif isinstance(function, isl.Aff):
            part = function.ge_basic_set(lower_bound).intersect(function.le_basic_set(upper_bound))
        else:
            part = function.ge_set(_as_piecewise(lower_bound)).intersect(
                function.le_set(_as_piecewise(upper_bound))
            )
        if isinstance(part, isl.Set) and isinstance(domain, isl.BasicSet):
            domain = isl.Set.from_basic_set(domain)
        domain = domain.intersect(part)
    return domain


def _box_of(space: _SetSpace, bounds: Sequence[Interval]) -> Any:
    """``{ [x…] : lower_i <= x_i <= upper_i }``: the box spanned by its two
    corners, a fraction of the cost of adding its constraints one by one
    (which an empty interval needs: isl spans the corners whichever is
    larger)."""
    if any(interval.is_empty for interval in bounds):
        box = isl.BasicSet.universe(space.space)
        for position, interval in enumerate(bounds):
            lower = isl.Constraint.inequality_alloc(space.local_space)
            lower = lower.set_coefficient_val(_DIM, position, isl_val(1))
            box = box.add_constraint(lower.set_constant_val(isl_val(-interval.lower)))
            upper = isl.Constraint.inequality_alloc(space.local_space)
            upper = upper.set_coefficient_val(_DIM, position, isl_val(-1))
            box = box.add_constraint(upper.set_constant_val(isl_val(interval.upper)))
        return box
    low = high = isl.Point.zero(space.space)
    for position, interval in enumerate(bounds):
        if interval.lower:
            low = low.set_coordinate_val(_DIM, position, isl_val(interval.lower))
        if interval.upper:
            high = high.set_coordinate_val(_DIM, position, isl_val(interval.upper))
    return isl.BasicSet.box_from_points(low, high)


def graph_of(indexing_map: IndexingMap) -> Any:
    """``{ [d, s, rt] -> [results] : domain }`` — the map as a function of all
    its variables (no quantifier)."""
    converter = IslExprConverter(variable_names(indexing_map))
    return _graph(indexing_map, converter, domain_set(indexing_map, converter))


def _graph(indexing_map: IndexingMap, converter: IslExprConverter, domain: Any) -> Any:
    results = [converter.convert(r) for r in indexing_map.results]
    map_space = _map_space(converter.names, len(results))
    if all(isinstance(r, isl.Aff) for r in results):
        function = isl.MultiAff.zero(map_space)
        for position, result in enumerate(results):
            function = function.set_at(position, result)
        graph = isl.Map.from_multi_aff(function)
    else:
        pieces = isl.PwAffList.alloc(_question.context, len(results))
        for result in results:
            pieces = pieces.add(_as_piecewise(result))
        graph = isl.Map.from_multi_pw_aff(isl.MultiPwAff.from_pw_aff_list(map_space, pieces))
    return graph.intersect_domain(domain)


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
            _graph(self.maps[0], self.converters[0], self.domains[0]),
            _graph(self.maps[1], self.converters[1], self.domains[1]),
        )

    def graphs_equal(self) -> bool:
        """Whether the maps have the same variables and equal graphs."""
        if not self.comparable:
            return False
        domain, other_domain = self.domains
        if domain is not other_domain and not _as_set(domain).is_equal(_as_set(other_domain)):
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
        domain, other = _as_set(self.domains[side]), _as_set(self.domains[1 - side])
        return domain.subtract(other).union(differs)

    @functools.cached_property
    def _where_results_differ(self) -> Any:
        """The points of both domains where some result of `a` is not `b`'s."""
        where = isl.Set.empty(_as_set(self.domains[0]).get_space())
        for i in range(self.maps[0].num_results):
            for piece in self._where_result_differs(i):
                where = where.union(_as_set(piece))
        if self.domains[0] is not self.domains[1]:
            where = where.intersect(_as_set(self.domains[1]))
        return where

    def relates(self, side: int, dims: Sequence[int], results: Sequence[int]) -> bool:
        """Whether map `side` relates ``dims -> results`` (for some symbols):
        a set question on its domain with the dims fixed and each result
        equal to its value, so nothing is projected."""
        converter, indexing_map = self.converters[side], self.maps[side]
        points = _as_set(self.domains[side]).intersect(
            _point_set(set_space(converter.names).space, dims)
        )
        for expr, value in zip(indexing_map.results, results, strict=True):
            function, constant = converter.convert(expr), converter.map_const(value)
            if isinstance(function, isl.Aff):  # a basic set: cheaper than a piecewise one
                points = points.intersect(function.eq_basic_set(constant))
            else:  # pieces restricted to the points first, as in _where_result_differs
                function = function.intersect_domain(points)
                points = points.intersect(function.eq_set(_as_piecewise(constant)))
        return not points.is_empty()

    def results_at(self, side: int, point: Sequence[int]) -> list[int]:
        """The results of one map (side 0 or 1) at a point of its domain, by isl."""
        space = self.converters[side].names
        at = isl.Point.zero(set_space(space).space)
        for position, value in enumerate(point):
            at = at.set_coordinate_val(_DIM, position, isl_val(value))
        return [
            _int(_as_piecewise(self.converters[side].convert(result)).eval(at))
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
                        _as_piecewise(value).intersect_domain(_as_set(domain))
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


def _as_set(domain: Any) -> Any:
    return domain if isinstance(domain, isl.Set) else isl.Set.from_basic_set(domain)


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


def _num_symbols(indexing_map: IndexingMap) -> int:
    return len(indexing_map.range_vars) + len(indexing_map.rt_vars)


def _relation_with_witnesses(indexing_map: IndexingMap, graph: Any) -> Any:
    """``{ [d] -> [results, s, rt] : domain }`` from the map's `graph`: the
    relation with the symbols kept as trailing outputs, so a related pair
    comes with its witness."""
    return graph.move_dims(
        _OUT, indexing_map.num_results, _IN, indexing_map.num_dims, _num_symbols(indexing_map)
    )


def to_isl_map(indexing_map: IndexingMap, *, existential_symbols: bool = True) -> Any:
    """The map as an `isl.Map`.

    With `existential_symbols` (the default) the relation
    ``{ [d] -> [results] : exists s, rt : domain }``; otherwise the graph
    ``{ [d, s, rt] -> [results] : domain }`` over every variable.
    """
    graph = graph_of(indexing_map)
    if not existential_symbols:
        return graph
    return graph.project_out(_IN, indexing_map.num_dims, _num_symbols(indexing_map))


def to_isl_set(indexing_map: IndexingMap) -> Any:
    """The domain as an `isl.Set` over ``[d…, s…, rt…]`` (all named)."""
    return _as_set(domain_set(indexing_map, IslExprConverter(variable_names(indexing_map))))


def isl_points(isl_object: Any) -> list[tuple[int, ...]]:
    """Every integer point of a bounded `isl.Set`, or of an `isl.Map` as
    flattened ``(inputs…, outputs…)`` tuples (for tests on small domains)."""
    points_set = isl_object.wrap().flatten() if isinstance(isl_object, isl.Map) else isl_object
    width = points_set.dim(_DIM)
    points: list[tuple[int, ...]] = []

    def collect(point: Any) -> None:
        points.append(tuple(_int(point.get_coordinate_val(_DIM, i)) for i in range(width)))

    points_set.foreach_point(collect)
    return points


# ----------------------------------------------------------------- questions


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
                graph.project_out(_IN, m.num_dims, _num_symbols(m))
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
    relation_a = full_a.project_out(_OUT, a.num_results, _num_symbols(a))
    relation_b = full_b.project_out(_OUT, b.num_results, _num_symbols(b))
    side, difference = _one_sided_difference(a, b, relation_a, relation_b)
    if difference is None:
        return IslComparison(differs=False, vacuous=relation_a.is_empty())
    shown, full = (a, full_a) if side == "a" else (b, full_b)
    witnesses = full.intersect(difference.add_dims(_OUT, _num_symbols(shown)))
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
                difference = _as_set(pair.domains[1 if empty_a else 0])
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


def minimal_point(
    points: Any, *, primary: range, secondary: range, nonnegative: bool = False
) -> list[int]:
    """A point of the non-empty set `points`, as small as a bounded search
    finds: isl's sample point first (cheap, always there), then — on a
    budget of its own, `ISL_MINIMISE_OPERATIONS` — the point minimising
    ``(Σ|x_i| over primary, Σ|x_i| over secondary, x)`` lexicographically,
    which replaces the sample when found.  Small numbers are what a reader
    can check by hand; the verdict never waits for them.

    isl's lexmin minimises leading coordinates first, so the set is lifted to
    ``[P, S, x, t]`` with ``t_i >= |x_i|`` (``t_i >= x_i``, ``t_i >= -x_i``),
    ``P = Σ t_i`` and ``S = Σ t_j``; at the minimum every ``t_i = |x_i|``.
    A coordinate that is never negative stands for its own ``t_i``: isl is
    asked which may be, unless the caller knows none is (`nonnegative`:
    `points` lies in domains whose variables start at 0 or above).  A
    minimisation isl fails at (a fault of isl's, on the points read two
    ways) keeps the sample, as one out of budget does.
    """
    width: int = points.dim(_DIM)
    coordinates = any_point(points)
    context = _question.context
    question_budget = context.get_max_operations()
    context.set_max_operations(ISL_MINIMISE_OPERATIONS)
    context.reset_operations()
    try:
        # isl's lexmin fails on some sets with divisions ("affine expression
        # involves some of the domain dimensions": strided windows over a
        # padded input); the same points coalesced first are read another way.
        for candidate in (points, points.coalesce()):
            try:
                return _lexmin_of_sizes(candidate, width, primary, secondary, nonnegative)
            except isl.Error as error:
                if _QUOTA_MESSAGE in str(error):
                    break
    except TypeError:
        if not _quota_reached():
            raise
    finally:
        context.set_max_operations(question_budget)
        context.reset_operations()
    return coordinates


def any_point(points: Any) -> list[int]:
    """Some point of the non-empty set `points`: isl's sample point, a few
    times cheaper than `minimal_point`."""
    sample = points.sample_point()
    return [_int(sample.get_coordinate_val(_DIM, i)) for i in range(points.dim(_DIM))]


def _lexmin_of_sizes(
    points: Any, width: int, primary: range, secondary: range, nonnegative: bool
) -> list[int]:
    # A coordinate the set keeps non-negative is its own size and needs no
    # ``t``: XLA's dims and symbols start at 0, so most questions lift
    # nothing, and isl's lexmin on the unlifted set is several times cheaper.
    signed = (
        [] if nonnegative else [i for i in (*primary, *secondary) if _may_be_negative(points, i)]
    )
    lifted = points.insert_dims(_DIM, 0, 2).add_dims(_DIM, len(signed))
    local_space = isl.LocalSpace.from_space(lifted.get_space())
    one, minus_one = isl_val(1), isl_val(-1)
    size = {i: 2 + i for i in range(width)}  # x_i itself, or its t_i below
    for k, i in enumerate(signed):
        size[i] = 2 + width + k
        for sign in (one, minus_one):
            constraint = isl.Constraint.inequality_alloc(local_space)
            constraint = constraint.set_coefficient_val(_DIM, size[i], one)
            lifted = lifted.add_constraint(constraint.set_coefficient_val(_DIM, 2 + i, sign))
    for total, group in ((0, primary), (1, secondary)):
        constraint = isl.Constraint.equality_alloc(local_space).set_coefficient_val(
            _DIM, total, one
        )
        for i in group:
            constraint = constraint.set_coefficient_val(_DIM, size[i], minus_one)
        lifted = lifted.add_constraint(constraint)
    smallest = lifted.project_out(_DIM, 2 + width, len(signed)).lexmin().sample_point()
    return [_int(smallest.get_coordinate_val(_DIM, 2 + i)) for i in range(width)]


def _may_be_negative(points: Any, position: int) -> bool:
    """Whether some point of `points` has a negative coordinate `position`."""
    negative = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(points.get_space()))
    negative = negative.set_coefficient_val(_DIM, position, isl_val(-1))
    return not points.add_constraint(negative.set_constant_val(isl_val(-1))).is_empty()


# ----------------------------------------------------------------- isl → map


class IslAffConverter:
    """isl quasi-affine function → expression over the variables named by the
    function's input dimensions (``d0``, ``s1``, ``rt0``).

    isl writes a function as ``(Σ c_i x_i + Σ e_j q_j + k) / den`` with
    division variables ``q_j = floor(f_j)``; each part maps to one node:
    ``{ [d0] -> [(floor((d0)/4) + 1)] }`` becomes ``d0 floordiv 4 + 1``.
    """

    def convert(self, aff: Any) -> Expr:
        """The function's value; a rational function is floored, which is
        exact where isl guarantees it integral (on its piece's domain)."""
        denominator = _int(aff.get_denominator_val())

        def scaled(value: Any) -> int:
            return _int(value.mul(isl_val(denominator)))

        terms: list[Expr] = [const(scaled(aff.get_constant_val()))]
        for position in range(aff.dim(_IN)):
            coefficient = scaled(aff.get_coefficient_val(_IN, position))
            if coefficient:
                terms.append(mul(self.map_variable(aff, position), coefficient))
        for position in range(aff.dim(_DIV)):
            coefficient = scaled(aff.get_coefficient_val(_DIV, position))
            if coefficient:
                terms.append(mul(self.map_division(aff, position), coefficient))
        return floordiv(add(*terms), denominator)

    def map_variable(self, aff: Any, position: int) -> Var:
        return _variable_named(aff.get_dim_name(_IN, position))

    def map_division(self, aff: Any, position: int) -> Expr:
        # get_div gives the argument f_j of floor(f_j), possibly rational.
        return self.convert(aff.get_div(position))


def _variable_named(name: str | None) -> Var:
    for kind in (VarKind.RT, VarKind.RANGE, VarKind.DIM):
        prefix = kind.value
        if name and name.startswith(prefix) and name[len(prefix) :].isdigit():
            return var(kind, int(name[len(prefix) :]))
    raise UnsupportedError(f"isl dimension {name!r} is not named like d0, s0 or rt0")


def _bounds(domain: Any, position: int) -> Interval:
    local_space = isl.LocalSpace.from_space(domain.get_space())
    coordinate = isl.Aff.var_on_domain(local_space, _DIM, position)
    lower, upper = domain.min_val(coordinate), domain.max_val(coordinate)
    if not (lower.is_int() and upper.is_int()):
        raise UnsupportedError(
            f"dimension {domain.get_dim_name(_DIM, position)} of {domain} is unbounded"
        )
    return Interval(_int(lower), _int(upper))


def from_isl_map(isl_map: Any) -> IndexingMap:
    """An `IndexingMap` equal (as a relation) to a single-valued `isl.Map` with
    one quasi-affine piece on one convex domain; input dimensions named
    ``d0 …`` (then ``s0 …``, ``rt0 …`` for a graph from
    ``to_isl_map(…, existential_symbols=False)``).

    ``{ [d0] -> [o0] : o0 = floor(d0 / 4) and 0 <= d0 <= 7 }`` becomes
    ``(d0) -> (d0 floordiv 4), domain: d0 in [0, 7]``.  Anything else
    (several pieces, a union domain, an unbounded variable, other names)
    raises `UnsupportedError`.
    """
    names = [isl_map.get_dim_name(_IN, i) for i in range(isl_map.dim(_IN))]
    variables = [_variable_named(name) for name in names]
    counts = {kind: sum(1 for v in variables if v.kind is kind) for kind in VarKind}
    header = [var(kind, i) for kind in VarKind for i in range(counts[kind])]
    if variables != header:
        raise UnsupportedError(f"isl map inputs {names} are not in d, s, rt header order")
    if isl_map.is_empty():
        return IndexingMap.create(
            [(0, -1)] * counts[VarKind.DIM],
            [0] * isl_map.dim(_OUT),
            range_vars=[(0, -1)] * counts[VarKind.RANGE],
            rt_vars=[(0, -1)] * counts[VarKind.RT],
            # With no variable to carry the empty bound, a false constraint.
            constraints=[(const(0), Interval(1, 1))],
        )
    function = isl_map.as_pw_multi_aff()
    pieces: list[tuple[Any, Any]] = []
    function.foreach_piece(lambda domain, value: pieces.append((domain, value)))
    if len(pieces) != 1:
        raise UnsupportedError(f"isl map {isl_map} has {len(pieces)} pieces, not one")
    domain, value = pieces[0]
    basic_sets = domain.coalesce().get_basic_sets()
    if len(basic_sets) != 1:
        raise UnsupportedError(f"the domain of isl map {isl_map} is not convex")
    bounds = {v: _bounds(domain, position) for position, v in enumerate(variables)}
    converter = IslAffConverter()
    results = [converter.convert(value.get_at(i)) for i in range(value.dim(_OUT))]
    constraints: list[tuple[Expr, Interval]] = []
    for constraint in basic_sets[0].get_constraints():
        expr = converter.convert(constraint.get_aff())
        values = interval_of(expr, bounds.__getitem__)
        if constraint.is_equality():
            constraints.append((expr, Interval(0, 0)))
        elif values.lower < 0:
            # `expr >= 0` becomes `expr in [0, U]` with U its largest value
            # on the bounds' box, so the upper end never cuts a point off.
            # (With values.lower >= 0 it is one of the bounds: implied.)
            constraints.append((expr, Interval(0, max(0, values.upper))))

    def declared(kind: VarKind) -> list[Variable]:
        return [Variable(bounds[var(kind, i)]) for i in range(counts[kind])]

    return IndexingMap.create(
        declared(VarKind.DIM),
        results,
        range_vars=declared(VarKind.RANGE),
        rt_vars=declared(VarKind.RT),
        constraints=constraints,
    )


# ----------------------------------------------------------------- counting


def _box(space: Any, dimensions: Sequence[int]) -> Any:
    """``{ [x…] : 0 <= x_i < dimensions_i }`` in `space`."""
    local_space = isl.LocalSpace.from_space(space)
    box = isl.BasicSet.universe(space)
    for position, size in enumerate(dimensions):
        lower = isl.Constraint.inequality_alloc(local_space).set_coefficient_val(
            _DIM, position, isl_val(1)
        )
        box = box.add_constraint(lower)
        upper = isl.Constraint.inequality_alloc(local_space).set_coefficient_val(
            _DIM, position, isl_val(-1)
        )
        box = box.add_constraint(upper.set_constant_val(isl_val(size - 1)))
    return isl.Set.from_basic_set(box)


def _count(points: Any) -> int:
    value = points.count_val()
    # Once its operation quota is spent, isl hands back a value it can no
    # longer print (no text): the count is not known.
    text = value.to_str()
    if text is None:
        raise BudgetExhausted
    if not value.is_int():
        raise SolverError(f"isl counts {text} points in {points}: not a finite set")
    return int(text)


def count_image(
    maps: Sequence[IndexingMap],
    dimensions: Sequence[int],
    *,
    max_operations: int = ISL_COUNT_OPERATIONS,
) -> int | None:
    """``|(⋃ image(m)) ∩ box(dimensions)|``, every symbol (range and runtime)
    existential; `None` when the budget runs out.  The maps must have
    ``len(dimensions)`` results.

    ``(d0) -> (d0 floordiv 2)`` and ``(d0) -> (d0 + 4)`` over ``d0 in [0, 7]``
    into ``[10]`` read ``{0, …, 3} ∪ {4, …, 9}``: 10 elements.
    """
    try:
        with operation_budget(max_operations):
            space = isl.Space.set_alloc(_question.context, 0, len(dimensions))
            image = isl.Set.empty(space)
            for indexing_map in maps:
                if indexing_map.num_results != len(dimensions):
                    raise InvalidMapError(
                        f"a map with {indexing_map.num_results} results cannot read "
                        f"an operand of rank {len(dimensions)}"
                    )
                image = image.union(to_isl_map(indexing_map).range())
            return _count(image.intersect(_box(space, dimensions)).coalesce())
    except BudgetExhausted:
        return None


def count_domain(
    indexing_map: IndexingMap, *, max_operations: int = ISL_COUNT_OPERATIONS
) -> int | None:
    """The number of points ``(d, s)`` (dims and range variables) of the
    domain for which some runtime value is feasible; `None` when the budget
    runs out.

    ``(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 2], d0 + s0 in
    [0, 3]`` has 3 + 3 + 2 + 1 = 9 points.
    """
    try:
        with operation_budget(max_operations):
            domain = to_isl_set(indexing_map)
            kept = indexing_map.num_dims + len(indexing_map.range_vars)
            return _count(domain.project_out(_DIM, kept, len(indexing_map.rt_vars)).coalesce())
    except BudgetExhausted:
        return None
