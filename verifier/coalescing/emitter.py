"""Which of XLA's GPU emitters runs a fusion, and the launch mapping of its
loop emitter.

**Emitter.**  A fusion whose hero (its root, or a root of its tuple) is a
reduce that XLA emits with its reduction emitter (``reduce`` over
consecutive kept or reduced dims, large enough to tile, XLA's
``IsReductionFromOrToContiguousDimensions``) is a *row* or *column
reduction*; one with a transpose that moves the most minor dimension is a
*transpose*; a concatenate, scatter or in-place dynamic-update-slice root
has an emitter of its own; every other fusion runs on the *loop* emitter.
Only the loop emitter's mapping is modelled: the others are named, with a
reason, and get no answer.

**Loop emitter launch.**  Over the ``N`` elements of the first output
(XLA's indexing shape), the unroll factor ``u`` is
``gcd(N, 4)`` when ``N`` reaches the threads the device holds at once
(`Device.resident_threads`) and no sort, dot, variadic reduce, large
reduce-window or concatenate of more than 10 operands is fused, else 1;
then at least ``ceil(8 / bits)`` of the narrowest output type.  A block
has ``min(128, ceil(N / u))`` threads (four warps); there are as many
blocks as cover ``ceil(N / u)``.  Thread ``tx`` of block ``bx`` handles
the linear indices ``e = (chunk * T + bx * tpb + tx) * u + s`` for its
unroll ids ``s`` (``T`` threads in all, one chunk unless the grid is too
large), ``e < N``, delinearised along the output's minor-to-major order.

>>> from verifier.hlo import parse_shape
>>> from verifier.coalescing.devices import DEVICES
>>> launch = loop_launch(parse_shape("f32[100,200]"), 1, DEVICES["rtx-a6000"])
>>> launch.threads_per_block, launch.blocks, launch.unroll
(128, 157, 1)
>>> str(launch.thread_to_output).splitlines()[0]
'(d0, d1, d2, d3, d4, d5)[s0, s1] -> ((d3 * 128 + d0) floordiv 200, (d3 * -72 + d0) mod 200),'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from verifier.coalescing.devices import Device
from verifier.expr import Expr, IndexingMap, Interval, const, dim, range_var
from verifier.hlo import Computation, Instruction, Module, Shape, element_bit_width
from verifier.indexing.elementwise import ELEMENTWISE_OPCODES
from verifier.simplify import simplify

EmitterKind = Literal[
    "loop",
    "row reduction",
    "column reduction",
    "transpose",
    "concatenate",
    "scatter",
    "in-place dynamic-update-slice",
]

THREAD_DIMS = ("thread_x", "thread_y", "thread_z", "block_x", "block_y", "block_z")
"""The six dims of a launch mapping, in XLA's order."""

_WARPS_PER_BLOCK = 4  # XLA's warp schedulers per SM: a loop block is four warps
_DEFAULT_UNROLL = 4
_MAX_CONCAT_OPERANDS_FOR_UNROLLING = 10
_MAX_REDUCE_WINDOW_FOR_UNROLLING = 8
_MIN_DIMENSION_TO_TRANSPOSE_TILED = 16


@dataclass(frozen=True)
class Emitter:
    """The emitter XLA picks for a fusion, and why it is not modelled when
    it is not the loop emitter."""

    kind: EmitterKind
    unsupported: str | None = None


@dataclass(frozen=True)
class Launch:
    """A kernel's launch and its thread→output map: dims are `THREAD_DIMS`,
    symbols the chunk id (``s0``) and the unroll id (``s1``, the vector
    lanes of one load)."""

    threads_per_block: int
    blocks: int
    grid: tuple[int, int, int]
    unroll: int
    warp_size: int
    thread_to_output: IndexingMap


def fused_computation(module: Module, fusion: Instruction) -> Computation:
    (name,) = fusion.called_computations
    return module.computation(name)


def _roots(computation: Computation) -> tuple[Instruction, ...]:
    root = computation.root
    if root.opcode == "tuple":
        return computation.operand_instructions(root)
    return (root,)


