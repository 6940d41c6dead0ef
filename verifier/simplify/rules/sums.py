"""Sum rules: a division and its remainder recombine into the dividend.

Canonical sums themselves (flattening, like terms, order, constant last) are
built by the core constructors; see `construction.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.expr import (
    Add,
    Expr,
    FloorDiv,
    Mod,
    Ranges,
    floordiv,
    from_linear_terms,
    linear_terms,
    mod,
)
from verifier.simplify.rules.base import ExprRule
from verifier.simplify.rules.terms import Terms

FAMILY = "sums"


@dataclass(frozen=True)
class _Pair:
    """A sum holding ``k * c * (x floordiv c)`` and a partner for the rewrite."""

    terms: Terms
    constant: int
    division: FloorDiv
    scale: int


def _remainder_partner(division: FloorDiv, base: Expr) -> tuple[Expr, int] | None:
    """For ``x floordiv (a * b)``, the quotient ``x floordiv a`` (or ``x`` when
    ``a = 1``) and ``b`` when `base` is ``(x floordiv a) mod b``."""
    if not isinstance(base, Mod) or division.divisor % base.modulus:
        return None
    a = division.divisor // base.modulus
    quotient = floordiv(division.operand, a)
    return (quotient, a) if base.operand is quotient else None


@dataclass(frozen=True)
class _Nested:
    """``K * (x floordiv (a * b))`` and ``k * ((x floordiv a) mod b)`` with
    ``K = k * b``: together ``k * (x floordiv a)``."""

    terms: Terms
    constant: int
    division: FloorDiv
    remainder: Expr
    quotient: Expr
    scale: int


def _match_recombine(expr: Expr) -> _Nested | None:
    if not isinstance(expr, Add):
        return None
    terms, constant = linear_terms(expr)
    for division, coefficient in terms.items():
        if not isinstance(division, FloorDiv):
            continue
        for base, scale in terms.items():
            partner = _remainder_partner(division, base)
            if partner is None or not isinstance(base, Mod):
                continue
            if coefficient == scale * base.modulus:
                return _Nested(terms, constant, division, base, partner[0], scale)
    return None


def _recombine(match: _Nested, ranges: Ranges) -> Expr:
    rest = {
        b: k for b, k in match.terms.items() if b is not match.division and b is not match.remainder
    }
    return from_linear_terms(rest, match.constant) + match.quotient * match.scale


def _match_to_mod(expr: Expr) -> _Pair | None:
    if not isinstance(expr, Add):
        return None
    terms, constant = linear_terms(expr)
    for base, coefficient in terms.items():
        if not isinstance(base, FloorDiv) or coefficient % base.divisor:
            continue
        scale = -coefficient // base.divisor
        dividend, _ = linear_terms(base.operand * scale)
        if dividend and all(terms.get(b) == k for b, k in dividend.items()):
            return _Pair(terms, constant, base, scale)
    return None


def _match_to_mod_with_rest(expr: Expr) -> _Pair | None:
    """``m * x - k * c * (x floordiv c)`` where each term of ``k * x`` has the
    same sign in the sum (so ``m - k`` only shrinks it) but not the same value."""
    if not isinstance(expr, Add) or _match_to_mod(expr) is not None:
        return None
    terms, constant = linear_terms(expr)
    for base, coefficient in terms.items():
        if not isinstance(base, FloorDiv) or coefficient % base.divisor:
            continue
        scale = -coefficient // base.divisor
        dividend, _ = linear_terms(base.operand * scale)
        if dividend and all(
            terms.get(b, 0) * k > 0 and abs(terms[b]) > abs(k) for b, k in dividend.items()
        ):
            return _Pair(terms, constant, base, scale)
    return None


def _to_mod(match: _Pair, ranges: Ranges) -> Expr:
    division = match.division
    total = from_linear_terms(match.terms, match.constant)
    # total = rest + k * x - k * c * (x floordiv c) = rest + k * (x mod c)
    rest = total - division.operand * match.scale + division * (match.scale * division.divisor)
    return rest + mod(division.operand, division.divisor) * match.scale


RULES: tuple[ExprRule[Any], ...] = (
    ExprRule(
        name="sum_recombine_div_mod",
        family=FAMILY,
        description="(x floordiv (a * b)) * b * k + ((x floordiv a) mod b) * k ->"
        " (x floordiv a) * k, and with a = 1: (d0 floordiv 8) * 8 + d0 mod 8 -> d0,"
        " (d0 floordiv 250) * 250 + ((d0 floordiv 50) mod 5) * 50 -> (d0 floordiv 50) * 50",
        lemma="a > 0 ∧ b > 0 ⇒ k * b * (x floordiv (a * b)) + k * ((x floordiv a) mod b)"
        " = k * (x floordiv a)",
        matches=_match_recombine,
        side_condition=lambda match, ranges: True,
        rewrite=_recombine,
    ),
    ExprRule(
        name="sum_floordiv_to_mod",
        family=FAMILY,
        description="x * k - (x floordiv c) * c * k -> (x mod c) * k:"
        " d0 - (d0 floordiv 4) * 4 -> d0 mod 4",
        lemma="c > 0 ⇒ k * x - k * c * (x floordiv c) = k * (x mod c)",
        matches=_match_to_mod,
        side_condition=lambda match, ranges: True,
        rewrite=_to_mod,
    ),
    ExprRule(
        name="sum_floordiv_to_mod_with_rest",
        family=FAMILY,
        description="x * m - (x floordiv c) * c * k -> (x mod c) * k + x * (m - k):"
        " (s0 floordiv 5) * -10 + s0 * 3 + d0 -> (s0 mod 5) * 2 + s0 + d0",
        lemma="c > 0 ⇒ m * x - k * c * (x floordiv c) = k * (x mod c) + (m - k) * x",
        matches=_match_to_mod_with_rest,
        side_condition=lambda match, ranges: True,
        rewrite=_to_mod,
    ),
)
