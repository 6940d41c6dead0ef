"""Which operand elements does each output element of an HLO instruction read?

Straight from XLA's operation semantics, by enumeration over small shapes.
`reads(computation, instruction, output)` gives, for every index of output
`output` (the output's arrays numbered depth first through nested tuples,
an array output is 0), the exact set of `(operand_array, operand_index)`
elements read to compute it; operand arrays are numbered the same way,
operand after operand (while every operand is an array, operand array ``k``
is operand ``k``):

>>> from verifier.hlo import parse_module
>>> m = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[3] parameter(0)
...   ROOT b = f32[2,3] broadcast(p0), dimensions={1}
... }''')
>>> sorted(reads(m.entry, m.entry.root)[(1, 2)])
[(0, (2,))]

Runtime offsets (dynamic-slice, dynamic-update-slice, gather) are handled
as XLA defines them: every start index is clamped to ``[0, dim - size]``,
and the reads are the union over every feasible value of the offset
operands (a constant scalar offset has exactly one value).  A rank-0 operand
is read at the index ``()``.

Nothing here is shared with `verifier.indexing`: no maps, no expressions,
only loops and the parsed instruction's attributes.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TypeAlias

from tests.oracle.compound import UnsupportedByOracle, bitcast, cudnn_convolution
from verifier.hlo import BackendConfig, Computation, DotDimensionNumbers, Instruction, Shape

Index: TypeAlias = tuple[int, ...]
Element: TypeAlias = tuple[int, Index]
"""``(operand_array, operand_index)``."""
Reads: TypeAlias = dict[Index, frozenset[Element]]
"""Output index → the operand elements read to compute it."""


def indices(dimensions: Sequence[int]) -> Iterator[Index]:
    """Every index of an array of `dimensions`, row-major (``()`` for rank 0)."""
    return itertools.product(*(range(n) for n in dimensions))


def arrays(shape: Shape, path: Index = ()) -> list[tuple[Index, Shape]]:
    """Every array inside `shape` with its path through the tuples, depth
    first (an array is itself at ``()``; ``()`` the empty tuple has none)."""
    if shape.tuple_shapes is None:
        return [(path, shape)]
    found: list[tuple[Index, Shape]] = []
    for position, element in enumerate(shape.tuple_shapes):
        found += arrays(element, (*path, position))
    return found


def output_shapes(instruction: Instruction) -> tuple[Shape, ...]:
    """The arrays of the output, numbered depth first (outputs are arrays)."""
    return tuple(shape for _, shape in arrays(instruction.shape))


def operand_arrays(computation: Computation, instruction: Instruction) -> list[tuple[int, Index]]:
    """Every array of every operand, as (operand, path), numbered in order:
    the number an `Element` carries."""
    return [
        (position, path)
        for position, operand in enumerate(computation.operand_instructions(instruction))
        for path, _ in arrays(operand.shape)
    ]


# ------------------------------------------------------------------ opcodes

# Ops whose output element d reads element d of every operand (a rank-0
# operand, as select's predicate or clamp's bounds may be, is read at ()).
ELEMENTWISE = frozenset(
    [
        "abs",
        "add",
        "and",
        "atan2",
        "cbrt",
        "ceil",
        "clamp",
        "compare",
        "complex",
        "convert",
        "cosine",
        "count-leading-zeros",
        "divide",
        "erf",
        "exponential",
        "exponential-minus-one",
        "floor",
        "imag",
        "is-finite",
        "log",
        "log-plus-one",
        "logistic",
        "map",
        "maximum",
        "minimum",
        "multiply",
        "negate",
        "not",
        "or",
        "popcnt",
        "power",
        "real",
        "reduce-precision",
        "remainder",
        "round-nearest-afz",
        "round-nearest-even",
        "rsqrt",
        "select",
        "shift-left",
        "shift-right-arithmetic",
        "shift-right-logical",
        "sign",
        "sine",
        "sqrt",
        "stochastic-convert",
        "subtract",
        "tan",
        "tanh",
        "xor",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atanh",
        "cosh",
        "sinh",
        "mulhi",
    ]
)
# Ops without operands: nothing is read.
NO_OPERANDS = frozenset(
    ["constant", "iota", "parameter", "partition-id", "replica-id", "rng-get-and-update-state"]
)


class _Context:
    def __init__(self, computation: Computation, instruction: Instruction) -> None:
        self.instruction = instruction
        self.operands = computation.operand_instructions(instruction)
        self.arrays = operand_arrays(computation, instruction)
        self.outputs = [path for path, _ in arrays(instruction.shape)]

    def array_number(self, operand: int, path: Index) -> int:
        """The number of operand `operand`'s array at `path`."""
        return self.arrays.index((operand, path))

    def operand_dims(self, number: int) -> tuple[int, ...]:
        return self.operands[number].shape.dimensions


Semantics: TypeAlias = Callable[[_Context, int, Index], set[Element]]


