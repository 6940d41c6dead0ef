"""The bitcast check: a bitcast reinterprets the same buffer, so it is valid
when every logical element keeps its physical offset and both buffers have
the same number of slots (tile padding included).

Three questions, each with a witness: the two physical sizes are equal; the
offsets of the operand's logical elements are exactly the offsets of the
output's (no element lands on padding or past the end); and, when the
bitcast's output→input map is known, output element ``o`` and the operand
element it reads, ``m(o)``, have the same offset.

``f32[3,5]{1,0:T(2,2)}`` (24 slots) bitcast to ``f32[15]{0}``:

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr.indexing_map import Undefined
>>> from verifier.hlo.shape import parse_shape
>>> result = check_bitcast(parse_shape("f32[3,5]{1,0:T(2,2)}"), parse_shape("f32[15]{0}"),
...                        Undefined("tiled"), MemoryCache())
>>> result.outcome.value, result.message
('refuted', 'operand element (2, 2) is at offset 16, where the output has no element')
"""

from __future__ import annotations

from verifier.checks.cache import ProofCache, cached
from verifier.checks.equivalence import (
    Budget,
    PointwiseCounterexample,
    RelationCounterexample,
    check_equivalence,
)
from verifier.checks.result import DEFAULT_BUDGET, CheckResult, tuple_text, union_key
from verifier.checks.verdict import Outcome, Verdict
from verifier.expr.evaluate import substitute
from verifier.expr.indexing_map import IndexingMap, Undefined, compose
from verifier.expr.nodes import Expr, Var, VarKind, range_var
from verifier.hlo.shape import Shape
from verifier.indexing.layout import physical_offset, physical_size
from verifier.indexing.registry import Indexing

CHECK = "bitcast"


def check_bitcast(
    operand: Shape,
    output: Shape,
    output_to_input: Indexing,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
) -> CheckResult:
    """Whether ``output = bitcast(operand)`` keeps every element in place."""
    try:
        operand_offset, output_offset = physical_offset(operand), physical_offset(output)
        sizes = physical_size(operand), physical_size(output)
    except ValueError as error:
        return CheckResult(Outcome.UNSUPPORTED, f"layout not modelled: {error}")
    known = "" if isinstance(output_to_input, Undefined) else union_key(output_to_input)
    key = f"{CHECK}|{operand}|{output}|{known}"

    def ask() -> dict[str, object]:
        return _decide(operand_offset, output_offset, sizes, output_to_input, budget).to_answer()

    return CheckResult.from_answer(cached(cache, key, ask))


def _decide(
    operand_offset: IndexingMap,
    output_offset: IndexingMap,
    sizes: tuple[int, int],
    output_to_input: Indexing,
    budget: Budget,
) -> CheckResult:
    placed = _elements_placed(operand_offset, output_offset, budget)
    if placed.outcome is not Outcome.PROVED:
        return placed
    if not isinstance(output_to_input, Undefined):
        if len(output_to_input) != 1:
            return CheckResult(
                Outcome.REFUTED, f"a bitcast reads one element, not {len(output_to_input)} maps"
            )
        kept = _offsets_kept(output_to_input[0], operand_offset, output_offset, budget)
        if kept.outcome is not Outcome.PROVED:
            return kept
    if sizes[0] != sizes[1]:
        return CheckResult(
            Outcome.REFUTED,
            f"the operand's buffer has {sizes[0]} slots and the output's {sizes[1]}",
            (("operand_slots", sizes[0]), ("output_slots", sizes[1])),
        )
    return CheckResult(Outcome.PROVED, f"every element keeps its offset in {sizes[0]} slots")


def _as_symbols(offset: IndexingMap) -> IndexingMap:
    """``(d…) -> (offset)`` as ``()[s…] -> (offset)``: the set of offsets of
    the logical elements, the element as the witness symbols."""

    def to_symbol(variable: Var) -> Expr:
        return range_var(variable.index) if variable.kind is VarKind.DIM else variable

    return IndexingMap.create(
        [],
        [substitute(result, to_symbol) for result in offset.results],
        range_vars=offset.dims,
    )


def _elements_placed(
    operand_offset: IndexingMap, output_offset: IndexingMap, budget: Budget
) -> CheckResult:
    answer = check_equivalence(
        _as_symbols(operand_offset), _as_symbols(output_offset), budget=budget
    )
    if answer.verdict is Verdict.UNKNOWN:
        return CheckResult(Outcome.UNKNOWN, "solver budget exhausted: " + "; ".join(answer.notes))
    if answer.verdict is Verdict.VACUOUS:
        return CheckResult(Outcome.VACUOUS, "no logical elements")
    if answer.verdict is Verdict.EQUAL:
        return CheckResult(Outcome.PROVED, "the logical elements occupy the same offsets")
    counterexample = answer.counterexample
    assert isinstance(counterexample, RelationCounterexample)
    element = tuple(value for _, value in counterexample.symbols)
    offset = counterexample.result[0]
    side, other = ("operand", "output") if counterexample.only_in == "a" else ("output", "operand")
    witness = (*((f"{side}_d{i}", v) for i, v in enumerate(element)), ("offset", offset))
    return CheckResult(
        Outcome.REFUTED,
        f"{side} element {tuple_text(element)} is at offset {offset}, "
        f"where the {other} has no element",
        witness,
    )


def _offsets_kept(
    indexing_map: IndexingMap,
    operand_offset: IndexingMap,
    output_offset: IndexingMap,
    budget: Budget,
) -> CheckResult:
    read_at = compose(indexing_map, operand_offset)
    answer = check_equivalence(output_offset, read_at, pointwise=True, budget=budget)
    if answer.verdict is Verdict.UNKNOWN:
        return CheckResult(Outcome.UNKNOWN, "solver budget exhausted: " + "; ".join(answer.notes))
    if answer.verdict is Verdict.VACUOUS:
        return CheckResult(Outcome.VACUOUS, "no logical elements")
    if answer.verdict is Verdict.EQUAL:
        return CheckResult(Outcome.PROVED, "the output→input map keeps every offset")
    counterexample = answer.counterexample
    assert isinstance(counterexample, PointwiseCounterexample)
    element = tuple(value for _, value in counterexample.point)
    values = dict(counterexample.point)
    source = indexing_map.evaluate({v: values[v.name] for v in indexing_map.all_variables})
    at = counterexample.a[0] if counterexample.a else None
    read = counterexample.b[0] if counterexample.b else None
    witness = (
        tuple(counterexample.point)
        + tuple((f"operand_d{i}", v) for i, v in enumerate(source))
        + ((("output_offset", at),) if at is not None else ())
        + ((("operand_offset", read),) if read is not None else ())
    )
    return CheckResult(
        Outcome.REFUTED,
        f"output element {tuple_text(element)} is at offset {at} but reads operand element "
        f"{tuple_text(source)}, at offset {read}: the element moves",
        witness,
    )
