"""An independent brute force for the loads of XLA's reduction emitters
(row, multi-row, column, small column) and its concatenate emitter,
written from XLA's GPU emitters and sharing no code with the tool: a
fusion whose root is a ``reduce`` of a chain of loop ops (or a
``concatenate`` of at most four), every thread of XLA's launch run to the
parameter elements it reads (`tests.coalescing.simulator.reads`), counted
per warp request (`tests.coalescing.simulator._count`).

**Reduction.**  The reduce's row-major input is three dims
(``GetReductionKindAndContiguousComponents``): a row reduction ``(major
reduced, kept, minor reduced)``, a column one ``(major kept, reduced, minor
kept)``.  The vector width ``v`` (``GetVectorSizeForMlir``) of a minor dim
``m`` over ``n`` threads: 1 when ``m`` is odd, ``2 n > m`` or the narrowest
fusion parameter has 64 bits or more; 2 from 32 bits; else 2 when ``4 n >
m``, 4 when ``4`` divides ``m``, else 2 (a ``pred`` as 8 bits).

* multi-row (a row reduction, the minor reduced dim ``R`` a power of two):
  ``v = min(R, 64 / narrowest input or output)``, at most ``128 / widest``
  when that reaches 32 bits; halved while the blocks are fewer than the
  SMs; taken when ``R <= 32 v``.  ``R / v`` threads a row, rows to fill
  256 threads, thread ``t`` of block ``b`` reads ``(s0, b * rows + t /
  (R / v), (t mod (R / v)) * v + lane)``;
* row: ``n = min(1024, roundup(ceil(R / 16), 32))`` threads a row (and
  rows to fill 256 when ``2 n <= 256``), ``min(16 / v, ceil(R / v / n))``
  vectors a thread, ``n`` apart;
* small column (the minor kept dim divides 32): 128 threads (fewer when
  shared memory's rows would pass 32) sweep each block's
  ``(reduced, kept)`` slab in row-major ``v``-vectors;
* column: 32 x 32 threads, thread ``t`` reading row ``t / 32 + 32 s`` at
  vector ``(32 b + t mod 32)``.

**Concatenate.**  The loop launch over the operand longest along the
concatenated dim (the first such; delinearised in its layout, a fused
parameter's own), unrolled as the loop emitter would
over it, the unroll then the gcd with every operand's length there;
every thread reads every operand at its own index, where inside it: one
load per operand.

>>> reduction_dims((4, 6, 8), (2,))
(True, (1, 24, 8))
>>> reduction_dims((4, 6, 8), (0,))
(False, (1, 4, 48))
>>> reduction_dims((4, 6, 8), (0, 2))  # batched: (major reduced, kept, minor reduced)
(True, (4, 6, 8))
>>> reduction_dims((2, 3, 4, 5), (0, 2)) is None  # neither kept nor reduced dims consecutive
True
>>> vector_size(1000, 64, 32)
2
"""

from __future__ import annotations

import math
import random
from collections import defaultdict

from tests.coalescing.simulator import (
    BITS,
    DEVICES,
    Counts,
    Fusion,
    Index,
    Launch,
    Node,
    Param,
    Value,
    _Builder,
    _count,
    reads,
    reported,
)

SM_COUNT = {"rtx-a6000": 84, "a100": 108, "h100": 132}
"""SMs of XLA's test device descriptions (``core_count``)."""


def reduction_dims(dims: Index, reduced: Index) -> tuple[bool, tuple[int, int, int]] | None:
    """(row?, three sizes) of a reduce of row-major `dims` over `reduced`;
    None unless the kept or the reduced dims are consecutive."""
    kept = [d for d in range(len(dims)) if d not in reduced]
    if not kept:
        return True, (1, 1, math.prod(dims))
    if max(kept) - min(kept) + 1 != len(kept) and max(reduced) - min(reduced) + 1 != len(reduced):
        return None

    def split(middle: list[int]) -> tuple[int, int, int]:
        lo, hi = min(middle), max(middle)
        return (
            math.prod(dims[:lo]),
            math.prod(dims[lo : hi + 1]),
            math.prod(dims[hi + 1 :]),
        )

    if max(kept) - min(kept) + 1 == len(kept):
        major, middle, minor = split(kept)
        if middle == 1:
            return True, (1, 1, major * minor)
        if minor == 1:
            return False, (1, major, middle)
        return True, (major, middle, minor)
    major, middle, minor = split(sorted(reduced))
    if minor == 1:
        return True, (1, major, middle)
    return False, (major, middle, minor)


