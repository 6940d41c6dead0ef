"""`mod` rules: drop when it cannot wrap, shift, drop multiples, gcd factoring.

All moduli are positive here: the core normalises ``x mod -c`` to
``-((-x) mod c)`` at construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.expr import Expr, Mod, Ranges, from_linear_terms, linear_terms, mod
from verifier.simplify.rules.base import ExprRule
from verifier.simplify.rules.terms import GcdSplit, Terms, first_fitting, gcd_splits

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


def _nearest_residue(coefficient: int, modulus: int) -> int:
    """The coefficient ≡ `coefficient` (mod `modulus`) of least magnitude."""
    low = coefficient % modulus
    return low if low <= modulus - low else low - modulus


def _match_reducible(expr: Expr) -> Mod | None:
    if not isinstance(expr, Mod):
        return None
    terms, _ = linear_terms(expr.operand)
    reducible = any(
        abs(_nearest_residue(k, expr.modulus)) < abs(k) and k % expr.modulus for k in terms.values()
    )
    return expr if reducible else None


def _reduce_coefficients(node: Mod, ranges: Ranges) -> Expr:
    terms, constant = linear_terms(node.operand)
    reduced = {b: _nearest_residue(k, node.modulus) for b, k in terms.items()}
    return mod(from_linear_terms(reduced, constant), node.modulus)


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
    """``(g * y + r) mod (g * m)`` splits (g, y, r) for divisors g of the modulus."""

    modulus: int
    splits: tuple[GcdSplit, ...]


def _match_gcd(expr: Expr) -> _Factoring | None:
    if not isinstance(expr, Mod):
        return None
    splits = gcd_splits(expr.operand, expr.modulus)
    return _Factoring(expr.modulus, splits) if splits else None


def _gcd_rewrite(match: _Factoring, ranges: Ranges) -> Expr:
    split = first_fitting(match.splits, ranges)
    assert split is not None, "side condition not checked"
    return mod(split.big, match.modulus // split.g) * split.g + split.small


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
        name="mod_reduce_coefficients",
        family=FAMILY,
        description="each coefficient becomes its residue of least magnitude:"
        " (d0 * 3) mod 2 -> d0 mod 2, (d0 * 7 + d1) mod 4 -> (d1 - d0) mod 4; with"
        " mod_gcd_factor, (d0 * 6) mod 4 -> (d0 mod 2) * 2",
        lemma="c > 0 ⇒ (x + k * y) mod c = (x + k * y - c * w) mod c  (w = q * y: the"
        " coefficient k becomes k - c * q)",
        matches=_match_reducible,
        side_condition=lambda node, ranges: True,
        rewrite=_reduce_coefficients,
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
        side_condition=lambda match, ranges: first_fitting(match.splits, ranges) is not None,
        rewrite=_gcd_rewrite,
    ),
)
