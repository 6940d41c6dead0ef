"""Exact operand utilization, beside XLA's heuristic.

For one operand with the set of output→input maps M (each with the number
of use paths through it):

* **may read** = ``|(⋃ image(m)) ∩ shape(operand)|`` with range *and*
  runtime variables existential: every element some feasible runtime value
  can make the instruction read;
* **per execution** = the same count with the runtime operands' values fixed.
  A runtime variable is the value of one element of an index operand; the
  dynamic-slice's offsets are scalars (one value per execution), a gather's
  start index is read at ``(d0, 0)`` (one value per output row).  The answer
  is one number when it is the same for every assignment, else the exact
  ``Span`` (minimum, maximum), else `Unknown` ("depends on runtime values");
* **reads** = ``Σ multiplicity(m) * |domain(m)|`` over dims and range
  variables: the element reads of a naive evaluation (per execution, like
  the count above);
* **utilization** = distinct elements read per execution / operand elements.

A multi-output instruction is counted over all of its outputs (the union of
their maps; the reads of every output).  Worked example, ``f32[4,8]
slice(f32[10,20] p0), slice={[2:10:2], [0:16:2]}``: the map ``(d0, d1) ->
(d0 * 2 + 2, d1 * 2)`` reads ``{2, 4, 6, 8} × {0, 2, …, 14}``, 32 of 200
elements (4/25), once each; XLA's slice ratio is also 32/200:

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[10,20] parameter(0)
...   ROOT s = f32[4,8] slice(p0), slice={[2:10:2], [0:16:2]}
... }''')
>>> from verifier.analysis import InstructionError, ModuleMaps, isolated
>>> maps = ModuleMaps(module)
>>> (row,) = instruction_utilization(maps, module.entry, module.entry.root).operands
>>> row.may_read, row.per_execution, row.reads, row.utilization, row.xla_heuristic
(32, 32, 32, Fraction(4, 25), Fraction(4, 25))
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TypeAlias, TypeVar, assert_never

from verifier.analysis import InstructionError, ModuleMaps, isolated
from verifier.analysis.instruction_maps import (
    ComposedIndexing,
    CountedMap,
    InstructionMaps,
    MapKind,
    OperandLeaf,
    OutputLeaf,
    ToOperand,
)
from verifier.counting.exact import (
    closed_form_domain,
    closed_form_image,
    count_domain,
    count_image,
)
from verifier.counting.heuristic import elements, operand_utilizations
from verifier.errors import VerifierError
from verifier.expr import (
    Expr,
    IndexingMap,
    Undefined,
    Var,
    Variable,
    VarKind,
    const,
    interval_of,
    linear_terms,
    rt_var,
    substitute,
    variables_of,
)
from verifier.hlo import PLUMBING_OPCODES, Computation, Instruction, Shape

RUNTIME_DEPENDENT = "depends on runtime values"
REPEATED = "depends on runtime values produced more than once per execution"

# Joint assignments of scalar runtime values enumerated (each counted in
# closed form) before per execution is declared runtime-dependent.
ASSIGNMENT_LIMIT = 4096


@dataclass(frozen=True)
class Span:
    """The exact minimum and maximum over every runtime assignment."""

    minimum: int
    maximum: int


@dataclass(frozen=True)
class Unknown:
    """No exact answer, and why (unknown indexing, runtime values, budget)."""

    reason: str


ReadCount: TypeAlias = int | Span | Unknown
"""A count of elements or reads: exact, its span over runtime values, or unknown."""
_Counted = TypeVar("_Counted", int, ReadCount)


@dataclass(frozen=True)
class OperandUtilization:
    """The exact counts of one operand and XLA's heuristic utilization."""

    operand: int
    operand_name: str
    elements: int
    may_read: int | Unknown
    per_execution: ReadCount
    reads: ReadCount
    xla_heuristic: Fraction

    @property
    def distinct_read(self) -> int | None:
        """Distinct elements one execution reads, when that is one number."""
        return self.per_execution if isinstance(self.per_execution, int) else None

    @property
    def utilization(self) -> Fraction | None:
        if self.distinct_read is None:
            return None
        return Fraction(self.distinct_read, self.elements) if self.elements else Fraction(0)

    @property
    def heuristic_elements(self) -> Fraction:
        return self.xla_heuristic * self.elements

    @property
    def heuristic_vs_exact(self) -> Fraction | None:
        """XLA's elements / exact distinct elements (None when either is unknown,
        or the exact count is 0 and the heuristic is not)."""
        exact = self.distinct_read
        if exact is None:
            return None
        if exact == 0:
            return Fraction(1) if self.heuristic_elements == 0 else None
        return self.heuristic_elements / exact

    @property
    def disagreement(self) -> float:
        """How far the heuristic is from the exact count, as ``|log ratio|``:
        infinite when the exact count is 0 and the heuristic's is not, -1 when
        there is no exact count to compare with."""
        ratio = self.heuristic_vs_exact
        if ratio is None:
            return math.inf if self.distinct_read == 0 else -1.0
        return abs(math.log(ratio)) if ratio else math.inf


