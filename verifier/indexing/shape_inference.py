"""The output shape an instruction must have, given its operands and
attributes, for the ops whose rules build maps from the output shape.

The pad, concatenate and dynamic-update-slice rules build their pieces from
the output's dimensions; HLO whose output disagrees with its operands would
otherwise get maps that partition the *stated* output while reading outside
the operands.  Such HLO is rejected before any map is built.  The opcodes
whose shape `verifier.hlo.inference` infers are checked by it (the parser
already did, for text); this module keeps the formulas of the others.

``broadcast(f32[3] p), dimensions={1}`` puts the operand in output dim 1:

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p = f32[3] parameter(0)
...   ROOT b = f32[2,4,3] broadcast(p), dimensions={1}
... }''')
>>> from verifier.indexing.registry import OpContext
>>> entry = module.entry
>>> check_output_shape(OpContext(entry.root, entry.operand_instructions(entry.root)))
Traceback (most recent call last):
...
ValueError: the output is f32[2,4,3] but the operands and attributes give dimensions [2, 3, 3]
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.hlo import CHECKED_OPCODES, check_shape
from verifier.indexing.elementwise import ELEMENTWISE_OPCODES
from verifier.indexing.registry import OpContext

Dimensions = tuple[int, ...]


def _broadcast(ctx: OpContext) -> Dimensions:
    """Operand dim i is output dim ``dimensions[i]``; the others are free."""
    sizes = ctx.operand_shape(0).dimensions
    expected = list(ctx.shape.dimensions)
    dimensions = ctx.instruction.int_list("dimensions")
    if len(dimensions) != len(sizes) or any(k >= len(expected) for k in dimensions):
        raise ValueError(
            f"dimensions={{{','.join(map(str, dimensions))}}} does not place the operand's "
            f"{len(sizes)} dimensions in an output of rank {len(expected)}"
        )
    for size, k in zip(sizes, dimensions, strict=True):
        expected[k] = size
    return tuple(expected)


def _distinct_dims(name: str, dims: tuple[int, ...], rank: int) -> None:
    if len(set(dims)) != len(dims) or any(not 0 <= k < rank for k in dims):
        raise ValueError(
            f"{name}={{{','.join(map(str, dims))}}} must be distinct dims of [0, {rank})"
        )


def _index_batch(indices: Dimensions, index_vector_dim: int) -> tuple[Dimensions, int]:
    """The batch dims of an index array and the length of its index vectors
    (``index_vector_dim == rank`` is an implicit trailing 1)."""
    if not 0 <= index_vector_dim <= len(indices):
        raise ValueError(f"index_vector_dim={index_vector_dim} is not a dim of {list(indices)}")
    vector = indices[index_vector_dim] if index_vector_dim < len(indices) else 1
    batch = tuple(n for k, n in enumerate(indices) if k != index_vector_dim)
    return batch, vector


def _batching(
    operand_dims: tuple[int, ...],
    indices_dims: tuple[int, ...],
    ranks: tuple[int, int],
    index_vector_dim: int,
    names: tuple[str, str],
) -> None:
    _distinct_dims(names[0], operand_dims, ranks[0])
    _distinct_dims(names[1], indices_dims, ranks[1])
    if len(operand_dims) != len(indices_dims) or index_vector_dim in indices_dims:
        raise ValueError(f"{names[0]} and {names[1]} must pair up, without the index vector dim")


def _gather(ctx: OpContext) -> Dimensions:
    """Batch dims from the indices, offset dims from the uncollapsed slice sizes."""
    numbers = ctx.instruction.gather_dimension_numbers()
    operand, indices = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    sizes = ctx.instruction.int_list("slice_sizes")
    batch, vector = _index_batch(indices, numbers.index_vector_dim)
    if len(sizes) != len(operand) or any(
        not 0 <= s <= n for s, n in zip(sizes, operand, strict=True)
    ):
        raise ValueError(f"slice_sizes {list(sizes)} do not fit in the operand {list(operand)}")
    _distinct_dims("start_index_map", numbers.start_index_map, len(operand))
    if len(numbers.start_index_map) != vector:
        raise ValueError(
            f"start_index_map has {len(numbers.start_index_map)} dims, "
            f"the index vectors {vector} components"
        )
    hidden = numbers.collapsed_slice_dims + numbers.operand_batching_dims
    _distinct_dims("collapsed_slice_dims and operand_batching_dims", hidden, len(operand))
    if set(numbers.operand_batching_dims) & set(numbers.start_index_map):
        raise ValueError("an operand batching dim is also mapped")
    if any(sizes[k] > 1 for k in hidden):
        raise ValueError("a collapsed or batching dim has a slice size above 1")
    _batching(
        numbers.operand_batching_dims,
        numbers.start_indices_batching_dims,
        (len(operand), len(indices)),
        numbers.index_vector_dim,
        ("operand_batching_dims", "start_indices_batching_dims"),
    )
    window = [sizes[k] for k in range(len(operand)) if k not in hidden]
    rank = len(batch) + len(window)
    _distinct_dims("offset_dims", numbers.offset_dims, rank)
    if len(numbers.offset_dims) != len(window) or list(numbers.offset_dims) != sorted(
        numbers.offset_dims
    ):
        raise ValueError(f"offset_dims must be {len(window)} increasing dims")
    batch_sizes, window_sizes = iter(batch), iter(window)
    return tuple(
        next(window_sizes) if k in numbers.offset_dims else next(batch_sizes) for k in range(rank)
    )


def _scatter(ctx: OpContext) -> Dimensions:
    """The output is the operand; the updates are scatter batch dims (the
    indices') and window dims no larger than the operand's."""
    numbers = ctx.instruction.scatter_dimension_numbers()
    count = (len(ctx.operands) - 1) // 2
    if len(ctx.operands) != 2 * count + 1 or count == 0:
        raise ValueError(
            f"a scatter has N operands, 1 index array and N updates, not "
            f"{len(ctx.operands)} operands"
        )
    operand, indices = ctx.operand_shape(0).dimensions, ctx.operand_shape(count).dimensions
    updates = ctx.operand_shape(count + 1).dimensions
    batch, vector = _index_batch(indices, numbers.index_vector_dim)
    _distinct_dims(
        "scatter_dims_to_operand_dims", numbers.scatter_dims_to_operand_dims, len(operand)
    )
    if len(numbers.scatter_dims_to_operand_dims) != vector:
        raise ValueError(
            f"scatter_dims_to_operand_dims has "
            f"{len(numbers.scatter_dims_to_operand_dims)} dims, the index vectors "
            f"{vector} components"
        )
    hidden = numbers.inserted_window_dims + numbers.input_batching_dims
    _distinct_dims("inserted_window_dims and input_batching_dims", hidden, len(operand))
    if set(numbers.input_batching_dims) & set(numbers.scatter_dims_to_operand_dims):
        raise ValueError("an input batching dim is also mapped")
    _batching(
        numbers.input_batching_dims,
        numbers.scatter_indices_batching_dims,
        (len(operand), len(indices)),
        numbers.index_vector_dim,
        ("input_batching_dims", "scatter_indices_batching_dims"),
    )
    window_operand = [n for k, n in enumerate(operand) if k not in hidden]
    _distinct_dims("update_window_dims", numbers.update_window_dims, len(updates))
    update_batch = tuple(n for k, n in enumerate(updates) if k not in numbers.update_window_dims)
    window = [updates[k] for k in sorted(numbers.update_window_dims)]
    if len(window) != len(window_operand) or any(
        w > n for w, n in zip(window, window_operand, strict=True)
    ):
        raise ValueError(f"the update windows {window} do not fit the operand's {window_operand}")
    if update_batch != batch:
        raise ValueError(
            f"the updates' scatter dims {list(update_batch)} are not the "
            f"indices' batch dims {list(batch)}"
        )
    return operand


def _elementwise(ctx: OpContext) -> Dimensions:
    """Every operand has the output's dimensions, except the rank-0 operands
    `select` and `clamp` broadcast implicitly."""
    expected = ctx.shape.dimensions
    for index in range(len(ctx.operands)):
        dims = ctx.operand_shape(index).dimensions
        if dims != expected and not (dims == () and ctx.instruction.opcode in _SCALAR_OPERANDS):
            raise ValueError(
                f"operand {index} has dimensions {list(dims)}, the output {list(expected)}"
            )
    return expected


_SCALAR_OPERANDS = frozenset({"select", "clamp"})


def _same_as_operand(ctx: OpContext) -> Dimensions:
    return ctx.operand_shape(0).dimensions


def _fft(ctx: OpContext) -> Dimensions:
    """FFT and IFFT keep the shape; RFFT halves the last transformed dim
    (``n / 2 + 1`` complex values), IRFFT restores it to ``fft_length``."""
    lengths = ctx.instruction.int_list("fft_length")
    sizes = ctx.operand_shape(0).dimensions
    if not lengths or len(lengths) > min(3, len(sizes)):
        raise ValueError(f"fft_length {list(lengths)} does not fit an operand of rank {len(sizes)}")
    batch, transformed = sizes[: len(sizes) - len(lengths)], sizes[len(sizes) - len(lengths) :]
    match ctx.instruction.attributes.word("fft_type"):
        case "FFT" | "IFFT":
            return sizes
        case "RFFT":
            if transformed != tuple(lengths):
                raise ValueError(
                    f"RFFT of dims {list(transformed)} with fft_length {list(lengths)}"
                )
            return (*batch, *lengths[:-1], lengths[-1] // 2 + 1)
        case "IRFFT":
            if transformed != (*lengths[:-1], lengths[-1] // 2 + 1):
                raise ValueError(
                    f"IRFFT of dims {list(transformed)} with fft_length {list(lengths)}"
                )
            return (*batch, *lengths)
        case other:
            raise ValueError(f"unknown fft_type {other}")


def _batch_norm_inference(ctx: OpContext) -> Dimensions:
    """The operand's shape; scale, offset, mean and variance have one entry
    per feature."""
    sizes = ctx.operand_shape(0).dimensions
    feature = ctx.instruction.integer("feature_index")
    if not 0 <= feature < len(sizes):
        raise ValueError(f"feature_index {feature} is not a dim of the operand {list(sizes)}")
    for index in range(1, len(ctx.operands)):
        if ctx.operand_shape(index).dimensions != (sizes[feature],):
            raise ValueError(
                f"operand {index} has dimensions {list(ctx.operand_shape(index).dimensions)}, "
                f"not [{sizes[feature]}] (one per feature)"
            )
    return sizes


def _scaled_dot(ctx: OpContext) -> Dimensions:
    """A dot's output (batch…, lhs free…, rhs free…); each scale has its
    operand's rank and divides each of its dims."""
    numbers = ctx.instruction.dot_dimension_numbers()
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    for name, operand, scale in (
        ("lhs", lhs, ctx.operand_shape(2).dimensions),
        ("rhs", rhs, ctx.operand_shape(3).dimensions),
    ):
        if len(scale) != len(operand) or any(
            m == 0 or n % m != 0 for n, m in zip(operand, scale, strict=True)
        ):
            raise ValueError(
                f"the {name} scale {list(scale)} does not divide the {name} {list(operand)} "
                "into equal blocks"
            )
    _distinct_dims("lhs dims", numbers.lhs_batch + numbers.lhs_contracting, len(lhs))
    _distinct_dims("rhs dims", numbers.rhs_batch + numbers.rhs_contracting, len(rhs))
    pairs = zip(
        numbers.lhs_batch + numbers.lhs_contracting,
        numbers.rhs_batch + numbers.rhs_contracting,
        strict=False,
    )
    if (
        len(numbers.lhs_batch) != len(numbers.rhs_batch)
        or len(numbers.lhs_contracting) != len(numbers.rhs_contracting)
        or any(lhs[a] != rhs[b] for a, b in pairs)
    ):
        raise ValueError("the batch and contracting dims of lhs and rhs must pair up")
    batch = [lhs[k] for k in numbers.lhs_batch]
    hidden_lhs = set(numbers.lhs_batch + numbers.lhs_contracting)
    hidden_rhs = set(numbers.rhs_batch + numbers.rhs_contracting)
    return (
        *batch,
        *(n for k, n in enumerate(lhs) if k not in hidden_lhs),
        *(n for k, n in enumerate(rhs) if k not in hidden_rhs),
    )


_EXPECTED: dict[str, Callable[[OpContext], Dimensions]] = {
    "broadcast": _broadcast,
    "gather": _gather,
    "scatter": _scatter,
    "fft": _fft,
    "scaled-dot": _scaled_dot,
    "batch-norm-inference": _batch_norm_inference,
    "set-dimension-size": _same_as_operand,
    **{opcode: _elementwise for opcode in ELEMENTWISE_OPCODES if opcode not in CHECKED_OPCODES},
}
"""The opcodes whose full shape `verifier.hlo.inference` does not infer;
for the others `check_output_shape` reuses it (one formula per opcode)."""


def check_output_shape(ctx: OpContext) -> None:
    """Raise `ValueError` (or `InvalidHloError`, from `verifier.hlo.inference`)
    when the instruction's output dimensions are not the ones its operands
    and attributes give (ops without a known formula pass)."""
    instruction = ctx.instruction
    if instruction.opcode in CHECKED_OPCODES:
        operands = tuple(operand.shape for operand in ctx.operands)
        check_shape(
            ctx.shape,
            instruction.opcode,
            operands,
            instruction.attributes,
            {},
            instruction.span,
            instruction.name,
        )
        return
    infer = _EXPECTED.get(ctx.instruction.opcode)
    if infer is None or ctx.shape.tuple_shapes is not None:
        return
    if any(operand.shape.tuple_shapes is not None for operand in ctx.operands):
        return
    expected = infer(ctx)
    if expected != ctx.shape.dimensions:
        raise ValueError(
            f"the output is {ctx.shape} but the operands and attributes give "
            f"dimensions {list(expected)}"
        )
