"""Exact 32-byte sectors per memory request, for every warp of a launch.

A *request* is one load instruction of one warp: a warp (32 consecutive
threads of a block) and one value of every loop id of the load (the
grid-stride chunk, a reduce's reduced index, …); the vector id is the
lanes of that one load.  Its *sectors* are the
distinct ``offset * bits // 256`` over its active lanes (those in the map's
domain), its *ideal* ``ceil(distinct elements * bits / 256)``.

The warps are numbered ``r`` (within its block, then the blocks: the
order of the threads' linear ids) and the thread→offset map becomes a map
from ``(r, loop ids…)`` to offsets, with the lane and the vector id as
symbols (`verifier.coalescing.requests`).  Counting each request would
loop over millions of warps; instead a **translation** is proved.  From the map's quasi-affine
structure (`period`), every ``floordiv``/``mod`` repeats after ``P``
requests with the offsets moved by a whole number ``δ`` of sectors' worth
of elements, so request ``r + P`` reads request ``r``'s elements moved by
``δ``, except near the launch's edges (bounds, padding, a concatenate's
boundary).  isl gives the exact set ``D`` of requests where this fails
(`verifier.bridges.isl_translation`): requests ``[0, P)`` and ``D + P``
are then the only ones to count; every other request has the count of
the one ``P`` before it.  A launch of at most `DIRECT_LIMIT` lane
evaluations is counted request by request instead.  The answer is exact, and its cost grows with
``P`` and ``|D|``, not with the number of warps.

>>> from verifier.expr import parse_map
>>> request = parse_map("(d0)[s0, s1] -> (d0 * 32 + s0 + 3), "
...                     "domain: d0 in [0, 99999], s0 in [0, 31], s1 in [0, 0]")
>>> counts = count_sectors(RequestMap((request,)), element_bits=32, sector_bytes=32)
>>> counts.minimum, counts.maximum, counts.requests, counts.at_ideal, counts.period
(5, 5, 100000, 0, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from verifier.bridges.isl_translation import differing_inputs
from verifier.expr import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    IndexingMap,
    Interval,
    Max,
    Min,
    Mod,
    Mul,
    Var,
    dim,
    point_value,
    range_var,
    substitute,
    subterms,
)

ENUMERATION_LIMIT = 1 << 22
"""Most lane evaluations the counting spends (requests counted times lanes
times vector width); past it the answer is unknown."""

DIRECT_LIMIT = 1 << 12
"""Most lane evaluations the translation proof may save (those of the
requests past the first period) for them to be counted request by request
instead: this few cost less to enumerate than to ask isl about (a nested
tiling's ``floordiv``/``mod`` can take isl seconds, or minutes past its
operation budget, on a box of one request)."""

BREAK_LIMIT = 1 << 14
"""Most requests where the translation may fail before the answer is unknown."""

DIVISION_LIMIT = 10
"""Most distinct ``floordiv``/``mod`` terms in a request map (and its
shifted copy) that the translation proof hands to isl: each is an
existential variable of the subtraction, whose cost grows exponentially
in them and which isl's operation budget does not bound (a column-major
``f32[65536,7]{0,1:T(8,128)}`` has 12 and took isl minutes).  Past it every
request is counted, within `ENUMERATION_LIMIT`, else the answer is unknown."""


@dataclass(frozen=True)
class RequestMap:
    """`maps`: dims ``(r, loop ids…)``, range vars ``(lane, vector id)``
    (the same for every map), one result (the element offset in the
    operand's buffer); the union of their images at a request is what it
    loads (the pieces of a pad's or concatenate's read are one load)."""

    maps: tuple[IndexingMap, ...]

    @property
    def lanes(self) -> range:
        return _values(self.maps[0].bounds(range_var(0)))

    @property
    def vector(self) -> range:
        return _values(self.maps[0].bounds(range_var(1)))


def _values(bounds: Interval) -> range:
    return range(bounds.lower, bounds.upper + 1)


@dataclass(frozen=True)
class Request:
    """One request: its number and loop ids, and what it touches."""

    index: tuple[int, ...]
    sectors: int
    elements: int
    ideal: int


@dataclass(frozen=True)
class SectorCounts:
    """Sectors per request over every non-empty request of the launch."""

    requests: int
    minimum: int
    maximum: int
    total: int
    at_ideal: int
    worst: Request
    period: int
    breaks: int
    counted: int

    @property
    def mean(self) -> Fraction:
        return Fraction(self.total, self.requests)


def _compiled(indexing_map: IndexingMap) -> Callable[..., int | None]:
    """The map as Python: the offset at ``(r, loop ids…, lane, vector id)``,
    None outside its domain (`evaluate`'s semantics; through `evaluate`
    itself when the text is too large for Python to compile)."""
    variables = indexing_map.all_variables
    bounds = [(v, indexing_map.bounds(v)) for v in variables]
    (result,) = indexing_map.results
    compiled = point_value(variables, [*indexing_map.constraints, *bounds], result)
    if compiled is not None:
        return compiled

    def slow(*values: int) -> int | None:
        point = dict(zip(variables, values, strict=True))
        return indexing_map.evaluate(point)[0] if indexing_map.contains(point) else None

    return slow


def period(expr: Expr, variable: Var) -> tuple[int, int] | None:
    """``(P, δ)`` with ``expr(v + P) = expr(v) + δ`` for every value of the
    other variables, by structure (None for ``min``/``max`` of `variable`).

    >>> from verifier.expr import dim, range_var
    >>> period((dim(0) * 128 + range_var(0)) // 200 * 100 + (dim(0) * 128) % 200, dim(0))
    (25, 1600)
    """
    match expr:
        case Const():
            return 1, 0
        case Var():
            return (1, 1) if expr == variable else (1, 0)
        case Add(operands):
            parts = [period(o, variable) for o in operands]
            if any(p is None for p in parts):
                return None
            known = [p for p in parts if p is not None]
            p = math.lcm(*(q for q, _ in known))
            return p, sum(d * (p // q) for q, d in known)
        case Mul(operand, factor):
            inner = period(operand, variable)
            return None if inner is None else (inner[0], inner[1] * factor)
        case FloorDiv(operand, divisor) | CeilDiv(operand, divisor):
            inner = period(operand, variable)
            if inner is None:
                return None
            times = divisor // math.gcd(divisor, inner[1])
            return inner[0] * times, inner[1] * times // divisor
        case Mod(operand, modulus):
            inner = period(operand, variable)
            if inner is None:
                return None
            return inner[0] * (modulus // math.gcd(modulus, inner[1])), 0
        case Min() | Max():
            return None
    raise AssertionError(expr)


def _request_period(request: RequestMap, sector_bits: int, element_bits: int) -> tuple[int, int]:
    """``(P, δ)`` for the whole map: results and constraints repeat, and δ
    elements are whole sectors."""
    r = dim(0)
    parts = [period(e, r) for m in request.maps for e in m.results]
    parts += [period(e, r) for m in request.maps for e, _ in m.constraints]
    if any(p is None for p in parts):
        return 0, 0
    known = [p for p in parts if p is not None]
    p = math.lcm(*(q for q, _ in known))
    shifts = {(s[1] * (p // s[0])) for m in request.maps if (s := period(m.results[0], r))}
    if len(shifts) != 1:
        return 0, 0
    (delta,) = shifts
    scale = sector_bits // math.gcd(sector_bits, delta * element_bits) if delta else 1
    return p * scale, delta * scale


def count_sectors(
    request: RequestMap, *, element_bits: int, sector_bytes: int
) -> SectorCounts | None:
    """Exact sectors per request over every request (module docstring);
    None when the proof needs more than `BREAK_LIMIT` breaks or the count
    more than `ENUMERATION_LIMIT` lane evaluations."""
    sector_bits = sector_bytes * 8
    indexing = request.maps[0]
    requests = indexing.bounds(dim(0)).upper + 1
    loops = [indexing.bounds(dim(k)) for k in range(1, indexing.num_dims)]
    loop_count = math.prod(b.size for b in loops)
    per_request = len(request.lanes) * len(request.vector)
    p, delta = _request_period(request, sector_bits, element_bits)
    direct = p == 0 or p >= requests or (requests - p) * loop_count * per_request <= DIRECT_LIMIT
    shifted = [] if direct else [_shifted(m, p, delta, requests) for m in request.maps]
    breaks: list[tuple[int, ...]] = []
    if direct or _divisions([*request.maps, *shifted]) > DIVISION_LIMIT:
        p, delta = requests, 0
    elif not all(_same_formulas(m, s) for m, s in zip(request.maps, shifted, strict=True)):
        box = [Interval(0, requests - 1 - p), *loops]
        found = differing_inputs(request.maps, shifted, box, limit=BREAK_LIMIT)
        if found is None:
            return None
        breaks = found
    roots = min(p, requests) * loop_count + len(breaks)
    if roots * per_request > ENUMERATION_LIMIT:
        return None
    compiled = [_compiled(m) for m in request.maps]
    next_break: dict[tuple[int, ...], list[int]] = {}
    for point in breaks:
        next_break.setdefault((point[0] % p, *point[1:]), []).append(point[0])
    starts = [(r, *ids) for r in range(min(p, requests)) for ids in _loop_points(loops)]
    starts += [(b[0] + p, *b[1:]) for b in breaks]
    total = count = at_ideal = 0
    minimum, maximum, worst = math.inf, -1, None
    for start in starts:
        touched = _touched(compiled, start, request, element_bits, sector_bits)
        if touched is None:
            continue
        length = _chain(start, p, requests, next_break.get((start[0] % p, *start[1:]), []))
        count += length
        total += touched.sectors * length
        at_ideal += length if touched.sectors == touched.ideal else 0
        minimum = min(minimum, touched.sectors)
        if touched.sectors > maximum:
            maximum, worst = touched.sectors, touched
    if worst is None:
        return SectorCounts(0, 0, 0, 0, 0, Request((), 0, 0, 0), p, len(breaks), len(starts))
    return SectorCounts(
        count, int(minimum), maximum, total, at_ideal, worst, p, len(breaks), len(starts)
    )


def _divisions(maps: list[IndexingMap]) -> int:
    """Distinct ``floordiv``/``mod`` terms of `maps`."""
    found = {
        term
        for m in maps
        for e in (*m.results, *(c for c, _ in m.constraints))
        for term in subterms(e)
        if isinstance(term, (FloorDiv, Mod))
    }
    return len(found)


def _loop_points(loops: list[Interval]) -> Iterator[tuple[int, ...]]:
    if not loops:
        yield ()
        return
    first, rest = loops[0], loops[1:]
    for value in range(first.lower, first.upper + 1):
        for tail in _loop_points(rest):
            yield (value, *tail)


def _chain(start: tuple[int, ...], p: int, requests: int, breaks: list[int]) -> int:
    """Requests ``start, start + P, …`` with the count of `start`: up to the
    first break at or after it (that break included), else to the end."""
    after = [b for b in breaks if b >= start[0]]
    last = min(after) if after else requests - 1
    return (last - start[0]) // p + 1


def _touched(
    compiled: list[Callable[..., int | None]],
    index: tuple[int, ...],
    request: RequestMap,
    element_bits: int,
    sector_bits: int,
) -> Request | None:
    offsets = set()
    for lane in request.lanes:
        for vector in request.vector:
            for function in compiled:
                offset = function(*index, lane, vector)
                if offset is not None:
                    offsets.add(offset)
    if not offsets:
        return None
    sectors = len({o * element_bits // sector_bits for o in offsets})
    ideal = -(-len(offsets) * element_bits // sector_bits)
    return Request(index, sectors, len(offsets), ideal)


def _same_formulas(indexing: IndexingMap, shifted: IndexingMap) -> bool:
    """The shifted map is the map itself over a shorter range of ``r``
    (the same results and constraints, written alike): it loads the same
    elements at every ``r`` of the translation's box, no break, and isl is
    not asked (its subtraction of two such maps can run for minutes past
    its operation budget)."""
    return (
        indexing.dims[0].bounds.lower == 0
        and indexing.results == shifted.results
        and indexing.range_vars == shifted.range_vars
        and indexing.dims[1:] == shifted.dims[1:]
        and sorted(map(str, indexing.constraints)) == sorted(map(str, shifted.constraints))
    )


def _shifted(indexing: IndexingMap, p: int, delta: int, requests: int) -> IndexingMap:
    """Request ``r + P``'s elements moved back by δ, as a map of ``r`` over
    ``[0, R - 1 - P]``."""
    r = dim(0)

    def moved(v: Var) -> Expr:
        return r + p if v == r else v

    return IndexingMap.create(
        [Interval(0, requests - 1 - p), *indexing.dims[1:]],
        [substitute(e, moved) - delta for e in indexing.results],
        range_vars=indexing.range_vars,
        constraints=[(substitute(e, moved), b) for e, b in indexing.constraints],
    )


def combined(counts: list[SectorCounts]) -> SectorCounts:
    """The counts of several loads of one operand together (none: an
    unused operand, no request)."""
    present = [c for c in counts if c.requests] or counts[:1]
    if not present:
        return SectorCounts(0, 0, 0, 0, 0, Request((), 0, 0, 0), 1, 0, 0)
    worst = max(present, key=lambda c: c.maximum)
    return SectorCounts(
        requests=sum(c.requests for c in present),
        minimum=min(c.minimum for c in present),
        maximum=worst.maximum,
        total=sum(c.total for c in present),
        at_ideal=sum(c.at_ideal for c in present),
        worst=worst.worst,
        period=math.lcm(*(c.period for c in present)) if present else 1,
        breaks=sum(c.breaks for c in present),
        counted=sum(c.counted for c in counts),
    )
