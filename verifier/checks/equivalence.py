"""Equivalence of two indexing maps: ``equal``, ``different`` (with a small,
re-evaluated counterexample), ``unknown`` or ``vacuous``.

Two semantics:

* **relation** (default): the maps are compared as relations from dims to
  results, symbols existential on each side — what removing or rescaling
  symbols preserves.  ``(d0)[s0] -> (d0 + s0)`` and ``(d0)[s0] -> (d0 + 1 -
  s0)`` with ``d0 in [0, 3], s0 in [0, 1]`` are equal.
* **pointwise**: two maps with the same variables are compared as functions
  of all of them: equal iff the domains are equal and the results agree at
  every domain point — what a simplification that keeps its variables must
  preserve.  The two maps above differ pointwise at ``d0 = 0, s0 = 0``.

isl decides (a decision procedure, under a budget of operations), but for
maps that are one relation by construction — the same map, or as
relations the same up to range symbols run backwards
(`verifier.checks.reflected_symbols`) — where only whether the map has
points is asked.  A second, independent witness confirms it, as the
`CrossCheck` policy of the `Budget` says (`verifier.checks.budget`, which
states why the default is the default):

* ``refutations`` (the default): a ``different`` verdict is confirmed — its
  counterexample re-evaluated by the plain Python evaluator, and the other
  map shown not to relate it (by enumerating its symbols, or by z3 when
  there are too many) — and an ``equal`` verdict stands on isl alone;
* ``all``: ``equal`` verdicts are confirmed too, by brute-force
  enumeration when both domains are small, else — pointwise, a
  quantifier-free question — by z3, and as relations — ∀∃, which z3 often
  cannot settle and whose resource limit does not bound its time — by isl
  reading both maps from text (`verifier.bridges.isl_text`: another
  encoding than the verdict's, under the same operation budget);
* ``none``: isl alone — yet a counterexample is still re-evaluated by
  Python, which costs nothing and is what the reader checks.

Every witness runs under a deterministic budget (z3 ``rlimit``, isl
operations); its
``unknown`` is a note in the answer, never an error and never a pass on its
own.  A disagreement is a `SolverError` (a bug in a bridge or a solver),
never a silent pick.

A counterexample is any point of isl's (its sample: the default of
``verifier equiv``), or with `minimal` the smallest a bounded search finds
(``Σ|d_i|``, then the symbols): isl's comparisons of the 2,000 XLA-style
pairs of ``benchmarks/equivalence.py`` take a third more CPU time with it.
Both domains empty is ``vacuous``, never ``equal``.

>>> from verifier.expr import parse_map
>>> a = parse_map("(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), "
...               "domain: d0 in [0, 6], d1 in [0, 14]")
>>> b = parse_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]")
>>> check_equivalence(a, b, pointwise=True).verdict
<Verdict.EQUAL: 'equal'>
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar, overload

from verifier.checks import corner_refutation
from verifier.checks.budget import EQUIV_BUDGET, Budget, CrossCheck
from verifier.checks.reflected_symbols import one_relation
from verifier.checks.verdict import Verdict
from verifier.errors import SolverError, UsageError, VerifierError
from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    MapReader,
    Undefined,
    Var,
    VarKind,
    const,
    point_predicate,
    var,
    variables_of,
)

if TYPE_CHECKING:
    from verifier.bridges import isl_questions

# The points of the *other* map's symbol groups that the Python
# re-evaluation of a relation counterexample enumerates, compiled; beyond
# them z3 confirms, quantifier-free.  z3 takes 1.1-1.2 ms a question, plus
# 0.06 s to import in each process that asks one; 2^15 points take about
# 6 ms.  On the 3,000 pairs of benchmarks/equivalence.py the 88 refutations
# whose box exceeds 2,048 points take 0.56 ms each on average (4.6 ms at
# most) enumerated in groups, and no worker imports z3.  Then the variable
# boxes of both maps that brute force compares for `all`, and decides when
# isl ran out of operations (min and max nest into many pieces).
_RELATES_ENUMERATION_LIMIT = 1 << 15
_ENUMERATION_LIMIT = 1 << 12
# Up to this many points the evaluator beats compiling: a window's symbol
# of 8 or 16 values is looked through in 0.22 ms evaluated, 0.42 ms
# compiled (about 14 µs a point against 0.33 ms to compile).
_INTERPRETED_POINTS = 16


@dataclass(frozen=True)
class RelationCounterexample:
    """``dims -> result`` is related by the map `only_in` and not by the other;
    `symbols` are the values that witness it on the `only_in` side."""

    dims: tuple[int, ...]
    result: tuple[int, ...]
    only_in: Literal["a", "b"]
    symbols: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, object]:
        """``{"dims": {"d0": 3}, "result": [7, 1], "only_in": "a", "symbols": {"s0": 1}}``"""
        return {
            "dims": {f"d{i}": value for i, value in enumerate(self.dims)},
            "result": list(self.result),
            "only_in": self.only_in,
            "symbols": dict(self.symbols),
        }


@dataclass(frozen=True)
class PointwiseCounterexample:
    """A point where the maps differ: the results of `a` and `b` there, or
    `None` for a map whose domain does not contain the point."""

    point: tuple[tuple[str, int], ...]
    a: tuple[int, ...] | None
    b: tuple[int, ...] | None

    def to_json(self) -> dict[str, object]:
        """``{"point": {"d0": 3, "s0": 1}, "a": [7], "b": [8]}`` (``null`` outside a domain)."""
        return {
            "point": dict(self.point),
            "a": None if self.a is None else list(self.a),
            "b": None if self.b is None else list(self.b),
        }


Counterexample: TypeAlias = RelationCounterexample | PointwiseCounterexample


@dataclass(frozen=True)
class EquivalenceResult:
    """The verdict, a counterexample when ``different``, and what the second
    witness said (e.g. ``"z3: unknown (max. resource limit exceeded)"``)."""

    verdict: Verdict
    counterexample: Counterexample | None = None
    notes: tuple[str, ...] = ()
    # Asked pointwise, answered as relations: the maps have other variables.
    compared_as_relations: bool = False

    def to_json(self) -> dict[str, object]:
        """``{"verdict": "different", "counterexample": {...}}`` (the README's
        shape); an ``unknown`` says why: ``{"verdict": "unknown", "reason":
        "isl: operation budget exhausted"}``."""
        shape: dict[str, object] = {"verdict": self.verdict.value}
        if self.counterexample is not None:
            shape["counterexample"] = self.counterexample.to_json()
        if self.verdict is Verdict.UNKNOWN:
            shape["reason"] = "; ".join(self.notes)
        if self.compared_as_relations:
            shape["compared_as"] = "relations"
        return shape


def check_equivalence(
    a: IndexingMap | Undefined,
    b: IndexingMap | Undefined,
    *,
    pointwise: bool = False,
    budget: Budget = EQUIV_BUDGET,
    minimal: bool = True,
) -> EquivalenceResult:
    """Whether `a` and `b` are equal (as relations, or `pointwise`); a
    counterexample is the smallest a bounded search finds (`minimal`), or
    any.

    Maps of different shapes (numbers of dims or results) are ``different``,
    with an element one map reads and the other cannot (it has another
    rank); pointwise, maps with other range or runtime variables are
    compared as relations, which a note says (`_other_variables`).
    ``UNDEFINED`` raises `UsageError`.  A witness (``budget.cross_check``)
    that contradicts isl raises `SolverError`.
    """
    _validate(a, b, pointwise=pointwise)
    assert isinstance(a, IndexingMap) and isinstance(b, IndexingMap)
    without_solver = _answer_without_solver(a, b, pointwise, budget, minimal)
    if without_solver is not None:
        return without_solver
    return _answer_with_solver(a, b, pointwise, budget, minimal)


def _answer_with_solver(
    a: IndexingMap, b: IndexingMap, pointwise: bool, budget: Budget, minimal: bool
) -> EquivalenceResult:
    """`check_equivalence`'s answer from isl, for a pair that
    `_answer_without_solver` does not answer."""
    if _other_variables(a, b, pointwise=pointwise):
        return _compared_as_relations(a, b, budget)
    from verifier.bridges import isl_questions  # islpy: only for a pair that needs it

    if a == b or (not pointwise and one_relation(a, b)):
        decided = _one_map(a, budget)  # one relation, up to reflected symbols
    else:
        compare_isl = (
            isl_questions.compare_pointwise if pointwise else isl_questions.compare_relations
        )
        decided = compare_isl(a, b, max_operations=budget.isl_operations, minimal=minimal)
    decider: tuple[str, ...] = ()
    if decided.differs is None:
        if a.domain_size_bound() + b.domain_size_bound() > _ENUMERATION_LIMIT:
            return EquivalenceResult(Verdict.UNKNOWN, notes=("isl: operation budget exhausted",))
        decided = _decided_by_enumeration(a, b, pointwise)
        decider = ("enumeration: decided (isl: operation budget exhausted)",)
    if not decided.differs:
        verdict = Verdict.VACUOUS if decided.vacuous else Verdict.EQUAL
        if decider or budget.cross_check is not CrossCheck.ALL:
            return EquivalenceResult(verdict, notes=decider or ("isl alone",))
        return EquivalenceResult(verdict, notes=(_confirm_equal(a, b, pointwise, budget),))
    if pointwise:
        counterexample: Counterexample = _pointwise_counterexample(a, b, decided)
        return EquivalenceResult(
            Verdict.DIFFERENT, counterexample, (*decider, "python: re-evaluated")
        )
    relation, note = _relation_counterexample(a, b, decided, budget)
    return EquivalenceResult(Verdict.DIFFERENT, relation, (*decider, note))


def _answer_without_solver(
    a: IndexingMap, b: IndexingMap, pointwise: bool, budget: Budget, minimal: bool
) -> EquivalenceResult | None:
    """The answer when no solver is needed, else `None` (and for maps of
    other shapes, or pointwise of other variables):

    * one relation by construction (`_one_map`) over a box: ``equal``, or
      ``vacuous`` when the box is empty — unless ``--cross-check all`` asks
      for a second witness;
    * any counterexample asked for (not the minimal one): a difference at a
      corner of a domain (`verifier.checks.corner_refutation`), found and
      checked by evaluation — two thirds of the turn-2 relation pairs of
      ``benchmarks/equivalence.py`` that differ, half the XLA-style ones,
      every pointwise one, each at a tenth of isl's cost.
    """
    if _other_variables(a, b, pointwise=pointwise):
        return None
    if a == b or (not pointwise and one_relation(a, b)):
        if (a.constraints and not a.is_known_empty) or budget.cross_check is CrossCheck.ALL:
            return None
        verdict = Verdict.VACUOUS if a.is_known_empty else Verdict.EQUAL
        return EquivalenceResult(verdict, notes=("isl alone",))
    if minimal:
        return None
    found = "python: evaluated at a corner of a domain"
    if pointwise:
        point = corner_refutation.pointwise_refutation(a, b)
        if point is None:
            return None
        counterexample = PointwiseCounterexample(point.point, point.a, point.b)
        return EquivalenceResult(Verdict.DIFFERENT, counterexample, (found,))
    pair = corner_refutation.relation_refutation(a, b)
    if pair is None:
        return None
    relation = RelationCounterexample(pair.dims, pair.result, pair.only_in, pair.symbols)
    return EquivalenceResult(Verdict.DIFFERENT, relation, (found,))


_Witness: TypeAlias = tuple[tuple[str, int], ...]


def _decided_by_enumeration(
    a: IndexingMap, b: IndexingMap, pointwise: bool
) -> isl_questions.IslComparison:
    """isl's answer found by enumerating both maps' boxes (together at most
    `_ENUMERATION_LIMIT` points), with the witness isl would give: the
    smallest in ``Σ|d_i|``, then ``Σ|symbol|``, then lexicographic order.

    ``(d0) -> (d0), d0 in [0, 0]`` and the same over ``d0 in [0, 1]``
    differ at ``d0 = 1`` (only in the second, pointwise or as relations)."""
    from verifier.bridges import isl_questions

    if pointwise:
        points = _points(a), _points(b)
        differing = [
            p for p in points[0].keys() | points[1].keys() if points[0].get(p) != points[1].get(p)
        ]
        if not differing:
            return isl_questions.IslComparison(differs=False, vacuous=not points[0])
        split = a.num_dims
        best = min(differing, key=lambda p: (_size(p[:split]), _size(p[split:]), p))
        names = [v.name for v in a.all_variables]
        return isl_questions.IslComparison(
            differs=True, witness=tuple(zip(names, best, strict=True))
        )
    # Per map, each pair (dims, result) it relates and its smallest witness.
    related = [_smallest_witnesses(a), _smallest_witnesses(b)]
    if related[0].keys() == related[1].keys():
        return isl_questions.IslComparison(differs=False, vacuous=not related[0])
    sides: tuple[Literal["a", "b"], ...] = ("a", "b")
    # The smallest key; on a tie, a's (the first) pair.
    (_, witness), only_in = min(
        (
            (found, only_in)
            for only_in, mine, other in zip(sides, related, related[::-1], strict=True)
            for pair, found in mine.items()
            if pair not in other
        ),
        key=lambda candidate: candidate[0][0],
    )
    return isl_questions.IslComparison(differs=True, only_in=only_in, witness=witness)


def _smallest_witnesses(
    indexing_map: IndexingMap,
) -> dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[Any, ...], _Witness]]:
    """Each pair ``(dims, result)`` of the map's relation, with the order key
    and the witness (``d…``, its symbols, ``r…``) of its smallest point."""
    found: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[Any, ...], _Witness]] = {}
    for point in indexing_map.domain_points():
        dims = tuple(point[var(VarKind.DIM, i)] for i in range(indexing_map.num_dims))
        symbols = tuple(point[v] for v in indexing_map.symbols)
        result = indexing_map.evaluate(point)
        key = (_size(dims), _size(symbols), dims, symbols)
        if (dims, result) not in found or key < found[dims, result][0]:
            witness = (
                *((f"d{i}", x) for i, x in enumerate(dims)),
                *((v.name, point[v]) for v in indexing_map.symbols),
                *((f"r{i}", x) for i, x in enumerate(result)),
            )
            found[dims, result] = (key, witness)
    return found


def _size(values: Sequence[int]) -> int:
    return sum(abs(x) for x in values)


def _one_map(indexing_map: IndexingMap, budget: Budget) -> isl_questions.IslComparison:
    """The comparison of a map with itself (two texts that read as one map,
    a twelfth of the XLA-style pairs of ``benchmarks/equivalence.py``): the
    same pairs and values wherever it is defined, so only whether it is
    defined anywhere is asked of isl, not a comparison of its graphs."""
    from verifier.bridges import isl_questions

    if indexing_map.is_known_empty:
        empty: bool | None = True
    elif indexing_map.constraints:
        empty = isl_questions.is_empty(indexing_map, max_operations=budget.isl_operations)
    else:
        empty = False  # a box not known empty has points
    if empty is None:
        return isl_questions.IslComparison(differs=None)
    return isl_questions.IslComparison(differs=False, vacuous=empty)


def _confirm_equal(a: IndexingMap, b: IndexingMap, pointwise: bool, budget: Budget) -> str:
    """The second witness on an ``equal`` verdict: brute force on small
    boxes, else z3 (pointwise) or isl from text (relations) under their
    budgets; a note, or `SolverError` on a contradiction."""
    if a.domain_size_bound() + b.domain_size_bound() <= _ENUMERATION_LIMIT:
        if (_points(a) != _points(b)) if pointwise else (a.relation() != b.relation()):
            raise _disagreement(a, b, pointwise, "enumeration")
        return "enumeration: agrees (equal)"
    if not pointwise:
        from verifier.bridges import isl_text

        equal = isl_text.relations_equal(a, b, max_operations=budget.isl_operations)
        if equal is None:
            return "isl (text): unknown (operation budget exhausted)"
        if not equal:
            raise _disagreement(a, b, pointwise, "isl reading the maps as text")
        return "isl (text): agrees (equal)"
    from verifier.bridges import z3 as z3_bridge  # z3 (0.05 s to import): only when it is asked

    opinion = z3_bridge.compare_pointwise(a, b, rlimit=budget.z3_rlimit)
    if opinion.differs is None:
        return f"z3: unknown ({opinion.reason})"
    if opinion.differs:
        raise _disagreement(a, b, pointwise, f"z3 (witness {dict(opinion.witness)})")
    return "z3: agrees (equal)"


def _disagreement(a: IndexingMap, b: IndexingMap, pointwise: bool, witness: str) -> SolverError:
    return SolverError(
        f"isl and {witness} disagree on whether {_describe(a, b, pointwise)} are equal: "
        "isl says equal; this is a bug in a solver bridge — please report it with both maps"
    )


def _points(indexing_map: IndexingMap) -> dict[tuple[int, ...], tuple[int, ...]]:
    return {tuple(p.values()): indexing_map.evaluate(p) for p in indexing_map.domain_points()}


def _validate(a: IndexingMap | Undefined, b: IndexingMap | Undefined, *, pointwise: bool) -> None:
    for name, indexing_map in (("a", a), ("b", b)):
        if isinstance(indexing_map, Undefined):
            raise UsageError(f"map {name} is UNDEFINED (unknown indexing); it cannot be compared")


def _other_variables(a: IndexingMap, b: IndexingMap, *, pointwise: bool) -> bool:
    """Whether the maps have other shapes (dims, results) or, pointwise,
    other range or runtime variables — unless one is known empty (a range
    analysis of the constraints), which isl compares as it is."""
    same_shape = (a.num_dims, a.num_results) == (b.num_dims, b.num_results)
    same_symbols = (len(a.range_vars), len(a.rt_vars)) == (len(b.range_vars), len(b.rt_vars))
    comparable = same_shape and (same_symbols or not pointwise)
    return not (comparable or a.is_known_empty or b.is_known_empty)


def _compared_as_relations(a: IndexingMap, b: IndexingMap, budget: Budget) -> EquivalenceResult:
    """Maps with other variables, as relations.  Of other shapes, they are
    ``different``: a pair ``dims -> result`` the one map relates, which the
    other (of another rank) cannot — found by isl as the difference of the
    map with its own empty copy; ``vacuous`` when neither relates any.
    ``(d0) -> (d0)`` and ``(d0) -> (d0, d0)`` on ``d0 in [0, 3]`` differ at
    ``(0) -> (0)``, only in a.  With the same shape (pointwise, other
    symbols) the relations are compared, and a note says so."""
    if (a.num_dims, a.num_results) == (b.num_dims, b.num_results):
        result = check_equivalence(a, b, pointwise=False, budget=budget)
        note = (
            f"compared as relations: pointwise needs the same variables, but a has "
            f"{_header(a)} and b has {_header(b)}"
        )
        return replace(result, notes=(note, *result.notes), compared_as_relations=True)
    shape = (
        f"map a ({a.num_dims} dims -> {a.num_results} results) and map b ({b.num_dims} dims -> "
        f"{b.num_results} results) index different tensors"
    )
    sides: tuple[tuple[Literal["a", "b"], IndexingMap], ...] = (("a", a), ("b", b))
    for only_in, shown in sides:
        empty = shown.replaced(constraints=(*shown.constraints, (const(0), Interval(1, 1))))
        found = check_equivalence(shown, empty, budget=budget)
        if found.verdict is Verdict.UNKNOWN:
            return replace(found, notes=(shape, *found.notes))
        if isinstance(found.counterexample, RelationCounterexample):
            witness = replace(found.counterexample, only_in=only_in)
            return EquivalenceResult(Verdict.DIFFERENT, witness, (shape, *found.notes))
    return EquivalenceResult(Verdict.VACUOUS, notes=(shape,))


def _header(indexing_map: IndexingMap) -> str:
    return str(indexing_map).split(" ->", 1)[0]


def _describe(a: IndexingMap, b: IndexingMap, pointwise: bool) -> str:
    mode = "pointwise" if pointwise else "as relations"
    flat_a, flat_b = (" ".join(str(m).split()) for m in (a, b))
    return f"'{flat_a}' and '{flat_b}' ({mode})"


def _values(indexing_map: IndexingMap, named: dict[str, int]) -> dict[Var, int] | None:
    """The point as the map's variables, or `None` when it does not declare them all."""
    names = [v.name for v in indexing_map.all_variables]
    if sorted(names) != sorted(named):
        return None
    return {v: named[v.name] for v in indexing_map.all_variables}


