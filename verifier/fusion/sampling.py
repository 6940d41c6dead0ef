"""Telling two maps apart by sample pairs of their relations, before
asking a costly decision (isl) whether they are equal.

A *sample pair* of a map is a point ``(x, y)`` of its relation: ``x`` a
point of its domain found by a bounded depth-first search
(`domain_point`), ``y`` its results there.  A pair of one map that interval
arithmetic shows outside the other's relation (`excludes`) proves the two
relations different; "not shown" proves nothing, so `SameRelation` then asks
the decision.  Most maps a loop adds to a union are new ones, each compared
with every map already there: most are told apart here.

``(d0)[s0] -> (d0 + s0)``, ``d0 in [0, 3], s0 in [0, 1]``, ``d0 + s0 in
[1, 4]`` has the sample pairs ``((0,), (1,))`` and ``((3,), (4,))``; the
identity on ``[0, 3]`` excludes the first (at d0 = 0 its result is 0):

>>> from verifier.expr import parse_map
>>> shifted = parse_map(
...     "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1], d0 + s0 in [1, 4]")
>>> sample_pairs(shifted)
(((0,), (1,)), ((3,), (4,)))
>>> identity = parse_map("(d0) -> (d0), domain: d0 in [0, 3]")
>>> excludes(identity, ((0,), (1,)))
True
>>> asked = []
>>> same = SameRelation(lambda a, b: asked.append((a, b)) or False, prefilter=True)
>>> same(identity, shifted), asked
(False, [])

A union compares each new map only with the maps held under its
*relation key* (`relation_key`): the lowest point of the relation's
domain and the set of results there, which equal relations share
whatever their form.  ``shifted`` has ``((0,), frozenset({(1,)}))`` (at
d0 = 0 the constraint leaves s0 = 1), the identity ``((0,),
frozenset({(0,)}))``: they are never compared.  A key that cannot be found cheaply is None, and
a map without a key is compared with every map of its union.

>>> relation_key(shifted), relation_key(identity)
(((0,), frozenset({(1,)})), ((0,), frozenset({(0,)})))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from verifier.expr import Expr, IndexingMap, Interval, Ranges, Var, linear_terms, variables_of
from verifier.fusion.composed import CountedMap, MapEquality

Pair = tuple[tuple[int, ...], tuple[int, ...]]
"""A pair (dims point, results) of a map's relation."""

RelationKey = tuple[tuple[int, ...], frozenset[tuple[int, ...]]] | None
"""A relation's lowest dims point and its results there, or None (`relation_key`)."""


class SameRelation:
    """`same`, asked once per ordered pair of maps (a loop's iterations,
    unrolled, merge the same maps into the same unions: random bits asks
    2,412 questions, 130 distinct); with `prefilter`, maps told apart by
    sample pairs are kept apart without asking it.

    Mutable on purpose: its memo tables grow as maps are compared; the
    answers never change."""

    def __init__(self, same: MapEquality, *, prefilter: bool) -> None:
        self.same = same
        self.prefilter = prefilter
        # Memo tables: `same` per ordered pair; each map's sample pairs
        # (a map is compared with every other map of its union); `excludes`
        # per (map, sample pair) (the sample pairs of a loop's maps repeat:
        # the held-out fori_dynamic_update asks 64,504 questions, 9,022
        # distinct).
        self._answers: dict[IndexingMap, dict[IndexingMap, bool]] = {}
        self._samples: dict[IndexingMap, tuple[Pair, ...]] = {}
        self._exclusions: dict[tuple[IndexingMap, Pair], bool] = {}
        # `relation_key` per map (with `prefilter`; a union keeps its
        # positions by key: 22 million comparisons on TORAX, most of maps
        # that a key tells apart).
        self._keys: dict[IndexingMap, RelationKey] = {}

    def __call__(self, a: IndexingMap, b: IndexingMap) -> bool:
        answers = self._answers.setdefault(b, {})
        found = answers.get(a)
        if found is None:
            found = answers[a] = self._decide(a, b)
        return found

    def key(self, indexing_map: IndexingMap) -> RelationKey:
        """`relation_key` of `indexing_map`, computed once; None (compare with
        every map) without `prefilter`: then `same` alone decides."""
        if not self.prefilter:
            return None
        if indexing_map not in self._keys:
            self._keys[indexing_map] = relation_key(indexing_map)
        return self._keys[indexing_map]

    def first_held(
        self, held: Sequence[CountedMap], b: IndexingMap, positions: Sequence[int]
    ) -> int | None:
        """The first of `positions` (ascending) of `held` whose map is `b`
        or, by `same`, the same relation: each pair asked as by a call, with
        the answers to `b` looked up once.  The owner passes the positions
        whose maps may be the same relation (`key`): the others cannot be,
        and `same` is never asked about them."""
        answers = self._answers.setdefault(b, {})
        for position in positions:
            a = held[position].map
            if a == b:
                return position
            found = answers.get(a)
            if found is None:
                found = answers[a] = self._decide(a, b)
            if found:
                return position
        return None

    def _decide(self, a: IndexingMap, b: IndexingMap) -> bool:
        if not self.prefilter:
            return self.same(a, b)
        return not self.told_apart(a, b) and self.same(a, b)

    def told_apart(self, a: IndexingMap, b: IndexingMap) -> bool:
        """Whether a sample pair of one map's relation is shown outside the
        other's (`excludes`): then they are different relations."""
        if (a.num_dims, a.num_results) != (b.num_dims, b.num_results):
            return False  # `same` answers different spaces itself
        return any(self._excludes(b, pair) for pair in self._sample_pairs(a)) or any(
            self._excludes(a, pair) for pair in self._sample_pairs(b)
        )

    def _excludes(self, indexing_map: IndexingMap, pair: Pair) -> bool:
        found = self._exclusions.get((indexing_map, pair))
        if found is None:
            found = self._exclusions[indexing_map, pair] = excludes(indexing_map, pair)
        return found

    def _sample_pairs(self, indexing_map: IndexingMap) -> tuple[Pair, ...]:
        found = self._samples.get(indexing_map)
        if found is None:
            found = self._samples[indexing_map] = sample_pairs(indexing_map)
        return found