def _elementwise(ctx: _Context, output: int, index: Index) -> set[Element]:
    result: set[Element] = set()
    for number, operand in enumerate(ctx.operands):
        dims = operand.shape.dimensions
        if len(dims) == 0 and len(index) > 0:
            result.add((number, ()))
        elif dims == ctx.instruction.shape.dimensions:
            result.add((number, index))
        else:
            raise UnsupportedByOracle(f"elementwise operand {number} has shape {dims}")
    return result


def _nothing(ctx: _Context, output: int, index: Index) -> set[Element]:
    return set()


def _broadcast(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Operand dimension k becomes output dimension dimensions[k].
    dimensions = ctx.instruction.int_list("dimensions")
    return {(0, tuple(index[d] for d in dimensions))}


def _transpose(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Output dimension i is operand dimension permutation[i].
    permutation = ctx.instruction.int_list("dimensions")
    operand = [0] * len(index)
    for i, k in enumerate(permutation):
        operand[k] = index[i]
    return {(0, tuple(operand))}


def _reverse(ctx: _Context, output: int, index: Index) -> set[Element]:
    reversed_dims = set(ctx.instruction.int_list("dimensions"))
    dims = ctx.instruction.shape.dimensions
    return {(0, tuple(dims[k] - 1 - i if k in reversed_dims else i for k, i in enumerate(index)))}


def _slice(ctx: _Context, output: int, index: Index) -> set[Element]:
    config = ctx.instruction.slice_dims()
    return {(0, tuple(c.start + i * c.stride for c, i in zip(config, index, strict=True)))}


def _linear(index: Index, dims: Sequence[int]) -> int:
    linear = 0
    for i, n in zip(index, dims, strict=True):
        linear = linear * n + i
    return linear


def _delinear(linear: int, dims: Sequence[int]) -> Index:
    index = []
    for n in reversed(dims):
        index.append(linear % n)
        linear //= n
    return tuple(reversed(index))


def _reshape(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Row-major order of the elements is preserved.
    linear = _linear(index, ctx.instruction.shape.dimensions)
    return {(0, _delinear(linear, ctx.operand_dims(0)))}


def _bitcast(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Same bytes: the operand elements whose bits overlap the output
    # element's (tiles, packing and element widths included).
    return bitcast(ctx.instruction, list(ctx.operands), output, index)


def _bitcast_convert(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Equal widths: elementwise.  A wider operand element is split into the
    # output's extra minor dimension; narrower operand elements (the
    # operand's extra minor dimension) are joined into one output element.
    rank, operand_dims = len(index), ctx.operand_dims(0)
    if len(operand_dims) == rank:
        return {(0, index)}
    if len(operand_dims) == rank - 1:
        return {(0, index[:-1])}
    if len(operand_dims) == rank + 1:
        return {(0, (*index, k)) for k in range(operand_dims[-1])}
    raise UnsupportedByOracle("bitcast-convert ranks")


def _concatenate(ctx: _Context, output: int, index: Index) -> set[Element]:
    (dimension,) = ctx.instruction.int_list("dimensions")
    position = index[dimension]
    for number, operand in enumerate(ctx.operands):
        size = operand.shape.dimensions[dimension]
        if position < size:
            operand_index = list(index)
            operand_index[dimension] = position
            return {(number, tuple(operand_index))}
        position -= size
    raise AssertionError("index beyond the concatenation")


def _pad(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Output position i of a dimension holds operand element k when
    # i = low + k * (interior + 1); every other position is padding.
    operand_index: list[int] = []
    for position, config, size in zip(
        index, ctx.instruction.padding(), ctx.operand_dims(0), strict=True
    ):
        offset = position - config.low
        step = config.interior + 1
        if offset < 0 or offset % step != 0 or offset // step >= size:
            return {(1, ())}
        operand_index.append(offset // step)
    return {(0, tuple(operand_index))}


def _reduce(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Every output of a variadic reduce combines all inputs and all inits.
    reduced = set(ctx.instruction.int_list("dimensions"))
    count = len(ctx.operands) // 2
    result: set[Element] = {(count + j, ()) for j in range(count)}
    for j in range(count):
        dims = ctx.operand_dims(j)
        kept = [k for k in range(len(dims)) if k not in reduced]
        for operand_index in indices(dims):
            if tuple(operand_index[k] for k in kept) == index:
                result.add((j, operand_index))
    return result


def _reduce_window(ctx: _Context, output: int, index: Index) -> set[Element]:
    # The window slides over the operand dilated by base_dilation (holes
    # between elements) and padded; window element k of output position o
    # sits at o * stride + k * window_dilation - padding_low of that space.
    # Positions on padding or holes take the init value, which every output
    # reads anyway as the start of its reduction.
    windows = ctx.instruction.window()
    count = len(ctx.operands) // 2
    result: set[Element] = {(count + j, ()) for j in range(count)}
    dims = ctx.operand_dims(0)
    if len(windows) != len(dims):
        raise UnsupportedByOracle("window rank differs from operand rank")
    per_dim: list[list[int]] = []
    for o, w, n in zip(index, windows, dims, strict=True):
        positions = []
        for k in range(w.size):
            p = o * w.stride + k * w.window_dilation - w.padding_low
            if p < 0 or p % w.base_dilation != 0 or p // w.base_dilation >= n:
                continue
            positions.append(p // w.base_dilation)
        per_dim.append(positions)
    for operand_index in itertools.product(*per_dim):
        for j in range(count):
            result.add((j, operand_index))
    return result


def _triangular_solve(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Substitution, written from the equations: t = op(a) keeps the triangle
    # `lower` names (transposed with transpose_a); with left_side, row i of
    # op(a) x = b reads t[i, q] for each q != i where t[i, q] is in the
    # triangle, and x's row q (same column); the diagonal t[i, i] unless
    # unit_diagonal; b[i, j].  x op(a) = b: column c reads t[q, c] and x's
    # column q.  The reads of one element are closed over the x it reads.
    attributes = ctx.instruction.attributes
    transposed = attributes.word("transpose_a") in ("TRANSPOSE", "ADJOINT")
    lower, left = attributes.boolean("lower") is True, attributes.boolean("left_side") is True
    unit = attributes.boolean("unit_diagonal") is True
    size = ctx.operand_dims(0)[-1]
    batch = index[:-2]

    def a_at(p: int, q: int) -> Index:
        return (*batch, q, p) if transposed else (*batch, p, q)

    def in_triangle(p: int, q: int) -> bool:
        row, column = (q, p) if transposed else (p, q)  # a's own indices
        return column <= row if lower else column >= row

    @functools.cache
    def reads(x: Index) -> frozenset[Element]:
        found: set[Element] = {(1, x)}
        solved = x[-2] if left else x[-1]
        for q in range(size):
            entry = (solved, q) if left else (q, solved)
            if not in_triangle(*entry) or (q == solved and unit):
                continue
            found.add((0, a_at(*entry)))
            if q != solved:
                found |= reads((*batch, q, x[-1]) if left else (*batch, x[-2], q))
        return frozenset(found)

    return set(reads(index))


def _dot(ctx: _Context, output: int, index: Index) -> set[Element]:
    if "sparsity" in ctx.instruction.attributes:
        # A sparse dot stores n of every m elements of a contracting dim;
        # which of the other operand's each one multiplies is in the values
        # of its metadata operand, which this oracle does not model.
        raise UnsupportedByOracle(f"sparse dot '{ctx.instruction.name}'")
    return _dot_reads(ctx.instruction.dot_dimension_numbers(), ctx, index)


def _dot_reads(numbers: DotDimensionNumbers, ctx: _Context, index: Index) -> set[Element]:
    # Output dims: batch dims, then lhs free dims, then rhs free dims, in order.
    lhs_dims, rhs_dims = ctx.operand_dims(0), ctx.operand_dims(1)
    lhs_free = [
        k
        for k in range(len(lhs_dims))
        if k not in numbers.lhs_batch and k not in numbers.lhs_contracting
    ]
    rhs_free = [
        k
        for k in range(len(rhs_dims))
        if k not in numbers.rhs_batch and k not in numbers.rhs_contracting
    ]
    batch = index[: len(numbers.lhs_batch)]
    lhs_out = index[len(batch) : len(batch) + len(lhs_free)]
    rhs_out = index[len(batch) + len(lhs_free) :]
    contracting_sizes = [lhs_dims[k] for k in numbers.lhs_contracting]
    result: set[Element] = set()
    for contracted in indices(contracting_sizes):
        lhs = [0] * len(lhs_dims)
        rhs = [0] * len(rhs_dims)
        for position, (kl, kr) in enumerate(zip(numbers.lhs_batch, numbers.rhs_batch, strict=True)):
            lhs[kl] = rhs[kr] = batch[position]
        for position, k in enumerate(lhs_free):
            lhs[k] = lhs_out[position]
        for position, k in enumerate(rhs_free):
            rhs[k] = rhs_out[position]
        for c, kl, kr in zip(
            contracted, numbers.lhs_contracting, numbers.rhs_contracting, strict=True
        ):
            lhs[kl] = rhs[kr] = c
        result.add((0, tuple(lhs)))
        result.add((1, tuple(rhs)))
    return result


def _scaled_dot(ctx: _Context, output: int, index: Index) -> set[Element]:
    # scaled-dot(lhs, rhs, lhs_scale, rhs_scale) is dot(lhs * L, rhs * R)
    # where L repeats each lhs_scale element over a block of the lhs: lhs
    # element e is multiplied by lhs_scale element (e_k // block_k)_k, with
    # block_k = lhs dim k / lhs_scale dim k (likewise for the rhs).
    result: set[Element] = set()
    for side, element in _dot(ctx, output, index):
        operand, scale = ctx.operand_dims(side), ctx.operand_dims(side + 2)
        blocks = [n // m for n, m in zip(operand, scale, strict=True)]
        result.add((side, element))
        result.add((side + 2, tuple(e // b for e, b in zip(element, blocks, strict=True))))
    return result


def _scan(ctx: _Context, output: int, index: Index) -> set[Element]:
    # scan(inputs…, inits…), dimensions={D}, num_carries=C: step t calls the
    # body on slice t of every input and the carries, giving slice t of each
    # output and the next carries (steps run backwards with is_reverse).  The
    # body is a black box reading all of its arguments, so slice t of an
    # output depends on the input slices of steps t' up to t in scan order
    # and on every init; the final carries (the last C results) on all.
    carries = ctx.instruction.attributes.integer("num_carries") or 0
    (dimension,) = ctx.instruction.int_list("dimensions")
    reverse = ctx.instruction.attributes.boolean("is_reverse") is True
    inputs = len(ctx.operands) - carries
    outputs = len(ctx.outputs) - carries
    result: set[Element] = set()
    for number in range(len(ctx.operands)):
        for element in indices(ctx.operand_dims(number)):
            if output < outputs and number < inputs:
                step, now = element[dimension], index[dimension]
                if (step > now) if not reverse else (step < now):
                    continue
            result.add((number, element))
    return result


def _ragged_dot(ctx: _Context, output: int, index: Index) -> set[Element]:
    # ragged-dot(lhs, rhs, group_sizes) with a ragged lhs row dim r (not
    # contracting, not batch) and an rhs group dim g: the rows of lhs dim r
    # are split into consecutive groups of group_sizes[j] rows; a row of
    # group j is multiplied by rhs slice j (a row in no group gives 0 and
    # reads neither).  Finding a row's group reads group_sizes up to its
    # group (all of it for a row in none).  Reads are the union over every
    # group_sizes value.
    numbers = ctx.instruction.dot_dimension_numbers()
    (ragged,) = ctx.instruction.int_list("lhs_ragged_dims")
    if ragged in numbers.lhs_contracting:
        return _ragged_contracting_dot(ctx, index)
    if ragged in numbers.lhs_batch:
        # A ragged batch dim: the batched dot, group_sizes unread (JAX lowers
        # this mode to dot_general; a batch in no group is not zeroed).
        return _dot_reads(numbers, ctx, index)
    (group_dim,) = ctx.instruction.int_list("rhs_group_dims")
    lhs_dims, rhs_dims = ctx.operand_dims(0), ctx.operand_dims(1)
    groups, rows = rhs_dims[group_dim], lhs_dims[ragged]
    hidden_lhs = numbers.lhs_batch + numbers.lhs_contracting
    hidden_rhs = (*numbers.rhs_batch, *numbers.rhs_contracting, group_dim)
    lhs_free = [k for k in range(len(lhs_dims)) if k not in hidden_lhs]
    rhs_free = [k for k in range(len(rhs_dims)) if k not in hidden_rhs]
    batch = len(numbers.lhs_batch)
    row = index[batch + lhs_free.index(ragged)]
    result: set[Element] = set()
    for sizes in itertools.product(range(rows + 1), repeat=groups):
        start, group = 0, None
        for j, size in enumerate(sizes):
            if start <= row < start + size:
                group = j
                break
            start += size
        result |= {(2, (j,)) for j in range(groups if group is None else group + 1)}
        if group is None:
            continue
        for contracted in indices([lhs_dims[k] for k in numbers.lhs_contracting]):
            lhs, rhs = [0] * len(lhs_dims), [0] * len(rhs_dims)
            for position, (kl, kr) in enumerate(
                zip(numbers.lhs_batch, numbers.rhs_batch, strict=True)
            ):
                lhs[kl] = rhs[kr] = index[position]
            for position, k in enumerate(lhs_free):
                lhs[k] = index[batch + position]
            for position, k in enumerate(rhs_free):
                rhs[k] = index[batch + len(lhs_free) + position]
            for c, kl, kr in zip(
                contracted, numbers.lhs_contracting, numbers.rhs_contracting, strict=True
            ):
                lhs[kl] = rhs[kr] = c
            rhs[group_dim] = group
            result |= {(0, tuple(lhs)), (1, tuple(rhs))}
    return result


def _ragged_contracting_dot(ctx: _Context, index: Index) -> set[Element]:
    # A ragged contracting dim: its positions are split into consecutive
    # groups of group_sizes[j]; result (j, rest…) is the dot (rest…) summed
    # over the positions of group j only, so it needs group_sizes[0..j] (the
    # group's start and size).  Union over every group_sizes value.
    numbers = ctx.instruction.dot_dimension_numbers()
    (ragged,) = ctx.instruction.int_list("lhs_ragged_dims")
    group, rest = index[0], index[1:]
    length = ctx.operand_dims(0)[ragged]
    groups = ctx.operand_dims(2)[0]
    result: set[Element] = {(2, (j,)) for j in range(group + 1)}
    for sizes in itertools.product(range(length + 1), repeat=groups):
        start = sum(sizes[:group])
        members = range(start, min(start + sizes[group], length))
        for number, element in _dot_reads(numbers, ctx, rest):
            operand_dim = (
                ragged
                if number == 0
                else numbers.rhs_contracting[numbers.lhs_contracting.index(ragged)]
            )
            if element[operand_dim] in members:
                result.add((number, element))
    return result


def _dynamic_reshape(ctx: _Context, output: int, index: Index) -> set[Element]:
    # dynamic-reshape(x, sizes…): at run time the result has the shape given
    # by the size operands (each dynamic dim within its bound, a static dim
    # its size) and holds x's elements in row-major order over the run-time
    # shapes of both (x's dynamic dims any size within bound giving the same
    # element count).  Union over every such pair of run-time shapes; an
    # element outside the run-time result reads nothing.
    source = ctx.operands[0].shape
    result_shape = ctx.instruction.shape

    def choices(shape: Shape) -> list[tuple[int, ...]]:
        per_dim = [
            range(n + 1) if dynamic else [n]
            for n, dynamic in zip(shape.dimensions, shape.dynamic, strict=True)
        ]
        return [tuple(sizes) for sizes in itertools.product(*per_dim)]

    result: set[Element] = set()
    for out_sizes in choices(result_shape):
        if not all(i < n for i, n in zip(index, out_sizes, strict=True)):
            continue
        total = 1
        for n in out_sizes:
            total *= n
        for in_sizes in choices(source):
            count = 1
            for n in in_sizes:
                count *= n
            if count != total:
                continue
            result.add((0, _delinear(_linear(index, out_sizes), in_sizes)))
            result |= {(k, ()) for k in range(1, len(ctx.operands))}
    return result


def _constant_scalar(instruction: Instruction) -> int | None:
    """The value of a rank-0 integer constant, None for anything else."""
    if instruction.opcode != "constant" or instruction.shape.dimensions:
        return None
    if instruction.literal is None:
        return None
    try:
        return int(instruction.literal.strip())
    except ValueError:
        return None


def _clamped_starts(offset: Instruction, size: int, window: int) -> range | list[int]:
    """Feasible start positions of a window of `window` in a dimension of `size`."""
    value = _constant_scalar(offset)
    if value is None:  # any value at run time; XLA clamps it into range
        return range(size - window + 1)
    return [min(max(value, 0), size - window)]


def _dynamic_slice(ctx: _Context, output: int, index: Index) -> set[Element]:
    operand_dims = ctx.operand_dims(0)
    offsets = ctx.operands[1:]
    if len(offsets) != len(operand_dims) or any(o.shape.dimensions for o in offsets):
        raise UnsupportedByOracle("dynamic-slice offsets must be one scalar per dimension")
    sizes = ctx.instruction.int_list("dynamic_slice_sizes")
    result: set[Element] = {(1 + k, ()) for k in range(len(offsets))}
    ranges = [
        _clamped_starts(o, n, s) for o, n, s in zip(offsets, operand_dims, sizes, strict=True)
    ]
    for starts in itertools.product(*ranges):
        result.add((0, tuple(s + i for s, i in zip(starts, index, strict=True))))
    return result


def _dynamic_update_slice(ctx: _Context, output: int, index: Index) -> set[Element]:
    operand_dims, update_dims = ctx.operand_dims(0), ctx.operand_dims(1)
    offsets = ctx.operands[2:]
    if len(offsets) != len(operand_dims) or any(o.shape.dimensions for o in offsets):
        raise UnsupportedByOracle("dynamic-update-slice offsets must be one scalar per dim")
    result: set[Element] = {(2 + k, ()) for k in range(len(offsets))}
    ranges = [
        _clamped_starts(o, n, u) for o, n, u in zip(offsets, operand_dims, update_dims, strict=True)
    ]
    for starts in itertools.product(*ranges):
        inside = all(s <= i < s + u for s, i, u in zip(starts, index, update_dims, strict=True))
        if inside:
            result.add((1, tuple(i - s for s, i in zip(starts, index, strict=True))))
        else:
            result.add((0, index))
    return result


def _gather(ctx: _Context, output: int, index: Index) -> set[Element]:
    # From the operation semantics: batch dims of the output (those not in
    # offset_dims) select a start-index vector in `indices`; its component k
    # is the start in operand dim start_index_map[k], clamped so the slice
    # fits; the offset dims of the output, in order, index the operand dims
    # that are neither collapsed nor batching dims.  Operand batching dim
    # operand_batching_dims[i] is read at the batch coordinate of indices dim
    # start_indices_batching_dims[i] (StableHLO's full_batching_index).
    numbers = ctx.instruction.gather_dimension_numbers()
    slice_sizes = ctx.instruction.int_list("slice_sizes")
    operand_dims, indices_dims = ctx.operand_dims(0), ctx.operand_dims(1)
    producer = ctx.operands[1]
    if producer.opcode == "constant":
        raise UnsupportedByOracle("gather with constant indices")
    iota_dimension = producer.integer("iota_dimension") if producer.opcode == "iota" else None
    batch = [index[k] for k in range(len(index)) if k not in numbers.offset_dims]
    vector_dim = numbers.index_vector_dim
    result: set[Element] = set()
    known_starts: dict[int, int] = {}  # operand dim → start (iota indices, batching dims)
    for k, operand_dim in enumerate(numbers.start_index_map):
        position = list(batch)
        if vector_dim < len(indices_dims):
            position.insert(vector_dim, k)
        result.add((1, tuple(position)))
        if iota_dimension is not None:  # an iota holds its index along iota_dimension
            value = position[iota_dimension]
            limit = operand_dims[operand_dim] - slice_sizes[operand_dim]
            known_starts[operand_dim] = min(max(value, 0), limit)
    for operand_dim, indices_dim in zip(
        numbers.operand_batching_dims, numbers.start_indices_batching_dims, strict=True
    ):
        coordinate = batch[indices_dim if indices_dim < vector_dim else indices_dim - 1]
        known_starts[operand_dim] = coordinate
    hidden = numbers.collapsed_slice_dims + numbers.operand_batching_dims
    window_dims = [k for k in range(len(operand_dims)) if k not in hidden]
    offset = [0] * len(operand_dims)
    for slot, k in enumerate(window_dims):
        offset[k] = index[numbers.offset_dims[slot]]
    start_ranges: list[range] = []
    for k in range(len(operand_dims)):
        if k in known_starts:
            start_ranges.append(range(known_starts[k], known_starts[k] + 1))
        elif k in numbers.start_index_map:
            start_ranges.append(range(operand_dims[k] - slice_sizes[k] + 1))
        else:
            start_ranges.append(range(1))
    if 0 in slice_sizes:  # every slice is empty (a collapsed dim of size 0)
        return result
    for starts in itertools.product(*start_ranges):
        result.add((0, tuple(s + o for s, o in zip(starts, offset, strict=True))))
    return result


def _tuple(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Output {k, rest…} is operand k's array at {rest…}.
    path = ctx.outputs[output]
    return {(ctx.array_number(path[0], path[1:]), index)}


def _tuple_select(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Output {path} is the true or the false branch's array at {path}, as
    # the pred[] scalar (operand 0) decides: all three are read.
    path = ctx.outputs[output]
    branches = {(ctx.array_number(k, path), index) for k in (1, 2)}
    return {(ctx.array_number(0, ()), ()), *branches}


def _get_tuple_element(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Output {rest…} is operand 0's array at {index, rest…}.
    element = ctx.instruction.integer("index")
    return {(ctx.array_number(0, (element, *ctx.outputs[output])), index)}


def _passed_through(operand_path: Callable[[Index], Index | None]) -> Semantics:
    """An op whose output array at path p is operand 0's array at
    `operand_path(p)` unchanged (None: that output reads nothing)."""

    def semantics(ctx: _Context, output: int, index: Index) -> set[Element]:
        path = operand_path(ctx.outputs[output])
        return set() if path is None else {(ctx.array_number(0, path), index)}

    return semantics


def _async_update(ctx: _Context, output: int, index: Index) -> set[Element]:
    """``async-update(state, new…)``: element ``{0}`` holds the operands bound
    so far — the state's, then the new operands in order; ``{1}`` the
    state's result; the contexts (``{2}`` on) are opaque and read nothing."""
    path = ctx.outputs[output]
    if path[0] >= 2:
        return set()
    held = ctx.operands[0].shape.tuple_shapes
    bound = len(held[0].tuple_shapes or ()) if held else 0
    if path[0] == 0 and path[1] >= bound:
        return {(ctx.array_number(1 + path[1] - bound, path[2:]), index)}
    return {(_held(ctx, path), index)}


def _async_done(ctx: _Context, output: int, index: Index) -> set[Element]:
    """``async-done(state)``: the async computation's result, which the
    state holds at ``{1}``."""
    return {(_held(ctx, (1, *ctx.outputs[output])), index)}


def _held(ctx: _Context, path: Index) -> int:
    """The number of the state's (operand 0's) array at `path`.  XLA's
    verifier lets an async state hold only a prefix of its computation's
    result while operands are still bound late (by async-updates): an array
    it does not hold is made by the computation, which this oracle does not
    run (a call's reads are `computations.ComputationOracle`'s)."""
    if (0, path) not in ctx.arrays:
        raise UnsupportedByOracle(
            f"{ctx.instruction.opcode} '{ctx.instruction.name}': the result of its async "
            "computation, which its state does not hold yet"
        )
    return ctx.array_number(0, path)


def _collective_done(ctx: _Context, output: int, index: Index) -> set[Element]:
    """``all-gather-done(start)`` / ``collective-permute-done(start)``: the
    start's result, held at ``{1}`` of its tuple, or the start itself when
    it is written as an array (the result alone, of one operand)."""
    path = ctx.outputs[output]
    held = path if ctx.operands[0].shape.tuple_shapes is None else (1, *path)
    return {(ctx.array_number(0, held), index)}


def _copy_start_path(path: Index) -> Index | None:
    # (destination, source, u32[] context): both buffers hold the operand.
    return path[1:] if path[0] in (0, 1) else None


def _every(dimensions: Sequence[int]) -> Iterator[Index]:
    return indices(dimensions)


def _rows(ctx: _Context, output: int, index: Index, swept: int) -> set[Element]:
    """The operand elements sharing the output index's leading (batch) dims,
    any value in the last `swept` dims: an FFT's transformed dims, a row."""
    dims = ctx.operand_dims(0)
    batch = index[: len(dims) - swept]
    return {(0, (*batch, *rest)) for rest in _every(dims[len(dims) - swept :])}


def _fft(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Every transformed output element is a sum over every input element
    # of its batch (its DFT); XLA's fft_length counts the transformed dims.
    return _rows(ctx, output, index, len(ctx.instruction.int_list("fft_length")))


def _topk(ctx: _Context, output: int, index: Index) -> set[Element]:
    # The k largest of a row (and their positions) depend on the whole row.
    return _rows(ctx, output, index, 1)


def _custom_call(ctx: _Context, output: int, index: Index) -> set[Element]:
    target = ctx.instruction.attributes.word("custom_call_target") or ""
    if target == "TopK":
        return _rows(ctx, output, index, 1)
    placement = ("Sharding", "MoveToHost", "MoveToDevice", "annotate_device_placement")
    if target in placement or target.startswith("xla.sdy."):
        return {(ctx.array_number(0, ctx.outputs[output]), index)}
    if target in ("__cublas$gemm", "__cublas$lt$matmul"):
        return _cublas_gemm(ctx, output, index)
    if target.startswith("__cudnn$conv"):
        return cudnn_convolution(ctx.instruction, list(ctx.operands), output, index)
    raise UnsupportedByOracle(f"custom-call target {target}")


def _cublas_gemm(ctx: _Context, output: int, index: Index) -> set[Element]:
    # D = act(alpha * dot(A, B) + beta * C + bias), the dot's dims in the
    # backend config's gemm_backend_config.dot_dimension_numbers (protobuf
    # JSON: int64 as strings); C is an operand only when beta is not 0; a
    # BIAS* epilogue adds bias[column] (the next operand), column being the
    # output index along the rhs's free dim, the output's last.  Output 1 is
    # the workspace: no value of the op.
    if output != 0:
        return set()
    config = ctx.instruction.attributes.get("backend_config")
    assert isinstance(config, BackendConfig)
    gemm = json.loads(config.text)["gemm_backend_config"]
    found = gemm["dot_dimension_numbers"]
    numbers = DotDimensionNumbers(
        *(
            tuple(int(k) for k in found.get(f"{side}_{kind}_dimensions", []))
            for kind in ("batch", "contracting")
            for side in ("lhs", "rhs")
        )
    )
    reads = _dot_reads(numbers, ctx, index)
    reads_c = float(gemm.get("beta", 0)) != 0
    if reads_c:
        reads.add((2, index))
    if gemm.get("epilogue", "DEFAULT").startswith("BIAS"):
        reads.add((3 if reads_c else 2, (index[-1],)))
    return reads


def _batch_norm(ctx: _Context, output: int, index: Index) -> set[Element]:
    """From the formulas: training normalises each element with its feature's
    batch mean and variance (and outputs them); inference with the given
    ones; grad computes d(operand) from every element of the feature,
    d(scale) from operand, mean, variance and grad_output, d(offset) from
    grad_output alone."""
    opcode = ctx.instruction.opcode
    feature_dim = ctx.instruction.integer("feature_index")
    full_rank = len(ctx.operand_dims(0))
    feature = index[feature_dim] if len(index) == full_rank else index[0]

    def feature_slice(operand: int) -> set[Element]:
        return {
            (operand, element)
            for element in _every(ctx.operand_dims(operand))
            if element[feature_dim] == feature
        }

    def entry(*operands: int) -> set[Element]:
        return {(operand, (feature,)) for operand in operands}

    if opcode == "batch-norm-inference":
        return {(0, index)} | entry(1, 2, 3, 4)
    if opcode == "batch-norm-training":
        return feature_slice(0) | (entry(1, 2) if output == 0 else set())
    # batch-norm-grad(operand, scale, mean, variance, grad_output)
    if output == 0:
        return feature_slice(0) | feature_slice(4) | entry(1, 2, 3)
    if output == 1:
        return feature_slice(0) | feature_slice(4) | entry(2, 3)
    return feature_slice(4)


def _every_operand_element(ctx: _Context, output: int, index: Index) -> set[Element]:
    # Random numbers: each output bit depends on the whole state (and the
    # distribution's scalar parameters).
    return {
        (number, element)
        for number in range(len(ctx.operands))
        for element in _every(ctx.operand_dims(number))
    }


def _set_dimension_size(ctx: _Context, output: int, index: Index) -> set[Element]:
    # The element itself, and the new size, which decides whether it is valid.
    return {(0, index), (1, ())}


_SEMANTICS: dict[str, Semantics] = {
    **dict.fromkeys(ELEMENTWISE, _elementwise),
    **dict.fromkeys(NO_OPERANDS, _nothing),
    "broadcast": _broadcast,
    "transpose": _transpose,
    "reverse": _reverse,
    "slice": _slice,
    "reshape": _reshape,
    "bitcast": _bitcast,
    "bitcast-convert": _bitcast_convert,
    "concatenate": _concatenate,
    "pad": _pad,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "dot": _dot,
    "scaled-dot": _scaled_dot,
    "scan": _scan,
    "ragged-dot": _ragged_dot,
    "dynamic-reshape": _dynamic_reshape,
    "dynamic-slice": _dynamic_slice,
    "dynamic-update-slice": _dynamic_update_slice,
    "gather": _gather,
    "tuple": _tuple,
    "tuple-select": _tuple_select,
    "get-tuple-element": _get_tuple_element,
    **dict.fromkeys(
        [
            "copy",
            "opt-barrier",
            "domain",
            "add-dependency",
            "all-reduce-done",
        ],
        _passed_through(lambda path: path),
    ),
    "async-update": _async_update,
    "copy-start": _passed_through(_copy_start_path),
    # send's output is (the buffer sent, u32[] context, token); send-done
    # gives a token; recv-done gives (the buffer received, token).
    "send": _passed_through(lambda path: path[1:] if path[0] == 0 else None),
    "send-done": _passed_through(lambda path: None),
    "outfeed": _passed_through(lambda path: None),
    "after-all": _passed_through(lambda path: None),  # a token: no element
    "triangular-solve": _triangular_solve,
    "recv-done": _passed_through(lambda path: path if path[0] == 0 else None),
    "fft": _fft,
    "topk": _topk,
    "custom-call": _custom_call,
    "batch-norm-training": _batch_norm,
    "batch-norm-inference": _batch_norm,
    "batch-norm-grad": _batch_norm,
    "rng": _every_operand_element,
    "rng-bit-generator": _every_operand_element,
    "set-dimension-size": _set_dimension_size,
    "get-dimension-size": _nothing,
    "copy-done": _passed_through(lambda path: (0, *path)),
    "async-done": _async_done,
    "all-gather-done": _collective_done,
    "collective-permute-done": _collective_done,
}

SUPPORTED_OPCODES = frozenset(_SEMANTICS)


# ------------------------------------------------------------------ queries


def reads(computation: Computation, instruction: Instruction, output: int = 0) -> Reads:
    """Output `output`'s index → the `(operand_number, operand_index)` read for it."""
    semantics = _SEMANTICS.get(instruction.opcode)
    if semantics is None:
        raise UnsupportedByOracle(f"no semantics for opcode '{instruction.opcode}'")
    ctx = _Context(computation, instruction)
    shape = output_shapes(instruction)[output]
    return {index: frozenset(semantics(ctx, output, index)) for index in indices(shape.dimensions)}


def relations(
    computation: Computation, instruction: Instruction, output: int
) -> list[frozenset[tuple[Index, Index]]]:
    """Output→input, per operand: ``{(output_index, operand_index)}`` for one output."""
    pairs: list[set[tuple[Index, Index]]] = [
        set() for _ in operand_arrays(computation, instruction)
    ]
    for index, elements in reads(computation, instruction, output).items():
        for number, element_index in elements:
            pairs[number].add((index, element_index))
    return [frozenset(p) for p in pairs]


def relation(
    computation: Computation, instruction: Instruction, output: int, operand: int
) -> frozenset[tuple[Index, Index]]:
    """Output→input: ``{(output_index, operand_index)}`` for one output and operand."""
    return relations(computation, instruction, output)[operand]


def inverse(pairs: frozenset[tuple[Index, Index]]) -> frozenset[tuple[Index, Index]]:
    """Input→output from output→input: ``{(operand_index, output_index)}``."""
    return frozenset((b, a) for a, b in pairs)


def inverse_relation(
    computation: Computation, instruction: Instruction, operand: int, output: int
) -> frozenset[tuple[Index, Index]]:
    """Input→output: ``{(operand_index, output_index)}``, the inverse of `relation`."""
    return inverse(relation(computation, instruction, output, operand))
