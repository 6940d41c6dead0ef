"""`floordiv` and `ceildiv` rules: pull out multiples, gcd, nesting, mod inside.

All divisors are positive here: the core normalises negative divisors at
construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.expr import (
    CeilDiv,
    Expr,
    FloorDiv,
    Interval,
    Mod,
    Ranges,
    ceildiv,
    floordiv,
    from_linear_terms,
    linear_terms,
    mod,
)
from verifier.simplify.rules.base import ExprRule
from verifier.simplify.rules.terms import (
    GcdSplit,
    Terms,
    divided,
    first_fitting,
    gcd_splits,
)

FAMILY = "floordiv"

# Indices are int64 in XLA; a rewrite that multiplies an operand must not
# create a value outside it.
_INT64 = Interval(-(1 << 63), (1 << 63) - 1)


@dataclass(frozen=True)
class _Pulled:
    """``(c * q + rest) floordiv c``: the quotient part `q` and the rest."""

    quotient: Expr
    rest: Expr
    divisor: int


def _pull(operand: Expr, divisor: int) -> _Pulled | None:
    terms, constant = linear_terms(operand)
    multiples = {b: k for b, k in terms.items() if k % divisor == 0}
    if not multiples and 0 <= constant < divisor:
        return None
    rest = {b: k for b, k in terms.items() if k % divisor}
    return _Pulled(
        divided(multiples, constant - constant % divisor, divisor),
        from_linear_terms(rest, constant % divisor),
        divisor,
    )


def _match_pull_floordiv(expr: Expr) -> _Pulled | None:
    return _pull(expr.operand, expr.divisor) if isinstance(expr, FloorDiv) else None


def _match_pull_ceildiv(expr: Expr) -> _Pulled | None:
    return _pull(expr.operand, expr.divisor) if isinstance(expr, CeilDiv) else None


@dataclass(frozen=True)
class _Factoring:
    """``(g * y + r) floordiv (g * m)`` splits (g, y, r), largest g first."""

    divisor: int
    splits: tuple[GcdSplit, ...]


def _match_gcd(expr: Expr) -> _Factoring | None:
    if not isinstance(expr, FloorDiv):
        return None
    splits = gcd_splits(expr.operand, expr.divisor)
    return _Factoring(expr.divisor, splits) if splits else None


def _gcd_rewrite(match: _Factoring, ranges: Ranges) -> Expr:
    split = first_fitting(match.splits, ranges)
    assert split is not None, "side condition not checked"
    return floordiv(split.big, match.divisor // split.g)


def _match_of_mod(expr: Expr) -> FloorDiv | None:
    match expr:
        case FloorDiv(Mod(_, modulus), divisor) if (
            modulus % divisor == 0 and modulus // divisor > 1
        ):
            return expr
    return None


def _of_mod(node: FloorDiv, ranges: Ranges) -> Expr:
    inner = node.operand
    assert isinstance(inner, Mod)
    return mod(floordiv(inner.operand, node.divisor), inner.modulus // node.divisor)


def _match_nested(expr: Expr) -> FloorDiv | None:
    if isinstance(expr, FloorDiv) and isinstance(expr.operand, FloorDiv):
        return expr
    return None


def _nested(node: FloorDiv, ranges: Ranges) -> Expr:
    inner = node.operand
    assert isinstance(inner, FloorDiv)
    return floordiv(inner.operand, inner.divisor * node.divisor)


@dataclass(frozen=True)
class _Absorb:
    """``(a + y floordiv d) floordiv c`` with the only division ``y floordiv d``."""

    rest: Terms
    constant: int
    inner: FloorDiv
    divisor: int

    @property
    def merged(self) -> Expr:
        d = self.inner.divisor
        return from_linear_terms(self.rest, self.constant) * d + self.inner.operand


def _match_absorb(expr: Expr) -> _Absorb | None:
    if not isinstance(expr, FloorDiv):
        return None
    terms, constant = linear_terms(expr.operand)
    divisions = [b for b in terms if isinstance(b, FloorDiv | CeilDiv)]
    if len(divisions) != 1 or not isinstance(divisions[0], FloorDiv):
        return None
    inner = divisions[0]
    if terms[inner] != 1 or len(terms) == 1:
        return None
    rest = {b: k for b, k in terms.items() if b is not inner}
    return _Absorb(rest, constant, inner, expr.divisor)


RULES: tuple[ExprRule[Any], ...] = (
    ExprRule(
        name="floordiv_pull_multiples",
        family=FAMILY,
        description="summands whose coefficient c divides leave the division:"
        " (d0 * 16 + d1 * 4 + d2) floordiv 8 -> d0 * 2 + (d1 * 4 + d2) floordiv 8",
        lemma="c > 0 ⇒ (x + c * y) floordiv c = y + x floordiv c",
        matches=_match_pull_floordiv,
        side_condition=lambda match, ranges: True,
        rewrite=lambda match, ranges: match.quotient + floordiv(match.rest, match.divisor),
    ),
    ExprRule(
        name="ceildiv_pull_multiples",
        family=FAMILY,
        description="summands whose coefficient c divides leave the division:"
        " (d0 * 8 + d1) ceildiv 4 -> d0 * 2 + d1 ceildiv 4",
        lemma="c > 0 ⇒ (x + c * y) ceildiv c = y + x ceildiv c",
        matches=_match_pull_ceildiv,
        side_condition=lambda match, ranges: True,
        rewrite=lambda match, ranges: match.quotient + ceildiv(match.rest, match.divisor),
    ),
    ExprRule(
        name="floordiv_drop_small_remainder",
        family=FAMILY,
        description="(g * y + r) floordiv (g * m) -> y floordiv m when r in [0, g - 1]:"
        " (d0 * 4 + d1) floordiv 8 with d1 in [0, 3] -> d0 floordiv 2",
        lemma="g > 0 ∧ m > 0 ∧ 0 <= r < g ⇒ (g * y + r) floordiv (g * m) = y floordiv m",
        matches=_match_gcd,
        side_condition=lambda match, ranges: first_fitting(match.splits, ranges) is not None,
        rewrite=_gcd_rewrite,
    ),
    ExprRule(
        name="floordiv_of_mod",
        family=FAMILY,
        description="(x mod (a * b)) floordiv a -> (x floordiv a) mod b:"
        " (d0 mod 100) floordiv 10 -> (d0 floordiv 10) mod 10",
        lemma="a > 0 ∧ b > 0 ⇒ (x mod (a * b)) floordiv a = (x floordiv a) mod b",
        matches=_match_of_mod,
        side_condition=lambda node, ranges: True,
        rewrite=_of_mod,
    ),
    ExprRule(
        name="floordiv_nested",
        family=FAMILY,
        description="(x floordiv a) floordiv b -> x floordiv (a * b):"
        " (d0 floordiv 4) floordiv 8 -> d0 floordiv 32",
        lemma="a > 0 ∧ b > 0 ⇒ (x floordiv a) floordiv b = x floordiv (a * b)",
        matches=_match_nested,
        side_condition=lambda node, ranges: True,
        rewrite=_nested,
    ),
    ExprRule(
        name="floordiv_absorb_inner_division",
        family=FAMILY,
        description="(a + y floordiv d) floordiv c -> (a * d + y) floordiv (c * d) when the"
        " new operand stays in int64: (s0 * 2 + s1 floordiv 64) floordiv 3 ->"
        " (s0 * 128 + s1) floordiv 192",
        lemma="c > 0 ∧ d > 0 ⇒ (a + y floordiv d) floordiv c = (a * d + y) floordiv (c * d)",
        matches=_match_absorb,
        side_condition=lambda match, ranges: _INT64.contains_interval(
            ranges.interval(match.merged)
        ),
        rewrite=lambda match, ranges: floordiv(match.merged, match.divisor * match.inner.divisor),
    ),
)
