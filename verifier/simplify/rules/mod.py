"""`mod` rules: drop when it cannot wrap, shift, drop multiples, gcd factoring.

All moduli are positive here: the core normalises ``x mod -c`` to
``-((-x) mod c)`` at construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.expr.interval import Interval
from verifier.expr.nodes import Expr, Mod, from_linear_terms, linear_terms, mod
from verifier.simplify.ranges import Ranges
from verifier.simplify.rules.base import ExprRule
from verifier.simplify.rules.terms import Terms, divided, divisors_descending

FAMILY = "mod"


def _as_mod(expr: Expr) -> Mod | None:
    return expr if isinstance(expr, Mod) else None


def _no_wrap(node: Mod, ranges: Ranges) -> bool:
    interval = ranges.interval(node.operand)
    return not interval.is_empty and interval.lower >= 0 and interval.upper < node.modulus


def _one_block(node: Mod, ranges: Ranges) -> bool:
    interval = ranges.interval(node.operand)
    block = interval.lower // node.modulus
    return not interval.is_empty and block != 0 and interval.upper // node.modulus == block


def _shifted(node: Mod, ranges: Ranges) -> Expr:
    block = ranges.interval(node.operand).lower // node.modulus
    return node.operand - block * node.modulus


@dataclass(frozen=True)
class _Reduced:
    """``(kept + multiples) mod c`` with the multiples of `c` already removed."""

    kept: Terms
    constant: int
    modulus: int


def _match_multiples(expr: Expr) -> _Reduced | None:
    if not isinstance(expr, Mod):
        return None
    terms, constant = linear_terms(expr.operand)
    kept = {b: k for b, k in terms.items() if k % expr.modulus}
    if len(kept) == len(terms) and 0 <= constant < expr.modulus:
        return None
    return _Reduced(kept, constant % expr.modulus, expr.modulus)


@dataclass(frozen=True)
class _InnerMod:
    """``(rest + k * (y mod a)) mod c`` with ``c | k * a``."""

    node: Mod
    inner: Mod
    coefficient: int


def _match_inner_mod(expr: Expr) -> _InnerMod | None:
    if not isinstance(expr, Mod):
        return None
    terms, _ = linear_terms(expr.operand)
    for base, coefficient in terms.items():
        if isinstance(base, Mod) and (coefficient * base.modulus) % expr.modulus == 0:
            return _InnerMod(expr, base, coefficient)
    return None


def _drop_inner_mod(match: _InnerMod, ranges: Ranges) -> Expr:
    # k * (y mod a) = k * y - (k * a) * (y floordiv a), and c | k * a.
    rest = match.node.operand - match.inner * match.coefficient
    return mod(rest + match.inner.operand * match.coefficient, match.node.modulus)


@dataclass(frozen=True)
class _Factoring:
    """``(g * y + r) mod (g * m)`` candidates: (g, y, r) for divisors g of the modulus."""

    modulus: int
    candidates: tuple[tuple[int, Expr, Expr], ...]


def _match_gcd(expr: Expr) -> _Factoring | None:
    if not isinstance(expr, Mod):
        return None
    terms, constant = linear_terms(expr.operand)
    candidates = []
    for g in divisors_descending(expr.modulus):
        if g == expr.modulus:
            continue  # g = c: the multiples rule and "no wrap" cover it.
        big = {b: k for b, k in terms.items() if k % g == 0}
        if not big:
            continue
        small = from_linear_terms({b: k for b, k in terms.items() if k % g}, constant % g)
        candidates.append((g, divided(big, constant - constant % g, g), small))
    return _Factoring(expr.modulus, tuple(candidates)) if candidates else None


def _fits_below(small: Expr, g: int, ranges: Ranges) -> bool:
    return Interval(0, g - 1).contains_interval(ranges.interval(small))


def _gcd_applies(match: _Factoring, ranges: Ranges) -> bool:
    return any(_fits_below(small, g, ranges) for g, _, small in match.candidates)


def _gcd_rewrite(match: _Factoring, ranges: Ranges) -> Expr:
    for g, big, small in match.candidates:
        if _fits_below(small, g, ranges):
            return mod(big, match.modulus // g) * g + small
    raise AssertionError("side condition not checked")


RULES: tuple[ExprRule[Any], ...] = (
    ExprRule(
        name="mod_drop_when_no_wrap",
        family=FAMILY,
        description="x mod c -> x when x in [0, c - 1]: (d0) -> (d0 mod 16), d0 in [0, 14]"
        " becomes (d0) -> (d0)",
        lemma="c > 0 ∧ 0 <= x < c ⇒ x mod c = x",
        matches=_as_mod,
        side_condition=_no_wrap,
        rewrite=lambda node, ranges: node.operand,
    ),
    ExprRule(
        name="mod_shift_when_no_wrap",
        family=FAMILY,
        description="x mod c -> x - k * c when x in [k * c, k * c + c - 1]: (d0 + 20) mod 16"
        " with d0 in [0, 9] becomes d0 + 4",
        lemma="c > 0 ∧ k * c <= x < k * c + c ⇒ x mod c = x - k * c",
        matches=_as_mod,
        side_condition=_one_block,
        rewrite=_shifted,
    ),
    ExprRule(
        name="mod_drop_multiples",
        family=FAMILY,
        description="summands that are multiples of c are dropped and the constant is"
        " reduced: (d0 * 16 + d1 + 17) mod 8 -> (d1 + 1) mod 8",
        lemma="c > 0 ⇒ (x + c * y) mod c = x mod c",
        matches=_match_multiples,
        side_condition=lambda match, ranges: True,
        rewrite=lambda match, ranges: mod(
            from_linear_terms(match.kept, match.constant), match.modulus
        ),
    ),
    ExprRule(
        name="mod_of_inner_mod",
        family=FAMILY,
        description="an inner mod whose multiples the outer modulus absorbs is dropped:"
        " (d0 mod 8) mod 4 -> d0 mod 4, (d0 + (d1 mod 4) * 2) mod 8 -> (d0 + d1 * 2) mod 8",
        lemma="a > 0 ∧ c > 0 ∧ k * a = c * m ⇒ (x + k * (y mod a)) mod c = (x + k * y) mod c",
        matches=_match_inner_mod,
        side_condition=lambda match, ranges: True,
        rewrite=_drop_inner_mod,
    ),
    ExprRule(
        name="mod_gcd_factor",
        family=FAMILY,
        description="(g * y + r) mod (g * m) -> (y mod m) * g + r when r in [0, g - 1]:"
        " (d0 * 4) mod 8 -> (d0 mod 2) * 4, (d0 * 4 + d1) mod 8 with d1 in [0, 3]"
        " -> (d0 mod 2) * 4 + d1",
        lemma="g > 0 ∧ m > 0 ∧ 0 <= r < g ⇒ (g * y + r) mod (g * m) = g * (y mod m) + r",
        matches=_match_gcd,
        side_condition=_gcd_applies,
        rewrite=_gcd_rewrite,
    ),
)
