"""Exact counts of the elements a set of indexing maps reads, and of their
domains: closed form for strided boxes, isl for everything else (a domain's
points are the image of the map that lists its variables, so both counts
share the closed form).

A map's image is a strided box when every result is a sum ``Σ a_i * v_i +
c`` of variables used by no other result whose values form one arithmetic
progression (``d1 * 2 + s0`` with s0 ∈ [0, 1] does; ``d0 * 3 + s0`` with s0
∈ [0, 1] does not), and every constraint either bounds a single variable
(``d0 - rt0 in [0, 4]`` once ``rt0`` is fixed) or clips one result (the
convolution's ``d1 + s0 in [1, 8]`` beside the result ``d1 + s0 - 1``).
Symbols are existential: a variable in no result only has to have a value.

>>> from verifier.expr import parse_map
>>> window = parse_map("(d0, d1)[s0] -> (d0, d1 * 2 + s0), "
...                    "domain: d0 in [0, 999999], d1 in [0, 499999], s0 in [0, 1]")
>>> count_image([window], (10**6, 10**6))
Count(value=1000000000000, method='closed form')

A map outside that fragment (``floordiv``, ``mod``, coupled results) is
counted by isl (`verifier.bridges.isl_counting.count_image`), which is exact but
scans row by row.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Sequence
from typing import Literal, NamedTuple

from verifier.counting import digits
from verifier.counting.cases import Piece, bound_of_linear, count_by_cases, split_domain
from verifier.counting.digits import Bounds, Form, piece_of, without_divisions
from verifier.counting.reshapes import digit_boxes
from verifier.errors import SolverError, UnsupportedError
from verifier.expr import (
    CeilDiv,
    FloorDiv,
    IndexingMap,
    Interval,
    Mod,
    Progression,
    StridedBox,
    Var,
    VarKind,
    count_union,
    interval_of,
    linear_terms,
    subterms,
)

Method = Literal["closed form", "cases", "isl"]
_METHODS: tuple[Method, ...] = ("closed form", "cases", "isl")  # the weakest first

# Most strided boxes one map's image is split into (a result whose values
# have gaps is a union of progressions, one per value of a small variable).
_PIECE_LIMIT = 64

_count = operator.itemgetter(2)  # a progression's count


class Count(NamedTuple):
    """An exact number of points and how it was obtained."""

    value: int
    method: Method


def count_image(maps: Sequence[IndexingMap], dimensions: Sequence[int]) -> Count:
    """``|(⋃ image(m)) ∩ box(dimensions)|`` with every symbol existential.

    Raises `SolverError` when isl runs out of its budget.
    """
    closed = closed_form_image(maps, dimensions)
    if closed is not None:
        return Count(closed, "closed form")
    for indexing_map in maps:
        sides = (
            interval_of(result, indexing_map.bounds).intersect(Interval(0, size - 1)).size
            for result, size in zip(indexing_map.results, dimensions, strict=False)
        )
        _check_scan_size(indexing_map, math.prod(sides))
    from verifier.bridges import isl_counting  # islpy: only past the closed forms

    value = isl_counting.count_image(maps, dimensions)
    if value is None:
        raise SolverError("isl ran out of operations counting the elements read")
    return Count(value, "isl")


def closed_form_image(maps: Sequence[IndexingMap], dimensions: Sequence[int]) -> int | None:
    """`count_image` when every map's image is a union of strided boxes
    (`image_boxes`) and their union is counted in closed form; else None."""
    boxes: list[StridedBox] = []
    for indexing_map in maps:
        pieces = image_boxes(indexing_map)
        if pieces is None:
            return None
        boxes += [box.within(dimensions) for box in pieces]
    try:
        return count_union(boxes)
    except UnsupportedError:
        return None


def closed_form_domain(indexing_map: IndexingMap) -> int | None:
    """`count_domain` when each coupled piece of the domain is a union of
    strided boxes (no enumeration by cases, no isl); else None."""
    domain = split_domain(indexing_map)
    value = domain.factor
    for piece in domain.pieces:
        if not value:
            break
        points = _points(piece.as_map())
        if points is None:
            return None
        value *= points
    return value


def count_domain(indexing_map: IndexingMap) -> Count:
    """The number of ``(d, s)`` points of the domain (dims and range
    variables) for which some runtime value is feasible: how many reads one
    use of the map performs.

    The domain is the product of independent pieces (`cases.split_domain`:
    variables that no constraint links are counted apart, and a variable
    with one value is that value), each coupled piece counted in closed form
    when its points are a union of strided boxes (`_points`), else by cases
    on one variable's values (`cases.count_by_cases`), and by isl only past
    that enumeration's limit.  ``(d0, d1)[s0, s1] -> (), domain: d0 in [0,
    9], d1 in [0, 99], s0 in [0, 0], s1 in [0, 3], (d0 + s0) mod 4 + s1 in
    [0, 3]`` is 100 (``d1``, alone) times the 27 points of ``(d0)[s1]``
    with ``d0 mod 4 + s1 in [0, 3]``:

    >>> from verifier.expr import parse_map
    >>> count_domain(parse_map("(d0, d1)[s0, s1] -> (), domain: d0 in [0, 9], "
    ...     "d1 in [0, 99], s0 in [0, 0], s1 in [0, 3], (d0 + s0) mod 4 + s1 in [0, 3]"))
    Count(value=2700, method='cases')

    Raises `SolverError` when isl runs out of its budget.
    """
    domain = split_domain(indexing_map)
    value = domain.factor
    method: Method = "closed form"
    for piece in domain.pieces:
        if not value:
            break
        counted = _count_piece(piece)
        value *= counted.value
        method = max(method, counted.method, key=_METHODS.index)
    return Count(value, method)


def _count_piece(piece: Piece) -> Count:
    indexing_map = piece.as_map()
    points = _points(indexing_map)
    if points is not None:
        return Count(points, "closed form")
    by_cases = count_by_cases(piece)
    if by_cases is not None:
        return Count(by_cases, "cases")
    scanned = (*indexing_map.dims, *indexing_map.range_vars)
    _check_scan_size(indexing_map, math.prod(v.bounds.size for v in scanned))
    from verifier.bridges import isl_counting  # islpy: only past the closed forms

    value = isl_counting.count_domain(indexing_map)
    if value is None:
        raise SolverError("isl ran out of operations counting a domain")
    return Count(value, "isl")


def _points(indexing_map: IndexingMap) -> int | None:
    """The points of the domain in closed form: the image of the map that
    returns its dims and range variables (runtime variables existential),
    when that image is a union of strided boxes (a pad's ``d1 mod 2 in [0,
    0]`` is every other ``d1``); else None."""
    listed = [v for v in indexing_map.all_variables if v.kind is not VarKind.RT]
    boxes = image_boxes(indexing_map.replaced(results=listed))
    if boxes is None:
        return None
    try:
        return count_union(boxes)
    except UnsupportedError:
        return None


# ---------------------------------------------------------------- isl's limit

# isl counts a set with divisions (floordiv, mod: existential variables)
# by scanning its points, and its operation budget counts simplex pivots,
# not the scan: 20 mod constraints over a 10^10-point box spend 40 s within
# 10 million operations.  So the size is checked first — the points of the
# box of what is counted (the image's results, or the domain's dims and
# range variables) times the divisions — a deterministic limit above every
# count isl makes on the bundled examples (a 3-conv/3-pool chain's reads,
# 1.3·10^6 points × 10 divisions and 2.6 s in isl, are now counted by cases)
# and below that case (10^10 × 20).
SCAN_LIMIT = 10**10


def _check_scan_size(indexing_map: IndexingMap, points: int) -> None:
    """Raise `SolverError` when isl's count of `points` candidates of
    `indexing_map` would scan past `SCAN_LIMIT` (points times divisions)."""
    divisions = {
        term
        for expr in (*indexing_map.results, *(e for e, _ in indexing_map.constraints))
        for term in subterms(expr)
        if isinstance(term, FloorDiv | CeilDiv | Mod)
    }
    if points * len(divisions) > SCAN_LIMIT:
        raise SolverError(
            f"counting {points:.1e} candidate points under {len(divisions)} floordiv/mod "
            f"terms is past isl's counting limit ({SCAN_LIMIT:.0e})"
        )


# ---------------------------------------------------------------- strided boxes


def _sum_values(
    coefficients: dict[int, int], constant: int, bounds: Bounds
) -> list[Progression] | None:
    """The values of ``Σ a_i * v_i + c`` over the box of the ``v_i`` as a
    union of arithmetic progressions (None past `_PIECE_LIMIT` pieces).

    Terms are added by increasing step: a progression of step ``s`` and
    ``n`` values plus ``a * [0, m)`` stays a progression of step ``s`` when
    ``s`` divides ``a`` and ``a <= s * n`` (the translates leave no gap).
    When they would leave gaps (``d1 * 3 + s0``, s0 ∈ [0, 1]: ``{0, 1, 3, 4,
    …}``), the variable with the fewest values is split off: one progression
    per value (``{0, 3, …} ∪ {1, 4, …}``).
    """
    if len(coefficients) == 1:  # the common case, one progression
        ((variable, a),) = coefficients.items()
        lower, upper = bounds[variable]
        first = constant + a * (lower if a > 0 else upper)
        return [Progression.of(first, abs(a), upper - lower + 1)]
    base = constant
    parts: list[tuple[int, int]] = []
    for variable, a in coefficients.items():
        lower, upper = bounds[variable]
        base += a * (lower if a > 0 else upper)
        if upper > lower:
            parts.append((abs(a), upper - lower + 1))
    step, count = 1, 1
    for a, n in sorted(parts):
        if count == 1:
            step, count = a, n
        elif a % step == 0 and a <= step * count:
            count = (step * (count - 1) + a * (n - 1)) // step + 1
        else:
            return _split(coefficients, constant, bounds)
    return [Progression.of(base, step, count)]


def _split(coefficients: dict[int, int], constant: int, bounds: Bounds) -> list[Progression] | None:
    """`_sum_values` with the variable of fewest values (more than one)
    fixed to each of its values in turn."""
    variable = min(
        (v for v in coefficients if bounds[v][1] > bounds[v][0]),
        key=lambda v: bounds[v][1] - bounds[v][0],
    )
    lower, upper = bounds[variable]
    if upper - lower + 1 > _PIECE_LIMIT:
        return None
    rest = {v: a for v, a in coefficients.items() if v != variable}
    pieces: list[Progression] = []
    for value in range(lower, upper + 1):
        values = _sum_values(rest, constant + coefficients[variable] * value, bounds)
        if values is None or len(pieces) + len(values) > _PIECE_LIMIT:
            return None
        pieces += values
    return pieces


@functools.lru_cache(maxsize=1 << 12)
def image_boxes(indexing_map: IndexingMap) -> tuple[StridedBox, ...] | None:
    """The image as a union of strided boxes (``()`` when the domain is
    empty), or None when it is not of that form (symbols existential).
    Found once per map: utilization counts the union of a loop's maps once
    per assignment of their runtime values, each map in many unions.

    >>> from verifier.expr import parse_map
    >>> image_boxes(parse_map("(d0)[s0] -> (d0 + s0 - 1), domain: "
    ...                       "d0 in [0, 7], s0 in [0, 2], d0 + s0 in [1, 8]"))
    (StridedBox(sides=(Progression(first=0, step=1, count=8),)),)

    A map with ``floordiv`` or ``mod`` (a reshape of a slice, a pad with
    interior padding, a window over a dilated input) is first split into
    pieces without them (`digits.without_divisions`), whose boxes together
    are the image; a map of one dim read through its digits has its boxes
    built directly (`reshapes.digit_boxes`).
    """
    direct = _sum_boxes(indexing_map)
    if direct is None:
        direct = digit_boxes(indexing_map)
    if direct is not None:
        return direct
    piece = piece_of(indexing_map)
    pieces = None if piece is None else without_divisions(piece)
    if pieces is None:
        return None
    boxes: list[StridedBox] = []
    for affine in pieces:
        found = _affine_boxes(affine)
        if found is None or len(boxes) + len(found) > _PIECE_LIMIT:
            return None
        boxes += found
    return tuple(boxes)


def _sum_boxes(indexing_map: IndexingMap) -> tuple[StridedBox, ...] | None:
    """`image_boxes` of a map without constraints or runtime variables
    whose results are sums of variables used by no other result (a slice,
    a window without padding), read from its expressions without building
    a piece; None for any other map."""
    if indexing_map.constraints or indexing_map.rt_vars:
        return None
    dims = indexing_map.dims
    declared = (*dims, *indexing_map.range_vars)
    bounds = {k: (v.bounds.lower, v.bounds.upper) for k, v in enumerate(declared)}
    if any(lower > upper for lower, upper in bounds.values()):
        return ()
    seen: set[int] = set()
    sides: list[list[Progression]] = []
    for result in indexing_map.results:
        terms, constant = linear_terms(result)
        coefficients: dict[int, int] = {}
        for base, a in terms.items():
            if not isinstance(base, Var) or base.kind is VarKind.RT:
                return None
            number = base.index + (len(dims) if base.kind is VarKind.RANGE else 0)
            if number in seen:
                return None
            seen.add(number)
            coefficients[number] = a
        if not coefficients:
            sides.append([Progression.of(constant, 1, 1)])
            continue
        values = _sum_values(coefficients, constant, bounds)
        if values is None:
            return None
        sides.append(values)
    return _product(sides)


def _linear(form: Form) -> dict[int, int]:
    """The coefficients of a form of a piece `without_divisions` gives: its
    atoms are variables."""
    return dict(form.terms)  # type: ignore[arg-type]


def _factor(coefficients: dict[int, int], summed: dict[int, int], bounds: Bounds) -> int | None:
    """``k`` when `coefficients` are ``k`` times `summed` on its variables
    of more than one value (its others are constants), else None."""
    moving = {v: a for v, a in summed.items() if bounds[v][1] != bounds[v][0]}
    if not moving or moving.keys() != coefficients.keys():
        return None
    v, a = next(iter(moving.items()))
    factor, remainder = divmod(coefficients[v], a)
    if remainder or any(coefficients[w] != factor * b for w, b in moving.items()):
        return None
    return factor


def _affine_boxes(piece: digits.Piece) -> tuple[StridedBox, ...] | None:
    """`image_boxes` of a piece without divisions: each result a sum of
    variables used by no other result, each constraint on one variable (its
    bounds) or on one result's sum (a clip of that result)."""
    bounds = piece.bounds
    coupled: list[tuple[dict[int, int], int, int, int]] = []
    for form, lower, upper in piece.constraints:
        coefficients, constant = _linear(form), form.constant
        if len(coefficients) > 1:
            coupled.append((coefficients, constant, lower, upper))
        elif not coefficients:
            if not lower <= constant <= upper:
                return ()
        else:
            ((variable, a),) = coefficients.items()
            bound = bound_of_linear(a, constant, Interval(lower, upper))
            old_low, old_high = bounds[variable]
            low, high = max(bound.lower, old_low), min(bound.upper, old_high)
            if low > high:
                return ()
            bounds = {**bounds, variable: (low, high)}
    owner: dict[int, int] = {}
    sums: list[tuple[dict[int, int], int]] = []
    for position, result in enumerate(piece.results):
        coefficients = _linear(result)
        for variable in coefficients:
            if variable in owner:
                return None
            owner[variable] = position
        sums.append((coefficients, result.constant))
    clips: dict[int, tuple[int, int]] = {}
    for coefficients, constant, lower, upper in coupled:
        # Only a constraint on one result's sum (times a factor, plus
        # variables of one value) clips that result; anything else couples
        # variables in a way a box cannot express.
        point = {v for v in coefficients if bounds[v][0] == bounds[v][1]}
        constant += sum(coefficients[v] * bounds[v][0] for v in point)
        moving = {v: a for v, a in coefficients.items() if v not in point}
        if not moving:
            if not lower <= constant <= upper:
                return ()
            continue
        # A constraint the bounds already imply cuts nothing (a
        # reduce-window's ``d1 * 3 + s1 * 2 in [0, 139]`` as its rule
        # writes it), one they contradict leaves nothing.
        least = constant + sum(a * bounds[v][0 if a > 0 else 1] for v, a in moving.items())
        most = constant + sum(a * bounds[v][1 if a > 0 else 0] for v, a in moving.items())
        if lower <= least and most <= upper:
            continue
        if most < lower or least > upper:
            return ()
        position = owner.get(next(iter(moving)), -1)
        if position < 0:
            return None
        summed, offset = sums[position]
        offset += sum(a * bounds[v][0] for v, a in summed.items() if v in point)
        factor = _factor(moving, summed, bounds)
        if factor is None:
            return None
        clip = bound_of_linear(factor, constant - factor * offset, Interval(lower, upper))
        low, high = clips.get(position, (clip.lower, clip.upper))
        clips[position] = (max(low, clip.lower), min(high, clip.upper))
    sides: list[list[Progression]] = []
    for position, (coefficients, constant) in enumerate(sums):
        values = _sum_values(coefficients, constant, bounds)
        if values is None:
            return None
        if position in clips:
            low, high = clips[position]
            values = [v.clip(low, high) for v in values]
        sides.append(values)
    return _product(sides)


def _product(sides: list[list[Progression]]) -> tuple[StridedBox, ...] | None:
    """The boxes of one choice of progression per result (None past
    `_PIECE_LIMIT`), empty ones left out."""
    if max(map(len, sides), default=1) == 1:  # the common case: one box
        choice = tuple([values[0] for values in sides])
        return (StridedBox(choice),) if min(map(_count, choice), default=1) else ()
    if math.prod(map(len, sides)) > _PIECE_LIMIT:
        return None
    return tuple(
        StridedBox(choice)
        for choice in itertools.product(*sides)
        if all(side.count for side in choice)
    )