def _pointwise_counterexample(
    a: IndexingMap, b: IndexingMap, decided: isl_questions.IslComparison
) -> PointwiseCounterexample:
    named = dict(decided.witness)
    results: list[tuple[int, ...] | None] = []
    for indexing_map in (a, b):
        values = _values(indexing_map, named)
        inside = values is not None and indexing_map.contains(values)
        results.append(indexing_map.evaluate(values) if values is not None and inside else None)
    if results[0] == results[1]:
        raise SolverError(
            f"isl's counterexample {named} for {_describe(a, b, True)} does not re-evaluate "
            "to a difference; this is a bug in the isl bridge — please report it"
        )
    return PointwiseCounterexample(decided.witness, results[0], results[1])


def _relation_counterexample(
    a: IndexingMap, b: IndexingMap, decided: isl_questions.IslComparison, budget: Budget
) -> tuple[RelationCounterexample, str]:
    """isl's witness, re-evaluated: the map it names relates it (Python), and
    the other does not (enumerating its symbols; z3 beyond that, unless the
    policy is ``none``).  The note says which witness confirmed it."""
    assert decided.only_in is not None
    shown, other = (a, b) if decided.only_in == "a" else (b, a)
    named = dict(decided.witness)
    dims = tuple(named[f"d{i}"] for i in range(shown.num_dims))
    result = tuple(named[f"r{i}"] for i in range(shown.num_results))
    symbols = tuple((v.name, named[v.name]) for v in shown.symbols)
    values = {var(VarKind.DIM, i): x for i, x in enumerate(dims)}
    values.update({v: named[v.name] for v in shown.symbols})
    problem, note = None, "python: re-evaluated"
    if not shown.contains(values) or shown.evaluate(values) != result:
        problem = f"map {decided.only_in} does not relate it"
    else:
        relates = _relates_by_enumeration(other, dims, result)
        if relates is True:
            problem = "the other map relates it too"
        elif relates is None and budget.cross_check is not CrossCheck.NONE:
            from verifier.bridges import z3 as z3_bridge  # only when it is asked, as above

            confirmed = z3_bridge.relates(other, dims, result, rlimit=budget.z3_rlimit)
            if confirmed is True:
                problem = "z3 finds the other map relates it too"
            note = "python: re-evaluated; z3: " + (
                "unknown (budget)" if confirmed is None else "agrees (different)"
            )
    if problem is not None:
        raise SolverError(
            f"isl's counterexample {named} for {_describe(a, b, False)} is wrong: {problem}; "
            "this is a bug in a solver bridge — please report it"
        )
    return RelationCounterexample(dims, result, decided.only_in, symbols), note


