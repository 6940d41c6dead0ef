"""The inverse check (output→input / input→output consistency): the
input→output relation of an operand is exactly the inverse of its
output→input relation.  A witness is a pair (output point, operand point)
related by one direction and not the other.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr import parse_map
>>> o2i = parse_map("(d0) -> (d0 - 5), domain: d0 in [5, 15]")
>>> i2o = parse_map("(d0) -> (d0 + 5), domain: d0 in [0, 9]")
>>> result = check_inverse((o2i,), (i2o,), 1, 1, MemoryCache())
>>> result.outcome.value, result.message
('refuted', 'output (15) reads operand (10) by the output→input maps; the input→output maps do not relate them')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.analysis.instruction_maps import Indexing
from verifier.checks.budget import Budget
from verifier.checks.cache import ProofCache, cached
from verifier.checks.result import DEFAULT_BUDGET, CheckResult, tuple_text, union_key
from verifier.checks.verdict import Outcome
from verifier.expr import IndexingMap, Undefined, Var, VarKind

if TYPE_CHECKING:
    from verifier.bridges.isl_sets import UnionComparison

CHECK = "inverse"


def check_inverse(
    output_to_input: Indexing,
    input_to_output: Indexing,
    output_rank: int,
    operand_rank: int,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
) -> CheckResult:
    """Whether ``⋃ input_to_output`` is the inverse of ``⋃ output_to_input``."""
    for direction, indexing in (
        ("output→input", output_to_input),
        ("input→output", input_to_output),
    ):
        if isinstance(indexing, Undefined):
            return CheckResult(
                Outcome.UNSUPPORTED, f"unknown {direction} indexing: {indexing.reason}"
            )
    assert not isinstance(output_to_input, Undefined)
    assert not isinstance(input_to_output, Undefined)
    first, second = tuple(output_to_input), tuple(input_to_output)
    key = f"{CHECK}|{output_rank}->{operand_rank}|{union_key(first)} | {union_key(second)}"

    def ask() -> dict[str, object]:
        if _undo_each_other(first, second, output_rank, operand_rank):
            return _PROVED.to_answer()
        from verifier.bridges import isl_sets  # islpy: only for a question it decides

        compared = isl_sets.compare_unions(
            first,
            second,
            num_in=output_rank,
            num_out=operand_rank,
            invert_second=True,
            max_operations=budget.isl_operations,
        )
        return _result(compared).to_answer()

    return cached(cache, key, ask, CheckResult.from_answer)


_PROVED = CheckResult(Outcome.PROVED, "input→output is the inverse of output→input")


def _permutation(indexing_map: IndexingMap) -> tuple[int, ...] | None:
    """The dim each result is, when `indexing_map` permutes the coordinates
    of a non-empty box: no range or runtime variables, no constraints, each
    result a distinct dim, as many results as dims (a transpose, a copy)."""
    if indexing_map.range_vars or indexing_map.rt_vars or indexing_map.constraints:
        return None
    if indexing_map.num_results != indexing_map.num_dims:
        return None
    order = []
    for result in indexing_map.results:
        match result:
            case Var(kind=VarKind.DIM, index=index):
                order.append(index)
            case _:
                return None
    if len(set(order)) != len(order) or any(dim.bounds.is_empty for dim in indexing_map.dims):
        return None
    return tuple(order)


def _undo_each_other(
    first: tuple[IndexingMap, ...],
    second: tuple[IndexingMap, ...],
    output_rank: int,
    operand_rank: int,
) -> bool:
    """True when one map each way permutes coordinates, the second undoes
    the first, and the first carries its box onto the second's: then the
    first is a bijection between the boxes whose inverse is the second, so
    the two relations are each other's inverse (proved without isl).  False
    says nothing: isl decides.

    >>> from verifier.expr import parse_map
    >>> forward = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7]")
    >>> backward = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 3]")
    >>> _undo_each_other((forward,), (backward,), 2, 2)
    True
    >>> _undo_each_other((forward,), (forward,), 2, 2)  # the boxes do not match
    False
    """
    if len(first) != 1 or len(second) != 1:
        return False
    (forward,), (backward,) = first, second
    if forward.num_dims != output_rank or backward.num_dims != operand_rank:
        return False
    there, back = _permutation(forward), _permutation(backward)
    if there is None or back is None or len(there) != len(back):
        return False
    # Result k of backward∘forward is coordinate there[back[k]] of the point.
    return all(there[back[k]] == k for k in range(len(back))) and all(
        backward.dims[k].bounds == forward.dims[there[k]].bounds for k in range(len(there))
    )


def _result(compared: UnionComparison) -> CheckResult:
    if compared.differs is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted")
    if not compared.differs:
        if compared.vacuous:
            return CheckResult(Outcome.VACUOUS, "both relations are empty")
        return _PROVED
    by, other = (
        ("output→input", "input→output")
        if compared.only_in == 0
        else ("input→output", "output→input")
    )
    message = (
        f"output {tuple_text(compared.source)} reads operand {tuple_text(compared.target)} "
        f"by the {by} maps; the {other} maps do not relate them"
    )
    witness = tuple((f"o{i}", v) for i, v in enumerate(compared.source)) + tuple(
        (f"i{i}", v) for i, v in enumerate(compared.target)
    )
    return CheckResult(Outcome.REFUTED, message, witness)
