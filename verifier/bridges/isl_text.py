"""The second witness of a relation question: both maps written as isl text
and read by isl's own parser — an encoding built another way than
`verifier.bridges.isl`'s, which assembles affine functions and constraints
through isl's API — so that a fault in either translation shows as a
disagreement, never as a verdict.

Relations are ∀∃ questions (each side's symbols are existential): z3 often
cannot decide them, and its resource limit does not bound its time (fuzzed
pairs ran 2-6 CPU-s on 200,000 units before giving up); isl decides them
under its operation budget.

>>> from verifier.expr import parse_map
>>> print(isl_text(parse_map("(d0)[s0] -> (d0 floordiv 2 + s0), "
...                          "domain: d0 in [0, 7], s0 in [0, 1], d0 + s0 in [0, 7]")))
{ [d0] -> [r0] : exists (s0 : r0 = (floor(d0/2) + s0) and 0 <= d0 <= 7 and 0 <= s0 <= 1 \
and 0 <= (d0 + s0) <= 7) }
"""

from __future__ import annotations

import islpy as isl

from verifier.bridges.isl import BudgetExhausted, operation_budget, question_context
from verifier.bridges.limits import ISL_OPERATIONS
from verifier.expr import Expr, ExprTranslator, IndexingMap, Var


def relations_equal(
    a: IndexingMap, b: IndexingMap, *, max_operations: int = ISL_OPERATIONS
) -> bool | None:
    """Whether `a` and `b` relate the same ``(d, e)`` pairs (symbols and
    runtime variables existential), read from their isl text; None when
    isl's budget runs out.  Relations of different arities are equal only
    when both are empty."""
    try:
        with operation_budget(max_operations):
            context = question_context()
            first, second = (isl.Map(isl_text(m), context) for m in (a, b))
            if (a.num_dims, a.num_results) != (b.num_dims, b.num_results):
                return bool(first.is_empty() and second.is_empty())
            return bool(first.is_equal(second))
    except BudgetExhausted:
        return None


def isl_text(indexing_map: IndexingMap) -> str:
    """``{ [d…] -> [r…] : exists (s…, rt… : r = results and domain) }``."""
    source = _IslSource()
    dims = [v.name for v in indexing_map.all_variables[: indexing_map.num_dims]]
    symbols = [v.name for v in indexing_map.all_variables[indexing_map.num_dims :]]
    results = [f"r{k}" for k in range(indexing_map.num_results)]
    conditions = [
        f"{r} = {source.convert(e)}" for r, e in zip(results, indexing_map.results, strict=True)
    ]
    conditions += [
        f"{indexing_map.bounds(v).lower} <= {v.name} <= {indexing_map.bounds(v).upper}"
        for v in indexing_map.all_variables
    ]
    conditions += [
        f"{interval.lower} <= {source.convert(expr)} <= {interval.upper}"
        for expr, interval in indexing_map.constraints
    ]
    body = " and ".join(conditions) or "true"
    if symbols:
        body = f"exists ({', '.join(symbols)} : {body})"
    return f"{{ [{', '.join(dims)}] -> [{', '.join(results)}] : {body} }}"


class _IslSource(ExprTranslator[str]):
    """Expression → isl's text of the same value (``floor``, ``ceil`` and
    ``mod`` by positive constants are Python's ``//``, ceiling and ``%``)."""

    def map_const(self, value: int) -> str:
        return f"({value})" if value < 0 else str(value)

    def map_var(self, variable: Var) -> str:
        return variable.name

    def map_add(self, operands: tuple[Expr, ...]) -> str:
        return "(" + " + ".join(self.convert(operand) for operand in operands) + ")"

    def map_mul(self, operand: Expr, factor: int) -> str:
        return f"({factor}*{self.convert(operand)})"

    def map_floordiv(self, operand: Expr, divisor: int) -> str:
        return f"floor({self.convert(operand)}/{divisor})"

    def map_ceildiv(self, operand: Expr, divisor: int) -> str:
        return f"ceil({self.convert(operand)}/{divisor})"

    def map_mod(self, operand: Expr, modulus: int) -> str:
        return f"({self.convert(operand)} mod {modulus})"

    def map_min(self, lhs: Expr, rhs: Expr) -> str:
        return f"min({self.convert(lhs)}, {self.convert(rhs)})"

    def map_max(self, lhs: Expr, rhs: Expr) -> str:
        return f"max({self.convert(lhs)}, {self.convert(rhs)})"