def _relates_by_enumeration(
    indexing_map: IndexingMap, dims: Sequence[int], result: Sequence[int]
) -> bool | None:
    """Whether the map relates ``dims -> result``, by enumerating its symbols;
    `None` when there are too many points to enumerate, or the map is too
    deep to compile.

    Symbols that no constraint or result links are enumerated apart: the map
    relates the point iff the dims are in their bounds, what mentions no
    symbol holds there, and each group of linked symbols has values for which
    what mentions the group holds.  ``(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1),
    domain: d0 in [0, 9], d1 in [0, 9], s0 in [0, 63], s1 in [0, 63]`` costs
    64 + 64 points, not 64 * 64.  A group's conditions are compiled to Python
    once, unless the whole box has so few points that evaluating them costs
    less than compiling.
    """
    if indexing_map.num_dims != len(dims) or indexing_map.num_results != len(result):
        return False
    variables = indexing_map.all_variables
    bounds = [indexing_map.bounds(v) for v in variables]
    dim_vars, symbols = variables[: len(dims)], variables[len(dims) :]
    ranges = {
        s: range(b.lower, b.upper + 1) for s, b in zip(symbols, bounds[len(dims) :], strict=True)
    }
    if math.prod(len(ranges[s]) for s in symbols) <= _INTERPRETED_POINTS:
        wanted = tuple(result)
        points = itertools.product(*([x] for x in dims), *(ranges[s] for s in symbols))
        return any(
            indexing_map.contains(values) and indexing_map.evaluate(values) == wanted
            for values in (dict(zip(variables, point, strict=True)) for point in points)
        )
    groups = _linked_groups(
        symbols,
        [*zip(dim_vars, bounds[: len(dims)], strict=True), *indexing_map.constraints],
        list(zip(indexing_map.results, result, strict=True)),
    )
    if sum(math.prod(len(ranges[s]) for s in g.symbols) for g in groups[1:]) > (
        _RELATES_ENUMERATION_LIMIT
    ):
        return None
    for group in groups:
        holds = point_predicate(
            [*dim_vars, *group.symbols], list(group.constraints), list(group.equations)
        )
        if holds is None:
            return None
        points = itertools.product(*([x] for x in dims), *(ranges[s] for s in group.symbols))
        if not any(itertools.starmap(holds, points)):
            return False
    return True  # the box has more than a few points: no symbol's range is empty


