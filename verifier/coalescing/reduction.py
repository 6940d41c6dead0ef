"""XLA's reduction emitters' launch mappings: which of the four (row,
multi-row, column, small column) takes a reduce, its threads and blocks,
and the map from thread and block ids to the element of the reduce's
(normalised) input each load reads.

The reduce's input is first seen as three dims in physical order
(`reduction_dims`): ``(major reduced, kept, minor reduced)`` for a row
reduction, ``(major kept, reduced, minor kept)`` for a column one.  Then:

* **multi-row** (row, the minor reduced dim a power of two fitting one
  warp's vectors): a thread reads ``v`` consecutive elements of a row, a
  warp one or more whole rows;
* **row**: ``ntr = min(1024, roundup(ceil(reduced / 16), 32))`` threads per
  row, each reading ``v``-vectors ``ntr`` apart, up to 16 elements;
* **small column** (the minor kept dim divides the warp): 128 threads
  sweep a ``(reduced × minor kept)`` slab linearly in ``v``-vectors;
* **column**: 32 × 32 threads, a thread reading ``v`` consecutive kept
  elements of every 32nd reduced row.

The vector width ``v`` is XLA's (``GetVectorSizeForMlir``: 2 for 32-bit
inputs, up to 4 for narrower ones, 1 for 64-bit or odd minor dims or too
few elements per thread).  The map's dims are `THREAD_DIMS`; its symbols
the per-thread loops, the vector lane last.  The thread→output maps are
over the normalised output: ``(kept)`` for a row reduction, ``(major
kept, minor kept)`` for a column one.

>>> from verifier.hlo import parse_shape
>>> dims = reduction_dims(parse_shape("f32[100,64,512]"), (2,))
>>> dims
ReductionDims(row=True, sizes=(1, 6400, 512))
>>> mapping = reduction_mapping(dims, input_bits=32, output_bits=32, sm_count=84, warp_size=32)
>>> mapping.kind, mapping.threads_per_block, mapping.blocks, mapping.vector
('row reduction', 256, 800, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from verifier.coalescing.mapping import InputMapping
from verifier.expr import Expr, IndexingMap, Interval, const, dim, range_var
from verifier.hlo import Shape

_ROW_THREADS_LIMIT = 1024  # XLA's MinThreadsXRowReduction
_ROW_ELEMENTS_PER_THREAD = 16
_THREADS_PER_BLOCK_TARGET = 256
_TILE = 32
_BATCH_BOUND = 8  # XLA's BatchedReductionRaceFreeBound


@dataclass(frozen=True)
class ReductionDims:
    """The reduce's input as three physical-order dims (module docstring)."""

    row: bool
    sizes: tuple[int, int, int]


def _segments(shape: Shape, middle: set[int]) -> tuple[int, int, int]:
    sizes = [1, 1, 1]
    segment = 2
    for d in shape.layout_or_default.minor_to_major:
        if segment == 2 and d in middle:
            segment = 1
        elif segment == 1 and d not in middle:
            segment = 0
        sizes[segment] *= shape.dimensions[d]
    return sizes[0], sizes[1], sizes[2]


def _consecutive(shape: Shape, dims: set[int]) -> bool:
    order = shape.layout_or_default.minor_to_major
    positions = sorted(order.index(d) for d in dims)
    return positions == list(range(positions[0], positions[0] + len(positions)))


def reduction_dims(operand: Shape, reduced: tuple[int, ...]) -> ReductionDims | None:
    """XLA's ``GetReductionKindAndContiguousComponents``; None when neither
    the kept nor the reduced dims are consecutive in the layout."""
    reduced_set = set(reduced)
    kept = set(range(operand.rank)) - reduced_set
    if not kept:
        return ReductionDims(True, (1, 1, operand.num_elements))
    if _consecutive(operand, kept):
        major, middle, minor = _segments(operand, kept)
        if middle == 1:
            return ReductionDims(True, (1, 1, major * minor))
        if minor == 1:
            return ReductionDims(False, (1, major, middle))
        return ReductionDims(True, (major, middle, minor))
    if not _consecutive(operand, reduced_set):
        return None
    major, middle, minor = _segments(operand, reduced_set)
    if minor == 1:
        return ReductionDims(True, (1, major, middle))
    return ReductionDims(False, (major, middle, minor))