def _minor_to_major(shape: Shape) -> tuple[int, ...]:
    return shape.layout_or_default.minor_to_major


def _consecutive(shape: Shape, dims: set[int]) -> bool:
    positions = sorted(_minor_to_major(shape).index(d) for d in dims)
    return positions == list(range(positions[0], positions[0] + len(positions)))


def reduction_kind(reduce: Instruction, operand: Shape, warp_size: int) -> EmitterKind | None:
    """``row reduction`` or ``column reduction`` when XLA's reduction emitter
    takes `reduce` (reading `operand`), else None (the loop emitter)."""
    reduced = set(reduce.int_list("dimensions"))
    kept = set(range(operand.rank)) - reduced
    if not kept:
        return "row reduction" if _row_fast(operand.num_elements, warp_size) else None
    if not (_consecutive(operand, kept) or _consecutive(operand, reduced)):
        return None
    # Sizes of the (major, middle, minor) segments along minor-to-major.
    middle = kept if _consecutive(operand, kept) else reduced
    segments = [1, 1, 1]
    segment = 2
    for d in _minor_to_major(operand):
        if segment == 2 and d in middle:
            segment = 1
        elif segment == 1 and d not in middle:
            segment = 0
        segments[segment] *= operand.dimensions[d]
    major, mid, minor = segments
    if middle is kept:
        if mid == 1:
            row, size = True, (1, 1, major * minor)
        elif minor == 1:
            row, size = False, (1, major, mid)
        else:
            row, size = True, (major, mid, minor)
    elif minor == 1:
        row, size = True, (1, major, mid)
    else:
        row, size = False, (major, mid, minor)
    if row:
        return "row reduction" if _row_fast(size[2], warp_size) else None
    reduced_size, kept_size = size[1], size[2]
    elemental = (
        reduced_size < warp_size
        or (reduced_size < 2 * warp_size and kept_size < warp_size)
        or (reduced_size < 4 * warp_size and kept_size < 8)
        or (reduced_size < 8 * warp_size and kept_size < 3)
    )
    return None if elemental else "column reduction"


def _row_fast(reduced: int, warp_size: int) -> bool:
    return reduced >= warp_size or warp_size % reduced == 0


def _transposes_minor(computation: Computation, instruction: Instruction) -> bool:
    """A transpose whose operand's most minor dim is no longer most minor,
    both of at least 16 elements (the tiled transpose emitter's floor)."""
    if instruction.opcode != "transpose":
        return False
    (operand,) = computation.operand_instructions(instruction)
    permutation = instruction.int_list("dimensions")
    operand_minor = _minor_to_major(operand.shape)[0]
    output_minor = _minor_to_major(instruction.shape)[0]
    return (
        permutation[output_minor] != operand_minor
        and operand.shape.dimensions[operand_minor] >= _MIN_DIMENSION_TO_TRANSPOSE_TILED
        and instruction.shape.dimensions[output_minor] >= _MIN_DIMENSION_TO_TRANSPOSE_TILED
    )


_OWN_EMITTERS: dict[str, EmitterKind] = {
    "scatter": "scatter",
    "concatenate": "concatenate",
    "dynamic-update-slice": "in-place dynamic-update-slice",
}


def choose_emitter(module: Module, fusion: Instruction, device: Device) -> Emitter:
    """The emitter XLA runs `fusion` with (module docstring)."""
    computation = fused_computation(module, fusion)
    for root in _roots(computation):
        hero = _hero(computation, root)
        if hero.opcode == "reduce":
            operand = computation.operand_instructions(hero)[0]
            kind = reduction_kind(hero, operand.shape, device.warp_size)
            if kind is not None:
                return Emitter(kind, f"XLA's {kind} emitter's thread mapping is not modelled")
        own = _OWN_EMITTERS.get(hero.opcode) if hero is root else None
        if own is not None and (
            hero.opcode != "dynamic-update-slice" or _in_place(computation, hero)
        ):
            return Emitter(own, f"XLA's {own} emitter's thread mapping is not modelled")
    if any(_transposes_minor(computation, i) for i in computation.instructions):
        return Emitter("transpose", "XLA's transpose emitter's thread mapping is not modelled")
    return Emitter("loop")