@dataclass(frozen=True)
class _LinkedGroup:
    """Symbols that conditions link, with those conditions; the group of no
    symbols holds the conditions on dims alone."""

    symbols: tuple[Var, ...]
    constraints: tuple[tuple[Expr, Interval], ...]
    equations: tuple[tuple[Expr, int], ...]


def _linked_groups(
    symbols: Sequence[Var],
    constraints: Sequence[tuple[Expr, Interval]],
    equations: Sequence[tuple[Expr, int]],
) -> list[_LinkedGroup]:
    """The conditions grouped by the `symbols` they link (two symbols one
    condition mentions are in one group; symbols in the order given): first
    the group of no symbols, always present, then one group per linked set.
    Symbols that no condition mentions are in no group."""
    parent: dict[Var, Var] = {}

    def root(symbol: Var) -> Var:
        while (up := parent.setdefault(symbol, symbol)) != symbol:
            parent[symbol] = parent[up]  # path halving
            symbol = up
        return symbol

    mentioned = [
        [v for v in variables_of(expr) if v.kind is not VarKind.DIM]
        for expr, _ in (*constraints, *equations)
    ]
    for linked in mentioned:
        for symbol in linked:
            parent[root(symbol)] = root(linked[0])
    members: dict[Var | None, list[Var]] = {None: []}
    for symbol in symbols:
        if symbol in parent:
            members.setdefault(root(symbol), []).append(symbol)
    keys = [root(linked[0]) if linked else None for linked in mentioned]
    constraint_keys, equation_keys = keys[: len(constraints)], keys[len(constraints) :]
    return [
        _LinkedGroup(
            tuple(group),
            tuple(c for k, c in zip(constraint_keys, constraints, strict=True) if k == key),
            tuple(e for k, e in zip(equation_keys, equations, strict=True) if k == key),
        )
        for key, group in members.items()
    ]


