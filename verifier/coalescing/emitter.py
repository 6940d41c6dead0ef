"""Which of XLA's GPU emitters runs a fusion, and the launch mapping of its
loop emitter.

**Emitter.**  A fusion whose hero (its root, or a root of its tuple, seen
through unary elementwise ops and bitcasts) is a reduce that XLA emits
with its reduction emitter (``reduce`` over consecutive kept or reduced
dims, large enough to tile: `verifier.coalescing.reduction`) runs on one of
the four reduction emitters; one with a transpose that moves the most
minor dimension (a superset of XLA's tiled-transpose rule) on the
*transpose* emitter; a single scatter, sort, concatenate (of at most four
operands) or in-place dynamic-update-slice root on its own emitter; every
other fusion on the *loop* emitter.  The loop and the reduction emitters
(a lone reduce root, race-free) are modelled; the others are named, with
a reason, and get no answer.

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
>>> str(launch.thread_map).splitlines()[0]
'(d0, d1, d2, d3, d4, d5)[s0, s1] -> ((d3 * 128 + d0) floordiv 200, (d3 * -72 + d0) mod 200),'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, cast

from verifier.coalescing.devices import Device
from verifier.coalescing.reduction import (
    ReductionMapping,
    emitted_by_reduction_emitter,
    race_free,
    reduction_dims,
    reduction_mapping,
)
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
    """The emitter XLA picks for a fusion, why it is not modelled when it
    is not, and a reduction emitter's mapping and reduce."""

    kind: EmitterKind
    unsupported: str | None = None
    reduction: ReductionMapping | None = None
    hero: Instruction | None = None


@dataclass(frozen=True)
class Launch:
    """A kernel's launch: threads per block, the grid, the vector width
    (`unroll`) and the thread map the loads go through (`thread_map`, to
    the output for the loop emitter, to the reduce's normalised input for
    a reduction emitter), whose dims are `THREAD_DIMS` and whose symbol
    `vector_symbol` is the vector lanes of one load (the loop emitter's
    symbols: the chunk id ``s0`` and the unroll id ``s1``)."""

    threads_per_block: int
    blocks: int
    grid: tuple[int, int, int]
    unroll: int
    warp_size: int
    thread_map: IndexingMap
    vector_symbol: int


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
    "sort": "sort",
}
_MAX_CONCATENATE_EMITTER_OPERANDS = 4


def _bits(shapes: list[Shape]) -> int:
    widths = [element_bit_width(s.element_type) or 8 for s in shapes if not s.is_tuple]
    return min(widths, default=64)


def choose_emitter(module: Module, fusion: Instruction, device: Device) -> Emitter:
    """The emitter XLA runs `fusion` with (module docstring)."""
    computation = fused_computation(module, fusion)
    roots = _roots(computation)
    for root in roots:
        hero = _hero(computation, root)
        if hero.opcode != "reduce":
            continue
        operands = computation.operand_instructions(hero)
        dims = reduction_dims(operands[0].shape, hero.int_list("dimensions"))
        if dims is None or not emitted_by_reduction_emitter(dims, device.warp_size):
            continue
        outputs = [leaf for _, leaf in fusion.shape.leaves]
        mapping = reduction_mapping(
            dims,
            input_bits=_bits([module.entry.instruction(o).shape for o in fusion.operands]),
            output_bits=_bits(outputs),
            sm_count=device.sm_count,
            warp_size=device.warp_size,
        )
        kind = cast(EmitterKind, mapping.kind)
        if not race_free(dims, device.warp_size):
            return Emitter(kind, "XLA splits this reduction first (it is not race-free)")
        if len(roots) > 1 or hero is not root:
            return Emitter(kind, "reductions with side outputs or several roots are not modelled")
        return Emitter(kind, None, mapping, hero)
    if len(roots) == 1 and roots[0].opcode in _OWN_EMITTERS:
        root = roots[0]
        own = _OWN_EMITTERS[root.opcode]
        takes = {
            "concatenate": len(root.operands) <= _MAX_CONCATENATE_EMITTER_OPERANDS,
            "dynamic-update-slice": _in_place(computation, root),
        }.get(root.opcode, True)
        if takes:
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
    return Launch(threads, math.prod(grid), grid, unroll, device.warp_size, simplified, 1)
