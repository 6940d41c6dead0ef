"""Indexing maps: quasi-affine functions over a bounded, constrained domain.

An `IndexingMap` ``(d0, …)[s0, …]{rt0, …} -> (e0, …)`` relates a multi-index
``d`` of one tensor to the elements ``e(d, s, rt)`` of another.  Its domain is
the set of integer points whose every variable lies in its inclusive interval
and whose every constraint ``g(d, s, rt) in [lo, hi]`` holds.  Range variables
``s`` and runtime variables ``rt`` are existential: the map relates ``d`` to
``e(d, s, rt)`` for *every* feasible value of the symbols.

>>> from verifier.expr.parser import parse_map
>>> m = parse_map("(d0, d1)[s0] -> (d0, d1 + s0), domain: "
...               "d0 in [0, 1], d1 in [0, 2], s0 in [0, 1], d1 + s0 in [0, 2]")
>>> sorted(m.relation())[:3]
[((0, 0), (0, 0)), ((0, 0), (0, 1)), ((0, 1), (0, 1))]

Canonical form (kept by every constructor): constraints are sorted by
expression, one interval per expression; a constraint on a bare variable is
folded into that variable's bounds; a constant constraint that holds is
dropped (one that fails stays, and makes the map known empty).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeAlias

from verifier.errors import InvalidMapError
from verifier.expr.evaluate import evaluate, interval_of, substitute, variables_of
from verifier.expr.interval import Interval
from verifier.expr.nodes import (
    Const,
    Expr,
    Var,
    VarKind,
    as_expr,
    dim,
    range_var,
    rt_var,
)
from verifier.expr.ranges import Ranges

Constraint: TypeAlias = tuple[Expr, Interval]
# The most partial points `remove_unused_symbols` visits to tell whether the
# constraints of otherwise-unconstrained symbols can be met (`_has_point`).
_SEARCH_LIMIT = 1 << 14
Point: TypeAlias = tuple[int, ...]


@dataclass(frozen=True)
class RuntimeSource:
    """Where a runtime variable's value comes from: the HLO instruction that
    produces it, and which element of it is read, as a map from the owning
    map's dimensions to that instruction's index space (e.g. a gather index
    ``(d0, d1, d2, d3) -> (d0, 1)``)."""

    instruction: str
    index_map: IndexingMap


@dataclass(frozen=True)
class Variable:
    """A dimension, range or runtime variable: its interval, and for a runtime
    variable the instruction that produces its value."""

    bounds: Interval
    source: RuntimeSource | None = None

    @staticmethod
    def of(lower: int, upper: int) -> Variable:
        return Variable(Interval(lower, upper))


@dataclass(frozen=True)
class Undefined:
    """Unknown indexing ("UNDEFINED"): the relation cannot be expressed.

    Distinct from "not read", which is simply no map at all.
    """

    reason: str = ""

    def __str__(self) -> str:
        return "UNDEFINED"


@functools.lru_cache(maxsize=64)
def _bounds_ranges(
    dims: tuple[Variable, ...], range_vars: tuple[Variable, ...], rt_vars: tuple[Variable, ...]
) -> Ranges:
    """The intervals of expressions over these variables' bounds alone, one
    memo for every map that has them: simplifying a map builds one map per
    constraint it rewrites, all over the same variables, and each asks
    whether it is known empty."""
    return Ranges(functools.partial(_variable_bounds, dims, range_vars, rt_vars), {})


def _variable_bounds(
    dims: tuple[Variable, ...],
    range_vars: tuple[Variable, ...],
    rt_vars: tuple[Variable, ...],
    variable: Var,
) -> Interval:
    """The interval of `variable` among these (`IndexingMap.bounds`)."""
    kind = variable.kind
    table = dims if kind is VarKind.DIM else range_vars if kind is VarKind.RANGE else rt_vars
    if variable.index >= len(table):
        raise InvalidMapError(f"{variable.name} is not a variable of this map")
    return table[variable.index].bounds


@dataclass(frozen=True)
class IndexingMap:
    """``(dims)[range_vars]{rt_vars} -> (results)`` on a constrained domain.

    Build with `IndexingMap.create`, which canonicalises the constraints; the
    fields are then never mutated.  Equality is structural (same text).
    """

    dims: tuple[Variable, ...]
    range_vars: tuple[Variable, ...]
    rt_vars: tuple[Variable, ...]
    results: tuple[Expr, ...]
    constraints: tuple[Constraint, ...] = ()

    # ---------------------------------------------------------------- building

    @staticmethod
    def create(
        dims: Sequence[Variable | Interval | tuple[int, int]],
        results: Sequence[Expr | int],
        *,
        range_vars: Sequence[Variable | Interval | tuple[int, int]] = (),
        rt_vars: Sequence[Variable | Interval | tuple[int, int]] = (),
        constraints: Iterable[tuple[Expr | int, Interval | tuple[int, int]]] = (),
    ) -> IndexingMap:
        """A map in canonical form; raises `InvalidMapError` when an expression
        uses a variable the map does not declare.

        >>> str(IndexingMap.create([(0, 9)], [dim(0) + 1]).results[0])
        'd0 + 1'
        """
        dim_vars = tuple(_variable(v) for v in dims)
        range_variables = tuple(_variable(v) for v in range_vars)
        rt_variables = tuple(_variable(v) for v in rt_vars)
        result_exprs = tuple(as_expr(r) for r in results)
        declared = frozenset(_header(len(dim_vars), len(range_variables), len(rt_variables)))
        raw_constraints = [(as_expr(e), _interval(b)) for e, b in constraints]
        for expr in itertools.chain(result_exprs, (e for e, _ in raw_constraints)):
            unknown = variables_of(expr) - declared
            if unknown:
                names = ", ".join(sorted(v.name for v in unknown))
                raise InvalidMapError(f"'{expr}' uses undeclared variable(s) {names}")
        return declared_map(
            dim_vars,
            result_exprs,
            range_vars=range_variables,
            rt_vars=rt_variables,
            constraints=raw_constraints,
        )

    def __hash__(self) -> int:
        """Computed once: maps key every memo of composition and of the
        checks' questions, and hashing one walks all its variables."""
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.dims, self.range_vars, self.rt_vars, self.results, self.constraints))

    def __getstate__(self) -> dict[str, object]:
        # A string's hash differs between processes: another one rehashes.
        return {name: value for name, value in vars(self).items() if name != "_hash"}

    @staticmethod
    def identity(shape: Sequence[int]) -> IndexingMap:
        """``(d0, …) -> (d0, …)`` over `shape`."""
        return _identity(tuple(shape))

    def replaced(
        self,
        *,
        results: Sequence[Expr] | None = None,
        constraints: Iterable[Constraint] | None = None,
        dims: Sequence[Variable] | None = None,
        range_vars: Sequence[Variable] | None = None,
        rt_vars: Sequence[Variable] | None = None,
    ) -> IndexingMap:
        """A canonical copy with some parts replaced."""
        return IndexingMap.create(
            self.dims if dims is None else dims,
            self.results if results is None else results,
            range_vars=self.range_vars if range_vars is None else range_vars,
            rt_vars=self.rt_vars if rt_vars is None else rt_vars,
            constraints=self.constraints if constraints is None else constraints,
        )

    # ---------------------------------------------------------------- queries

    @property
    def num_dims(self) -> int:
        return len(self.dims)

    @property
    def num_results(self) -> int:
        return len(self.results)

    @property
    def symbols(self) -> tuple[Var, ...]:
        """Range variables then runtime variables, as expression variables."""
        return self.all_variables[len(self.dims) :]

    @functools.cached_property
    def all_variables(self) -> tuple[Var, ...]:
        """Dims, range variables, runtime variables, in header order."""
        return _header(len(self.dims), len(self.range_vars), len(self.rt_vars))

    def bounds(self, variable: Var) -> Interval:
        """The interval of `variable` (a dim, range or runtime variable of this map)."""
        return _variable_bounds(self.dims, self.range_vars, self.rt_vars, variable)

    @functools.cached_property
    def is_known_empty(self) -> bool:
        """True when the domain is empty for a syntactic reason: an empty variable
        interval, or a constraint that cannot hold by interval arithmetic.

        `False` means "not known to be empty", not "non-empty".  (Computed
        once: composition and simplification ask it of the same map often.)
        """
        if any(v.bounds.is_empty for v in self.dims + self.range_vars + self.rt_vars):
            return True
        ranges = _bounds_ranges(self.dims, self.range_vars, self.rt_vars)
        return any(
            interval.is_empty or ranges.interval(expr).intersect(interval).is_empty
            for expr, interval in self.constraints
        )

    def evaluate(self, values: Mapping[Var, int]) -> Point:
        """The results at one point (domain membership not checked)."""
        return tuple(evaluate(result, values) for result in self.results)

    def contains(self, values: Mapping[Var, int]) -> bool:
        """Whether the point lies in the domain (bounds and constraints)."""
        variables = (*self.dims, *self.range_vars, *self.rt_vars)  # in `all_variables`' order
        return all(
            values[v] in variable.bounds
            for v, variable in zip(self.all_variables, variables, strict=True)
        ) and all(evaluate(expr, values) in interval for expr, interval in self.constraints)

    def domain_points(self) -> Iterator[dict[Var, int]]:
        """Every point of the domain, by brute force (for tests and small maps)."""
        variables = self.all_variables
        ranges = [range(self.bounds(v).lower, self.bounds(v).upper + 1) for v in variables]
        for values in itertools.product(*ranges):
            point = dict(zip(variables, values, strict=True))
            if all(evaluate(e, point) in interval for e, interval in self.constraints):
                yield point

    def domain_size_bound(self) -> int:
        """The number of points of the variables' box (an upper bound on the domain)."""
        size = 1
        for v in self.all_variables:
            size *= self.bounds(v).size
        return size

    def relation(self) -> frozenset[tuple[Point, Point]]:
        """The relation ``{(d, e(d, s, rt))}`` by brute force (symbols existential)."""
        dims = [dim(i) for i in range(self.num_dims)]
        return frozenset(
            (tuple(point[d] for d in dims), self.evaluate(point)) for point in self.domain_points()
        )

    def __str__(self) -> str:
        from verifier.expr.printer import print_map

        return print_map(self)

    # ---------------------------------------------------------------- transforms

    def remove_unused_symbols(self) -> IndexingMap:
        """Drop the `removable_symbols` (the relation is unchanged).

        ``(d0)[s0, s1] -> (d0 + s1), domain: …, s0 mod 2 in [0, 0]`` with
        s0 ∈ [0, 3] becomes ``(d0)[s0] -> (d0 + s0)``.
        """
        removable = self.removable_symbols()
        if not removable:
            return self
        return self._keep_symbols(set(self.all_variables) - removable)

    def removable_symbols(self) -> frozenset[Var]:
        """The range and runtime variables that do not change the relation.

        A symbol is kept when it occurs in a result, or shares a constraint
        (transitively) with a dim or a kept symbol.  The other symbols only
        restrict the domain through constraints among themselves; they are
        removable when those constraints are satisfiable (a search of their
        box, exact within `_SEARCH_LIMIT` partial points), and kept otherwise.
        """
        symbols = set(self.symbols)
        used: set[Var] = set()
        for result in self.results:
            used |= variables_of(result) & symbols
        constraint_vars = [variables_of(expr) for expr, _ in self.constraints]
        kept = used | {v for v in self.all_variables if v.kind is VarKind.DIM}
        changed = True
        while changed:
            changed = False
            for variables in constraint_vars:
                if variables & kept and not variables <= kept:
                    kept |= variables
                    changed = True
        free = symbols - kept
        if not free:
            return frozenset()
        free_constraints = [
            (expr, interval)
            for (expr, interval), variables in zip(self.constraints, constraint_vars, strict=True)
            if variables & free
        ]
        if not _satisfiable(free, free_constraints, self.bounds):
            return frozenset()
        return frozenset(free)

    def _keep_symbols(self, kept: set[Var]) -> IndexingMap:
        """The map over the `kept` variables (every dim is in `kept`) and the
        constraints among them."""
        renaming: dict[Var, Expr] = {}
        range_vars: list[Variable] = []
        rt_vars: list[Variable] = []
        for index, variable in enumerate(self.range_vars):
            if range_var(index) in kept:
                renaming[range_var(index)] = range_var(len(range_vars))
                range_vars.append(variable)
        for index, variable in enumerate(self.rt_vars):
            if rt_var(index) in kept:
                renaming[rt_var(index)] = rt_var(len(rt_vars))
                rt_vars.append(variable)

        def rename(v: Var) -> Expr:
            return renaming.get(v, v)

        return IndexingMap.create(
            self.dims,
            [substitute(r, rename) for r in self.results],
            range_vars=range_vars,
            rt_vars=rt_vars,
            constraints=[
                (substitute(e, rename), b) for e, b in self.constraints if variables_of(e) <= kept
            ],
        )


