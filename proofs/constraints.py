"""Lemmas of the constraint rules (`verifier.simplify.rules.constraints`): the
constraint before and after have the same solutions."""

from __future__ import annotations

import z3

from proofs.lemma import Encoding, Goal, Lemma, between, zmax, zmin


def _infeasible(enc: Encoding) -> Goal:
    x, rlo, rhi, lo, hi = enc.ints("x rlo rhi lo hi")
    return Goal.of(
        [between(rlo, x, rhi), zmax(rlo, lo) > zmin(rhi, hi)],
        z3.Not(between(lo, x, hi)),
        [x, rlo, rhi, lo, hi],
    )


def _implied(enc: Encoding) -> Goal:
    x, rlo, rhi, lo, hi = enc.ints("x rlo rhi lo hi")
    return Goal.of(
        [between(rlo, x, rhi), lo <= rlo, rhi <= hi], between(lo, x, hi), [x, rlo, rhi, lo, hi]
    )


def _tighten(enc: Encoding) -> Goal:
    x, rlo, rhi, lo, hi = enc.ints("x rlo rhi lo hi")
    return Goal.of(
        [between(rlo, x, rhi)],
        between(lo, x, hi) == between(zmax(lo, rlo), x, zmin(hi, rhi)),
        [x, rlo, rhi, lo, hi],
    )


def _shift(enc: Encoding) -> Goal:
    x, k, lo, hi = enc.ints("x k lo hi")
    return Goal.of([], between(lo, x + k, hi) == between(lo - k, x, hi - k), [x, k, lo, hi])


def _negate(enc: Encoding) -> Goal:
    x, lo, hi = enc.ints("x lo hi")
    return Goal.of([], between(lo, -x, hi) == between(-hi, x, -lo), [x, lo, hi])


def _multiplier(enc: Encoding) -> Goal:
    x, g, lo, hi = enc.ints("x g lo hi")
    return Goal.of(
        [g > 0],
        between(lo, g * x, hi) == between(enc.ceildiv(lo, g), x, enc.floordiv(hi, g)),
        [x, g, lo, hi],
    )


def _floordiv_bounds(enc: Encoding) -> Goal:
    x, c, lo, hi = enc.ints("x c lo hi")
    return Goal.of(
        [c > 0],
        between(lo, enc.floordiv(x, c), hi) == between(lo * c, x, hi * c + c - 1),
        [x, c, lo, hi],
    )


def _ceildiv_bounds(enc: Encoding) -> Goal:
    x, c, lo, hi = enc.ints("x c lo hi")
    return Goal.of(
        [c > 0],
        between(lo, enc.ceildiv(x, c), hi) == between(lo * c - c + 1, x, hi * c),
        [x, c, lo, hi],
    )


def _drop_small(enc: Encoding) -> Goal:
    a, b, g, p, q = enc.ints("a b g p q")
    return Goal.of(
        [g > 0, b >= 0, b < g],
        between(g * p, a * g + b, g * q + g - 1) == between(p, a, q),
        [a, b, g, p, q],
    )


def _mod_shift(enc: Encoding) -> Goal:
    # Residues by their definition (as in `proofs.symbols`): m = (r - k) mod c
    # is r - k = c * q1 + m with 0 <= m < c; "(x + k) mod c = r" is
    # x + k = c * q + r, and "x mod c = m" is x = c * q2 + m, each with the
    # quotient free where assumed and an explicit witness where concluded.
    x, k, c, r, m, q, q1, q2 = enc.ints("x k c r m q q1 q2")
    forward = z3.Implies(x + k == c * q + r, x == c * (q + q1) + m)
    backward = z3.Implies(x == c * q2 + m, x + k == c * (q2 - q1) + r)
    return Goal.of(
        [c > 0, between(0, r, c - 1), between(0, m, c - 1), r - k == c * q1 + m],
        z3.And(forward, backward),
        [x, k, c, r],
    )


LEMMAS: tuple[Lemma, ...] = (
    Lemma("constraint_infeasible", "x in R ∧ R ∩ [lo, hi] = ∅ ⇒ ¬(x in [lo, hi])", _infeasible),
    Lemma("constraint_implied", "x in R ∧ R ⊆ [lo, hi] ⇒ x in [lo, hi]", _implied),
    Lemma("constraint_tighten_to_range", "x in R ⇒ (x in I ⇔ x in I ∩ R)", _tighten),
    Lemma("constraint_shift_constant", "x + k in [lo, hi] ⇔ x in [lo - k, hi - k]", _shift),
    Lemma("constraint_negate", "-x in [lo, hi] ⇔ x in [-hi, -lo]", _negate),
    Lemma(
        "constraint_divide_by_multiplier",
        "g > 0 ⇒ (g * x in [lo, hi] ⇔ x in [lo ceildiv g, hi floordiv g])",
        _multiplier,
    ),
    Lemma(
        "constraint_floordiv_bounds",
        "c > 0 ⇒ (x floordiv c in [lo, hi] ⇔ x in [lo * c, hi * c + c - 1])",
        _floordiv_bounds,
    ),
    Lemma(
        "constraint_ceildiv_bounds",
        "c > 0 ⇒ (x ceildiv c in [lo, hi] ⇔ x in [lo * c - c + 1, hi * c])",
        _ceildiv_bounds,
    ),
    Lemma(
        "constraint_mod_shift_constant",
        "c > 0 ∧ 0 <= r < c ⇒ ((x + k) mod c = r ⇔ x mod c = (r - k) mod c)",
        _mod_shift,
    ),
    Lemma(
        "constraint_drop_small_summand",
        "g > 0 ∧ 0 <= b < g ⇒ (a * g + b in [g * p, g * q + g - 1] ⇔ a in [p, q])",
        _drop_small,
    ),
)
