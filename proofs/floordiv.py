"""Lemmas of the `floordiv` and `ceildiv` rules (`verifier.simplify.rules.floordiv`)."""

from __future__ import annotations

from proofs.lemma import Encoding, Goal, Lemma


def _pull(enc: Encoding) -> Goal:
    x, y, c = enc.ints("x y c")
    return Goal.of([c > 0], enc.floordiv(x + c * y, c) == y + enc.floordiv(x, c), [x, y, c])


def _pull_ceil(enc: Encoding) -> Goal:
    x, y, c = enc.ints("x y c")
    return Goal.of([c > 0], enc.ceildiv(x + c * y, c) == y + enc.ceildiv(x, c), [x, y, c])


def _small_remainder(enc: Encoding) -> Goal:
    y, r, g, m = enc.ints("y r g m")
    return Goal.of(
        [g > 0, m > 0, r >= 0, r < g],
        enc.floordiv(g * y + r, g * m) == enc.floordiv(y, m),
        [y, r, g, m],
    )


def _of_mod(enc: Encoding) -> Goal:
    x, a, b = enc.ints("x a b")
    return Goal.of(
        [a > 0, b > 0],
        enc.floordiv(enc.mod(x, a * b), a) == enc.mod(enc.floordiv(x, a), b),
        [x, a, b],
    )


def _nested(enc: Encoding) -> Goal:
    x, a, b = enc.ints("x a b")
    return Goal.of(
        [a > 0, b > 0], enc.floordiv(enc.floordiv(x, a), b) == enc.floordiv(x, a * b), [x, a, b]
    )


def _absorb(enc: Encoding) -> Goal:
    a, y, c, d = enc.ints("a y c d")
    return Goal.of(
        [c > 0, d > 0],
        enc.floordiv(a + enc.floordiv(y, d), c) == enc.floordiv(a * d + y, c * d),
        [a, y, c, d],
    )


LEMMAS: tuple[Lemma, ...] = (
    Lemma("floordiv_pull_multiples", "c > 0 ⇒ (x + c * y) floordiv c = y + x floordiv c", _pull),
    Lemma("ceildiv_pull_multiples", "c > 0 ⇒ (x + c * y) ceildiv c = y + x ceildiv c", _pull_ceil),
    Lemma(
        "floordiv_drop_small_remainder",
        "g > 0 ∧ m > 0 ∧ 0 <= r < g ⇒ (g * y + r) floordiv (g * m) = y floordiv m",
        _small_remainder,
    ),
    Lemma(
        "floordiv_of_mod",
        "a > 0 ∧ b > 0 ⇒ (x mod (a * b)) floordiv a = (x floordiv a) mod b",
        _of_mod,
    ),
    Lemma(
        "floordiv_nested",
        "a > 0 ∧ b > 0 ⇒ (x floordiv a) floordiv b = x floordiv (a * b)",
        _nested,
    ),
    Lemma(
        "floordiv_absorb_inner_division",
        "c > 0 ∧ d > 0 ⇒ (a + y floordiv d) floordiv c = (a * d + y) floordiv (c * d)",
        _absorb,
    ),
)
