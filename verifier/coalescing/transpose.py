"""XLA's tiled transpose emitter: when a transpose gets it, and its launch
mapping.

**Normalised transpose** (XLA's ``GetNormalizedLogicalTransposeShape``):
with default (row-major) layouts only, 1-dims dropped and runs of output
dims that stay consecutive in the operand merged, a transpose is an output
shape ``dims`` and a permutation (output dim ``i`` is normalised operand
dim ``perm[i]``).  The tiled emitter takes it when there are at least two
dims and either the most minor dim stays (its bytes fit 8 bytes and, times
the smaller of the two next dims, reach 16 bytes) or it moves and both the
operand's and the output's minor dims have 16 elements (or 8 each and 8,192
together).  Elements narrower than 32 bits go first to XLA's *packed*
transpose (`packed_transpose`: ``32 / bits`` elements to a shared-memory
bank loaded as one vector, when the tile has enough rows and columns);
narrow ones it does not take stay on the tiled emitter, whose vectorised
narrow mapping is not modelled.

**Tiled mapping** (32-bit and wider: no vectors): 128 threads (4 rows of 32)
per block; a block covers a tile of 32 elements along the operand's minor
dim and along the dim that becomes the output's minor (when the minor dim
stays: the next dim and its image, the whole minor dim as the vector);
thread ``t`` reads, for loop id ``s`` in ``[0, 7]``, tile element ``s *
128 + t`` in row-major order.  Its reads of the operand are the map from
thread and block ids to the normalised operand index, bitcast to the
operand's shape; its writes, the same tile walk over the permuted tile
and block ids, to the normalised output index.

>>> from verifier.hlo import parse_shape
>>> t = normalized_transpose(parse_shape("f32[100,64,32]"), parse_shape("f32[32,100,64]"), (2, 0, 1))
>>> t
NormalizedTranspose(dims=(32, 6400), permutation=(1, 0))
>>> tiled_transpose(t, 32) is not None
True
>>> mapping = transpose_mapping(t)
>>> mapping.threads_per_block, mapping.blocks, mapping.vector, mapping.input_shape
(128, 200, 1, (6400, 32))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from verifier.coalescing.mapping import InputMapping
from verifier.expr import Expr, IndexingMap, Interval, dim, range_var
from verifier.hlo import Shape

_TILE = 32
_ROWS = 4
_MIN_TILED = 16
_MIN_TILED_2 = 8
_MIN_TOTAL_TILED = 64 * 128
_MAX_MINOR_BITS = 8 * 8


@dataclass(frozen=True)
class NormalizedTranspose:
    """The normalised output dims and permutation (module docstring)."""

    dims: tuple[int, ...]
    permutation: tuple[int, ...]

    @property
    def operand_dims(self) -> tuple[int, ...]:
        inverse = [0] * len(self.permutation)
        for i, p in enumerate(self.permutation):
            inverse[p] = i
        return tuple(self.dims[inverse[k]] for k in range(len(self.dims)))


def _row_major(shape: Shape) -> bool:
    return shape.layout_or_default.minor_to_major == tuple(range(shape.rank - 1, -1, -1))


def normalized_transpose(
    operand: Shape, output: Shape, dimensions: tuple[int, ...]
) -> NormalizedTranspose | None:
    """None unless both layouts are row-major (XLA's precondition)."""
    if not (_row_major(operand) and _row_major(output)):
        return None
    delta = [0]
    for size in operand.dimensions:
        delta.append(delta[-1] + (size == 1))
    kept = [
        dimensions[i] - delta[dimensions[i]]
        for i in range(len(dimensions))
        if output.dimensions[i] != 1
    ]
    sizes = [d for d in output.dimensions if d != 1]
    if not kept:
        return NormalizedTranspose((math.prod(sizes),), (0,))
    starts = [0] + [i for i in range(1, len(kept)) if kept[i] != kept[i - 1] + 1]
    ends = [*starts[1:], len(kept)]
    merged = tuple(math.prod(sizes[a:b]) for a, b in zip(starts, ends, strict=True))
    if len(starts) == 1:
        return NormalizedTranspose(merged, (0,))
    heads = sorted(kept[s] for s in starts)
    permutation = tuple(heads.index(kept[s]) for s in starts)
    return NormalizedTranspose(merged, permutation)


def tiled_transpose(transpose: NormalizedTranspose, bits: int) -> NormalizedTranspose | None:
    """`transpose` when XLA's tiled transpose emitter takes it, else None."""
    dims, permutation = transpose.dims, transpose.permutation
    if len(permutation) < 2:
        return None
    operand_dims = transpose.operand_dims
    if permutation[-1] == len(dims) - 1:
        operand_minor = operand_dims[-2]
        minor_bits = bits * dims[-1]
        if minor_bits <= _MAX_MINOR_BITS and minor_bits * min(operand_minor, dims[-2]) >= (
            8 * _MIN_TILED
        ):
            return transpose
        return None
    operand_minor = operand_dims[-1]
    if (operand_minor >= _MIN_TILED and dims[-1] >= _MIN_TILED) or (
        operand_minor >= _MIN_TILED_2
        and dims[-1] >= _MIN_TILED_2
        and operand_minor * dims[-1] >= _MIN_TOTAL_TILED
    ):
        return None if bits == 4 else transpose
    return None


def _delinearize(linear: Expr, sizes: tuple[int, ...]) -> list[Expr]:
    out: list[Expr] = []
    for k, size in enumerate(sizes):
        stride = math.prod(sizes[k + 1 :])
        part = linear // stride
        out.append(part if k == 0 else part % size)
    return out


def transpose_mapping(transpose: NormalizedTranspose) -> InputMapping:
    """The mapping for 32-bit and wider elements (no vectors)."""
    permutation = transpose.permutation
    shape = transpose.operand_dims
    rank = len(shape)
    sizes = [1] * rank
    if permutation[-1] == rank - 1:
        vector = shape[-1]
        block = _TILE
        sizes[-1] = vector
        sizes[rank - 2] = block
        sizes[permutation[rank - 2]] = block
        stride = block * _ROWS * vector
    else:
        vector = 1
        block = _TILE
        sizes[-1] = block
        sizes[permutation[-1]] = block
        stride = block * _ROWS
    counts = tuple(-(-n // s) for n, s in zip(shape, sizes, strict=True))
    threads = _ROWS * _TILE
    linear = range_var(0) * stride + dim(0) * vector + range_var(1)
    offsets = _delinearize(linear, tuple(sizes))
    blocks = _delinearize(dim(3), counts)
    results = [b * s + o for b, s, o in zip(blocks, sizes, offsets, strict=True)]
    bounds = [Interval(0, threads - 1), Interval(0, 0), Interval(0, 0)]
    bounds += [Interval(0, math.prod(counts) - 1), Interval(0, 0), Interval(0, 0)]
    symbols = [Interval(0, block // _ROWS - 1), Interval(0, vector - 1)]
    mapping = IndexingMap.create(
        bounds,
        results,
        range_vars=symbols,
        constraints=[(e, Interval(0, n - 1)) for e, n in zip(results, shape, strict=True)],
    )
    output_sizes = tuple(sizes[p] for p in permutation)
    output_blocks = [blocks[p] for p in permutation]
    written = [
        b * s + o
        for b, s, o in zip(
            output_blocks, output_sizes, _delinearize(linear, output_sizes), strict=True
        )
    ]
    output = IndexingMap.create(
        bounds,
        written,
        range_vars=symbols,
        constraints=[(e, Interval(0, n - 1)) for e, n in zip(written, transpose.dims, strict=True)],
    )
    return InputMapping("transpose", threads, math.prod(counts), vector, mapping, shape, output)


_BANKS = 32
_BANK_BITS = 32
_MIN_POPULATED_VECTORS = 10


@dataclass(frozen=True)
class PackedTranspose:
    """XLA's packed transpose (elements narrower than a shared-memory bank):
    the transpose made canonical — ``[..., T2, ..., A, T1, B]`` in, with a
    size-1 ``A`` and ``B`` inserted where missing — and its block tile over
    the canonical output."""

    input_dims: tuple[int, ...]
    output_dims: tuple[int, ...]
    permutation: tuple[int, ...]
    tile: tuple[int, ...]
    vector: int

    @property
    def inverse(self) -> tuple[int, ...]:
        return _inverse(self.permutation)


def _inverse(permutation: tuple[int, ...]) -> tuple[int, ...]:
    inverse = [0] * len(permutation)
    for i, p in enumerate(permutation):
        inverse[p] = i
    return tuple(inverse)


def packed_transpose(transpose: NormalizedTranspose, bits: int) -> PackedTranspose | None:
    """`transpose` as XLA's packed transpose emitter takes it (elements of
    `bits` < 32 bits, ``32 / bits`` to a bank: the vector), else None: a
    tile of ``min(T1, 32 v)`` by ``min(T2, 32 v)`` (times ``A`` while it
    fits) with at least ``10 v`` populated rows and columns, each a
    multiple of ``v``, and ``B = 1``."""
    if bits >= _BANK_BITS or len(transpose.dims) < 2:
        return None
    output, permutation = list(transpose.dims), list(transpose.permutation)
    if permutation[-1] != len(output) - 1:
        permutation.append(len(output))
        output.append(1)
    rank = len(output)
    if permutation[rank - 3] != rank - 3:
        output.insert(rank - 2, 1)
        permutation = [p + 1 if p > rank - 3 else p for p in permutation]
        permutation.insert(rank - 2, rank - 2)
    inverse = _inverse(tuple(permutation))
    inputs = [output[inverse[i]] for i in range(len(output))]
    rank = len(inputs)
    t1_size, a_size, t2_size = inputs[rank - 2], inputs[rank - 3], inputs[permutation[rank - 2]]
    vector = _BANK_BITS // bits
    side = _BANKS * vector
    t1 = min(t1_size, side)
    a = min(a_size, side // t1)
    t2 = min(t2_size, side)
    rows, columns = t2, a * t1
    least = _MIN_POPULATED_VECTORS * vector
    if columns < least or rows < least:
        return None
    if inputs[-1] != 1 or rows % vector or columns % vector or t2_size % t2 % vector:
        return None
    tile = [1] * rank
    tile[inverse[rank - 2]] = t1
    tile[rank - 2] = t2
    tile[rank - 3] = a
    return PackedTranspose(tuple(inputs), tuple(output), tuple(permutation), tuple(tile), vector)


def packed_transpose_mapping(packed: PackedTranspose) -> InputMapping:
    """The packed emitter's launch: 128 threads in 4 groups of 32 lanes,
    a block per output tile; lane ``l`` of group ``g`` loads, at loop id
    ``s``, the ``v`` consecutive elements of shared-memory row ``4 s + g``
    from column ``l v`` (column ``c`` is ``A`` offset ``c / T1`` and ``T1``
    offset ``c mod T1``, the row the ``T2`` offset); it writes column
    ``(4 s + g) v + h`` rows ``l v + w`` of the transposed tile."""
    rank = len(packed.input_dims)
    permutation, inverse, vector = packed.permutation, packed.inverse, packed.vector
    output_tile = packed.tile
    input_tile = tuple(output_tile[inverse[i]] for i in range(rank))
    t1, a_id, t1_in, t2_in = input_tile[rank - 2], rank - 3, rank - 2, permutation[rank - 2]
    rows, columns = input_tile[t2_in], input_tile[a_id] * t1
    groups = _ROWS
    threads = groups * _BANKS
    counts = tuple(-(-n // s) for n, s in zip(packed.output_dims, output_tile, strict=True))
    output_blocks = _delinearize(dim(3), counts)
    lane, group = dim(0) % _BANKS, dim(0) // _BANKS
    bounds = [Interval(0, threads - 1), Interval(0, 0), Interval(0, 0)]
    bounds += [Interval(0, math.prod(counts) - 1), Interval(0, 0), Interval(0, 0)]

    row, column = range_var(0) * groups + group, lane * vector + range_var(1)
    offsets: list[Expr] = [dim(1) * 0] * rank
    offsets[a_id], offsets[t1_in], offsets[t2_in] = column // t1, column % t1, row
    blocks = [output_blocks[inverse[i]] for i in range(rank)]
    read = [b * s + o for b, s, o in zip(blocks, input_tile, offsets, strict=True)]
    thread_to_input = IndexingMap.create(
        bounds,
        read,
        range_vars=[Interval(0, -(-rows // groups) - 1), Interval(0, vector - 1)],
        constraints=[
            (column, Interval(0, columns - 1)),
            (row, Interval(0, rows - 1)),
            *[(e, Interval(0, n - 1)) for e, n in zip(read, packed.input_dims, strict=True)],
        ],
    )

    out_column = (range_var(0) * groups + group) * vector + range_var(1)
    out_row = lane * vector + range_var(2)
    placed: list[Expr] = [dim(1) * 0] * rank
    placed[a_id], placed[inverse[rank - 2]], placed[rank - 2] = (
        out_column // t1,
        out_column % t1,
        out_row,
    )
    written = [b * s + o for b, s, o in zip(output_blocks, output_tile, placed, strict=True)]
    thread_to_output = IndexingMap.create(
        bounds,
        written,
        range_vars=[
            Interval(0, -(-columns // (vector * groups)) - 1),
            Interval(0, vector - 1),
            Interval(0, vector - 1),
        ],
        constraints=[
            (out_column, Interval(0, columns - 1)),
            (out_row, Interval(0, rows - 1)),
            *[(e, Interval(0, n - 1)) for e, n in zip(written, packed.output_dims, strict=True)],
        ],
    )
    return InputMapping(
        "transpose",
        threads,
        math.prod(counts),
        vector,
        thread_to_input,
        packed.input_dims,
        thread_to_output,
    )
