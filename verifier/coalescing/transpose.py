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
together); narrower than 32-bit elements go to XLA's packed transpose
emitter, which is not modelled.

**Mapping** (32-bit and wider: no vectors): 128 threads (4 rows of 32)
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
