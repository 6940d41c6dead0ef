"""Which of XLA's GPU emitters runs a fusion, and the launch mapping of its
loop emitter.

**Emitter.**  A ``kCustom`` (Triton, cuDNN, custom) or ``kOutput``
(library-call epilogue) fusion is not run by these emitters.  A fusion
whose hero (its root, or a root of its tuple, seen
through unary elementwise ops and bitcast-like ops: bitcasts, and
reshapes and transposes that keep the bytes in place) is a reduce that XLA emits
with its reduction emitter (``reduce`` over consecutive kept or reduced
dims, large enough to tile: `verifier.coalescing.reduction`) runs on one of
the four reduction emitters; one with a transpose that moves the most
minor dimension (a superset of XLA's tiled-transpose rule) on the
*transpose* emitter; a single scatter, sort or in-place
dynamic-update-slice root on its own emitter, a concatenate hero of at
most four operands on the *concatenate* emitter; every other fusion on the
*loop* emitter.  The loop, concatenate, reduction (a lone reduce root,
race-free) and transpose (32-bit and wider, or XLA's packed transpose of
narrower elements; no epilogue reads) emitters
are modelled; the others are named, with a reason, and get no answer.

**Loop emitter launch.**  Over the ``N`` elements of the first output
(XLA's indexing shape), the unroll factor ``u`` is
``gcd(N, 4)`` when ``N`` reaches the threads the device holds at once
(`Device.resident_threads`) and no sort, dot, variadic reduce, large
reduce-window or concatenate of more than 10 operands is fused, else 1;
then at least ``ceil(8 / bits)`` of the narrowest output type (a ``pred``
as 8 bits).  A block
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

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, cast

from verifier.coalescing.devices import Device
from verifier.coalescing.mapping import InputMapping
from verifier.coalescing.reduction import (
    emitted_by_reduction_emitter,
    race_free,
    reduction_dims,
    reduction_mapping,
)
from verifier.coalescing.transpose import (
    normalized_transpose,
    packed_transpose,
    packed_transpose_mapping,
    tiled_transpose,
    transpose_mapping,
)
from verifier.expr import Expr, IndexingMap, Interval, const, dim, range_var
from verifier.hlo import (
    ELEMENTWISE_OPCODES,
    Computation,
    Instruction,
    Module,
    Shape,
    element_bit_width,
)
from verifier.simplify import simplify

EmitterKind = Literal[
    "loop",
    "row reduction",
    "multi-row reduction",
    "column reduction",
    "small column reduction",
    "transpose",
    "concatenate",
    "scatter",
    "sort",
    "in-place dynamic-update-slice",
    "custom",
]

THREAD_DIMS = ("thread_x", "thread_y", "thread_z", "block_x", "block_y", "block_z")
"""The six dims of a launch mapping, in XLA's order."""

_WARPS_PER_BLOCK = 4  # XLA's warp schedulers per SM: a loop block is four warps
_DEFAULT_UNROLL = 4
_MAX_CONCAT_OPERANDS_FOR_UNROLLING = 10
_MAX_REDUCE_WINDOW_FOR_UNROLLING = 8


@dataclass(frozen=True)
class Emitter:
    """The emitter XLA picks for a fusion, why it is not modelled when it
    is not, and a shared-memory emitter's mapping and hero (the reduce or
    transpose whose inputs it loads)."""

    kind: EmitterKind
    unsupported: str | None = None
    mapping: InputMapping | None = None
    hero: Instruction | None = None


@dataclass(frozen=True)
class Launch:
    """A kernel's launch: threads per block, the grid, the vector width
    (`unroll`) and the thread map the loads go through (`thread_map`, to
    the output for the loop emitter, to the reduce's normalised input for
    a reduction emitter), whose dims are `THREAD_DIMS` and whose symbol
    `vector_symbol` is the vector lanes of one load (the loop emitter's
    symbols: the chunk id ``s0`` and the unroll id ``s1``), and where the
    threads write (`thread_to_output`)."""

    threads_per_block: int
    blocks: int
    grid: tuple[int, int, int]
    unroll: int
    warp_size: int
    thread_map: IndexingMap
    vector_symbol: int
    thread_to_output: IndexingMap


def fused_computation(module: Module, fusion: Instruction) -> Computation:
    (name,) = fusion.called_computations
    return module.computation(name)


def _roots(computation: Computation) -> tuple[Instruction, ...]:
    root = computation.root
    if root.opcode == "tuple":
        return computation.operand_instructions(root)
    return (root,)


_OWN_EMITTERS: dict[str, EmitterKind] = {
    "scatter": "scatter",
    "dynamic-update-slice": "in-place dynamic-update-slice",
    "sort": "sort",
}
_MAX_CONCATENATE_EMITTER_OPERANDS = 4
_LIBRARY_FUSION_KINDS = ("kCustom", "kOutput")


def _bits(shapes: list[Shape]) -> int | None:
    """The narrowest element width of `shapes` as XLA's
    ``SmallestBitWidth`` counts it (a ``pred`` as a byte; None: no array
    shape)."""
    return min((_gpu_bits(s) for s in shapes if not s.is_tuple), default=None)