def _satisfiable(
    variables: set[Var], constraints: list[Constraint], bounds: Callable[[Var], Interval]
) -> bool:
    """Whether some point of the variables' box satisfies every constraint;
    False also when the search gives up.  The variables in most constraints
    are fixed first: the others' are then pinned or cut at once."""
    occurrences = Counter(v for e, _ in constraints for v in variables_of(e))
    ordered = tuple(sorted(variables, key=lambda v: (-occurrences[v], v.sort_key)))
    return _has_point(ordered, tuple(bounds(v) for v in ordered), tuple(constraints)) is True


@functools.lru_cache(maxsize=1024)
def _has_point(
    ordered: tuple[Var, ...], box: tuple[Interval, ...], constraints: tuple[Constraint, ...]
) -> bool | None:
    """Whether a point of `box` (the bounds of `ordered`) satisfies every
    constraint, None past `_SEARCH_LIMIT` partial points: a depth-first
    search fixing one variable at a time, which drops a partial point as
    soon as the interval of a constraint's expression (interval arithmetic:
    every value it takes with the variables not fixed yet anywhere in their
    bounds) misses the constraint's own.  Dropping is sound, and once every
    variable of a constraint is fixed its interval is its value, so the
    answer is exact.  Remembered for the last 1,024 questions: a loop's
    iterations ask the same.

    A loop's six carried indices over [0, 5], with ``s5 - s0 in [0, 0]``,
    ``s5 - s1 in [1, 5]`` and ``s5 - sk in [-5, -1]`` for k = 2, 3, 4: with
    s5 fixed first, s0 has one value left and s1 is cut at s5 = 0, so the
    search meets a point after 19 intervals, where enumerating the box from
    its first corner reaches one at its 8,294th point.
    """
    bounds = dict(zip(ordered, box, strict=True))
    values: dict[Var, int] = {}
    # The constraints to re-check when variable k is fixed (those it occurs
    # in), the ones whose every variable is then fixed apart: evaluated.
    watching: list[tuple[list[Constraint], list[Constraint]]] = []
    for k, v in enumerate(ordered):
        fixed = set(ordered[: k + 1])
        mine = [(e, allowed) for e, allowed in constraints if v in variables_of(e)]
        watching.append(
            (
                [(e, allowed) for e, allowed in mine if variables_of(e) <= fixed],
                [(e, allowed) for e, allowed in mine if not variables_of(e) <= fixed],
            )
        )

    def consistent(k: int) -> bool:
        closed, open_ = watching[k]
        return all(evaluate(e, values) in allowed for e, allowed in closed) and all(
            not interval_of(e, bounds.__getitem__).intersect(allowed).is_empty
            for e, allowed in open_
        )

    # The values left to try for each variable fixed so far (no recursion:
    # a map may have a thousand one-valued symbols).
    untried = [iter(range(box[0].lower, box[0].upper + 1))] if ordered else []
    for _ in range(_SEARCH_LIMIT):
        if not untried:
            return not ordered
        k = len(untried) - 1
        value = next(untried[k], None)
        if value is None:
            bounds[ordered[k]] = box[k]
            untried.pop()
        else:
            values[ordered[k]] = value
            bounds[ordered[k]] = Interval.point(value)
            if consistent(k):
                if k + 1 == len(ordered):
                    return True
                untried.append(iter(range(box[k + 1].lower, box[k + 1].upper + 1)))
    return None


