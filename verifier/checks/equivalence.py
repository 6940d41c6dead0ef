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

isl decides.  z3 answers the same question independently; a disagreement is
a `SolverError` (a bug in a bridge or a solver), never a silent pick.  A
counterexample is isl's point with the smallest ``Σ|d_i|`` (then the
smallest symbols), re-evaluated with the plain Python evaluator before it is
returned.  Both domains empty is ``vacuous``, never ``equal``.

>>> from verifier.expr.parser import parse_map
>>> a = parse_map("(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), "
...               "domain: d0 in [0, 6], d1 in [0, 14]")
>>> b = parse_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]")
>>> check_equivalence(a, b, pointwise=True).verdict
<Verdict.EQUAL: 'equal'>
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from verifier.bridges import isl as isl_bridge
from verifier.bridges import z3 as z3_bridge
from verifier.checks.verdict import Verdict
from verifier.errors import SolverError, UsageError, VerifierError
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.nodes import Var, VarKind, var
from verifier.expr.parser import parse_map

# The symbol box of the *other* map that the Python re-evaluation of a
# relation counterexample enumerates (beyond it, z3 confirms instead).
_ENUMERATION_LIMIT = 1 << 12


@dataclass(frozen=True)
class Budget:
    """Deterministic solver budgets for one question (isl operations, z3
    resource units); exhausting either is an ``unknown`` answer."""

    isl_operations: int = isl_bridge.DEFAULT_MAX_OPERATIONS
    z3_rlimit: int = z3_bridge.DEFAULT_RLIMIT


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
    """The verdict, a counterexample when ``different``, and what each solver
    said (e.g. ``"z3: unknown (max. resource limit exceeded)"``)."""

    verdict: Verdict
    counterexample: Counterexample | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """``{"verdict": "different", "counterexample": {...}}`` (DESIGN.md's shape)."""
        shape: dict[str, object] = {"verdict": self.verdict.value}
        if self.counterexample is not None:
            shape["counterexample"] = self.counterexample.to_json()
        return shape


def check_equivalence(
    a: IndexingMap | Undefined,
    b: IndexingMap | Undefined,
    *,
    pointwise: bool = False,
    budget: Budget = Budget(),
    cross_check: bool = True,
) -> EquivalenceResult:
    """Whether `a` and `b` are equal (as relations, or `pointwise`).

    Maps of different shapes (numbers of dims and results; pointwise also
    range and runtime variables) cannot be compared and raise `UsageError`,
    unless one is known empty.  With `cross_check` (the default) z3 must
    agree with isl, or `SolverError` is raised.
    """
    _validate(a, b, pointwise=pointwise)
    assert isinstance(a, IndexingMap) and isinstance(b, IndexingMap)
    compare_isl = isl_bridge.compare_pointwise if pointwise else isl_bridge.compare_relations
    decided = compare_isl(a, b, max_operations=budget.isl_operations)
    opinion: z3_bridge.Z3Answer | None = None
    if cross_check:
        compare_z3 = z3_bridge.compare_pointwise if pointwise else z3_bridge.compare_relations
        opinion = compare_z3(a, b, rlimit=budget.z3_rlimit)
    notes = _z3_notes(opinion)
    if decided.differs is None:
        return EquivalenceResult(Verdict.UNKNOWN, notes=("isl: operation budget exhausted", *notes))
    if opinion is not None and opinion.differs is not None and opinion.differs != decided.differs:
        raise SolverError(
            f"isl and z3 disagree on whether {_describe(a, b, pointwise)} are equal: "
            f"isl says {'different' if decided.differs else 'equal'}, "
            f"z3 says {'different' if opinion.differs else 'equal'}"
            f"{f' (z3 witness {dict(opinion.witness)})' if opinion.witness else ''}; "
            "this is a bug in a solver bridge — please report it with both maps"
        )
    if not decided.differs:
        return EquivalenceResult(Verdict.VACUOUS if decided.vacuous else Verdict.EQUAL, notes=notes)
    if pointwise:
        counterexample: Counterexample = _pointwise_counterexample(a, b, decided)
    else:
        counterexample = _relation_counterexample(a, b, decided, budget, cross_check)
    return EquivalenceResult(Verdict.DIFFERENT, counterexample, notes)


def _validate(a: IndexingMap | Undefined, b: IndexingMap | Undefined, *, pointwise: bool) -> None:
    for name, indexing_map in (("a", a), ("b", b)):
        if isinstance(indexing_map, Undefined):
            raise UsageError(f"map {name} is UNDEFINED (unknown indexing); it cannot be compared")
    assert isinstance(a, IndexingMap) and isinstance(b, IndexingMap)
    if a.is_known_empty or b.is_known_empty:
        return
    if (a.num_dims, a.num_results) != (b.num_dims, b.num_results):
        raise UsageError(
            f"cannot compare map a ({a.num_dims} dims -> {a.num_results} results) with "
            f"map b ({b.num_dims} dims -> {b.num_results} results): they index different tensors"
        )
    if pointwise and (len(a.range_vars), len(a.rt_vars)) != (len(b.range_vars), len(b.rt_vars)):
        raise UsageError(
            f"pointwise comparison needs the same variables, but a has {_header(a)} and b has "
            f"{_header(b)}; compare them as relations instead (without pointwise)"
        )