@dataclass(frozen=True)
class InstructionUtilization:
    name: str
    opcode: str
    operands: tuple[OperandUtilization, ...]

    @property
    def disagreement(self) -> float:
        return max((row.disagreement for row in self.operands), default=-1.0)


def instruction_utilization(
    maps: ModuleMaps, computation: Computation, instruction: Instruction
) -> InstructionUtilization:
    """Every operand's counts (fusions composed through their computation).

    Reads come from the reads maps (`ModuleMaps.reads`), which keep the
    range variables relation simplification drops when they do not change
    the relation (a reduce of a broadcast reads its operand once per
    reduced element); distinct elements from any maps of the same relation.
    The cheapest maps are tried first (`_Sources.closed_form`); the
    simplified maps, which more often are strided boxes, are composed only
    when those are not counted in closed form."""
    view = maps.instruction(computation, instruction)
    heuristic = operand_utilizations(maps.module, computation, instruction)
    repeated = maps.module.repeated_instructions(instruction)
    sources = _Sources(view)
    rows = []
    for number, operand in enumerate(computation.operand_instructions(instruction)):
        counts = [
            sources.closed_form(leaf)
            or _leaf_counts(
                sources.per_output("simplified", leaf),
                sources.per_output("reads", leaf),
                leaf.shape,
                repeated,
            )
            for leaf in view.operands
            if leaf.operand == number
        ]
        may_read = _sum_of(c[0] for c in counts)
        assert not isinstance(may_read, Span), "may read is one number, or unknown"
        per_execution, reads = _sum_of(c[1] for c in counts), _sum_of(c[2] for c in counts)
        rows.append(
            OperandUtilization(
                number,
                operand.name,
                elements(operand.shape),
                may_read,
                per_execution,
                reads,
                heuristic[number],
            )
        )
    return InstructionUtilization(instruction.name, instruction.opcode, tuple(rows))


def module_utilization(
    maps: ModuleMaps,
    instructions: Iterable[Instruction] | None = None,
    *,
    on_error: Callable[[InstructionError], None] | None = None,
) -> tuple[InstructionUtilization, ...]:
    """Utilization of `instructions` of the entry computation, largest
    disagreement with XLA first.  By default every instruction that reads
    elements: not the plumbing (`tuple`, `get-tuple-element`), which moves
    none.  With `on_error`, an instruction whose counts raise is passed to
    it (`verifier.analysis.isolated`) and left out, the others are counted;
    without it the exception propagates."""
    module = maps.module
    if instructions is None:
        instructions = [
            i for i in module.entry.instructions if i.operands and i.opcode not in PLUMBING_OPCODES
        ]
    results = []
    for instruction in instructions:

        def count(instruction: Instruction = instruction) -> InstructionUtilization:
            return instruction_utilization(maps, module.entry, instruction)

        result = isolated(instruction, count, on_error)
        if result is not None:
            results.append(result)
    ordered = [
        replace(r, operands=tuple(sorted(r.operands, key=lambda o: -o.disagreement)))
        for r in results
    ]
    return tuple(sorted(ordered, key=lambda r: -r.disagreement))


# A fusion or call of at most this many instructions (its computations and
# those they call) is counted from its raw composition first: simplifying
# each step costs more than the few raw steps save, and the raw text, which
# can double at each reshape of a chain, stays small.
RAW_LIMIT = 8