def emitted_by_reduction_emitter(dims: ReductionDims, warp_size: int) -> bool:
    """XLA's ``IsUnnestedReductionFasterThanElemental``: else the loop emitter."""
    if dims.row:
        return dims.sizes[2] >= warp_size or warp_size % dims.sizes[2] == 0
    reduced, kept = dims.sizes[1], dims.sizes[2]
    elemental = (
        reduced < warp_size
        or (reduced < 2 * warp_size and kept < warp_size)
        or (reduced < 4 * warp_size and kept < 8)
        or (reduced < 8 * warp_size and kept < 3)
    )
    return not elemental


def race_free(dims: ReductionDims, warp_size: int) -> bool:
    """XLA's ``ReductionIsRaceFree`` (else it splits the reduce first)."""
    if dims.row:
        return (
            dims.sizes[2] <= _ROW_THREADS_LIMIT * _ROW_ELEMENTS_PER_THREAD
            and dims.sizes[0] <= _BATCH_BOUND
        )
    return dims.sizes[1] <= warp_size * 128


def _vector_size(minor: int, threads: int, input_bits: int | None) -> int:
    """XLA's ``GetVectorSizeForMlir``; `input_bits` None: no inputs."""
    if minor % 2 or threads * 2 > minor or input_bits is None or input_bits >= 64:
        return 1
    if input_bits >= 32:
        return 2
    if threads * 4 > minor:
        return 2
    return 4 if minor % 4 == 0 else 2


def _map(
    threads: int,
    blocks: int,
    results: list[Expr],
    symbols: list[int],
    shape: tuple[int, ...],
    writers: Expr | None = None,
) -> IndexingMap:
    """Results within `shape`; `writers` (when given) must be 0."""
    bounds = [Interval(0, threads - 1), Interval(0, 0), Interval(0, 0)]
    bounds += [Interval(0, blocks - 1), Interval(0, 0), Interval(0, 0)]
    constraints = [(e, Interval(0, n - 1)) for e, n in zip(results, shape, strict=True)]
    if writers is not None:
        constraints.append((writers, Interval(0, 0)))
    return IndexingMap.create(
        bounds,
        results,
        range_vars=[Interval(0, n - 1) for n in symbols],
        constraints=constraints,
    )


def reduction_mapping(
    dims: ReductionDims,
    *,
    input_bits: int | None,
    output_bits: int,
    sm_count: int,
    warp_size: int,
) -> InputMapping:
    """The emitter XLA picks for `dims` and its mapping (module docstring);
    `input_bits`: the narrowest fusion input's width, None without inputs."""
    if dims.row:
        multi = _multi_row(dims, input_bits, output_bits, sm_count, warp_size)
        return multi if multi is not None else _row(dims, input_bits, warp_size)
    if warp_size % dims.sizes[2] == 0:
        return _small_column(dims, input_bits)
    return _column(dims, input_bits)