_SAMPLE_NODES = 64
"""The most partial assignments one search for a sample pair visits."""

_KEY_SYMBOL_POINTS = 256
"""The most symbol values `relation_key` tries at the lowest dims point."""


def relation_key(indexing_map: IndexingMap) -> RelationKey:
    """The lowest point ``x`` of the relation's domain (its dims, in
    lexicographic order) and the set of its results at ``x``: a function
    of the relation alone, so two maps with different keys are different
    relations.  None when it is not found cheaply: the domain search gives
    up (`domain_point`), or the symbols' box at ``x`` has more than
    `_KEY_SYMBOL_POINTS` points.

    The search tries each variable from its lowest value up, dims first,
    and abandons a value only when interval arithmetic shows no point
    below it (`_may_hold`, sound): the first point found is the
    lexicographic minimum, and its dims are the lowest point of the
    domain's projection on the dims.  The results at ``x`` are every
    symbol value there that lies in the domain, tried one by one.

    ``(d0)[s0] -> (d0 + s0)``, ``d0 in [1, 3], s0 in [0, 2]``, ``d0 + s0 in
    [0, 3]`` has the key ``((1,), {(1,), (2,), (3,)})``.
    """
    point = domain_point(indexing_map, (False,) * len(indexing_map.all_variables))
    if point is None:
        return None
    variables = indexing_map.all_variables
    dims = variables[: indexing_map.num_dims]
    symbols = variables[indexing_map.num_dims :]
    boxes = [indexing_map.bounds(v) for v in symbols]
    size = 1
    for box in boxes:
        size *= box.size
    if size > _KEY_SYMBOL_POINTS:
        return None
    values = {v: point[v] for v in dims}
    results: set[tuple[int, ...]] = set()
    for assignment in itertools.product(*(range(b.lower, b.upper + 1) for b in boxes)):
        values.update(zip(symbols, assignment, strict=True))
        if indexing_map.contains(values):
            results.add(indexing_map.evaluate(values))
    return tuple(values[v] for v in dims), frozenset(results)


_SAMPLE_ORDERS = ((False, False), (True, True))
"""(dims descending, symbols descending) of each search for a sample pair:
the lowest and the highest corner.  (The mixed corners, which tell a free
symbol from a dim, left 1,218 of lstm_scan_grad's 2,168 unequal pairs to
isl but cost more CPU than they saved.)"""


def sample_pairs(indexing_map: IndexingMap) -> tuple[Pair, ...]:
    """Up to two pairs of `indexing_map`'s relation: the first point of its
    domain found trying each variable's values from the lowest up, and from
    the highest down (`_SAMPLE_ORDERS`, `domain_point`); fewer when a
    search gives up.

    ``(d0)[s0] -> (d0 + s0)``, ``d0 in [0, 3], s0 in [0, 1]``, ``d0 + s0 in
    [1, 4]`` gives ``((0,), (1,))`` (d0 = 0, s0 = 1) and ``((3,), (4,))``.
    """
    pairs: dict[Pair, None] = {}
    for dims_descending, symbols_descending in _SAMPLE_ORDERS:
        descending = (dims_descending,) * indexing_map.num_dims + (symbols_descending,) * len(
            indexing_map.symbols
        )
        point = domain_point(indexing_map, descending)
        if point is not None:
            dims = tuple(point[v] for v in indexing_map.all_variables[: indexing_map.num_dims])
            pairs[dims, indexing_map.evaluate(point)] = None
    return tuple(pairs)