def choose_emitter(module: Module, fusion: Instruction, device: Device) -> Emitter:
    """The emitter XLA runs `fusion` with (module docstring; XLA's
    ``GetEmitterFusionKind``)."""
    kind = fusion.attributes.word("kind")
    if kind in _LIBRARY_FUSION_KINDS:
        return Emitter("custom", f"a {kind} fusion is emitted by Triton or a library, not modelled")
    computation = fused_computation(module, fusion)
    roots = _roots(computation)
    heroes = [_hero(computation, root) for root in roots]
    for root, hero in zip(roots, heroes, strict=True):
        if hero.opcode == "reduce":
            found = _reduction(module, computation, fusion, root, hero, len(roots), device)
            if found is not None:
                return found
    transposes = [h for h in heroes if _tiled(computation, h) is not None]
    if transposes:
        return _transpose(computation, roots, transposes[0])
    if len(roots) == 1 and roots[0].opcode in _OWN_EMITTERS:
        root = roots[0]
        own = _OWN_EMITTERS[root.opcode]
        if root.opcode != "dynamic-update-slice" or _in_place(computation, root):
            return Emitter(own, f"XLA's {own} emitter's thread mapping is not modelled")
    if (
        len(roots) == 1
        and heroes[0].opcode == "concatenate"
        and not roots[0].shape.is_tuple
        and len(heroes[0].operands) <= _MAX_CONCATENATE_EMITTER_OPERANDS
    ):
        return Emitter("concatenate", None, None, heroes[0])
    return Emitter("loop")


def _reduction(
    module: Module,
    computation: Computation,
    fusion: Instruction,
    root: Instruction,
    hero: Instruction,
    roots: int,
    device: Device,
) -> Emitter | None:
    operands = computation.operand_instructions(hero)
    dims = reduction_dims(operands[0].shape, hero.int_list("dimensions"))
    if dims is None or not emitted_by_reduction_emitter(dims, device.warp_size):
        return None
    if hero is not root and not race_free(dims, device.warp_size):
        return None
    outputs = [leaf for _, leaf in fusion.shape.leaves]
    mapping = reduction_mapping(
        dims,
        input_bits=_bits([module.entry.instruction(o).shape for o in fusion.operands]),
        output_bits=_bits(outputs) or 8,
        sm_count=device.sm_count,
        warp_size=device.warp_size,
    )
    kind = cast(EmitterKind, mapping.kind)
    if not race_free(dims, device.warp_size):
        return Emitter(kind, "XLA splits this reduction first (it is not race-free)")
    if roots > 1 or hero is not root:
        return Emitter(kind, "reductions with side outputs or several roots are not modelled")
    return Emitter(kind, None, mapping, hero)


def _tiled(computation: Computation, hero: Instruction) -> object:
    """XLA's ``GetDescriptionForTiledTransposeEmitter``: the packed
    transpose first (narrow elements), else the tiled one; None."""
    if hero.opcode != "transpose":
        return None
    (operand,) = computation.operand_instructions(hero)
    normalized = normalized_transpose(operand.shape, hero.shape, hero.int_list("dimensions"))
    if normalized is None:
        return None
    bits = _gpu_bits(hero.shape)
    return packed_transpose(normalized, bits) or tiled_transpose(normalized, bits)


def _gpu_bits(shape: Shape) -> int:
    """XLA's ``GetBitwidth``: a pred is a byte."""
    if shape.element_type == "pred":
        return 8
    return element_bit_width(shape.element_type) or 8


def _transpose(
    computation: Computation, roots: tuple[Instruction, ...], hero: Instruction
) -> Emitter:
    (operand,) = computation.operand_instructions(hero)
    normalized = normalized_transpose(operand.shape, hero.shape, hero.int_list("dimensions"))
    assert normalized is not None
    if len(roots) > 1 or not _through_unary(computation, roots[0], hero):
        return Emitter("transpose", "transpose epilogues that read other values are not modelled")
    packed = packed_transpose(normalized, _gpu_bits(hero.shape))
    if packed is not None:
        return Emitter("transpose", None, packed_transpose_mapping(packed), hero)
    if _gpu_bits(hero.shape) < 32:
        return Emitter(
            "transpose", "narrow elements on the tiled (not packed) transpose: not modelled"
        )
    return Emitter("transpose", None, transpose_mapping(normalized), hero)


def _through_unary(computation: Computation, root: Instruction, hero: Instruction) -> bool:
    node = root
    while node is not hero:
        if len(node.operands) != 1 or not _intermediate(computation, node, 1):
            return False
        node = computation.operand_instructions(node)[0]
    return True


def _in_place(computation: Computation, update: Instruction) -> bool:
    target = computation.operand_instructions(update)[0]
    return target.opcode == "parameter"