@functools.lru_cache(maxsize=1024)
def _identity(shape: tuple[int, ...]) -> IndexingMap:
    # Maps are immutable values: one identity per shape serves every caller.
    return IndexingMap.create([(0, n - 1) for n in shape], [dim(i) for i in range(len(shape))])


@functools.lru_cache(maxsize=256)
def _header(dims: int, range_vars: int, rt_vars: int) -> tuple[Var, ...]:
    """The variables of a map header, in order: ``d…``, ``s…``, ``rt…``."""
    return (
        tuple(dim(i) for i in range(dims))
        + tuple(range_var(i) for i in range(range_vars))
        + tuple(rt_var(i) for i in range(rt_vars))
    )


def declared_map(
    dims: Sequence[Variable],
    results: Sequence[Expr],
    *,
    range_vars: Sequence[Variable] = (),
    rt_vars: Sequence[Variable] = (),
    constraints: Sequence[Constraint] = (),
) -> IndexingMap:
    """`IndexingMap.create` for expressions that can only use the declared
    variables — the parser's, which resolves every name against the header —
    without the walk over every expression that checks it (a fifth of
    parsing a map).  Within `verifier.expr` only.

    >>> str(declared_map([Variable.of(0, 9)], [dim(0) + 1]).results[0])
    'd0 + 1'
    """
    header = _header(len(dims), len(range_vars), len(rt_vars))
    variables = (*dims, *range_vars, *rt_vars)
    bounds = {v: variable.bounds for v, variable in zip(header, variables, strict=True)}
    merged: dict[Expr, Interval] = {}
    for expr, interval in constraints:
        if isinstance(expr, Var):
            bounds[expr] = bounds[expr].intersect(interval)
        elif isinstance(expr, Const) and expr.value in interval:
            continue
        else:
            merged[expr] = merged.get(expr, interval).intersect(interval)
    if any(isinstance(expr, Var) for expr, _ in constraints):
        variables = tuple(
            replace(variable, bounds=bounds[v]) if variable.bounds != bounds[v] else variable
            for v, variable in zip(header, variables, strict=True)
        )
    first_rt = len(dims) + len(range_vars)
    return IndexingMap(
        dims=variables[: len(dims)],
        range_vars=variables[len(dims) : first_rt],
        rt_vars=variables[first_rt:],
        results=tuple(results),
        constraints=tuple(sorted(merged.items(), key=lambda c: c[0].sort_key)),
    )