def domain_point(indexing_map: IndexingMap, descending: tuple[bool, ...]) -> dict[Var, int] | None:
    """A point of the domain by depth-first search over the variables in
    header order, variable ``k``'s values tried from the highest down when
    ``descending[k]``: a value is abandoned as soon as interval arithmetic
    shows that a constraint on its variable cannot hold with the values
    before it (`_may_hold`); `None` after `_SAMPLE_NODES` values tried
    without a point."""
    variables = indexing_map.all_variables
    tests = [(e, allowed, _linear_form(e)) for e, allowed in indexing_map.constraints]
    on_variable = [[test for test in tests if v in variables_of(test[0])] for v in variables]
    fixed: dict[Var, Interval] = {}
    nodes = 0

    def bounds(variable: Var) -> Interval:
        return fixed.get(variable) or indexing_map.bounds(variable)

    def search(k: int) -> bool:
        nonlocal nodes
        if k == len(variables):
            return True
        variable = variables[k]
        interval = indexing_map.bounds(variable)
        values = range(interval.lower, interval.upper + 1)
        for value in reversed(values) if descending[k] else values:
            nodes += 1
            if nodes > _SAMPLE_NODES:
                return False
            fixed[variable] = Interval.point(value)
            if _may_hold(on_variable[k], bounds) and search(k + 1):
                return True
        fixed.pop(variable, None)
        return False

    if not search(0):
        return None
    point = {v: interval.lower for v, interval in fixed.items()}
    return point if indexing_map.contains(point) else None


_LinearForm = tuple[tuple[tuple[Var, int], ...], int]
"""``((variable, coefficient), …), constant``: a sum of scaled variables."""

_Test = tuple[Expr, Interval, _LinearForm | None]
"""A constraint ``expr in allowed``, with `expr`'s linear form when it has one."""


def _linear_form(expr: Expr) -> _LinearForm | None:
    """`expr` as a sum of scaled variables and a constant, or `None` when a
    term is not a variable (a division, a modulus, a min or max)."""
    terms, constant = linear_terms(expr)
    if not all(isinstance(base, Var) for base in terms):
        return None
    return tuple((base, k) for base, k in terms.items() if isinstance(base, Var)), constant


def _may_hold(tests: list[_Test], bounds: Callable[[Var], Interval]) -> bool:
    """Whether each of the constraints `tests` may hold with its variables
    in `bounds` (false only when interval arithmetic shows one cannot): a
    linear one summed directly, the others through `Ranges`."""
    ranges: Ranges | None = None
    for expr, allowed, linear in tests:
        if linear is None:
            ranges = ranges or Ranges(bounds, {})
            interval = ranges.interval(expr)
        else:
            terms, lower = linear
            upper = lower
            for variable, coefficient in terms:
                bound = bounds(variable)
                low, high = coefficient * bound.lower, coefficient * bound.upper
                lower += min(low, high)
                upper += max(low, high)
            interval = Interval(lower, upper)
        if interval.intersect(allowed).is_empty:
            return False
    return True


def excludes(indexing_map: IndexingMap, pair: Pair) -> bool:
    """Whether the pair ``(x, y)`` is shown outside `indexing_map`'s relation:
    ``x`` lies outside the dims' bounds, or, with the dims at ``x`` and the
    symbols anywhere in their bounds, interval arithmetic puts some result
    away from ``y`` or some constraint out of reach.  (False means only
    "not shown".)

    ``(d0)[s0] -> (d0 + s0)``, ``d0 in [0, 3], s0 in [0, 1]`` excludes
    ``((0,), (2,))``: at d0 = 0 the result lies in [0, 1]; and ``((4,),
    (4,))``: d0 = 4 is outside its bounds.  With the constraint ``d0 + s0
    in [2, 4]`` it also excludes ``((1,), (1,))``: that result is 1.
    """
    x, y = pair
    variables = indexing_map.all_variables[: indexing_map.num_dims]
    if any(value not in indexing_map.bounds(v) for v, value in zip(variables, x, strict=True)):
        return True
    dims = dict(zip(variables, map(Interval.point, x), strict=True))
    ranges = Ranges(lambda v: dims.get(v) or indexing_map.bounds(v), {})
    # A constraint on a result itself holds at that result's value.
    values = dict(zip(indexing_map.results, y, strict=True))
    return any(
        value not in ranges.interval(result)
        for result, value in zip(indexing_map.results, y, strict=True)
    ) or any(
        (values[expr] not in allowed)
        if expr in values
        else ranges.interval(expr).intersect(allowed).is_empty
        for expr, allowed in indexing_map.constraints
    )
