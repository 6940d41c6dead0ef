"""What each thread of a fusion's launch loads from a fusion operand, per
emitter: maps from thread and block ids (and loop and vector ids) to the
operand's logical index.

* **loop**: the launch's thread→output map composed with the fusion's
  output→operand maps (`verifier.analysis.ModuleMaps`), for every root;
* **reduction, transpose**: the emitter's thread→hero-input map (over the
  normalised input), bitcast to the hero input's shape, composed with the
  maps from that input to the fusion's parameters (through the fused
  computation, as a computation of its own whose root is that input);
* **concatenate**: the launch's index over the longest operand, composed
  with each concatenated operand's maps to the parameters (where the
  index falls inside that operand).

Relation-simplified maps serve XLA's verdict, pointwise ones (every range
variable kept: each is a load) the exact count.

>>> from verifier.hlo import parse_shape
>>> [str(e) for e in _bitcast((4, 6), parse_shape("f32[6,4]{0,1}")).results]  # same offsets
['d1', 'd0']
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.analysis import ModuleMaps
from verifier.coalescing.devices import Device
from verifier.coalescing.emitter import (
    Emitter,
    Launch,
    fused_computation,
    indexing_shape,
    loop_launch,
)
from verifier.expr import Expr, IndexingMap, Interval, Undefined, compose, const, dim
from verifier.hlo import Computation, Instruction, Module, Shape
from verifier.simplify import simplify


def _root_leaves(module: Module, fusion: Instruction) -> list[int]:
    """The first output leaf of each root (one per element of a tuple root)."""
    computation = fused_computation(module, fusion)
    root = computation.root
    if root.opcode != "tuple":
        return [0]
    leaves, first = [], 0
    for operand in computation.operand_instructions(root):
        leaves.append(first)
        first += len(operand.shape.leaves)
    return leaves


@dataclass(frozen=True)
class OperandLoads:
    """Thread→operand-index maps of one operand: relation-simplified ones
    (XLA's verdict) and pointwise ones (the count), or why there are none
    (`undefined`: its indexing is unknown)."""

    simplified: tuple[IndexingMap, ...] = ()
    reads: tuple[IndexingMap, ...] = ()
    reason: str | None = None
    undefined: bool = False


def loop_loads(
    maps: ModuleMaps, fusion: Instruction, launch: Launch, number: int, device: Device
) -> OperandLoads:
    module = maps.module
    view = maps.instruction(module.entry, fusion)
    simplified: list[IndexingMap] = []
    reads: list[IndexingMap] = []
    for leaf in _root_leaves(module, fusion):
        output = fusion.shape.leaves[leaf][1]
        if output.num_elements != indexing_shape(fusion).num_elements:
            return OperandLoads(reason="roots of different sizes")
        thread = loop_launch(output, launch.unroll, device).thread_map
        for mine, source in (
            (simplified, view.o2i(view.outputs[leaf])[number].maps.maps),
            (reads, view.reads(view.outputs[leaf])[number].maps.maps),
        ):
            if isinstance(source, Undefined):
                return OperandLoads(reason=f"unknown indexing: {source}", undefined=True)
            mine += [compose(thread, counted.map) for counted in source]
    return OperandLoads(tuple(simplified), tuple(reads))


def hero_input_loads(
    maps: ModuleMaps, fusion: Instruction, emitter: Emitter, number: int
) -> OperandLoads:
    """Through the hero's inputs only (a reduce's initial values have no
    indexing in XLA): thread → normalised input → the input's logical
    index → the fusion's parameter `number`."""
    mapping, hero = emitter.mapping, emitter.hero
    assert mapping is not None and hero is not None
    computation = fused_computation(maps.module, fusion)
    operands = computation.operand_instructions(hero)
    inputs = operands[: len(operands) // 2] if hero.opcode == "reduce" else operands
    simplified: list[IndexingMap] = []
    reads: list[IndexingMap] = []
    for hero_input in inputs:
        thread = compose(mapping.thread_to_input, _bitcast(mapping.input_shape, hero_input.shape))
        for mine, pointwise in ((simplified, False), (reads, True)):
            source = _to_parameter(maps.module, computation, hero_input, number, pointwise)
            if isinstance(source, Undefined):
                return OperandLoads(reason=f"unknown indexing: {source}", undefined=True)
            mine += [compose(thread, m) for m in source]
    if not reads:
        return OperandLoads(reason="not loaded through the hero (a reduce's initial value)")
    return OperandLoads(tuple(simplified), tuple(reads))


def concatenate_loads(
    maps: ModuleMaps, fusion: Instruction, emitter: Emitter, launch: Launch, number: int
) -> OperandLoads:
    """Each concatenated operand's load: the launch's index, where it falls
    inside that operand, → the fusion's parameter `number`; other reads
    (an epilogue's) have no indexing in XLA's analysis and no model here."""
    hero = emitter.hero
    assert hero is not None
    computation = fused_computation(maps.module, fusion)
    simplified: list[IndexingMap] = []
    reads: list[IndexingMap] = []
    for operand in computation.operand_instructions(hero):
        for mine, pointwise in ((simplified, False), (reads, True)):
            source = _to_parameter(maps.module, computation, operand, number, pointwise)
            if isinstance(source, Undefined):
                return OperandLoads(reason=f"unknown indexing: {source}", undefined=True)
            mine += [compose(launch.thread_map, m) for m in source]
    if reads:
        return OperandLoads(tuple(simplified), tuple(reads))
    view = maps.instruction(maps.module.entry, fusion)
    if computation.root is not hero and view.o2i(view.outputs[0])[number].maps.maps:
        return OperandLoads(reason="read by the concatenate emitter's epilogue: not modelled")
    return OperandLoads()


def _bitcast(shape: tuple[int, ...], target: Shape) -> IndexingMap:
    """Row-major `shape` index → the `target` index at the same physical
    offset (XLA's bitcast map)."""
    linear: Expr = const(0)
    for k, size in enumerate(shape):
        linear = linear * size + dim(k)
    results: list[Expr] = [const(0)] * target.rank
    divisor = 1
    for d in target.layout_or_default.minor_to_major:
        results[d] = (linear // divisor) % target.dimensions[d]
        divisor *= target.dimensions[d]
    return simplify(IndexingMap.create([Interval(0, n - 1) for n in shape], results)).map


def _to_parameter(
    module: Module, computation: Computation, value: Instruction, number: int, pointwise: bool
) -> list[IndexingMap] | Undefined:
    """Maps from `value`'s index to fusion parameter `number`'s, through
    the fused computation (none when it does not read it)."""
    if value.opcode == "parameter":
        if value.parameter_number != number:
            return []
        return [IndexingMap.identity(value.shape.dimensions)]
    view = Computation(
        f"{computation.name}.{value.name}", computation.instructions, value, computation.parameters
    )
    view_maps = ModuleMaps(Module(module.name, (*module.computations, view), view))
    (output,) = view_maps.instruction(view, value).outputs
    (found,) = (
        pair.maps.maps
        for pair in view_maps.to_parameters(output, simplified=not pointwise)
        if pair.operand.operand == number
    )
    if isinstance(found, Undefined):
        return found
    return [counted.map for counted in found]
