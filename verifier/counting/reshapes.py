"""The image of a flattened position read through its digits — a reshape of
a slice, a slice of a reshape — as strided boxes, built directly.

A map of one dim ``v`` whose results read ``F = X floordiv c`` and ``M = X
mod c`` of one ``X = a * v + b`` (``a`` > 0), each result ``α * F + β``,
``α * M + β`` or a constant (``F`` and ``M`` in one result each at
most: two results of ``F`` read a diagonal, not a box), and no
constraint: writing ``v = p * m + u``
(``g = gcd(a, c)``, ``p = c / g``, ``u`` in ``[0, p - 1]``) makes ``F =
(a / g) * m + q`` and ``M = a * u + b - c * q`` with ``q = (a * u + b)
floordiv c``, affine on each cell of ``(m, u)`` where ``q`` is one value
(`digits.cells`): each cell is one strided box.  This is the split
`digits.without_divisions` makes, without building its pieces.

Every third element of a ``[4, 10]`` operand flattened, ``(d0) -> ((d0 *
3) floordiv 10, (d0 * 3) mod 10)`` for d0 ∈ [0, 13] (``p`` = 10): d0 =
10 * m + u reads row ``3 * m + q``, column ``3 * u - 10 * q``; the full
block m = 0 has q = 0 (u ≤ 3), 1 (u in [4, 6]) and 2 (u ≥ 7), the partial
block m = 1 (u ≤ 3) has q = 0 again, which extends the first cell:

>>> from verifier.expr import parse_map
>>> for box in digit_boxes(parse_map(
...         "(d0) -> ((d0 * 3) floordiv 10, (d0 * 3) mod 10), domain: d0 in [0, 13]")):
...     print(box.sides)
(Progression(first=0, step=3, count=2), Progression(first=0, step=3, count=4))
(Progression(first=1, step=1, count=1), Progression(first=2, step=3, count=3))
(Progression(first=2, step=1, count=1), Progression(first=1, step=3, count=3))

2 × 4 + 3 + 3 = 14 elements, one per d0 (rows 0 and 3: columns 0, 3, 6, 9;
row 1: 2, 5, 8; row 2: 1, 4, 7).
"""

from __future__ import annotations

import math

from verifier.counting import digits
from verifier.expr import (
    Expr,
    FloorDiv,
    IndexingMap,
    Mod,
    Progression,
    StridedBox,
    Var,
    VarKind,
    linear_terms,
)

# A result's reading: (what it reads — 'F', 'M' or None for a constant —,
# its coefficient α, its constant β).
_Reading = tuple[str | None, int, int]


def digit_boxes(indexing_map: IndexingMap) -> tuple[StridedBox, ...] | None:
    """The image as strided boxes when the map is of the module's form;
    else None (`exact.image_boxes` splits it the general way)."""
    if (
        len(indexing_map.dims) != 1
        or indexing_map.range_vars
        or indexing_map.rt_vars
        or indexing_map.constraints
    ):
        return None
    division: tuple[Expr, int] | None = None
    readings: list[_Reading] = []
    for result in indexing_map.results:
        terms, beta = linear_terms(result)
        if not terms:
            readings.append((None, 0, beta))
            continue
        if len(terms) != 1:
            return None
        ((base, alpha),) = terms.items()
        if isinstance(base, FloorDiv):
            read, operand, divisor = "F", base.operand, base.divisor
        elif isinstance(base, Mod):
            read, operand, divisor = "M", base.operand, base.modulus
        else:
            return None
        if division is None:
            division = (operand, divisor)
        elif division != (operand, divisor) or any(read == r for r, _, _ in readings):
            return None  # another division, or F (M) twice: not a product
        readings.append((read, alpha, beta))
    if division is None:
        return None
    operand, c = division
    inner, b = linear_terms(operand)
    if len(inner) != 1:
        return None
    ((variable, a),) = inner.items()
    if not isinstance(variable, Var) or variable.kind is not VarKind.DIM or a <= 0 or c <= 0:
        return None
    bounds = indexing_map.dims[0].bounds
    if bounds.lower > bounds.upper:
        return ()
    found = digits.cells(a, b, c, (bounds.lower, bounds.upper))
    if found is None:
        return None
    k = a // math.gcd(a, c)
    boxes = []
    for cell in found:
        floor = Progression.of(k * cell.m_first + cell.q, k, cell.m_last - cell.m_first + 1)
        rest = Progression.of(a * cell.lower + b - c * cell.q, a, cell.upper - cell.lower + 1)
        boxes.append(
            StridedBox(
                tuple(
                    [
                        _scaled(floor if read == "F" else rest, alpha, beta)
                        if read is not None
                        else Progression.of(beta, 1, 1)
                        for read, alpha, beta in readings
                    ]
                )
            )
        )
    return tuple(boxes)


def _scaled(values: Progression, alpha: int, beta: int) -> Progression:
    """``{α * x + β : x in values}`` (α ≠ 0)."""
    first, step, count = values
    if alpha < 0:
        first += step * (count - 1)
    return Progression.of(alpha * first + beta, abs(alpha) * step, count)
