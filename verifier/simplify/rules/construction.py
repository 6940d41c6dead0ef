"""The canonicalisations applied by the core constructors on every build.

They are rules like the others — each has a lemma in `proofs/construction.py`
— but `verifier.expr.nodes` and `IndexingMap.create` apply them, so they
never appear in a simplification's list of fired rules.
"""

from __future__ import annotations

from verifier.simplify.rules.base import ConstructionRule

FAMILY = "construction"


def _rule(name: str, description: str, lemma: str, applied_by: str) -> ConstructionRule:
    return ConstructionRule(name, FAMILY, description, lemma, applied_by)


RULES: tuple[ConstructionRule, ...] = (
    _rule(
        "fold_constant_operations",
        "operations on constants are evaluated with floor semantics: 7 floordiv -2 -> -4",
        "b ≠ 0 ⇒ (q = a floordiv b ⇔ ∃r. a = b * q + r ∧ r in [0, b) or (b, 0])"
        " and for b > 0 this is z3's native div",
        "verifier.expr.nodes.floordiv/ceildiv/mod/add/mul",
    ),
    _rule(
        "add_flatten_and_order",
        "sums are flat with operands in a fixed order: (d1 + 2) + d0 -> d0 + d1 + 2",
        "(a + b) + c = a + (b + c) ∧ a + b = b + a",
        "verifier.expr.nodes.add",
    ),
    _rule(
        "add_combine_like_terms",
        "like terms combine and zero terms vanish: d0 + d0 * 2 - d0 * 3 -> 0",
        "a * x + b * x = (a + b) * x ∧ 0 * x = 0 ∧ x + 0 = x",
        "verifier.expr.nodes.add",
    ),
    _rule(
        "mul_fold_nested",
        "nested constant products fold: (d0 * 2) * 3 -> d0 * 6",
        "(x * a) * b = x * (a * b) ∧ x * 1 = x",
        "verifier.expr.nodes.mul",
    ),
    _rule(
        "mul_distribute",
        "a constant factor distributes over a sum: (d0 + d1) * 3 -> d0 * 3 + d1 * 3",
        "(x + y) * k = x * k + y * k",
        "verifier.expr.nodes.mul",
    ),
    _rule(
        "floordiv_negative_divisor",
        "x floordiv -c -> (-x) floordiv c: d0 floordiv -2 -> -d0 floordiv 2",
        "c < 0 ⇒ x floordiv c = (-x) floordiv (-c)",
        "verifier.expr.nodes.floordiv",
    ),
    _rule(
        "ceildiv_negative_divisor",
        "x ceildiv -c -> (-x) ceildiv c: d0 ceildiv -2 -> -d0 ceildiv 2",
        "c < 0 ⇒ x ceildiv c = (-x) ceildiv (-c)",
        "verifier.expr.nodes.ceildiv",
    ),
    _rule(
        "mod_negative_modulus",
        "x mod -c -> -((-x) mod c): d0 mod -2 -> -(-d0 mod 2)",
        "c < 0 ⇒ x mod c = -((-x) mod (-c))",
        "verifier.expr.nodes.mod",
    ),
    _rule(
        "division_by_one",
        "x floordiv 1 -> x, x ceildiv 1 -> x, x mod 1 -> 0",
        "x floordiv 1 = x ∧ x ceildiv 1 = x ∧ x mod 1 = 0",
        "verifier.expr.nodes.floordiv/ceildiv/mod",
    ),
    _rule(
        "floordiv_of_multiple",
        "(x * k) floordiv c -> x * (k / c) when c divides k: (d0 * 8) floordiv 4 -> d0 * 2",
        "c > 0 ∧ k = c * m ⇒ (x * k) floordiv c = x * m",
        "verifier.expr.nodes.floordiv",
    ),
    _rule(
        "ceildiv_of_multiple",
        "(x * k) ceildiv c -> x * (k / c) when c divides k: (d0 * 8) ceildiv 4 -> d0 * 2",
        "c > 0 ∧ k = c * m ⇒ (x * k) ceildiv c = x * m",
        "verifier.expr.nodes.ceildiv",
    ),
    _rule(
        "mod_of_multiple",
        "(x * k) mod c -> 0 when c divides k: (d0 * 8) mod 4 -> 0",
        "c > 0 ∧ k = c * m ⇒ (x * k) mod c = 0",
        "verifier.expr.nodes.mod",
    ),
    _rule(
        "min_max_canonical",
        "min and max are commutative and idempotent: min(d1, d0) -> min(d0, d1), max(d0, d0) -> d0",
        "min(a, b) = min(b, a) ∧ min(a, a) = a ∧ max(a, b) = max(b, a) ∧ max(a, a) = a",
        "verifier.expr.nodes.min_/max_",
    ),
    _rule(
        "constraint_intersect_same_expression",
        "two constraints on one expression, or a constraint on a variable and its bounds,"
        " intersect: d0 in [0, 9], d0 in [2, 20] -> d0 in [2, 9]",
        "(x in [a, b] ∧ x in [c, d]) ⇔ x in [max(a, c), min(b, d)]",
        "verifier.expr.indexing_map.IndexingMap.create",
    ),
    _rule(
        "constraint_constant_dropped",
        "a constant constraint that holds is dropped: 3 in [0, 5] -> (nothing)",
        "lo <= k <= hi ⇒ (k in [lo, hi] ⇔ true)",
        "verifier.expr.indexing_map.IndexingMap.create",
    ),
)