def _in_place(computation: Computation, update: Instruction) -> bool:
    target = computation.operand_instructions(update)[0]
    return target.opcode == "parameter"


def _hero(computation: Computation, root: Instruction) -> Instruction:
    """The root, seen through unary elementwise ops and bitcasts."""
    hero = root
    while hero.opcode in ("bitcast", *ELEMENTWISE_OPCODES) and len(hero.operands) == 1:
        hero = computation.operand_instructions(hero)[0]
    return hero if hero.opcode in ("reduce", "transpose") else root


def _unroll_blocked(module: Module, computation: Computation) -> bool:
    """XLA's ``MayCausePerformanceDropIfUnrolled``, through nested calls."""
    for instruction in computation.instructions:
        match instruction.opcode:
            case "sort" | "dot":
                return True
            case "concatenate" if len(instruction.operands) > _MAX_CONCAT_OPERANDS_FOR_UNROLLING:
                return True
            case "reduce" if instruction.shape.is_tuple and len(instruction.shape.leaves) > 1:
                return True
            case "reduce-window":
                if (
                    math.prod(w.size for w in instruction.window())
                    > _MAX_REDUCE_WINDOW_FOR_UNROLLING
                ):
                    return True
            case "fusion" | "call":
                if any(
                    _unroll_blocked(module, module.computation(name))
                    for name in instruction.called_computations
                ):
                    return True
    return False


def _smallest_output_bits(fusion: Instruction) -> int:
    widths = [element_bit_width(leaf.element_type) or 8 for _, leaf in fusion.shape.leaves]
    return min(widths)


def indexing_shape(fusion: Instruction) -> Shape:
    """The shape the loop emitter linearises: the first output leaf."""
    return fusion.shape.leaves[0][1]


def unroll_factor(module: Module, fusion: Instruction, device: Device) -> int:
    """XLA's loop unroll factor for `fusion` (module docstring)."""
    elements = indexing_shape(fusion).num_elements
    unroll = 1
    if elements >= device.resident_threads and not _unroll_blocked(
        module, fused_computation(module, fusion)
    ):
        unroll = math.gcd(elements, _DEFAULT_UNROLL)
    return max(unroll, -(-8 // _smallest_output_bits(fusion)))


def loop_launch(shape: Shape, unroll: int, device: Device) -> Launch:
    """The loop emitter's launch over `shape` with `unroll` (module docstring)."""
    elements = shape.num_elements
    if elements <= 1:
        threads, grid = 1, (1, 1, 1)
    else:
        work = -(-elements // unroll)
        threads = min(device.warp_size * _WARPS_PER_BLOCK, work)
        total = -(-work // threads)
        blocks_y = -(-total // device.block_dim_limit[0])
        grid = (-(-total // blocks_y), blocks_y, 1)
    per_chunk = unroll * threads * grid[0] * grid[1] * grid[2]
    d = [dim(i) for i in range(6)]
    linear: Expr = range_var(1)
    stride = unroll
    for thread, block, count, size in zip(d[:3], d[3:], (threads, 1, 1), grid, strict=True):
        linear = linear + (thread + block * count) * stride
        stride *= count * size
    linear = range_var(0) * per_chunk + linear
    results: list[Expr] = [const(0)] * shape.rank
    divisor = 1
    for k in shape.layout_or_default.minor_to_major:
        results[k] = (linear // divisor) % shape.dimensions[k]
        divisor *= shape.dimensions[k]
    bounds = [Interval(0, threads - 1), Interval(0, 0), Interval(0, 0)]
    bounds += [Interval(0, g - 1) for g in grid]
    chunks = -(-max(elements, 1) // per_chunk)
    mapping = IndexingMap.create(
        bounds,
        results,
        range_vars=[Interval(0, chunks - 1), Interval(0, unroll - 1)],
        constraints=[(linear, Interval(0, max(elements, 1) - 1))],
    )
    simplified = simplify(mapping).map
    return Launch(threads, math.prod(grid), grid, unroll, device.warp_size, simplified)