def _intermediate(computation: Computation, instruction: Instruction, operands: int) -> bool:
    """XLA's ``IsIntermediate``: elementwise (a copy only when it keeps the
    shape) or bitcast-like — a bitcast, a reshape that is one (here: both
    layouts row-major, where a reshape keeps the physical order; XLA also
    finds some with other layouts), a transpose that is one (the operand's
    minor-to-major is the output's mapped through the permutation) — with
    1 to `operands` operands."""
    if not 1 <= len(instruction.operands) <= operands:
        return False
    operand = computation.operand_instructions(instruction)[0]
    match instruction.opcode:
        case "copy":
            return instruction.shape == operand.shape
        case "bitcast":
            return True
        case "reshape":
            return _row_major(operand.shape) and _row_major(instruction.shape)
        case "transpose":
            output_order = instruction.shape.layout_or_default.minor_to_major
            dimensions = instruction.int_list("dimensions")
            return tuple(dimensions[d] for d in output_order) == (
                operand.shape.layout_or_default.minor_to_major
            )
    return instruction.opcode in ELEMENTWISE_OPCODES


def _row_major(shape: Shape) -> bool:
    return shape.layout_or_default.minor_to_major == tuple(range(shape.rank - 1, -1, -1))


def _hero(computation: Computation, root: Instruction) -> Instruction:
    """XLA's ``FindNonTrivialHero``: up the chain of single-operand
    intermediate ops, then a unique tiled transpose or concatenate reached
    through intermediate ops of up to three operands with only such ops
    after it, else the reduce at the chain's top, else the root."""
    hero = root
    while _intermediate(computation, hero, 1):
        operand = computation.operand_instructions(hero)[0]
        if operand.opcode == "parameter":
            break
        hero = operand
    for wanted in (
        lambda i: _tiled(computation, i) is not None,
        lambda i: i.opcode == "concatenate",
    ):
        found = _find(computation, hero, wanted)
        if found is not None:
            return found
    return hero if hero.opcode == "reduce" else root


def _find(
    computation: Computation, start: Instruction, wanted: Callable[[Instruction], bool]
) -> Instruction | None:
    found: Instruction | None = None
    queue, seen = [start], {start.name}
    while queue:
        node = queue.pop(0)
        if wanted(node):
            if found is not None:
                return None
            found = node
            continue
        if not _intermediate(computation, node, 3):
            continue
        for operand in computation.operand_instructions(node):
            if operand.name not in seen:
                seen.add(operand.name)
                queue.append(operand)
    if found is None:
        return None
    users = _users(computation)
    queue, seen = list(users.get(found.name, ())), set()
    while queue:
        node = queue.pop(0)
        if node.name in seen:
            continue
        seen.add(node.name)
        if node.opcode not in ("tuple", "parameter") and not _intermediate(computation, node, 3):
            return None
        queue += users.get(node.name, [])
    return found


def _users(computation: Computation) -> dict[str, list[Instruction]]:
    users: dict[str, list[Instruction]] = {}
    for instruction in computation.instructions:
        for operand in instruction.operands:
            users.setdefault(operand, []).append(instruction)
    return users


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
    """XLA's ``SmallestBitWidth`` of the outputs: a ``pred`` counts as a
    byte (so a ``pred`` output is not unrolled by 8)."""
    return min(_gpu_bits(leaf) for _, leaf in fusion.shape.leaves)


def indexing_shape(fusion: Instruction) -> Shape:
    """The shape the loop emitter linearises: the first output leaf."""
    return fusion.shape.leaves[0][1]


def unroll_factor(
    module: Module, fusion: Instruction, device: Device, shape: Shape | None = None
) -> int:
    """XLA's loop unroll factor for `fusion` over `shape` (default: its
    indexing shape; module docstring)."""
    elements = (shape or indexing_shape(fusion)).num_elements
    unroll = 1
    if elements >= device.resident_threads and not _unroll_blocked(
        module, fused_computation(module, fusion)
    ):
        unroll = math.gcd(elements, _DEFAULT_UNROLL)
    return max(unroll, -(-8 // _smallest_output_bits(fusion)))


def concatenate_launch(
    module: Module, fusion: Instruction, hero: Instruction, device: Device
) -> Launch:
    """XLA's concatenate emitter: the loop emitter's launch over the operand
    longest along the concatenated dim, its unroll factor also dividing
    every operand's length there; each operand is loaded by the same
    threads at the same indices, where they fall inside it."""
    axis = hero.int_list("dimensions")[0]
    operands = module.computation(fusion.called_computations[0]).operand_instructions(hero)
    largest = max(operands, key=lambda o: o.shape.dimensions[axis]).shape
    unroll = unroll_factor(module, fusion, device, largest)
    for operand in operands:
        unroll = math.gcd(unroll, operand.shape.dimensions[axis])
    return loop_launch(largest, unroll, device)


@functools.lru_cache(maxsize=256)
def loop_launch(shape: Shape, unroll: int, device: Device) -> Launch:
    """The loop emitter's launch over `shape` with `unroll` (module
    docstring; memoised: every operand of a fusion asks it)."""
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
    return Launch(
        threads, math.prod(grid), grid, unroll, device.warp_size, simplified, 1, simplified
    )
