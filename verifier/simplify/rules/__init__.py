"""The registry of simplifier rules, in the order the driver tries them.

>>> [rule.name for rule in EXPR_RULES][:2]
['const_from_range', 'min_by_range']
>>> len({rule.name for rule in ALL_RULES}) == len(ALL_RULES)
True
"""

from __future__ import annotations

from typing import Any

from verifier.simplify.rules import (
    by_range,
    constraints,
    construction,
    floordiv,
    mod,
    sums,
    symbols,
)
from verifier.simplify.rules.base import (
    INFEASIBLE,
    AnyRule,
    ConstraintRewrite,
    ConstraintRule,
    ConstructionRule,
    ExprRule,
    Infeasible,
    MapRule,
    SymbolRewrite,
    SymbolSubstitution,
)

# A range that is one value wins over every structural rewrite; `mod` rules
# come before `floordiv` ones so an inner `mod` is gone before a division
# looks at its operand; the sum rules see the children already simplified.
EXPR_RULES: tuple[ExprRule[Any], ...] = by_range.RULES + mod.RULES + floordiv.RULES + sums.RULES
# Also tried before a node's children are simplified: a sum of the digits of
# one dividend recombines only while the dividend is still written the same
# way in every digit.
PRE_ORDER_RULES: tuple[ExprRule[Any], ...] = tuple(
    rule for rule in EXPR_RULES if rule.name == "sum_recombine_div_mod"
)
# Emptiness and redundancy first: no work is spent on a constraint that goes.
CONSTRAINT_RULES: tuple[ConstraintRule[Any], ...] = constraints.RULES
MAP_RULES: tuple[MapRule[Any], ...] = symbols.RULES
CONSTRUCTION_RULES: tuple[ConstructionRule, ...] = construction.RULES

ALL_RULES: tuple[ExprRule[Any] | ConstraintRule[Any] | MapRule[Any] | ConstructionRule, ...] = (
    CONSTRUCTION_RULES + EXPR_RULES + CONSTRAINT_RULES + MAP_RULES
)


def rule_named(name: str) -> ExprRule[Any] | ConstraintRule[Any] | MapRule[Any] | ConstructionRule:
    """The registered rule called `name` (KeyError when there is none)."""
    for rule in ALL_RULES:
        if rule.name == name:
            return rule
    raise KeyError(f"no simplifier rule named {name!r}")


__all__ = [
    "ALL_RULES",
    "CONSTRAINT_RULES",
    "CONSTRUCTION_RULES",
    "EXPR_RULES",
    "INFEASIBLE",
    "MAP_RULES",
    "PRE_ORDER_RULES",
    "AnyRule",
    "ConstraintRewrite",
    "ConstraintRule",
    "ConstructionRule",
    "ExprRule",
    "Infeasible",
    "MapRule",
    "SymbolRewrite",
    "SymbolSubstitution",
    "rule_named",
]