def _raw_is_cheap(view: InstructionMaps) -> bool:
    """Whether `view`'s raw maps are cheap: an op's own, or composed
    through at most `RAW_LIMIT` instructions of a fusion or call."""
    instruction = view.instruction
    if not view.composed:
        return True
    if instruction.opcode not in ("fusion", "call"):
        return False
    module = view.module_maps.module
    pending = list(instruction.called_computations)
    total = 0
    while pending:
        computation = module.computation(pending.pop())
        total += len(computation.instructions)
        if total > RAW_LIMIT:
            return False
        pending += [name for i in computation.instructions for name in i.called_computations]
    return True


class _Sources:
    """An instruction's maps per operand leaf and output, composed when
    first asked, cheapest first: the ``raw`` maps (as the rules give them,
    not simplified; a composition's raw text can double at each reshape of
    a chain, so only for an op's own maps and small fusions,
    `_raw_is_cheap`), the ``reads`` maps (composed and simplified pointwise),
    the ``simplified`` maps (relations)."""

    def __init__(self, view: InstructionMaps) -> None:
        self.view = view
        self._asked: dict[MapKind, list[dict[OperandLeaf, ComposedIndexing]]] = {}

    def per_output(self, kind: MapKind, leaf: OperandLeaf) -> list[ComposedIndexing]:
        """`leaf`'s maps of `kind`, one entry per output of the instruction."""
        found = self._asked.get(kind)
        if found is None:
            view = self.view
            ask: Callable[[OutputLeaf], tuple[ToOperand, ...]] = (
                view.reads
                if kind == "reads"
                else functools.partial(view.o2i, simplified=kind == "simplified")
            )
            found = self._asked[kind] = [dict(ask(output)) for output in view.outputs]
        return [composed[leaf] for composed in found]

    def closed_form(self, leaf: OperandLeaf) -> tuple[int, int, int] | None:
        """``(may read, per execution, reads)`` of `leaf` in closed form from
        the first maps (raw when cheap, else the reads maps) with no
        runtime variable whose images are strided boxes and whose domains
        are unions of them: every point of such a domain is one read, and
        the image is the same set whatever the maps' simplification; else
        None (counted by `operand_counts`)."""
        kind: MapKind = "raw" if _raw_is_cheap(self.view) else "reads"
        maps, undefined = _union(self.per_output(kind, leaf))
        if undefined is not None or any(c.map.rt_vars for c in maps):
            return None
        distinct = closed_form_image([c.map for c in maps], leaf.shape.dimensions)
        if distinct is None:
            return None
        reads = 0
        for counted in maps:
            points = closed_form_domain(counted.map)
            if points is None:
                return None
            reads += counted.multiplicity * points
        return distinct, distinct, reads


def _union(indexings: Iterable[ComposedIndexing]) -> tuple[list[CountedMap], Undefined | None]:
    """The maps of every output, or the reason one of them is unknown."""
    maps: list[CountedMap] = []
    for indexing in indexings:
        if isinstance(indexing.maps, Undefined):
            return [], indexing.maps
        maps += indexing.maps
    return maps, None


def _leaf_counts(
    per_output: Sequence[ComposedIndexing],
    raw_per_output: Sequence[ComposedIndexing],
    shape: Shape,
    repeated: frozenset[str],
) -> tuple[ReadCount, ReadCount, ReadCount]:
    """``(may read, per execution, reads)`` of one array of an operand.

    The reads maps keep every variable of every use path, so a loop's
    unions of them can pass its limit where the simplified maps do not:
    then the distinct elements are known and the other two are not."""
    maps, undefined = _union(per_output)
    if undefined is not None:
        return _unknown_indexing(undefined)
    raw_maps, raw_undefined = _union(raw_per_output)
    if raw_undefined is not None:
        _, per_execution, reads = _unknown_indexing(raw_undefined)
        return _distinct(maps, shape.dimensions), per_execution, reads
    return operand_counts(maps, raw_maps, shape, repeated)


