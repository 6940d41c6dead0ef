"""Small helpers shared by the rule families: sums as ``{base: coefficient}``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from verifier.expr import Expr, Interval, Ranges, from_linear_terms, linear_terms

Terms = dict[Expr, int]


@dataclass(frozen=True)
class GcdSplit:
    """A sum written ``g * big + small``; the `floordiv`, `mod` and block
    constraint rules apply when ``small`` stays in ``[0, g - 1]``.

    ``d0 * 4 + d1`` with g = 4 is big = ``d0``, small = ``d1``.
    """

    g: int
    big: Expr
    small: Expr

    def fits(self, ranges: Ranges) -> bool:
        """Whether ``small`` provably lies in ``[0, g - 1]``."""
        return Interval(0, self.g - 1).contains_interval(ranges.interval(self.small))


def first_fitting(splits: Sequence[GcdSplit], ranges: Ranges) -> GcdSplit | None:
    """The first split whose small part fits below its ``g`` (None if none does)."""
    return next((split for split in splits if split.fits(ranges)), None)


def gcd_splits(operand: Expr, divisor: int) -> tuple[GcdSplit, ...]:
    """`operand` split by each proper divisor ``g`` of `divisor`, largest first:
    the summands whose coefficients ``g`` divides (and the constant's multiple
    of ``g``) form ``big``; the rest is ``small``.

    ``(d0 * 4 + d1 + 5)`` with divisor 8: g = 4 gives big = ``d0 + 1``,
    small = ``d1 + 1``; g = 2 gives big = ``d0 * 2 + 2``, small = ``d1 + 1``.
    """
    terms, constant = linear_terms(operand)
    splits: list[GcdSplit] = []
    for g in divisors_descending(divisor):
        if g == divisor:
            continue  # g = c is the "multiples" rules' case.
        big = {b: k for b, k in terms.items() if k % g == 0}
        if not big:
            continue
        small = from_linear_terms({b: k for b, k in terms.items() if k % g}, constant % g)
        splits.append(GcdSplit(g, divided(big, constant - constant % g, g), small))
    return tuple(splits)


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