# ----------------------------------------------------------------- batches


@dataclass(frozen=True)
class BatchFailure:
    """A pair of a batch that could not be checked: bad text, bad usage, or
    (`internal`) a solver that failed or contradicted another — a bug,
    never the input's fault."""

    error: str
    internal: bool = False

    def to_json(self) -> dict[str, object]:
        return {"error": self.error}


MapInput: TypeAlias = IndexingMap | str

# A batch often repeats a map (the same map against several candidates, a
# pair sharing one side with the next): a text is parsed once, and an
# expression that other maps share is read once (`MapReader`).  A batch's
# maps are read before its workers start, which inherit them.
_parse_once = functools.lru_cache(maxsize=1 << 14)(MapReader().read)


# ... and a pair (152 of the 3,000 pairs of benchmarks/equivalence.py repeat
# an earlier pair of two different maps).  An answer depends on the pair
# and the budget alone (each isl question has a context of its own), so a
# repeated pair gets the answer it got.
# `ask`: the whole of `check_equivalence`, or (a batch in two steps) only
# what needs no solver (the rest `None`), or only the solver's part.
_Ask: TypeAlias = Literal["all", "without solver", "solver"]


@functools.lru_cache(maxsize=1 << 12)
def _check_pair(
    pair: tuple[MapInput, MapInput],
    *,
    pointwise: bool,
    budget: Budget,
    minimal: bool,
    ask: _Ask = "all",
) -> EquivalenceResult | BatchFailure | None:
    try:
        a, b = (_parse_once(m) if isinstance(m, str) else m for m in pair)
        if ask == "all":
            return check_equivalence(a, b, pointwise=pointwise, budget=budget, minimal=minimal)
        _validate(a, b, pointwise=pointwise)
        assert isinstance(a, IndexingMap) and isinstance(b, IndexingMap)
        answer = _answer_without_solver if ask == "without solver" else _answer_with_solver
        return answer(a, b, pointwise, budget, minimal)
    except SolverError as error:
        return BatchFailure(str(error), internal=True)
    except VerifierError as error:
        return BatchFailure(str(error))