def _variable(value: Variable | Interval | tuple[int, int]) -> Variable:
    if isinstance(value, Variable):
        return value
    return Variable(_interval(value))


def _interval(value: Interval | tuple[int, int]) -> Interval:
    if isinstance(value, Interval):
        return value
    lower, upper = value
    return Interval(lower, upper)


@functools.lru_cache(maxsize=1 << 12)
def compose(consumer: IndexingMap, producer: IndexingMap) -> IndexingMap:
    """Consumer output → producer operand, through the producer's output.

    `consumer` maps the consumer's output to its operand, which is the
    producer's output; `producer` maps the producer's output to the
    producer's operand.  The consumer's results are substituted for the
    producer's dims and constrained to the producer's dim bounds (unless
    interval arithmetic already proves them); the symbols of both maps are
    kept, the producer's first (as XLA's ``ComposeIndexingMaps``).  The
    source of each runtime variable is composed too, so the last 4,096
    compositions are remembered: a loop's iterations compose each source
    again.

    >>> from verifier.expr.parser import parse_map
    >>> f = parse_map("(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]")
    >>> g = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7]")
    >>> str(compose(f, g)).splitlines()[0]
    '(d0) -> (d0 mod 8, d0 floordiv 8),'
    """
    if consumer.num_results != producer.num_dims:
        raise InvalidMapError(
            f"cannot compose: the consumer map has {consumer.num_results} results "
            f"but the producer map has {producer.num_dims} dims"
        )
    n_range, n_rt = len(producer.range_vars), len(producer.rt_vars)

    def consumer_symbol(v: Var) -> Expr:
        if v.kind is VarKind.RANGE:
            return range_var(v.index + n_range)
        if v.kind is VarKind.RT:
            return rt_var(v.index + n_rt)
        return v

    consumer_results = [substitute(r, consumer_symbol) for r in consumer.results]

    def producer_variable(v: Var) -> Expr:
        return consumer_results[v.index] if v.kind is VarKind.DIM else v

    def consumer_bounds(v: Var) -> Interval:
        return consumer.bounds(v)

    constraints: list[tuple[Expr, Interval]] = [
        (substitute(e, consumer_symbol), b) for e, b in consumer.constraints
    ]
    constraints += [(substitute(e, producer_variable), b) for e, b in producer.constraints]
    for result, variable in zip(consumer.results, producer.dims, strict=True):
        if not variable.bounds.contains_interval(interval_of(result, consumer_bounds)):
            constraints.append((substitute(result, consumer_symbol), variable.bounds))

    def compose_source(variable: Variable) -> Variable:
        if variable.source is None:
            return variable
        index_map = compose(consumer, variable.source.index_map)
        return replace(variable, source=replace(variable.source, index_map=index_map))

    return IndexingMap.create(
        consumer.dims,
        [substitute(r, producer_variable) for r in producer.results],
        range_vars=producer.range_vars + consumer.range_vars,
        rt_vars=tuple(compose_source(v) for v in producer.rt_vars) + consumer.rt_vars,
        constraints=constraints,
    )
