"""Rules known to be wrong elsewhere, stated as lemmas so the prover refutes
them with a counterexample.  None of them is registered in the simplifier;
the tests require each to be *refuted* — evidence that a wrong rule would not
slip through `prove-rules`.
"""

from __future__ import annotations

from typing import Any

import z3

from proofs.lemma import EXPLICIT_ONLY, Encoding, Goal, Lemma, between


def _negative_divisor_bounds(enc: Encoding) -> Goal:
    # Rewriting e floordiv k in [l, u] for k < 0 as if floor(e / k) were
    # -floor(e / -k) (truncation-style reasoning).
    e, k, lo, hi = enc.ints("e k lo hi")
    return Goal.of(
        [k < 0],
        between(lo, enc.floordiv(e, k, positive=False), hi)
        == between(lo, -enc.floordiv(e, -k), hi),
        [e, k, lo, hi],
    )


def _drop_summand_not_from_zero(enc: Encoding) -> Goal:
    # Dropping B from A * g + B in [0, u] to A in [0, u floordiv g] although
    # B ranges over [1, g] instead of [0, g - 1].
    a, b, g, u = enc.ints("a b g u")
    return Goal.of(
        [g > 0, between(1, b, g)],
        between(0, a * g + b, u) == between(0, a, enc.floordiv(u, g)),
        [a, b, g, u],
    )


def _truncating(x: Any, c: Any) -> Any:
    """Truncating division (toward zero) for c > 0, as C++'s ``/`` does it."""
    return z3.If(x >= 0, x / c, -((-x) / c))


def _mod_bounds_truncating(enc: Encoding) -> Goal:
    # x mod c in [r, r] turned into a lower bound on x by rounding lo up to the
    # lattice with truncating division: c * trunc((lo - r + c - 1) / c) + r.
    x, c, r, lo, hi = enc.ints("x c r lo hi")
    on_lattice = enc.mod(x, c) == r
    rounded = c * _truncating(lo - r + c - 1, c) + r
    return Goal.of(
        [c > 0, between(0, r, c - 1)],
        z3.And(on_lattice, between(lo, x, hi)) == z3.And(on_lattice, between(rounded, x, hi)),
        [x, c, r, lo, hi],
    )


def _remove_shared_symbol(enc: Encoding) -> Goal:
    # (d0)[s0, s1] with s0 kept (it is in a result) and s1 removed although
    # the constraint s0 + s1 in [clo, chi] ties them.  Removal is justified
    # only by "the constraints of s1 are satisfiable" (for *some* s0); it
    # claims that every s0 in its bounds keeps a partner s1.
    s0, s1, t, lo0, hi0, lo1, hi1, clo, chi = enc.ints("s0 s1 t lo0 hi0 lo1 hi1 clo chi")

    def shared(kept: Any) -> Any:
        return z3.And(between(lo1, s1, hi1), between(clo, kept + s1, chi))

    satisfiable = z3.Exists([t, s1], z3.And(between(lo0, t, hi0), shared(t)))
    return Goal.of(
        [satisfiable, between(lo0, s0, hi0)],
        z3.Exists([s1], shared(s0)),
        [s0, lo0, hi0, lo1, hi1, clo, chi],
    )


LEMMAS: tuple[Lemma, ...] = (
    Lemma(
        "wrong_floordiv_negative_divisor_bounds",
        "k < 0 ⇒ (e floordiv k in [l, u] ⇔ -(e floordiv -k) in [l, u])",
        _negative_divisor_bounds,
        expected="refuted",
        strategies=EXPLICIT_ONLY,
    ),
    Lemma(
        "wrong_drop_summand_not_from_zero",
        "g > 0 ∧ 1 <= b <= g ⇒ (a * g + b in [0, u] ⇔ a in [0, u floordiv g])",
        _drop_summand_not_from_zero,
        expected="refuted",
    ),
    Lemma(
        "wrong_mod_bounds_truncating_division",
        "x mod c = r ∧ lo <= x ⇔ x mod c = r ∧ c * trunc((lo - r + c - 1) / c) + r <= x",
        _mod_bounds_truncating,
        expected="refuted",
    ),
    Lemma(
        "wrong_remove_symbol_sharing_constraint",
        "(∃s1. s1 in [lo1, hi1] ∧ s0 + s1 in [clo, chi]) ⇔ true",
        _remove_shared_symbol,
        expected="refuted",
    ),
)