def _sum_of(answers: Iterable[ReadCount]) -> ReadCount:
    """The total over the arrays of an operand: exact when each is one
    number; the first unknown otherwise (the extremes of a sum are not the
    sums of the extremes when the arrays share runtime values)."""
    listed = list(answers)
    if len(listed) == 1:
        return listed[0]
    total = 0
    for answer in listed:
        match answer:
            case int():
                total += answer
            case Unknown():
                return answer
            case Span():
                return Unknown("depends on runtime values in several arrays of a tuple")
            case _:
                assert_never(answer)
    return total


def _unknown_indexing(undefined: Undefined) -> tuple[Unknown, Unknown, Unknown]:
    unknown = Unknown(f"unknown indexing ({undefined.reason or 'UNDEFINED'})")
    return unknown, unknown, unknown


# ---------------------------------------------------------------- counting


def operand_counts(
    maps: Sequence[CountedMap],
    raw_maps: Sequence[CountedMap],
    shape: Shape | Unknown,
    repeated: frozenset[str],
) -> tuple[int | Unknown, ReadCount, ReadCount]:
    """``(may read, per execution, reads)`` of an operand of `shape` read
    through `maps` (simplified and merged: the relation) and `raw_maps` (as
    composed, simplified pointwise, every variable kept: the reads, and the
    runtime variables per execution fixes, which the relation may project
    out: ``d0 - rt0 in [1, 4]`` reads the rows below a runtime offset, the
    relation any row but the first).

    A runtime variable produced by one of the `repeated` instructions
    (`Module.repeated_instructions` of the instruction counted) has a value
    per run of it: the maps
    composed through a loop carry one such variable per iteration, those
    composed through two calls of one computation one per call, all with
    the same source, so fixing "the" value of that source would put every
    iteration's (call's) window at one offset.  Per execution, and reads
    when their domain moves with the values, are then `REPEATED`."""
    if isinstance(shape, Unknown):
        return shape, shape, shape
    dimensions = shape.dimensions
    # Each answer stands alone: reads counted over a domain too large for
    # isl's budget leave the distinct elements read known.
    may_read = _distinct(maps, dimensions)
    repeated_values = any(
        v.source is not None and v.source.instruction in repeated
        for c in raw_maps
        for v in c.map.rt_vars
    )
    per_execution: ReadCount = may_read
    if repeated_values:
        per_execution = Unknown(REPEATED)
    elif any(c.map.rt_vars for c in raw_maps):
        per_execution = _or_unknown(lambda: _per_execution(raw_maps, dimensions))
    reads: ReadCount
    if not any(_rt_in_constraints(c.map) for c in raw_maps):
        reads = _or_unknown(lambda: _total_reads(raw_maps))
    elif repeated_values:
        reads = Unknown(REPEATED)
    else:
        reads = _or_unknown(lambda: _reads(raw_maps))
    return may_read, per_execution, reads


def _distinct(maps: Sequence[CountedMap], dimensions: Sequence[int]) -> int | Unknown:
    """May read: the elements of the union of the maps' images."""
    count: int | Unknown = _or_unknown(lambda: count_image([c.map for c in maps], dimensions).value)
    return count


def _or_unknown(count: Callable[[], _Counted]) -> _Counted | Unknown:
    """`count()`, or ``unknown (why)`` when it raises a `VerifierError`
    (isl's budget exhausted, a count past int64, an unsupported map)."""
    try:
        return count()
    except VerifierError as error:
        return Unknown(f"unknown ({error})")


def _total_reads(maps: Sequence[CountedMap]) -> int:
    return sum(c.multiplicity * count_domain(c.map).value for c in maps)


def _reads(maps: Sequence[CountedMap]) -> ReadCount:
    """Σ multiplicity * |domain| per execution when a constraint mentions a
    runtime variable (the domain over dims and range variables moves with
    the values; when none does, `_total_reads` is the one answer): each
    map's domain is counted once per assignment of its own runtime values
    (`_over_assignments` hands the same fixed map to every joint assignment
    that agrees on them), and the joint assignments only add those counts
    up."""
    sizes: dict[IndexingMap, int] = {}

    def size(indexing_map: IndexingMap) -> int:
        found = sizes.get(indexing_map)
        if found is None:
            found = sizes[indexing_map] = count_domain(indexing_map).value
        return found

    return _over_assignments(maps, lambda fixed: sum(c.multiplicity * size(c.map) for c in fixed))


