"""Lemmas of the map rules (`verifier.simplify.rules.symbols`): `mod`
constraints merged and turned into bounds, symbols rescaled, projected out
or removed."""

from __future__ import annotations

import z3

from proofs.lemma import Encoding, Goal, Lemma, between


def _empty_bounds(enc: Encoding) -> Goal:
    x, lo, hi = enc.ints("x lo hi")
    return Goal.of([lo > hi], z3.Not(between(lo, x, hi)), [x, lo, hi])


def _merge(enc: Encoding) -> Goal:
    # "x mod a = r1" is stated by its definition x = a * p + r1 with
    # 0 <= r1 < a: the quotient is a free variable where the fact is assumed
    # and an explicit witness term where it is concluded, so each direction
    # is a polynomial identity z3 checks directly.
    #
    # a = g * a1, b = g * b1 with a1 * u + b1 * v = 1 (coprime), lcm = g * a1 * b1
    # = lcm(a, b); r in [0, lcm) is the driver's Chinese remainder: r = a * p0 + r1
    # = b * q0 + r2.
    x, a, b, g, a1, b1, u, v, lcm, r, r1, r2, p, q, p0, q0, n = enc.ints(
        "x a b g a1 b1 u v lcm r r1 r2 p q p0 q0 n"
    )
    setting = [g > 0, a1 > 0, b1 > 0, a == g * a1, b == g * b1, a1 * u + b1 * v == 1]
    residues = [between(0, r1, a - 1), between(0, r2, b - 1)]
    crt = [lcm == g * a1 * b1, between(0, r, lcm - 1), r == a * p0 + r1, r == b * q0 + r2]
    # both residues ⇒ x mod lcm = r: x - r is a multiple of a and of b, hence of lcm.
    forward = z3.Implies(
        z3.And(*crt, x == a * p + r1, x == b * q + r2),
        x == lcm * (u * (q - q0) + v * (p - p0)) + r,
    )
    # x mod lcm = r ⇒ both residues.
    backward = z3.Implies(
        z3.And(*crt, x == lcm * n + r),
        z3.And(x == a * (b1 * n + p0) + r1, x == b * (a1 * n + q0) + r2),
    )
    # No r when gcd(a, b) does not divide r2 - r1: any x gives a multiple.
    empty = z3.Implies(z3.And(x == a * p + r1, x == b * q + r2), r2 - r1 == g * (a1 * p - b1 * q))
    return Goal.of(
        [*setting, *residues], z3.And(forward, backward, empty), [x, a, b, r1, r2, r, lcm]
    )


def _tighten(enc: Encoding) -> Goal:
    # x mod c = r by its definition: x = c * q + r with 0 <= r < c.
    x, q, c, r, lo, hi = enc.ints("x q c r lo hi")
    return Goal.of(
        [c > 0, between(0, r, c - 1), x == c * q + r],
        between(lo, x, hi) == between(lo + enc.mod(r - lo, c), x, hi - enc.mod(hi - r, c)),
        [x, c, r, lo, hi],
    )


def _enumerate_bounds(enc: Encoding) -> Goal:
    # C is any condition on x alone (the constraints on one variable); the
    # rule tried every value of [lo, hi] and found C false outside [a, b],
    # or everywhere (then the map is empty).
    x, v, lo, hi, a, b = enc.ints("x v lo hi a b")
    holds = z3.Function("C", z3.IntSort(ctx=enc.context), z3.BoolSort(ctx=enc.context))
    outside = z3.Or(z3.And(lo <= v, v < a), z3.And(b < v, v <= hi))
    nowhere = z3.ForAll([v], z3.Implies(between(lo, v, hi), z3.Not(holds(v))))
    return Goal.of(
        [z3.ForAll([v], z3.Implies(outside, z3.Not(holds(v)))), lo <= a, b <= hi],
        z3.And(
            z3.And(between(lo, x, hi), holds(x)) == z3.And(between(a, x, b), holds(x)),
            z3.Implies(nowhere, z3.Not(z3.And(between(lo, x, hi), holds(x)))),
        ),
        [x, lo, hi, a, b],
    )


