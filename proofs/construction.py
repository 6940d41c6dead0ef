"""Lemmas of the canonicalisations the core constructors apply
(`verifier.simplify.rules.construction`)."""

from __future__ import annotations

import z3

from proofs.lemma import EXPLICIT_ONLY, Encoding, Goal, Lemma, between, zmax, zmin


def _fold(enc: Encoding) -> Goal:
    a, b = enc.ints("a b")
    # Folding uses Python's // and %: floor semantics.  The encoding in use
    # must agree with z3's native (Euclidean) div/mod for a positive divisor
    # and with ``floor(a / b) = (-a) div (-b)`` for a negative one.
    return Goal.of(
        [b != 0],
        z3.And(
            enc.floordiv(a, b, positive=False) == z3.If(b > 0, a / b, (-a) / (-b)),
            enc.mod(a, b, positive=False) == a - b * z3.If(b > 0, a / b, (-a) / (-b)),
        ),
        [a, b],
    )


def _flatten(enc: Encoding) -> Goal:
    a, b, c = enc.ints("a b c")
    return Goal.of([], z3.And((a + b) + c == a + (b + c), a + b == b + a), [a, b, c])


def _like_terms(enc: Encoding) -> Goal:
    a, b, x = enc.ints("a b x")
    return Goal.of([], z3.And(a * x + b * x == (a + b) * x, 0 * x == 0, x + 0 == x), [a, b, x])


def _nested_mul(enc: Encoding) -> Goal:
    a, b, x = enc.ints("a b x")
    return Goal.of([], z3.And((x * a) * b == x * (a * b), x * 1 == x), [a, b, x])


def _distribute(enc: Encoding) -> Goal:
    x, y, k = enc.ints("x y k")
    return Goal.of([], (x + y) * k == x * k + y * k, [x, y, k])


def _negative_floordiv(enc: Encoding) -> Goal:
    x, c = enc.ints("x c")
    return Goal.of([c < 0], enc.floordiv(x, c, positive=False) == enc.floordiv(-x, -c), [x, c])


def _negative_ceildiv(enc: Encoding) -> Goal:
    x, c = enc.ints("x c")
    return Goal.of([c < 0], enc.ceildiv(x, c, positive=False) == enc.ceildiv(-x, -c), [x, c])


def _negative_mod(enc: Encoding) -> Goal:
    x, c = enc.ints("x c")
    return Goal.of([c < 0], enc.mod(x, c, positive=False) == -enc.mod(-x, -c), [x, c])


def _by_one(enc: Encoding) -> Goal:
    (x,) = enc.ints("x")
    return Goal.of(
        [], z3.And(enc.floordiv(x, 1) == x, enc.ceildiv(x, 1) == x, enc.mod(x, 1) == 0), [x]
    )


def _floordiv_multiple(enc: Encoding) -> Goal:
    x, c, m = enc.ints("x c m")
    return Goal.of([c > 0], enc.floordiv(x * (c * m), c) == x * m, [x, c, m])


def _ceildiv_multiple(enc: Encoding) -> Goal:
    x, c, m = enc.ints("x c m")
    return Goal.of([c > 0], enc.ceildiv(x * (c * m), c) == x * m, [x, c, m])


def _mod_multiple(enc: Encoding) -> Goal:
    x, c, m = enc.ints("x c m")
    return Goal.of([c > 0], enc.mod(x * (c * m), c) == 0, [x, c, m])


def _min_max(enc: Encoding) -> Goal:
    a, b = enc.ints("a b")
    return Goal.of(
        [],
        z3.And(
            zmin(a, b) == zmin(b, a), zmin(a, a) == a, zmax(a, b) == zmax(b, a), zmax(a, a) == a
        ),
        [a, b],
    )


def _intersect(enc: Encoding) -> Goal:
    x, a, b, c, d = enc.ints("x a b c d")
    return Goal.of(
        [],
        z3.And(between(a, x, b), between(c, x, d)) == between(zmax(a, c), x, zmin(b, d)),
        [x, a, b, c, d],
    )


def _constant_constraint(enc: Encoding) -> Goal:
    k, lo, hi = enc.ints("k lo hi")
    return Goal.of([between(lo, k, hi)], between(lo, k, hi), [k, lo, hi])


LEMMAS: tuple[Lemma, ...] = (
    Lemma(
        "fold_constant_operations",
        "b ≠ 0 ⇒ floor(a / b) (defined by a = b * q + r, r between 0 and b) = z3 div"
        " for b > 0 and (-a) div (-b) for b < 0",
        _fold,
        strategies=EXPLICIT_ONLY,
    ),
    Lemma("add_flatten_and_order", "(a + b) + c = a + (b + c) ∧ a + b = b + a", _flatten),
    Lemma("add_combine_like_terms", "a * x + b * x = (a + b) * x", _like_terms),
    Lemma("mul_fold_nested", "(x * a) * b = x * (a * b)", _nested_mul),
    Lemma("mul_distribute", "(x + y) * k = x * k + y * k", _distribute),
    Lemma(
        "floordiv_negative_divisor",
        "c < 0 ⇒ x floordiv c = (-x) floordiv (-c)",
        _negative_floordiv,
        strategies=EXPLICIT_ONLY,
    ),
    Lemma(
        "ceildiv_negative_divisor",
        "c < 0 ⇒ x ceildiv c = (-x) ceildiv (-c)",
        _negative_ceildiv,
        strategies=EXPLICIT_ONLY,
    ),
    Lemma(
        "mod_negative_modulus",
        "c < 0 ⇒ x mod c = -((-x) mod (-c))",
        _negative_mod,
        strategies=EXPLICIT_ONLY,
    ),
    Lemma("division_by_one", "x floordiv 1 = x ∧ x ceildiv 1 = x ∧ x mod 1 = 0", _by_one),
    Lemma("floordiv_of_multiple", "c > 0 ⇒ (x * (c * m)) floordiv c = x * m", _floordiv_multiple),
    Lemma("ceildiv_of_multiple", "c > 0 ⇒ (x * (c * m)) ceildiv c = x * m", _ceildiv_multiple),
    Lemma("mod_of_multiple", "c > 0 ⇒ (x * (c * m)) mod c = 0", _mod_multiple),
    Lemma("min_max_canonical", "min, max commutative and idempotent", _min_max),
    Lemma(
        "constraint_intersect_same_expression",
        "(x in [a, b] ∧ x in [c, d]) ⇔ x in [max(a, c), min(b, d)]",
        _intersect,
    ),
    Lemma(
        "constraint_constant_dropped",
        "lo <= k <= hi ⇒ (k in [lo, hi] ⇔ true)",
        _constant_constraint,
    ),
)