def _row(dims: ReductionDims, input_bits: int | None, warp_size: int) -> InputMapping:
    major, kept, minor = dims.sizes
    per_thread = -(-minor // _ROW_ELEMENTS_PER_THREAD)
    reduced_threads = min(_ROW_THREADS_LIMIT, -(-per_thread // warp_size) * warp_size)
    kept_threads = 1
    if reduced_threads * 2 <= _THREADS_PER_BLOCK_TARGET:
        if kept * reduced_threads <= _THREADS_PER_BLOCK_TARGET:
            kept_threads = kept
        else:
            kept_threads = _THREADS_PER_BLOCK_TARGET // reduced_threads
    vector = _vector_size(minor, reduced_threads, input_bits)
    shape = (major, kept, minor // vector, vector)
    tile = min(_ROW_ELEMENTS_PER_THREAD // vector, -(-shape[2] // reduced_threads))
    per_block = (kept_threads, tile * reduced_threads)
    grid = (-(-shape[1] // per_block[0]), -(-shape[2] // per_block[1]))
    thread, block = dim(0), dim(3)
    results = [
        range_var(0),
        (block // grid[1]) * per_block[0] + thread // reduced_threads,
        (block % grid[1]) * per_block[1]
        + range_var(1) * reduced_threads
        + thread % reduced_threads,
        range_var(2),
    ]
    threads = kept_threads * reduced_threads
    mapping = _map(threads, math.prod(grid), results, [major, tile, vector], shape)
    output = _map(threads, math.prod(grid), [results[1]], [], (kept,), thread % reduced_threads)
    return InputMapping("row reduction", threads, math.prod(grid), vector, mapping, shape, output)


def _multi_row_shape(dims: ReductionDims, vector: int) -> tuple[int, int, int]:
    kept, minor = dims.sizes[1], dims.sizes[2]
    reduced_threads = minor // vector
    if kept * reduced_threads <= _THREADS_PER_BLOCK_TARGET:
        kept_threads = kept
    else:
        kept_threads = _THREADS_PER_BLOCK_TARGET // reduced_threads
    return kept_threads, reduced_threads, -(-kept // kept_threads)


def _multi_row(
    dims: ReductionDims, input_bits: int | None, output_bits: int, sm_count: int, warp_size: int
) -> InputMapping | None:
    major, kept, minor = dims.sizes
    if minor & (minor - 1):
        return None
    known = [output_bits] if input_bits is None else [input_bits, output_bits]
    smallest, largest = min(known), max(known)
    vector = min(minor, 64 // smallest)
    if largest >= 32:
        vector = min(128 // largest, vector)
    if minor > warp_size * vector:
        return None
    while vector > 1 and _multi_row_shape(dims, vector)[2] < sm_count:
        vector //= 2
    if minor > warp_size * vector:
        return None
    kept_threads, reduced_threads, blocks = _multi_row_shape(dims, vector)
    thread = dim(0)
    block: Expr = dim(3) if blocks != 1 else const(0)
    results = [
        range_var(0),
        block * kept_threads + thread // reduced_threads,
        (thread % reduced_threads) * vector + range_var(1),
    ]
    threads = kept_threads * reduced_threads
    mapping = _map(threads, blocks, results, [major, vector], dims.sizes)
    output = _map(threads, blocks, [results[1]], [], (kept,), thread % reduced_threads)
    return InputMapping("multi-row reduction", threads, blocks, vector, mapping, dims.sizes, output)


def _column(dims: ReductionDims, input_bits: int | None) -> InputMapping:
    major, reduced, minor = dims.sizes
    vector = _vector_size(minor, _TILE, input_bits)
    grid = (major, -(-minor // (_TILE * vector)))
    thread, block = dim(0), dim(3)
    results = [
        block // grid[1],
        thread // _TILE + range_var(0) * _TILE,
        ((block % grid[1]) * _TILE + thread % _TILE) * vector + range_var(1),
    ]
    threads, blocks = _TILE * _TILE, math.prod(grid)
    mapping = _map(threads, blocks, results, [-(-reduced // _TILE), vector], dims.sizes)
    written = [
        block // grid[1],
        ((block % grid[1]) * _TILE + thread // _TILE) * vector + range_var(0),
    ]
    output = _map(threads, blocks, written, [vector], (major, minor), thread % _TILE)
    return InputMapping("column reduction", threads, blocks, vector, mapping, dims.sizes, output)


def _small_column(dims: ReductionDims, input_bits: int | None) -> InputMapping:
    major, reduced, minor = dims.sizes
    vector = _vector_size(reduced * minor, _TILE, input_bits)
    threads = 128
    shared_rows = vector * threads // minor
    while shared_rows > _TILE and vector > 1:
        vector //= 2
        shared_rows //= 2
    if shared_rows > _TILE:
        threads //= shared_rows // _TILE
        shared_rows = _TILE
    loop = -(-(reduced * minor) // (vector * threads))
    linear = dim(0) * vector + range_var(1) + range_var(0) * (vector * threads)
    results = [dim(3), linear // minor, linear % minor]
    mapping = _map(threads, major, results, [loop, vector], dims.sizes)
    written = [dim(3), (dim(0) + range_var(0) * threads) // shared_rows]
    output = _map(threads, major, written, [vector], (major, minor), dim(0) % shared_rows)
    return InputMapping(
        "small column reduction", threads, major, vector, mapping, dims.sizes, output
    )
