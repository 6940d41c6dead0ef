"""Exact closed integer intervals and their arithmetic.

An `Interval` ``[lower, upper]`` is the set of integers ``lower <= x <= upper``;
``lower > upper`` is the empty interval.  Python ints are unbounded, so the
arithmetic is exact.  Every operation returns an interval that contains the
image of the operation on the operands' integers (a sound over-approximation;
exact for `+`, constant `*`, `floordiv` and `ceildiv` by a constant).

>>> Interval(0, 9) * 10 + Interval(0, 9)
Interval(lower=0, upper=99)
>>> Interval(-7, 7).floordiv(2)
Interval(lower=-4, upper=3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Interval:
    """The integers in ``[lower, upper]`` (both inclusive)."""

    lower: int
    upper: int

    @staticmethod
    def point(value: int) -> Interval:
        return Interval(value, value)

    @property
    def is_empty(self) -> bool:
        return self.lower > self.upper

    @property
    def is_point(self) -> bool:
        return self.lower == self.upper

    @property
    def size(self) -> int:
        """Number of integers in the interval (0 when empty)."""
        return max(0, self.upper - self.lower + 1)

    def __contains__(self, value: int) -> bool:
        return self.lower <= value <= self.upper

    def contains_interval(self, other: Interval) -> bool:
        """Whether every integer of `other` is in `self` (true for empty `other`)."""
        return other.is_empty or (self.lower <= other.lower and other.upper <= self.upper)

    def intersect(self, other: Interval) -> Interval:
        return Interval(max(self.lower, other.lower), min(self.upper, other.upper))

    def hull(self, other: Interval) -> Interval:
        """The smallest interval containing both."""
        if self.is_empty:
            return other
        if other.is_empty:
            return self
        return Interval(min(self.lower, other.lower), max(self.upper, other.upper))

    def __add__(self, other: Interval | int) -> Interval:
        if isinstance(other, int):
            return Interval(self.lower + other, self.upper + other)
        return Interval(self.lower + other.lower, self.upper + other.upper)

    def __neg__(self) -> Interval:
        return Interval(-self.upper, -self.lower)

    def __mul__(self, factor: int) -> Interval:
        a, b = self.lower * factor, self.upper * factor
        return Interval(min(a, b), max(a, b))

    def floordiv(self, divisor: int) -> Interval:
        """Exact image of ``x floordiv divisor`` (floor is monotone in x)."""
        a, b = self.lower // divisor, self.upper // divisor
        return Interval(min(a, b), max(a, b))

    def ceildiv(self, divisor: int) -> Interval:
        """Exact image of ``x ceildiv divisor``."""
        a, b = -(-self.lower // divisor), -(-self.upper // divisor)
        return Interval(min(a, b), max(a, b))

    def mod(self, modulus: int) -> Interval:
        """An interval containing ``x mod modulus`` (exact when no wrap-around)."""
        if self.lower // modulus == self.upper // modulus:
            a, b = self.lower % modulus, self.upper % modulus
            return Interval(min(a, b), max(a, b))
        if modulus > 0:
            return Interval(0, modulus - 1)
        return Interval(modulus + 1, 0)

    def min(self, other: Interval) -> Interval:
        return Interval(min(self.lower, other.lower), min(self.upper, other.upper))

    def max(self, other: Interval) -> Interval:
        return Interval(max(self.lower, other.lower), max(self.upper, other.upper))

    def __str__(self) -> str:
        return f"[{self.lower}, {self.upper}]"
