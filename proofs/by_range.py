"""Lemmas of the range rules (`verifier.simplify.rules.by_range`): single-valued
expressions and `min`/`max` decided by ranges."""

from __future__ import annotations

import z3

from proofs.lemma import Encoding, Goal, Lemma, between, zmax, zmin


def _single(enc: Encoding) -> Goal:
    x, lo, hi = enc.ints("x lo hi")
    return Goal.of([between(lo, x, hi), lo == hi], x == lo, [x, lo, hi])


def _min(enc: Encoding) -> Goal:
    a, b = enc.ints("a b")
    return Goal.of([a <= b], z3.And(zmin(a, b) == a, zmin(b, a) == a), [a, b])


def _max(enc: Encoding) -> Goal:
    a, b = enc.ints("a b")
    return Goal.of([a >= b], z3.And(zmax(a, b) == a, zmax(b, a) == a), [a, b])


def _min_difference(enc: Encoding) -> Goal:
    a, b = enc.ints("a b")
    return Goal.of([a - b <= 0], z3.And(zmin(a, b) == a, zmin(b, a) == a), [a, b])


def _max_difference(enc: Encoding) -> Goal:
    a, b = enc.ints("a b")
    return Goal.of([a - b >= 0], z3.And(zmax(a, b) == a, zmax(b, a) == a), [a, b])


LEMMAS: tuple[Lemma, ...] = (
    Lemma("const_from_range", "lo <= x <= hi ∧ lo = hi ⇒ x = lo", _single),
    Lemma("min_by_range", "a <= b ⇒ min(a, b) = a ∧ min(b, a) = a", _min),
    Lemma("max_by_range", "a >= b ⇒ max(a, b) = a ∧ max(b, a) = a", _max),
    Lemma("min_by_difference", "a - b <= 0 ⇒ min(a, b) = a ∧ min(b, a) = a", _min_difference),
    Lemma("max_by_difference", "a - b >= 0 ⇒ max(a, b) = a ∧ max(b, a) = a", _max_difference),
)
