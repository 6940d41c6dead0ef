"""Lemmas of the sum rules (`verifier.simplify.rules.sums`)."""

from __future__ import annotations

from proofs.lemma import Encoding, Goal, Lemma


def _recombine(enc: Encoding) -> Goal:
    x, a, b, k = enc.ints("x a b k")
    return Goal.of(
        [a > 0, b > 0],
        k * b * enc.floordiv(x, a * b) + k * enc.mod(enc.floordiv(x, a), b)
        == k * enc.floordiv(x, a),
        [x, a, b, k],
    )


def _to_mod(enc: Encoding) -> Goal:
    x, c, k = enc.ints("x c k")
    return Goal.of([c > 0], k * x - k * c * enc.floordiv(x, c) == k * enc.mod(x, c), [x, c, k])


def _to_mod_with_rest(enc: Encoding) -> Goal:
    x, c, k, m = enc.ints("x c k m")
    return Goal.of(
        [c > 0],
        m * x - k * c * enc.floordiv(x, c) == k * enc.mod(x, c) + (m - k) * x,
        [x, c, k, m],
    )


LEMMAS: tuple[Lemma, ...] = (
    Lemma(
        "sum_recombine_div_mod",
        "c > 0 ⇒ k * c * (x floordiv c) + k * (x mod c) = k * x",
        _recombine,
    ),
    Lemma("sum_floordiv_to_mod", "c > 0 ⇒ k * x - k * c * (x floordiv c) = k * (x mod c)", _to_mod),
    Lemma(
        "sum_floordiv_to_mod_with_rest",
        "c > 0 ⇒ m * x - k * c * (x floordiv c) = k * (x mod c) + (m - k) * x",
        _to_mod_with_rest,
    ),
)