def vector_size(minor: int, threads: int, input_bits: int) -> int:
    if minor % 2 or 2 * threads > minor or input_bits >= 64:
        return 1
    if input_bits >= 32:
        return 2
    if 4 * threads > minor:
        return 2
    return 4 if minor % 4 == 0 else 2


def _bits(element: str) -> int:
    return BITS[element]


Loads = dict[tuple[int, int, int], list[tuple[Index, Index]]]
"""(block, thread, lane) -> [(loop ids, row-major input element)]."""


def _multi_row(
    sizes: tuple[int, int, int], in_bits: int, out_bits: int, sms: int
) -> tuple[str, int, int, int, Loads] | None:
    major, kept, minor = sizes
    if minor & (minor - 1):
        return None
    v = min(minor, 64 // min(in_bits, out_bits))
    if max(in_bits, out_bits) >= 32:
        v = min(v, 128 // max(in_bits, out_bits))
    if minor > 32 * v:
        return None

    def shape(v: int) -> tuple[int, int, int]:
        per_row = minor // v
        rows = kept if kept * per_row <= 256 else 256 // per_row
        return rows, per_row, -(-kept // rows)

    while v > 1 and shape(v)[2] < sms:
        v //= 2
    if minor > 32 * v:
        return None
    rows, per_row, blocks = shape(v)
    loads: Loads = defaultdict(list)
    for b in range(blocks):
        for t in range(rows * per_row):
            k = b * rows + t // per_row
            for s in range(major):
                for lane in range(v):
                    r = (t % per_row) * v + lane
                    if k < kept and r < minor:
                        loads[(b, t, lane)].append(((s,), (s, k, r)))
    return "multi-row reduction", rows * per_row, blocks, v, loads


def _row(sizes: tuple[int, int, int], in_bits: int) -> tuple[str, int, int, int, Loads]:
    major, kept, minor = sizes
    per_row = min(1024, math.ceil(math.ceil(minor / 16) / 32) * 32)
    rows = 1
    if 2 * per_row <= 256:
        rows = kept if kept * per_row <= 256 else 256 // per_row
    v = vector_size(minor, per_row, in_bits)
    vectors = minor // v
    tile = min(16 // v, -(-vectors // per_row))
    grid = (-(-kept // rows), -(-vectors // (tile * per_row)))
    loads: Loads = defaultdict(list)
    for b in range(grid[0] * grid[1]):
        b0, b1 = divmod(b, grid[1])
        for t in range(rows * per_row):
            t0, t1 = divmod(t, per_row)
            k = b0 * rows + t0
            for s in range(major):
                for i in range(tile):
                    c = b1 * tile * per_row + i * per_row + t1
                    for lane in range(v):
                        if k < kept and c < vectors:
                            loads[(b, t, lane)].append(((s, i), (s, k, c * v + lane)))
    return "row reduction", rows * per_row, grid[0] * grid[1], v, loads


def _small_column(sizes: tuple[int, int, int], in_bits: int) -> tuple[str, int, int, int, Loads]:
    major, reduced, minor = sizes
    v = vector_size(reduced * minor, 32, in_bits)
    threads = 128
    shared_rows = v * threads // minor
    while shared_rows > 32 and v > 1:
        v, shared_rows = v // 2, shared_rows // 2
    if shared_rows > 32:
        threads //= shared_rows // 32
    loop = -(-(reduced * minor) // (v * threads))
    loads: Loads = defaultdict(list)
    for b in range(major):
        for t in range(threads):
            for s in range(loop):
                for lane in range(v):
                    linear = t * v + lane + s * v * threads
                    if linear < reduced * minor:
                        element = (b, linear // minor, linear % minor)
                        loads[(b, t, lane)].append(((s,), element))
    return "small column reduction", threads, major, v, loads


def _column(sizes: tuple[int, int, int], in_bits: int) -> tuple[str, int, int, int, Loads]:
    major, reduced, minor = sizes
    v = vector_size(minor, 32, in_bits)
    per_major = -(-minor // (32 * v))
    loads: Loads = defaultdict(list)
    for b in range(major * per_major):
        b0, b1 = divmod(b, per_major)
        for t in range(1024):
            t0, t1 = divmod(t, 32)
            for s in range(-(-reduced // 32)):
                for lane in range(v):
                    row, column = t0 + 32 * s, (b1 * 32 + t1) * v + lane
                    if row < reduced and column < minor:
                        loads[(b, t, lane)].append(((s,), (b0, row, column)))
    return "column reduction", 1024, major * per_major, v, loads


def faster_than_loop(row: bool, sizes: tuple[int, int, int]) -> bool:
    """XLA's ``IsUnnestedReductionFasterThanElemental`` (warps of 32)."""
    if row:
        return sizes[2] >= 32 or 32 % sizes[2] == 0
    reduced, kept = sizes[1], sizes[2]
    return not (
        reduced < 32
        or (reduced < 64 and kept < 32)
        or (reduced < 128 and kept < 8)
        or (reduced < 256 and kept < 3)
    )


def race_free(row: bool, sizes: tuple[int, int, int]) -> bool:
    """XLA's ``ReductionIsRaceFree`` (warps of 32; else it splits the
    reduce before fusion)."""
    return sizes[2] <= 1024 * 16 and sizes[0] <= 8 if row else sizes[1] <= 32 * 128


def simulate_reduction(fusion: Fusion, device: str) -> tuple[str, Launch, dict[int, Counts]]:
    """The emitter, the launch (`unroll`: the vector) and the counts of a
    fusion whose root is a reduce (module docstring)."""
    hero = fusion.root
    (operand,) = hero.operands
    rank = len(operand.dims)
    order = operand.minor_to_major if isinstance(operand, Param) else range(rank - 1, -1, -1)
    physical = tuple(reversed(tuple(order)))  # logical dims, major to minor
    found = reduction_dims(
        tuple(operand.dims[d] for d in physical),
        tuple(k for k, d in enumerate(physical) if d in hero.attrs[0]),
    )
    if found is None or not faster_than_loop(*found):
        return "loop", Launch(0, 0, 0), {}
    row, sizes = found
    if not race_free(row, sizes):
        return "not race-free", Launch(0, 0, 0), {}
    in_bits = min(_bits(p.element) for p in fusion.params)
    out_bits = _bits(hero.element)
    if row:
        chosen = _multi_row(sizes, in_bits, out_bits, SM_COUNT[device]) or _row(sizes, in_bits)
    elif 32 % sizes[2] == 0:
        chosen = _small_column(sizes, in_bits)
    else:
        chosen = _column(sizes, in_bits)
    kind, threads, blocks, v, loads = chosen
    flat = (sizes[0], sizes[1], sizes[2])
    points: dict[int, dict[tuple[int, ...], dict[tuple[tuple[int, ...], Index], Index]]] = (
        defaultdict(lambda: defaultdict(dict))
    )
    for key, at in loads.items():
        for loop, element in at:
            linear = (element[0] * flat[1] + element[1]) * flat[2] + element[2]
            source = _unlinear(linear, operand.dims, tuple(order))
            for number, path, ids, parameter in reads(operand, source):
                points[number][key][(path, (*loop, *ids))] = parameter
    go = Launch(threads, blocks, v)
    return kind, go, {p.number: _count(p, points.get(p.number, {}), go) for p in fusion.params}


def _unlinear(linear: int, dims: Index, minor_to_major: Index | None = None) -> Index:
    """The index at `linear` of `dims` in `minor_to_major` order (default:
    row-major)."""
    out = [0] * len(dims)
    for d in minor_to_major or range(len(dims) - 1, -1, -1):
        out[d] = linear % dims[d]
        linear //= dims[d]
    return tuple(out)


def simulate_concatenate(fusion: Fusion, device: str) -> tuple[Launch, dict[int, Counts]]:
    """The concatenate emitter's launch and counts (module docstring)."""
    hero = fusion.root
    (axis,) = hero.attrs
    widest = max(hero.operands, key=lambda o: o.dims[axis])
    largest = widest.dims
    order = widest.minor_to_major if isinstance(widest, Param) else None
    n = math.prod(largest)
    unroll = 1
    if n >= DEVICES[device].resident_threads:
        unroll = math.gcd(n, 4)
    unroll = max(unroll, -(-8 // _bits(hero.element)))
    for operand in hero.operands:
        unroll = math.gcd(unroll, operand.dims[axis])
    work = -(-n // unroll)
    threads = min(128, work)
    go = Launch(threads, -(-work // threads), unroll)
    points: dict[int, dict[tuple[int, ...], dict[tuple[tuple[int, ...], Index], Index]]] = (
        defaultdict(lambda: defaultdict(dict))
    )
    for block in range(go.blocks):
        for thread in range(threads):
            for u in range(unroll):
                linear = (block * threads + thread) * unroll + u
                if linear >= n:
                    continue
                index = _unlinear(linear, largest, order)
                for k, operand in enumerate(hero.operands):
                    if any(i >= d for i, d in zip(index, operand.dims, strict=True)):
                        continue
                    for number, path, ids, element in reads(operand, index, (k,)):
                        # A load per concatenated operand: its loop ids lead.
                        points[number][(block, thread, u)][(path, (k, *ids))] = element
    return go, {p.number: _count(p, points.get(p.number, {}), go) for p in fusion.params}


def random_reduction_fusion(rng: random.Random) -> Fusion:
    """A fusion whose root is a reduce (kept or reduced dims consecutive,
    race-free, large enough for the reduction emitter) of a chain of loop
    ops over random parameters."""
    while True:
        rank = rng.choice((1, 2, 2, 3, 3))
        choices = (1, 2, 3, 4, 8, 16, 17, 32, 33, 64, 100, 128, 256, 300, 512, 1000)
        dims = tuple(rng.choice(choices) for _ in range(rank))
        while math.prod(dims) > 30_000:
            dims = tuple(max(1, n // 2) for n in dims)
        lo = rng.randrange(rank)
        hi = rng.randrange(lo, rank)
        middle = tuple(range(lo, hi + 1))
        reduced = middle if rng.random() < 0.5 else tuple(d for d in range(rank) if d not in middle)
        if not reduced:
            continue
        found = reduction_dims(dims, reduced)
        if found is not None and faster_than_loop(*found) and race_free(*found):
            break
    element = rng.choice(("f32", "f32", "bf16", "f16", "s8", "s32", "f64"))
    builder = _Builder(rng, element)
    body = builder.build(dims, rng.choice((0, 1, 1, 2)))
    out = tuple(n for d, n in enumerate(dims) if d not in reduced)
    root = Node("reduce", out, element, (body,), (reduced,))
    return Fusion(root, tuple(builder.params), tuple(range(len(out) - 1, -1, -1)))


def random_concatenate_fusion(rng: random.Random) -> Fusion:
    """A fusion whose root is a concatenate of two to four chains of loop
    ops."""
    rank = rng.choice((1, 2, 2, 3))
    choices = (1, 2, 3, 5, 8, 13, 16, 32, 33, 64, 100)
    dims = [rng.choice(choices) for _ in range(rank)]
    while math.prod(dims) > 4000:
        dims = [max(1, n // 2) for n in dims]
    axis = rng.randrange(rank)
    element = rng.choice(("f32", "f32", "bf16", "s8", "pred", "s4", "f64", "s32"))
    builder = _Builder(rng, element)
    parts: list[Value] = []
    for _ in range(rng.choice((2, 2, 3, 4))):
        piece = list(dims)
        piece[axis] = rng.choice((1, 2, 3, 4, 7, 16, 32, 33, 64))
        parts.append(builder.build(tuple(piece), rng.choice((0, 1, 1, 2))))
    out = list(dims)
    out[axis] = sum(p.dims[axis] for p in parts)
    root = Node("concatenate", tuple(out), element, tuple(parts), (axis,))
    return Fusion(root, tuple(builder.params), tuple(range(rank - 1, -1, -1)))


def _compare(answer: dict, counts: dict[int, Counts]) -> list[str]:  # type: ignore[type-arg]
    problems = []
    for row in answer["operands"]:
        expected = counts[row["operand"]]
        if row.get("reason") is not None or row["sectors_per_request"] is None:
            if expected.requests:
                problems.append(f"operand {row['operand']}: no count ({row.get('reason')})")
            continue
        theirs, mine = reported(row), expected.row()
        if theirs != mine:
            problems.append(f"operand {row['operand']}: {theirs} != brute {mine}")
    return problems


def judge(fusion: Fusion, device: str) -> tuple[str, list[str]]:
    """The tool's JSON (public API) against the brute force: the emitter,
    the launch, every operand's counts."""
    import verifier

    answer = verifier.loads(fusion.text()).coalescing("fusion", device)
    got = answer["launch"]
    if fusion.root.op == "concatenate":
        kind = "concatenate"
        go, counts = simulate_concatenate(fusion, device)
    else:
        kind, go, counts = simulate_reduction(fusion, device)
    if kind == "loop":  # the loop emitter's brute force is `simulator`
        return "skipped: loop", [] if answer["emitter"] == "loop" else ["not the loop emitter"]
    if kind == "not race-free":
        unsupported = answer["emitter"].endswith("reduction") and got is None
        return "skipped: not race-free", [] if unsupported else ["not race-free, answered"]
    if answer["emitter"] != kind:
        return kind, [f"emitter {answer['emitter']} != {kind}"]
    if got is None:
        return kind, [f"no launch: {answer.get('unsupported')}"]
    if (got["threads_per_block"], got["blocks"], got["unroll"]) != (
        go.threads,
        go.blocks,
        go.unroll,
    ):
        return kind, [f"launch {got['threads_per_block'], got['blocks'], got['unroll']} != {go}"]
    return kind, _compare(answer, counts)