R = TypeVar("R")


def _check_pairs(
    pairs: Sequence[tuple[MapInput, MapInput]],
    *,
    pointwise: bool,
    budget: Budget,
    minimal: bool,
    render: Callable[[EquivalenceResult], R],
    ask: Literal["all", "solver"] = "all",
) -> list[R | BatchFailure]:
    answers: list[R | BatchFailure] = []
    for pair in pairs:
        result = _check_pair(pair, pointwise=pointwise, budget=budget, minimal=minimal, ask=ask)
        assert result is not None, "a solver answers every pair"
        answers.append(result if isinstance(result, BatchFailure) else render(result))
    return answers


def _answers_without_solver(
    pairs: Sequence[tuple[MapInput, MapInput]],
    *,
    pointwise: bool,
    budget: Budget,
    minimal: bool,
    render: Callable[[EquivalenceResult], R],
) -> list[R | BatchFailure | None]:
    """`_check_pairs` for the pairs that need no solver; `None` for the others."""
    answers: list[R | BatchFailure | None] = []
    for pair in pairs:
        result = _check_pair(
            pair, pointwise=pointwise, budget=budget, minimal=minimal, ask="without solver"
        )
        answers.append(
            result if result is None or isinstance(result, BatchFailure) else render(result)
        )
    return answers


