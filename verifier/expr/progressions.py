"""Counting integer points of strided boxes and their unions, in closed form.

A `Progression` is the arithmetic progression ``{first + step * k : 0 <= k <
count}``; a `StridedBox` is a product of progressions, one per dimension.
These are the images of the common indexing maps: a slice with strides
``(d0, d1) -> (d0 * 2 + 1, d1 + 3)`` reads the box ``{1, 3, 5, …} × {3, 4,
…}``.  Their sizes are products, their intersections are strided boxes again
(per dimension, two progressions meet in a progression whose step is the
least common multiple: the Chinese remainder theorem), so the size of a
union follows from inclusion–exclusion without visiting a single point.

Worked example: the boxes A = ``{0, 2, …, 8} × {0, …, 9}`` (5 × 10 = 50
points) and B = ``{0, 3, …, 9} × {5, …, 14}`` (4 × 10 = 40 points) meet in
``{0, 6} × {5, …, 9}`` (x ≡ 0 mod 2 and x ≡ 0 mod 3 is x ≡ 0 mod 6; 2 × 5 =
10 points), so ``|A ∪ B| = 50 + 40 - 10 = 80``:

>>> a = StridedBox((Progression.of(0, 2, 5), Progression.of(0, 1, 10)))
>>> b = StridedBox((Progression.of(0, 3, 4), Progression.of(5, 1, 10)))
>>> a.intersect(b)
StridedBox(sides=(Progression(first=0, step=6, count=2), Progression(first=5, step=1, count=5)))
>>> count_union([a, b])
80

The cost depends on the number of boxes (inclusion–exclusion visits the
non-empty intersections of subsets, at most ``2**n``), never on their sizes:
a union of boxes with 10¹² points counts as fast as one with 10.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import NamedTuple

from verifier.errors import UnsupportedError

# Inclusion–exclusion terms (non-empty intersections) visited before giving
# up; the caller then counts another way (isl).
DEFAULT_TERM_LIMIT = 1 << 14

# Boxes from which a union drops those inside another before counting.
NESTING_FROM = 4


class Progression(NamedTuple):
    """``{first + step * k : 0 <= k < count}``, normalised by `of`: an empty
    progression is ``(0, 1, 0)`` and a single value has step 1, so equal sets
    are equal values.  A named tuple: counting builds thousands of them a
    second, and a tuple is built in a third of a frozen dataclass's time."""

    first: int
    step: int
    count: int  # type: ignore[assignment]  # a field, where a tuple has a method

    @staticmethod
    def of(first: int, step: int, count: int) -> Progression:
        """The normalised progression; `step` must be positive.

        >>> Progression.of(4, 3, 1)
        Progression(first=4, step=1, count=1)
        """
        if step <= 0:
            raise ValueError(f"a progression needs a positive step, got {step}")
        if count <= 0:
            return EMPTY
        return Progression(first, 1 if count == 1 else step, count)

    @staticmethod
    def interval(lower: int, upper: int) -> Progression:
        """``{lower, …, upper}`` (empty when ``upper < lower``)."""
        return Progression.of(lower, 1, upper - lower + 1)

    def clip(self, lower: int, upper: int) -> Progression:
        """The values in ``[lower, upper]``."""
        first, step, count = self
        last = first + step * (count - 1)
        if count == 0 or lower > last or upper < first:
            return EMPTY
        if lower <= first and last <= upper:
            return self
        if lower > first:
            first += -((first - lower) // step) * step  # ceil to the grid
        if upper < last:
            last = first + ((upper - first) // step) * step
        return Progression.of(first, step, (last - first) // step + 1)

    def intersect(self, other: Progression) -> Progression:
        """The common values: ``x ≡ first (mod step)`` for both, solved by the
        Chinese remainder theorem, within both ranges.

        >>> Progression.of(1, 4, 10).intersect(Progression.of(3, 6, 10))  # 1, 5, … 37 and 3, 9, … 57
        Progression(first=9, step=12, count=3)
        """
        first, step, count = self
        other_first, other_step, other_count = other
        if count == 0 or other_count == 0:
            return EMPTY
        if other_step == 1:  # an interval (or one value): a clip
            return self.clip(other_first, other_first + other_count - 1)
        if step == 1:
            return other.clip(first, first + count - 1)
        lower = max(first, other_first)
        upper = min(first + step * (count - 1), other_first + other_step * (other_count - 1))
        g = math.gcd(step, other_step)
        if lower > upper or (other_first - first) % g:
            return EMPTY
        modulus = other_step // g
        # first + step * t ≡ other_first (mod other_step)
        t = (other_first - first) // g * pow(step // g, -1, modulus) % modulus
        common = step // g * other_step
        start = lower + (first + step * t - lower) % common
        if start > upper:
            return EMPTY
        return Progression.of(start, common, (upper - start) // common + 1)

    def contains(self, other: Progression) -> bool:
        """Whether every value of `other` is a value of this progression."""
        first, step, count = self
        other_first, other_step, other_count = other
        if other_count == 0:
            return True
        if count == 0 or other_first < first:
            return False
        if other_first + other_step * (other_count - 1) > first + step * (count - 1):
            return False
        on_grid = (other_first - first) % step == 0
        return on_grid and (other_count == 1 or other_step % step == 0)


EMPTY = Progression(0, 1, 0)
_count = operator.itemgetter(2)  # a progression's count, without a generator per box


class StridedBox(NamedTuple):
    """A product of progressions (a rank-0 box has one point)."""

    sides: tuple[Progression, ...]

    @property
    def size(self) -> int:
        return math.prod(map(_count, self.sides))

    def intersect(self, other: StridedBox) -> StridedBox:
        return StridedBox(
            tuple(a.intersect(b) for a, b in zip(self.sides, other.sides, strict=True))
        )

    def within(self, shape: Sequence[int]) -> StridedBox:
        """The points inside an array of `shape` (``0 <= x_i < shape[i]``).

        >>> StridedBox((Progression.of(1, 3, 5),)).within((10,))
        StridedBox(sides=(Progression(first=1, step=3, count=3),))
        """
        sides = tuple([side.clip(0, n - 1) for side, n in zip(self.sides, shape, strict=True)])
        return self if sides == self.sides else StridedBox(sides)

    def contains(self, other: StridedBox) -> bool:
        return other.size == 0 or all(
            a.contains(b) for a, b in zip(self.sides, other.sides, strict=True)
        )


def count_union(boxes: Sequence[StridedBox], *, term_limit: int = DEFAULT_TERM_LIMIT) -> int:
    """``|⋃ boxes|`` by inclusion–exclusion over the non-empty intersections.

    Boxes pairwise apart on some side (`_apart`: the pieces of one map's
    image usually are, rows of different residues) are counted as a sum.
    Otherwise empty and repeated boxes are dropped first, and from `NESTING_FROM`
    boxes on those inside another (below it, the containment tests cost more
    than the terms they save); a subset whose intersection is empty is not
    extended (its supersets are empty too), so disjoint pieces cost one term
    each.  Raises `UnsupportedError` past `term_limit` terms.
    """
    if len(boxes) == 1:
        return boxes[0].size
    if _apart(boxes):
        return sum(box.size for box in boxes)
    kept = [box for box in dict.fromkeys(boxes) if all(side.count for side in box.sides)]
    if len(kept) >= NESTING_FROM:
        bigger_first = sorted(kept, key=lambda b: b.size, reverse=True)
        kept = []
        for box in bigger_first:
            if not any(bigger.contains(box) for bigger in kept):
                kept.append(box)
    sides = [box.sides for box in kept]
    total = 0
    terms = 0
    # Depth-first over subsets in index order: (intersection so far, next index, sign).
    stack = [(box, i + 1, 1) for i, box in enumerate(sides)]
    while stack:
        common, start, sign = stack.pop()
        terms += 1
        if terms > term_limit:
            raise UnsupportedError(
                f"the union of {len(kept)} strided boxes needs more than {term_limit} "
                "inclusion–exclusion terms"
            )
        total += sign * math.prod(map(_count, common))
        for j in range(start, len(sides)):
            meet = _meet(common, sides[j])
            if meet is not None:
                stack.append((meet, j + 1, -sign))
    return total


def _apart(boxes: Sequence[StridedBox]) -> bool:
    """Whether every two boxes have a side on which their progressions share
    no value for a reason seen at once: disjoint ranges, or one step (above
    1) and different residues.  (Sufficient, not necessary: a false answer
    only means inclusion–exclusion decides.)

    >>> rows = [StridedBox((Progression.of(r, 3, 5), Progression.of(0, 1, 9))) for r in (0, 1)]
    >>> _apart(rows), _apart([*rows, StridedBox((Progression.of(0, 1, 9),) * 2)])
    (True, False)
    """
    for i, box in enumerate(boxes):
        for other in boxes[i + 1 :]:
            for (first, step, count), (other_first, other_step, other_count) in zip(
                box.sides, other.sides, strict=True
            ):
                if (
                    not count
                    or not other_count
                    or first + step * (count - 1) < other_first
                    or other_first + other_step * (other_count - 1) < first
                    or (step == other_step and (first - other_first) % step)
                ):
                    break
            else:
                return False
    return True


def _meet(
    first: tuple[Progression, ...], second: tuple[Progression, ...]
) -> tuple[Progression, ...] | None:
    """The sides of two boxes' intersection, None when it is empty."""
    sides = []
    for a, b in zip(first, second, strict=True):
        common = a if a == b else a.intersect(b)
        if not common.count:
            return None
        sides.append(common)
    return tuple(sides)