def _per_execution(maps: Sequence[CountedMap], dimensions: Sequence[int]) -> ReadCount:
    if not all(_scalar_source(v) is not None for c in maps for v in c.map.rt_vars):
        return _per_row(maps, dimensions)
    if len(maps) == 1 and _translation_invariant(maps[0].map, dimensions):
        return count_image([_at_lower_bounds(maps[0].map)], dimensions).value

    def distinct(fixed: Sequence[CountedMap]) -> int:
        return count_image([c.map for c in fixed], dimensions).value

    return _over_assignments(maps, distinct)


_ScalarKey: TypeAlias = tuple[str, tuple[int, ...], int, int]


def _scalar_source(variable: Variable) -> _ScalarKey | None:
    """``(instruction, index read, lower, upper)`` of a runtime variable read at
    one fixed index (the same value wherever the map is evaluated); None for
    one read at a varying index, or of unknown origin."""
    source = variable.source
    if source is None:
        return None
    index_map = source.index_map
    point: list[int] = []
    for result in index_map.results:
        values = interval_of(result, index_map.bounds)
        if not values.is_point:
            return None
        point.append(values.lower)
    return (source.instruction, tuple(point), variable.bounds.lower, variable.bounds.upper)


def _over_assignments(
    maps: Sequence[CountedMap], measure: Callable[[Sequence[CountedMap]], int]
) -> ReadCount:
    """`measure` of the maps for every joint assignment of their runtime
    variables, each one scalar per execution (the same source element is the
    same value in every map): one number, or the span, when there are at
    most `ASSIGNMENT_LIMIT` assignments.

    A map is fixed once per assignment of its *own* runtime values, and
    that one fixed map is handed to every joint assignment agreeing on them:
    the union of a scan's maps over all of its outputs reads several
    counters, each map only one or two of them (a held-out training step
    with a 2-unrolled scan: 729 joint assignments of 141 maps, 1,225
    fixed maps instead of 102,789)."""
    keys: list[_ScalarKey] = []
    own_keys: list[tuple[int, ...]] = []
    for c in maps:
        own: list[int] = []
        for variable in c.map.rt_vars:
            key = _scalar_source(variable)
            if key is None:
                return Unknown(RUNTIME_DEPENDENT)
            if key not in keys:
                keys.append(key)
            own.append(keys.index(key))
        own_keys.append(tuple(own))
    if len({key[:2] for key in keys}) != len(keys):
        # One source element clamped into different ranges: the variables are
        # related in a way the maps do not state.
        return Unknown(RUNTIME_DEPENDENT)
    if math.prod(key[3] - key[2] + 1 for key in keys) > ASSIGNMENT_LIMIT:
        return Unknown(RUNTIME_DEPENDENT)
    fixed: dict[tuple[int, tuple[int, ...]], CountedMap] = {}

    def fix(position: int, assignment: tuple[int, ...]) -> CountedMap:
        values = tuple(assignment[k] for k in own_keys[position])
        found = fixed.get((position, values))
        if found is None:
            found = fixed[position, values] = _fix(maps[position], values)
        return found

    return _span(
        [
            measure([fix(position, assignment) for position in range(len(maps))])
            for assignment in itertools.product(*(range(key[2], key[3] + 1) for key in keys))
        ]
    )


def _span(values: Sequence[int]) -> int | Span:
    low, high = min(values), max(values)
    return low if low == high else Span(low, high)


def _fix(counted: CountedMap, values: Sequence[int]) -> CountedMap:
    """The map with its runtime variable number ``i`` replaced by ``values[i]``."""
    table: dict[Var, Expr] = {rt_var(index): const(value) for index, value in enumerate(values)}
    return CountedMap(_substituted(counted.map, table), counted.multiplicity)


def _substituted(indexing_map: IndexingMap, table: dict[Var, Expr]) -> IndexingMap:
    """The map with its runtime variables replaced (`table`), and dropped."""

    def value(v: Var) -> Expr:
        return table.get(v, v)

    return indexing_map.replaced(
        results=[substitute(r, value) for r in indexing_map.results],
        constraints=[(substitute(e, value), b) for e, b in indexing_map.constraints],
        rt_vars=(),
    )


