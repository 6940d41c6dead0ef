"""Small helpers shared by the rule families: sums as ``{base: coefficient}``."""

from __future__ import annotations

from collections.abc import Iterable

from verifier.expr.nodes import Expr, from_linear_terms, linear_terms

Terms = dict[Expr, int]


def split_by(expr: Expr, keep: Iterable[Expr]) -> tuple[Expr, Expr]:
    """`expr` as ``(part with the bases in keep, the rest)`` (constant in the rest)."""
    terms, constant = linear_terms(expr)
    chosen = set(keep)
    inside = {b: k for b, k in terms.items() if b in chosen}
    outside = {b: k for b, k in terms.items() if b not in chosen}
    return from_linear_terms(inside, 0), from_linear_terms(outside, constant)


def divided(terms: Terms, constant: int, divisor: int) -> Expr:
    """``sum(terms) + constant`` divided exactly by `divisor` (caller checks)."""
    return from_linear_terms({b: k // divisor for b, k in terms.items()}, constant // divisor)


def divisors_descending(value: int, *, limit: int = 1 << 12) -> list[int]:
    """The divisors ``> 1`` of a positive `value`, largest first.

    For very large values only the divisors found below `limit` (and their
    co-divisors) are listed: a rule then misses a candidate, never invents one.
    """
    found: set[int] = set()
    candidate = 1
    while candidate * candidate <= value and candidate <= limit:
        if value % candidate == 0:
            found.update((candidate, value // candidate))
        candidate += 1
    return sorted((d for d in found if d > 1), reverse=True)