def _rescale(enc: Encoding) -> Goal:
    # Bounds already on the lattice (the tightening rule runs first).  Then
    # s = c * t + r maps [(lo - r) floordiv c, (hi - r) floordiv c] onto the
    # lattice points of [lo, hi], one to one, so "∃s" and "∃t" agree for
    # every formula in s.
    s, t, c, r, lo, hi = enc.ints("s t c r lo hi")
    t_lo, t_hi = enc.floordiv(lo - r, c), enc.floordiv(hi - r, c)
    into = z3.Implies(
        between(t_lo, t, t_hi), z3.And(enc.mod(c * t + r, c) == r, between(lo, c * t + r, hi))
    )
    back = z3.Implies(
        z3.And(enc.mod(s, c) == r, between(lo, s, hi)),
        z3.And(s == c * enc.floordiv(s - r, c) + r, between(t_lo, enc.floordiv(s - r, c), t_hi)),
    )
    return Goal.of(
        [c > 0, between(0, r, c - 1), enc.mod(lo, c) == r, enc.mod(hi, c) == r],
        z3.And(into, back),
        [s, t, c, r, lo, hi],
    )


def _project(enc: Encoding) -> Goal:
    # ⇒ for every s; ⇐ with a witness: the s nearest a that brings c * s + r
    # into [lo, hi] (c = 1: lo - r when above a; c = -1: r - hi when above a).
    s, r, a, b, lo, hi, c = enc.ints("s r a b lo hi c")

    def meets(x: z3.ArithRef) -> z3.BoolRef:
        return z3.And(between(a, x, b), between(lo, c * x + r, hi))

    top = z3.If(c * a > c * b, c * a, c * b)
    bottom = z3.If(c * a < c * b, c * a, c * b)
    projected = between(lo - top, r, hi - bottom)
    witness = z3.If(c == 1, z3.If(lo - r > a, lo - r, a), z3.If(r - hi > a, r - hi, a))
    return Goal.of(
        [a <= b, lo <= hi, z3.Or(c == 1, c == -1)],
        z3.And(z3.Implies(meets(s), projected), z3.Implies(projected, meets(witness))),
        [s, r, a, b, lo, hi, c],
    )


def _unused(enc: Encoding) -> Goal:
    (x,) = enc.ints("x")
    y = z3.Int("y", ctx=enc.context)
    integers, boolean = z3.IntSort(ctx=enc.context), z3.BoolSort(ctx=enc.context)
    kept = z3.Function("P", integers, boolean)
    free = z3.Function("Q", integers, boolean)
    return Goal.of(
        [z3.Exists([y], free(y))],
        z3.Exists([y], z3.And(kept(x), free(y))) == kept(x),
        [x],
    )


LEMMAS: tuple[Lemma, ...] = (
    Lemma("domain_empty_bounds", "lo > hi ⇒ ¬(lo <= x <= hi)", _empty_bounds),
    Lemma(
        "constraint_mod_merge_lcm",
        "l = lcm(a, b) ∧ r ≡ r1 (mod a) ∧ r ≡ r2 (mod b) ⇒ (x mod a = r1 ∧ x mod b = r2 ⇔"
        " x mod l = r); (r2 - r1) mod gcd(a, b) ≠ 0 ⇒ no x",
        _merge,
    ),
    Lemma(
        "constraint_mod_tighten_bounds",
        "0 <= r < c ⇒ (x mod c = r ∧ lo <= x <= hi ⇔ x mod c = r ∧"
        " lo + (r - lo) mod c <= x <= hi - (hi - r) mod c)",
        _tighten,
    ),
    Lemma(
        "constraint_enumerate_bounds",
        "(∀v. (lo <= v < a ∨ b < v <= hi) ⇒ ¬C(v)) ∧ lo <= a ∧ b <= hi ⇒"
        " (lo <= x <= hi ∧ C(x) ⇔ a <= x <= b ∧ C(x)); (∀v. lo <= v <= hi ⇒ ¬C(v))"
        " ⇒ ¬(lo <= x <= hi ∧ C(x))",
        _enumerate_bounds,
    ),
    Lemma(
        "rescale_symbol",
        "0 <= r < c ∧ lo, hi on the lattice ⇒ t ↦ c * t + r is a bijection from"
        " [(lo - r) floordiv c, (hi - r) floordiv c] onto {s in [lo, hi] : s mod c = r}",
        _rescale,
    ),
    Lemma(
        "project_lone_symbol",
        "a <= b ∧ lo <= hi ∧ c ∈ {1, -1} ⇒ ((∃s. a <= s <= b ∧ lo <= c * s + r <= hi)"
        " ⇔ lo - max(c * a, c * b) <= r <= hi - min(c * a, c * b))",
        _project,
    ),
    Lemma("remove_unused_symbols", "(∃y. Q(y)) ⇒ ((∃y. P(x) ∧ Q(y)) ⇔ P(x))", _unused),
)