def _as_is(result: EquivalenceResult) -> EquivalenceResult:
    return result


# Fewer pairs than this are not worth a worker process: forking one and
# sending its results back costs about as much as checking this many (256
# turn-2 relation pairs of benchmarks/equivalence.py took more CPU time and
# more wall time on 2 workers than in one process; 1,000 took less of both).
_PAIRS_PER_WORKER = 256
# The last chunks a worker takes: a few milliseconds of work.
_SMALLEST_CHUNK = 8


@overload
def check_equivalence_batch(
    pairs: Iterable[tuple[MapInput, MapInput]],
    *,
    pointwise: bool = False,
    workers: int | None = None,
    budget: Budget = EQUIV_BUDGET,
    minimal: bool = True,
) -> list[EquivalenceResult | BatchFailure]: ...


@overload
def check_equivalence_batch(
    pairs: Iterable[tuple[MapInput, MapInput]],
    *,
    pointwise: bool = False,
    workers: int | None = None,
    budget: Budget = EQUIV_BUDGET,
    minimal: bool = True,
    render: Callable[[EquivalenceResult], R],
) -> list[R | BatchFailure]: ...


def check_equivalence_batch(
    pairs: Iterable[tuple[MapInput, MapInput]],
    *,
    pointwise: bool = False,
    workers: int | None = None,
    budget: Budget = EQUIV_BUDGET,
    minimal: bool = True,
    render: Callable[[EquivalenceResult], Any] = _as_is,
) -> list[Any]:
    """`check_equivalence` on every pair (maps or map text, parsed in the
    workers), on `workers` processes (default: every core), results in
    input order and the same whatever the number of workers; a pair that
    cannot be checked gives a `BatchFailure` instead of stopping the batch.
    `render` (a module-level function, so that it pickles) turns each
    result into what the caller wants of it (say its JSON line) where the
    result is made, in the worker: what is sent back is then only that, and
    the rendering runs on every core.
    """
    tasks = list(pairs)
    check = functools.partial(
        _check_pairs, pointwise=pointwise, budget=budget, minimal=minimal, render=render
    )
    workers = min(workers or os.cpu_count() or 1, len(tasks) // _PAIRS_PER_WORKER)
    if workers <= 1:
        return check(tasks)
    # The pairs that need no solver are answered here, before any worker
    # starts: a batch of them needs neither islpy nor a worker (the turn-2
    # relation pairs of benchmarks/equivalence.py), and the workers inherit
    # every map read here.
    answers = _answers_without_solver(
        tasks, pointwise=pointwise, budget=budget, minimal=minimal, render=render
    )
    left = [position for position, answer in enumerate(answers) if answer is None]
    solver = functools.partial(check, ask="solver")
    for position, answer in zip(
        left, _check_in_workers([tasks[i] for i in left], workers, solver), strict=True
    ):
        answers[position] = answer
    return answers


def _check_in_workers(
    tasks: list[tuple[MapInput, MapInput]],
    workers: int,
    check: Callable[[list[tuple[MapInput, MapInput]]], list[Any]],
) -> list[Any]:
    """`check` on the tasks, on up to `workers` forked processes."""
    workers = min(workers, len(tasks) // _PAIRS_PER_WORKER)
    if workers <= 1:
        return check(tasks)
    from verifier.bridges import isl_questions  # noqa: F401  (imported once, for every worker)
    from verifier.pool import worker_pool  # only for a batch worth the workers

    # Chunks of pairs that share map texts keep a pair and its repeats in
    # one worker's memo; each worker takes the next chunk when it is done.
    order = _sharing_order(tasks)
    chunks = [[tasks[i] for i in order[part]] for part in _guided_chunks(len(order), workers)]
    with worker_pool(workers) as pool:
        answers = [answer for chunk in pool.map(check, chunks) for answer in chunk]
    results = answers[:]
    for position, answer in zip(order, answers, strict=True):
        results[position] = answer
    return results


def _guided_chunks(count: int, workers: int) -> list[slice]:
    """`count` positions cut into consecutive chunks, each a share of what
    is left (guided self-scheduling): large first, so that there are few
    messages, smaller and smaller, so that the workers finish together.
    For 3,000 positions on 2 workers: 750, 562, 422, 316, 237, …, 8, 8.
    """
    chunks, start = [], 0
    while start < count:
        size = max(_SMALLEST_CHUNK, (count - start) // (2 * workers))
        chunks.append(slice(start, min(count, start + size)))
        start += size
    return chunks


def _sharing_order(tasks: Sequence[tuple[MapInput, MapInput]]) -> list[int]:
    """The positions of the pairs, with pairs linked by shared map texts (a
    map against several candidates, a candidate met again later) next to
    each other: groups in order of first appearance, input order within a
    group.  In input order the 3,000 pairs of benchmarks/equivalence.py
    repeat a text across 625 chunk boundaries (half of its repeats are a
    thousand pairs apart), each a parse again in another worker; grouped, 7.
    """
    parent: dict[object, object] = {}

    def root(key: object) -> object:
        parent.setdefault(key, key)
        while (up := parent[key]) != key:
            parent[key] = parent[up]  # path halving
            key = up
        return key

    keys = [tuple(m if isinstance(m, str) else id(m) for m in task) for task in tasks]
    for a, b in keys:
        parent[root(a)] = root(b)
    groups: dict[object, list[int]] = {}
    for position, (a, _) in enumerate(keys):
        groups.setdefault(root(a), []).append(position)
    return [position for group in groups.values() for position in group]