def _header(indexing_map: IndexingMap) -> str:
    return str(indexing_map).split(" ->", 1)[0]


def _describe(a: IndexingMap, b: IndexingMap, pointwise: bool) -> str:
    mode = "pointwise" if pointwise else "as relations"
    flat_a, flat_b = (" ".join(str(m).split()) for m in (a, b))
    return f"'{flat_a}' and '{flat_b}' ({mode})"


def _z3_notes(opinion: z3_bridge.Z3Answer | None) -> tuple[str, ...]:
    if opinion is None:
        return ("z3: not run",)
    if opinion.differs is None:
        return (f"z3: unknown ({opinion.reason})",)
    return (f"z3: agrees ({'different' if opinion.differs else 'equal'})",)


def _values(indexing_map: IndexingMap, named: dict[str, int]) -> dict[Var, int] | None:
    """The point as the map's variables, or `None` when it does not declare them all."""
    names = [v.name for v in indexing_map.all_variables]
    if sorted(names) != sorted(named):
        return None
    return {v: named[v.name] for v in indexing_map.all_variables}


def _pointwise_counterexample(
    a: IndexingMap, b: IndexingMap, decided: isl_bridge.IslComparison
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
    a: IndexingMap,
    b: IndexingMap,
    decided: isl_bridge.IslComparison,
    budget: Budget,
    cross_check: bool,
) -> RelationCounterexample:
    assert decided.only_in is not None
    shown, other = (a, b) if decided.only_in == "a" else (b, a)
    named = dict(decided.witness)
    dims = tuple(named[f"d{i}"] for i in range(shown.num_dims))
    result = tuple(named[f"r{i}"] for i in range(shown.num_results))
    symbols = tuple((v.name, named[v.name]) for v in shown.symbols)
    values = {var(VarKind.DIM, i): x for i, x in enumerate(dims)}
    values.update({v: named[v.name] for v in shown.symbols})
    problem = None
    if not shown.contains(values) or shown.evaluate(values) != result:
        problem = f"map {decided.only_in} does not relate it"
    elif _relates_by_enumeration(other, dims, result):
        problem = "the other map relates it too"
    elif cross_check and z3_bridge.relates(other, dims, result, rlimit=budget.z3_rlimit):
        problem = "z3 finds the other map relates it too"
    if problem is not None:
        raise SolverError(
            f"isl's counterexample {named} for {_describe(a, b, False)} is wrong: {problem}; "
            "this is a bug in a solver bridge — please report it"
        )
    return RelationCounterexample(dims, result, decided.only_in, symbols)


def _relates_by_enumeration(
    indexing_map: IndexingMap, dims: Sequence[int], result: Sequence[int]
) -> bool:
    """Whether the map relates ``dims -> result``, by enumerating its symbols
    (`False` also when the box is too large to enumerate: z3 decides then)."""
    if indexing_map.num_dims != len(dims) or indexing_map.num_results != len(result):
        return False
    symbols = indexing_map.symbols
    ranges = [
        range(indexing_map.bounds(s).lower, indexing_map.bounds(s).upper + 1) for s in symbols
    ]
    size = 1
    for r in ranges:
        size *= len(r)
    if size > _ENUMERATION_LIMIT:
        return False
    values = {var(VarKind.DIM, i): x for i, x in enumerate(dims)}
    for point in itertools.product(*ranges):
        values.update(zip(symbols, point, strict=True))
        if indexing_map.contains(values) and indexing_map.evaluate(values) == tuple(result):
            return True
    return False


# ----------------------------------------------------------------- batches


@dataclass(frozen=True)
class BatchFailure:
    """A pair of a batch that could not be checked (bad text, bad usage)."""

    error: str

    def to_json(self) -> dict[str, object]:
        return {"error": self.error}


MapInput: TypeAlias = IndexingMap | str


def _check_pair(
    pair: tuple[MapInput, MapInput], *, pointwise: bool, budget: Budget, cross_check: bool
) -> EquivalenceResult | BatchFailure:
    try:
        a, b = (parse_map(m) if isinstance(m, str) else m for m in pair)
        return check_equivalence(a, b, pointwise=pointwise, budget=budget, cross_check=cross_check)
    except VerifierError as error:
        return BatchFailure(str(error))


def check_equivalence_batch(
    pairs: Iterable[tuple[MapInput, MapInput]],
    *,
    pointwise: bool = False,
    workers: int = 2,
    budget: Budget = Budget(),
    cross_check: bool = True,
) -> list[EquivalenceResult | BatchFailure]:
    """`check_equivalence` on every pair (maps or map text, parsed in the
    workers), on `workers` processes, results in input order; a pair that
    cannot be checked gives a `BatchFailure` instead of stopping the batch.
    """
    tasks = list(pairs)
    check = functools.partial(
        _check_pair, pointwise=pointwise, budget=budget, cross_check=cross_check
    )
    if workers <= 1 or len(tasks) < 2:
        return [check(task) for task in tasks]
    # fork: workers inherit the imported modules and interned nodes, so a
    # batch pays no start-up imports (spawn would cost ~1 s per worker).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, len(tasks) // (workers * 8))
    with context.Pool(workers) as pool:
        return pool.map(check, tasks, chunksize=chunk)
