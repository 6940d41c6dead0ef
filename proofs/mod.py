"""Lemmas of the `mod` rules (`verifier.simplify.rules.mod`)."""

from __future__ import annotations

from proofs.lemma import Encoding, Goal, Lemma


def _no_wrap(enc: Encoding) -> Goal:
    x, c = enc.ints("x c")
    return Goal.of([c > 0, x >= 0, x < c], enc.mod(x, c) == x, [x, c])


def _shift(enc: Encoding) -> Goal:
    x, c, k = enc.ints("x c k")
    return Goal.of([c > 0, k * c <= x, x < k * c + c], enc.mod(x, c) == x - k * c, [x, c, k])


def _multiples(enc: Encoding) -> Goal:
    x, y, c = enc.ints("x y c")
    return Goal.of([c > 0], enc.mod(x + c * y, c) == enc.mod(x, c), [x, y, c])


def _reduce(enc: Encoding) -> Goal:
    # (k - c * q) * y = k * y - c * w with w = q * y; proved for every integer w.
    x, y, k, c, w = enc.ints("x y k c w")
    return Goal.of([c > 0], enc.mod(x + k * y, c) == enc.mod(x + k * y - c * w, c), [x, y, k, c, w])


def _inner_mod(enc: Encoding) -> Goal:
    x, y, a, c, k, m = enc.ints("x y a c k m")
    return Goal.of(
        [a > 0, c > 0, k * a == c * m],
        enc.mod(x + k * enc.mod(y, a), c) == enc.mod(x + k * y, c),
        [x, y, a, c, k, m],
    )


def _gcd(enc: Encoding) -> Goal:
    y, r, g, m = enc.ints("y r g m")
    return Goal.of(
        [g > 0, m > 0, r >= 0, r < g],
        enc.mod(g * y + r, g * m) == g * enc.mod(y, m) + r,
        [y, r, g, m],
    )


LEMMAS: tuple[Lemma, ...] = (
    Lemma("mod_drop_when_no_wrap", "c > 0 ∧ 0 <= x < c ⇒ x mod c = x", _no_wrap),
    Lemma("mod_shift_when_no_wrap", "c > 0 ∧ k * c <= x < k * c + c ⇒ x mod c = x - k * c", _shift),
    Lemma("mod_drop_multiples", "c > 0 ⇒ (x + c * y) mod c = x mod c", _multiples),
    Lemma(
        "mod_reduce_coefficients",
        "c > 0 ⇒ (x + k * y) mod c = (x + k * y - c * w) mod c",
        _reduce,
    ),
    Lemma(
        "mod_of_inner_mod",
        "a > 0 ∧ c > 0 ∧ k * a = c * m ⇒ (x + k * (y mod a)) mod c = (x + k * y) mod c",
        _inner_mod,
    ),
    Lemma(
        "mod_gcd_factor",
        "g > 0 ∧ m > 0 ∧ 0 <= r < g ⇒ (g * y + r) mod (g * m) = g * (y mod m) + r",
        _gcd,
    ),
)
