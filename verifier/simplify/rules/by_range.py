"""Range rules: a sub-expression with a single value is that constant, and
`min`/`max` are decided when the ranges of their operands do not overlap."""

from __future__ import annotations

from typing import Any

from verifier.expr import Const, Expr, Max, Min, Ranges, const
from verifier.simplify.rules.base import ExprRule


def _not_constant(expr: Expr) -> Expr | None:
    return None if isinstance(expr, Const) else expr


def _single_value(expr: Expr, ranges: Ranges) -> Expr:
    value = ranges.single_value(expr)
    assert value is not None, "side condition not checked"
    return const(value)


def _decided_min(node: Min, ranges: Ranges) -> Expr | None:
    """The operand that is always the smaller, if the ranges say so."""
    lhs, rhs = ranges.interval(node.lhs), ranges.interval(node.rhs)
    if lhs.upper <= rhs.lower:
        return node.lhs
    if rhs.upper <= lhs.lower:
        return node.rhs
    return None


def _decided_max(node: Max, ranges: Ranges) -> Expr | None:
    """The operand that is always the larger, if the ranges say so."""
    lhs, rhs = ranges.interval(node.lhs), ranges.interval(node.rhs)
    if lhs.lower >= rhs.upper:
        return node.lhs
    if rhs.lower >= lhs.upper:
        return node.rhs
    return None


def _min_by_difference(node: Min, ranges: Ranges) -> Expr | None:
    """The smaller operand when ``lhs - rhs`` has a constant sign (the
    difference cancels what the operands share: min(d0, d0 + 1))."""
    difference = ranges.interval(node.lhs - node.rhs)
    if difference.upper <= 0:
        return node.lhs
    if difference.lower >= 0:
        return node.rhs
    return None


def _max_by_difference(node: Max, ranges: Ranges) -> Expr | None:
    difference = ranges.interval(node.lhs - node.rhs)
    if difference.lower >= 0:
        return node.lhs
    if difference.upper <= 0:
        return node.rhs
    return None


def _rewrite_min(node: Min, ranges: Ranges) -> Expr:
    decided = _decided_min(node, ranges)
    assert decided is not None, "side condition not checked"
    return decided


def _rewrite_max(node: Max, ranges: Ranges) -> Expr:
    decided = _decided_max(node, ranges)
    assert decided is not None, "side condition not checked"
    return decided


RULES: tuple[ExprRule[Any], ...] = (
    ExprRule(
        name="const_from_range",
        family="range",
        description="an expression whose range is one value is that value:"
        " (d0, d1) -> (d0 + d1 floordiv 16), d1 in [0, 14] becomes (d0, d1) -> (d0)",
        lemma="lo <= x <= hi ∧ lo = hi ⇒ x = lo",
        matches=_not_constant,
        side_condition=lambda expr, ranges: ranges.single_value(expr) is not None,
        rewrite=_single_value,
    ),
    ExprRule(
        name="min_by_range",
        family="minmax",
        description="min(a, b) -> a when a <= b everywhere: min(d0, 10) with d0 in [0, 9] -> d0",
        lemma="a <= b ⇒ min(a, b) = a ∧ min(b, a) = a",
        matches=lambda expr: expr if isinstance(expr, Min) else None,
        side_condition=lambda node, ranges: _decided_min(node, ranges) is not None,
        rewrite=_rewrite_min,
    ),
    ExprRule(
        name="max_by_range",
        family="minmax",
        description="max(a, b) -> a when a >= b everywhere: max(d0, 0) with d0 in [0, 9] -> d0",
        lemma="a >= b ⇒ max(a, b) = a ∧ max(b, a) = a",
        matches=lambda expr: expr if isinstance(expr, Max) else None,
        side_condition=lambda node, ranges: _decided_max(node, ranges) is not None,
        rewrite=_rewrite_max,
    ),
    ExprRule(
        name="min_by_difference",
        family="minmax",
        description="min(a, b) -> a when a - b <= 0 everywhere: min(d0, d0 + 1) -> d0,"
        " min(d0 + d1, d1 + 3) with d0 in [0, 3] -> d0 + d1",
        lemma="a - b <= 0 ⇒ min(a, b) = a ∧ min(b, a) = a",
        matches=lambda expr: expr if isinstance(expr, Min) else None,
        side_condition=lambda node, ranges: _min_by_difference(node, ranges) is not None,
        rewrite=lambda node, ranges: _min_by_difference(node, ranges) or node,
    ),
    ExprRule(
        name="max_by_difference",
        family="minmax",
        description="max(a, b) -> a when a - b >= 0 everywhere: max(d0, d0 - 1) -> d0",
        lemma="a - b >= 0 ⇒ max(a, b) = a ∧ max(b, a) = a",
        matches=lambda expr: expr if isinstance(expr, Max) else None,
        side_condition=lambda node, ranges: _max_by_difference(node, ranges) is not None,
        rewrite=lambda node, ranges: _max_by_difference(node, ranges) or node,
    ),
)
