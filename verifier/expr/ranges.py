"""Range evaluation: the interval of any expression over a map's domain —
the project's one range evaluator (`verifier.expr.evaluate.interval_of` is
this without constraints).

A `Ranges` knows the bounds of every variable and a set of constraints
``g in [lo, hi]`` that hold at every point of the domain.  `interval(e)`
is interval arithmetic made tighter in three sound ways:

* a constraint on exactly the sub-expression ``g`` (or on an affine image of
  it: ``k * g + c`` for the same linear part) intersects ``g``'s interval;
* ``mod`` and the divisions are evaluated on the operand's *tightened*
  interval, so a constraint deep in the tree propagates upward;
* a sum holding ``x`` and ``-k * c * (x floordiv c)`` is also evaluated as
  ``k * (x mod c)`` plus the rest, where the two no longer move against
  each other (`_remainder_forms`).

Each fact is three-valued: `True`, `False`, or `None` ("can't tell").
`None` never means `False`.

>>> from verifier.expr.parser import parse_map
>>> m = parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [0, 9], "
...               "d0 + s0 in [0, 7]")
>>> ranges = Ranges.of_map(m)
>>> ranges.interval(m.results[0] * 2 + 1)
Interval(lower=1, upper=15)
>>> ranges.always_less_than(m.results[0], 8)
True

The constraints used must hold on the whole domain the rewritten expression
is evaluated on.  When a constraint's *own* expression is simplified it must
not be used (``d0 mod 2`` in ``d0 mod 2 in [0, 0]`` would become ``0`` and the
constraint would vanish): `Ranges.of_map(m, excluding=e)` leaves it out.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, assert_never

from verifier.expr.interval import Interval
from verifier.expr.nodes import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    Max,
    Min,
    Mod,
    Mul,
    Var,
    linear_terms,
)

if TYPE_CHECKING:
    from verifier.expr.indexing_map import IndexingMap

# A linear part normalised up to a constant factor: sorted (base, coefficient)
# pairs with coprime coefficients and a positive first coefficient.
_LinearKey = tuple[tuple[Expr, int], ...]


@functools.lru_cache(maxsize=1 << 12)
def _normalised(expr: Expr) -> tuple[_LinearKey, int, int] | None:
    """``expr = factor * key + constant``, or None for a constant
    (remembered for the last 4,096 expressions: every `Ranges` normalises
    each constraint of its map, and simplification builds one per rewrite)."""
    terms, constant = linear_terms(expr)
    items = sorted(((b, k) for b, k in terms.items() if k), key=lambda item: item[0].sort_key)
    if not items:
        return None
    factor = 0
    for _, coefficient in items:
        factor = math.gcd(factor, coefficient)
    if items[0][1] < 0:
        factor = -factor
    return tuple((b, k // factor) for b, k in items), factor, constant


def _remainder_forms(expr: Expr) -> list[Expr]:
    """`expr` rewritten, once per ``(x floordiv c)`` summand with a coefficient
    ``-k * c``, as ``rest + k * (x mod c)``, and once per ``x mod c`` summand
    with a coefficient ``-k``, as ``rest + k * c * (x floordiv c)``: equal
    forms in which the summand no longer varies against ``x`` (both are
    ``sum_floordiv_to_mod``'s lemma, ``x = c * (x floordiv c) + x mod c``).

    Interval arithmetic on ``s0 - (s0 floordiv 32) * 32`` loses that both
    terms move together ([-992, 1023] for s0 in [0, 1023]); on ``s0 mod 32``
    it is exact ([0, 31]).
    """
    terms, _ = linear_terms(expr)
    forms: list[Expr] = []
    for base, coefficient in terms.items():
        if isinstance(base, FloorDiv) and coefficient % base.divisor == 0:
            scale = -coefficient // base.divisor
            remainder = (base.operand % base.divisor) * scale
        elif isinstance(base, Mod):
            # k * x - k * (x mod c) = k * c * (x floordiv c): the mirror image.
            scale = -coefficient
            remainder = (base.operand // base.modulus) * (scale * base.modulus)
        else:
            continue
        dividend, _ = linear_terms(base.operand * scale)
        if not any(terms.get(b, 0) * k > 0 for b, k in dividend.items()):
            continue  # nothing in the sum moves with the division
        forms.append(expr - base.operand * scale - base * coefficient + remainder)
    return forms


def _summands(expr: Expr) -> tuple[Expr, ...]:
    return expr.operands if isinstance(expr, Add) else (expr,)


def _divide_inward(interval: Interval, factor: int) -> Interval:
    """The integers ``y`` with ``factor * y`` in `interval` (factor != 0)."""
    if factor < 0:
        interval, factor = -interval, -factor
    return Interval(-(-interval.lower // factor), interval.upper // factor)


@dataclass
class Ranges:
    """Intervals of expressions from variable bounds and domain constraints.

    Mutable only through its memo table; build one per map state.
    """

    bounds: Callable[[Var], Interval]
    constraints: Mapping[Expr, Interval]
    _by_linear_part: dict[_LinearKey, Interval] = field(default_factory=dict, repr=False)
    _memo: dict[Expr, Interval] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for expr, interval in self.constraints.items():
            normalised = _normalised(expr)
            if normalised is None:
                continue
            key, factor, constant = normalised
            # factor * key + constant in interval  <=>  key in (interval - constant) / factor
            allowed = _divide_inward(interval + (-constant), factor)
            previous = self._by_linear_part.get(key)
            self._by_linear_part[key] = allowed if previous is None else previous.intersect(allowed)

    @staticmethod
    def of_map(indexing_map: IndexingMap, *, excluding: Iterable[Expr] = ()) -> Ranges:
        """The ranges on `indexing_map`'s domain, leaving out the constraints on
        the expressions in `excluding`."""
        skipped = set(excluding)
        return Ranges(
            indexing_map.bounds,
            {e: b for e, b in indexing_map.constraints if e not in skipped},
        )

    # ---------------------------------------------------------------- intervals

    def interval(self, expr: Expr) -> Interval:
        """An interval containing the value of `expr` at every domain point.

        >>> from verifier.expr.nodes import dim
        >>> Ranges({dim(0): Interval(0, 9)}.__getitem__, {dim(0) % 4: Interval(1, 1)}).interval(
        ...     (dim(0) % 4) * 3)
        Interval(lower=3, upper=3)
        """
        cached = self._memo.get(expr)
        if cached is None:
            cached = self._compute(expr)
            self._memo[expr] = cached
        return cached

    def _compute(self, expr: Expr) -> Interval:
        match expr:
            case Const(value):
                return Interval.point(value)
            case Var():
                return self.bounds(expr)
            case Add(operands):
                total = Interval.point(0)
                for operand in operands:
                    total = total + self.interval(operand)
                result = total
                # Each form's summands are evaluated on their own (a form of a
                # form could be the sum again).
                for remainder_form in _remainder_forms(expr):
                    form_total = Interval.point(0)
                    for term in _summands(remainder_form):
                        form_total = form_total + self.interval(term)
                    result = result.intersect(form_total)
            case Mul(operand, factor):
                result = self.interval(operand) * factor
            case FloorDiv(operand, divisor):
                result = self.interval(operand).floordiv(divisor)
            case CeilDiv(operand, divisor):
                result = self.interval(operand).ceildiv(divisor)
            case Mod(operand, modulus):
                result = self.interval(operand).mod(modulus)
            case Min(lhs, rhs):
                result = self.interval(lhs).min(self.interval(rhs))
            case Max(lhs, rhs):
                result = self.interval(lhs).max(self.interval(rhs))
            case _:
                assert_never(expr)
        if not self._by_linear_part:
            return result
        constrained = self._constrained(expr)
        return result if constrained is None else result.intersect(constrained)

    def _constrained(self, expr: Expr) -> Interval | None:
        """What the constraints say about `expr` (None: nothing)."""
        normalised = _normalised(expr)
        if normalised is None:
            return None
        key, factor, constant = normalised
        allowed = self._by_linear_part.get(key)
        if allowed is None or allowed.is_empty:
            # An empty interval stays empty (scaling would reorder its ends).
            return allowed
        return allowed * factor + constant

    # ---------------------------------------------------------------- facts

    def is_nonnegative(self, expr: Expr) -> bool | None:
        """Whether ``expr >= 0`` everywhere (None: can't tell)."""
        interval = self.interval(expr)
        if interval.lower >= 0:
            return True
        if interval.upper < 0:
            return False
        return None

    def always_less_than(self, expr: Expr, bound: Expr | int) -> bool | None:
        """Whether ``expr < bound`` everywhere (None: can't tell)."""
        other = Interval.point(bound) if isinstance(bound, int) else self.interval(bound)
        interval = self.interval(expr)
        if interval.upper < other.lower:
            return True
        if interval.lower >= other.upper:
            return False
        return None

    def is_divisible(self, expr: Expr, divisor: int) -> bool | None:
        """Whether `divisor` divides `expr` everywhere (None: can't tell).

        True when every coefficient and the constant are multiples; False when
        every coefficient is a multiple but the constant is not, or when the
        value is a single non-multiple.
        """
        if divisor == 0:
            raise ValueError("divisibility by zero")
        terms, constant = linear_terms(expr)
        if all(k % divisor == 0 for k in terms.values()):
            return constant % divisor == 0
        interval = self.interval(expr)
        if interval.is_point:
            return interval.lower % divisor == 0
        return None

    def single_value(self, expr: Expr) -> int | None:
        """The value of `expr` when its range is a single point."""
        interval = self.interval(expr)
        return interval.lower if interval.is_point else None