def _rt_in_constraints(indexing_map: IndexingMap) -> bool:
    return any(v.kind is VarKind.RT for e, _ in indexing_map.constraints for v in variables_of(e))


def _translation_invariant(indexing_map: IndexingMap, dimensions: Sequence[int]) -> bool:
    """Whether the image only moves with the runtime values: no constraint
    mentions them, each enters the results as an added term, and the image
    stays inside the operand for every value — so its size is the same for
    every assignment."""
    if _rt_in_constraints(indexing_map):
        return False
    for result, size in zip(indexing_map.results, dimensions, strict=True):
        terms, _ = linear_terms(result)
        for base in terms:
            if not isinstance(base, Var) and any(v.kind is VarKind.RT for v in variables_of(base)):
                return False
        values = interval_of(result, indexing_map.bounds)
        if values.lower < 0 or values.upper >= size:
            return False
    return True


def _per_row(maps: Sequence[CountedMap], dimensions: Sequence[int]) -> ReadCount:
    """A gather-like read: runtime values read at an index that depends on
    some dims ``B`` (the rows), the operand elements on the other dims and
    the values only.  Every row may pick any feasible value, independently
    of the others unless they read the same index element.

    Minimum: every row picks the same value, one translate ``S`` of the
    slice.  Maximum, when different values give disjoint translates (each
    runtime value is alone in its result, as in ``(rt0, d2)``): ``min(K, C) *
    |S|`` for ``K`` distinct index elements and ``C`` feasible values.
    Otherwise the answer depends on the values.
    """
    depends = Unknown(RUNTIME_DEPENDENT)
    if len(maps) != 1:
        return depends
    indexing_map = maps[0].map
    sources = [v.source for v in indexing_map.rt_vars]
    if any(s is None for s in sources) or not _translation_invariant(indexing_map, dimensions):
        return depends
    index_maps = [s.index_map for s in sources if s is not None]
    first = index_maps[0]
    if any(
        m.range_vars or m.rt_vars or m.dims != first.dims or m.constraints != first.constraints
        for m in index_maps
    ):
        return depends
    relevant = [
        index
        for index in range(len(indexing_map.rt_vars))
        if any(rt_var(index) in variables_of(r) for r in indexing_map.results)
    ]
    rows: set[Var] = set()
    for m in index_maps:
        for result in m.results:
            rows |= variables_of(result)
    used: set[Var] = set()
    for expr in (*indexing_map.results, *(e for e, _ in indexing_map.constraints)):
        used |= variables_of(expr)
    if rows & used:
        return depends
    slice_size = count_image([_at_lower_bounds(indexing_map)], dimensions).value
    # Different values give disjoint translates when every result that moves
    # with a runtime value is that value alone (times a constant, plus one).
    for result in indexing_map.results:
        moving = {v for v in variables_of(result) if v.kind is VarKind.RT}
        if moving and len(linear_terms(result)[0]) != 1:
            return depends
    read_at = first.replaced(results=[r for k in relevant for r in index_maps[k].results])
    extents = [interval_of(r, read_at.bounds) for r in read_at.results]
    if any(e.lower < 0 for e in extents):
        return depends
    distinct_rows = count_image([read_at], [e.upper + 1 for e in extents]).value
    # Rows must pick their values independently: no two rows with different
    # index tuples may share one index element (``(d0, 0)`` and ``(d0, 1)``
    # share none; ``(d0 floordiv 2, 0)`` beside ``(d0, 1)`` would).
    for k in relevant:
        single = first.replaced(results=index_maps[k].results)
        sizes = [interval_of(r, single.bounds).upper + 1 for r in single.results]
        if count_image([single], sizes).value != distinct_rows:
            return depends
    values = math.prod(indexing_map.rt_vars[k].bounds.size for k in relevant)
    return _span([slice_size, min(distinct_rows, values) * slice_size])


def _at_lower_bounds(indexing_map: IndexingMap) -> IndexingMap:
    """The map with every runtime variable fixed at its lowest value."""
    table: dict[Var, Expr] = {
        rt_var(k): const(v.bounds.lower) for k, v in enumerate(indexing_map.rt_vars)
    }
    return _substituted(indexing_map, table)
