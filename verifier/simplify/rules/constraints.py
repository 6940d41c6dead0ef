"""Constraint rules: each rewrites one ``e in [lo, hi]`` into constraints with
exactly the same solutions on the rest of the domain.

The `Ranges` given to a constraint rule never include the constraint itself
(the driver builds them without it), so "implied by the ranges" means implied
by the variables' bounds and the *other* constraints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from verifier.expr import (
    Add,
    CeilDiv,
    Const,
    Constraint,
    Expr,
    FloorDiv,
    Interval,
    Mod,
    Ranges,
    from_linear_terms,
    linear_terms,
    mod,
)
from verifier.simplify.rules.base import INFEASIBLE, ConstraintRewrite, ConstraintRule
from verifier.simplify.rules.terms import GcdSplit, divided, first_fitting

FAMILY = "constraints"


def _any(constraint: Constraint) -> Constraint | None:
    return None if isinstance(constraint[0], Const) else constraint


def _infeasible(constraint: Constraint, ranges: Ranges) -> bool:
    expr, interval = constraint
    return interval.is_empty or ranges.interval(expr).intersect(interval).is_empty


def _implied(constraint: Constraint, ranges: Ranges) -> bool:
    expr, interval = constraint
    return interval.contains_interval(ranges.interval(expr))


def _tightened(constraint: Constraint, ranges: Ranges) -> Interval:
    expr, interval = constraint
    return interval.intersect(ranges.interval(expr))


def _can_tighten(constraint: Constraint, ranges: Ranges) -> bool:
    tight = _tightened(constraint, ranges)
    return not tight.is_empty and tight != constraint[1]


def _match_constant(constraint: Constraint) -> tuple[Expr, int, Interval] | None:
    expr, interval = constraint
    if isinstance(expr, Add) and isinstance(expr.operands[-1], Const):
        shift = expr.operands[-1].value
        return expr - shift, shift, interval
    return None


def _match_negated(constraint: Constraint) -> Constraint | None:
    terms, constant = linear_terms(constraint[0])
    if terms and constant == 0 and all(k < 0 for k in terms.values()):
        return constraint
    return None


def _match_multiplier(constraint: Constraint) -> tuple[Expr, int, Interval] | None:
    expr, interval = constraint
    terms, constant = linear_terms(expr)
    if not terms or constant:
        return None
    g = 0
    for coefficient in terms.values():
        g = math.gcd(g, coefficient)
    if g <= 1:
        return None
    return divided(terms, 0, g), g, interval


def _match_floordiv(constraint: Constraint) -> tuple[FloorDiv, Interval] | None:
    expr, interval = constraint
    return (expr, interval) if isinstance(expr, FloorDiv) else None


def _match_ceildiv(constraint: Constraint) -> tuple[CeilDiv, Interval] | None:
    expr, interval = constraint
    return (expr, interval) if isinstance(expr, CeilDiv) else None


@dataclass(frozen=True)
class _Blocks:
    """``a * g + b in [g * p, g * q + g - 1]`` splits (g, a, b): the
    constraint only depends on ``a`` when ``b`` stays in ``[0, g - 1]``."""

    interval: Interval
    splits: tuple[GcdSplit, ...]


def _match_blocks(constraint: Constraint) -> _Blocks | None:
    expr, interval = constraint
    terms, constant = linear_terms(expr)
    splits = []
    for threshold in sorted({abs(k) for k in terms.values() if abs(k) > 1}, reverse=True):
        big = {b: k for b, k in terms.items() if abs(k) >= threshold}
        small = {b: k for b, k in terms.items() if abs(k) < threshold}
        g = 0
        for coefficient in big.values():
            g = math.gcd(g, coefficient)
        if g <= 1 or not small or interval.lower % g or interval.upper % g != g - 1:
            continue
        splits.append(GcdSplit(g, divided(big, 0, g), from_linear_terms(small, constant)))
    return _Blocks(interval, tuple(splits)) if splits else None


def _drop_small(match: _Blocks, ranges: Ranges) -> ConstraintRewrite:
    split = first_fitting(match.splits, ranges)
    assert split is not None, "side condition not checked"
    g = split.g
    return ((split.big, Interval(match.interval.lower // g, match.interval.upper // g)),)


def _match_mod_residue(constraint: Constraint) -> tuple[Mod, int, int] | None:
    """``(x + k) mod c in [r, r]`` with ``0 <= r < c`` and a constant ``k``."""
    expr, interval = constraint
    if not (isinstance(expr, Mod) and interval.is_point and 0 <= interval.lower < expr.modulus):
        return None
    _, constant = linear_terms(expr.operand)
    return (expr, constant, interval.lower) if constant else None


def _shift_residue(match: tuple[Mod, int, int], ranges: Ranges) -> ConstraintRewrite:
    node, constant, residue = match
    shifted = (residue - constant) % node.modulus
    return ((mod(node.operand - constant, node.modulus), Interval.point(shifted)),)


def _divide_interval(interval: Interval, g: int) -> Interval:
    """``{y : g * y in interval}`` for g > 0: round the bounds inward."""
    return Interval(-(-interval.lower // g), interval.upper // g)


def _always(match: object, ranges: Ranges) -> bool:
    return True


RULES: tuple[ConstraintRule[Any], ...] = (
    ConstraintRule(
        name="constraint_infeasible",
        family=FAMILY,
        description="a constraint no point can satisfy makes the map KNOWN EMPTY:"
        " d0 mod 4 in [5, 7] -> KNOWN EMPTY",
        lemma="x in R ∧ R ∩ [lo, hi] = ∅ ⇒ ¬(x in [lo, hi])",
        matches=_any,
        side_condition=_infeasible,
        rewrite=lambda constraint, ranges: INFEASIBLE,
    ),
    ConstraintRule(
        name="constraint_implied",
        family=FAMILY,
        description="a constraint the ranges already imply is deleted: d0 + s0 in [0, 20]"
        " with d0 in [0, 5], s0 in [1, 3]",
        lemma="x in R ∧ R ⊆ [lo, hi] ⇒ (x in [lo, hi] ⇔ true)",
        matches=_any,
        side_condition=_implied,
        rewrite=lambda constraint, ranges: (),
    ),
    ConstraintRule(
        name="constraint_tighten_to_range",
        family=FAMILY,
        description="the interval is intersected with the expression's range:"
        " d0 mod 4 in [-3, 1] -> d0 mod 4 in [0, 1]",
        lemma="x in R ⇒ (x in I ⇔ x in I ∩ R)",
        matches=_any,
        side_condition=_can_tighten,
        rewrite=lambda constraint, ranges: ((constraint[0], _tightened(constraint, ranges)),),
    ),
    ConstraintRule(
        name="constraint_shift_constant",
        family=FAMILY,
        description="a constant leaves the sum: d0 + d1 + 3 in [0, 10] -> d0 + d1 in [-3, 7]",
        lemma="x + k in [lo, hi] ⇔ x in [lo - k, hi - k]",
        matches=_match_constant,
        side_condition=_always,
        rewrite=lambda match, ranges: ((match[0], match[2] + (-match[1])),),
    ),
    ConstraintRule(
        name="constraint_negate",
        family=FAMILY,
        description="a sum of negated terms is negated: -d0 - d1 in [-5, 0] -> d0 + d1 in [0, 5]",
        lemma="-x in [lo, hi] ⇔ x in [-hi, -lo]",
        matches=_match_negated,
        side_condition=_always,
        rewrite=lambda match, ranges: ((-match[0], -match[1]),),
    ),
    ConstraintRule(
        name="constraint_divide_by_multiplier",
        family=FAMILY,
        description="a common factor g > 1 divides through, bounds rounded inward:"
        " d0 * 4 + d1 * 2 in [1, 9] -> d0 * 2 + d1 in [1, 4]",
        lemma="g > 0 ⇒ (g * x in [lo, hi] ⇔ x in [lo ceildiv g, hi floordiv g])",
        matches=_match_multiplier,
        side_condition=lambda match, ranges: match[1] > 1,
        rewrite=lambda match, ranges: ((match[0], _divide_interval(match[2], match[1])),),
    ),
    ConstraintRule(
        name="constraint_floordiv_bounds",
        family=FAMILY,
        description="x floordiv c in [lo, hi] -> x in [lo * c, hi * c + c - 1]:"
        " d0 floordiv 4 in [1, 2] -> d0 in [4, 11]",
        lemma="c > 0 ⇒ (x floordiv c in [lo, hi] ⇔ x in [lo * c, hi * c + c - 1])",
        matches=_match_floordiv,
        side_condition=_always,
        rewrite=lambda match, ranges: (
            (
                match[0].operand,
                Interval(
                    match[1].lower * match[0].divisor,
                    match[1].upper * match[0].divisor + match[0].divisor - 1,
                ),
            ),
        ),
    ),
    ConstraintRule(
        name="constraint_ceildiv_bounds",
        family=FAMILY,
        description="x ceildiv c in [lo, hi] -> x in [lo * c - c + 1, hi * c]:"
        " d0 ceildiv 4 in [1, 2] -> d0 in [1, 8]",
        lemma="c > 0 ⇒ (x ceildiv c in [lo, hi] ⇔ x in [lo * c - c + 1, hi * c])",
        matches=_match_ceildiv,
        side_condition=_always,
        rewrite=lambda match, ranges: (
            (
                match[0].operand,
                Interval(
                    match[1].lower * match[0].divisor - match[0].divisor + 1,
                    match[1].upper * match[0].divisor,
                ),
            ),
        ),
    ),
    ConstraintRule(
        name="constraint_mod_shift_constant",
        family=FAMILY,
        description="a constant leaves a residue constraint: (d0 - 1) mod 2 in [0, 0]"
        " -> d0 mod 2 in [1, 1]",
        lemma="c > 0 ∧ 0 <= r < c ⇒ ((x + k) mod c = r ⇔ x mod c = (r - k) mod c)",
        matches=_match_mod_residue,
        side_condition=_always,
        rewrite=_shift_residue,
    ),
    ConstraintRule(
        name="constraint_drop_small_summand",
        family=FAMILY,
        description="a * g + b in [g * p, g * q + g - 1] -> a in [p, q] when b in [0, g - 1]:"
        " d0 * 4 + d1 in [0, 11] with d1 in [0, 3] -> d0 in [0, 2]",
        lemma="g > 0 ∧ 0 <= b < g ⇒ (a * g + b in [g * p, g * q + g - 1] ⇔ a in [p, q])",
        matches=_match_blocks,
        side_condition=lambda match, ranges: first_fitting(match.splits, ranges) is not None,
        rewrite=_drop_small,
    ),
)
