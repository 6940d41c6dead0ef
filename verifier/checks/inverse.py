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

from verifier.analysis.instruction_maps import Indexing
from verifier.bridges import isl_sets
from verifier.checks.budget import Budget
from verifier.checks.cache import ProofCache, cached
from verifier.checks.result import DEFAULT_BUDGET, CheckResult, tuple_text, union_key
from verifier.checks.verdict import Outcome
from verifier.expr import Undefined

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


def _result(compared: isl_sets.UnionComparison) -> CheckResult:
    if compared.differs is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted")
    if not compared.differs:
        if compared.vacuous:
            return CheckResult(Outcome.VACUOUS, "both relations are empty")
        return CheckResult(Outcome.PROVED, "input→output is the inverse of output→input")
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
