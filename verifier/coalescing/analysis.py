"""Coalescing of one fusion: XLA's launch mapping, every operand's
thread→offset map, its exact sectors per request (`sectors`) and XLA's two
verdicts beside them (`xla_verdict`).

The thread→operand map is the emitter's thread→output map composed with
the fusion's output→operand maps (`verifier.analysis.ModuleMaps`), then with
the operand's physical layout (`verifier.indexing.layout`: minor-to-major,
tiles).  Symbols: the operand's loop ids first (a reduce's reduced index),
then the chunk and the unroll id.

>>> from verifier.hlo import parse_module
>>> from verifier.analysis import ModuleMaps
>>> from verifier.coalescing.devices import DEVICES
>>> module = parse_module('''
... HloModule m
... f {
...   p0 = f32[100,200]{0,1} parameter(0)
...   ROOT n = f32[100,200] negate(p0)
... }
... ENTRY e {
...   p0 = f32[100,200]{0,1} parameter(0)
...   ROOT r = f32[100,200] fusion(p0), kind=kLoop, calls=f
... }''')
>>> answer = fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["rtx-a6000"])
>>> (operand,) = answer.operands
>>> operand.xla_coalesced, operand.coalesced, operand.sectors.maximum
(False, False, 32)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from verifier.analysis import ModuleMaps
from verifier.coalescing.devices import Device
from verifier.coalescing.emitter import (
    Emitter,
    Launch,
    choose_emitter,
    concatenate_launch,
    fused_computation,
    indexing_shape,
    loop_launch,
    unroll_factor,
)
from verifier.coalescing.reduction import emitted_by_reduction_emitter, reduction_dims
from verifier.coalescing.sectors import Request, RequestMap, SectorCounts, count_sectors
from verifier.coalescing.xla_verdict import Place, first_warp_coalesced, read_coalesced_heuristic
from verifier.errors import UnsupportedError, UsageError
from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    Undefined,
    Var,
    VarKind,
    compose,
    const,
    dim,
    range_var,
    substitute,
)
from verifier.hlo import Computation, Instruction, Module, Shape
from verifier.indexing.layout import physical_offset, slot_bits
from verifier.simplify import simplify


@dataclass(frozen=True)
class OperandCoalescing:
    """One operand: XLA's verdict (None when not even XLA's maps can be
    built here), the linearised maps and the exact counts (`sectors` None
    with `reason` when they are not known)."""

    operand: int
    name: str
    element_bits: int
    xla_coalesced: bool | None
    linearized: tuple[IndexingMap, ...]
    sectors: SectorCounts | None
    ideal_sectors: int
    reason: str | None = None

    @property
    def coalesced(self) -> bool | None:
        """Every request at its ideal sector count (None: not known)."""
        if self.sectors is None:
            return None
        return self.sectors.at_ideal == self.sectors.requests


@dataclass(frozen=True)
class FusionCoalescing:
    """A fusion's emitter, launch and operands (`launch` None and no
    operands when its emitter is not modelled: `emitter.unsupported`)."""

    instruction: str
    device: str
    emitter: Emitter
    xla_heuristic: bool
    launch: Launch | None
    operands: tuple[OperandCoalescing, ...]


def fusion_coalescing(maps: ModuleMaps, fusion: Instruction, device: Device) -> FusionCoalescing:
    """The coalescing of `fusion` (an instruction of the entry) on `device`."""
    module = maps.module
    if fusion.opcode != "fusion":
        raise UnsupportedError(f"'{fusion.name}' is a {fusion.opcode}, not a fusion")
    emitter = choose_emitter(module, fusion, device)
    heuristic = _heuristic(module, fusion, emitter, device)
    if emitter.unsupported is not None:
        return FusionCoalescing(fusion.name, device.name, emitter, heuristic, None, ())
    launch = _launch(module, fusion, emitter, device)
    operands = tuple(
        _unsupported_as_reason(maps, fusion, emitter, launch, number, device)
        for number in range(len(fusion.operands))
    )
    return FusionCoalescing(fusion.name, device.name, emitter, heuristic, launch, operands)


def module_coalescing(maps: ModuleMaps, name: str | None, device: Device) -> list[FusionCoalescing]:
    """Fusion `name` of the entry (default: every fusion of the entry);
    `UsageError` for a name that is not one."""
    fusions = [i for i in maps.module.entry.instructions if i.opcode == "fusion"]
    if name is not None:
        fusions = [i for i in fusions if i.name == name]
        if not fusions:
            listed = [i.name for i in maps.module.entry.instructions if i.opcode == "fusion"]
            raise UsageError(
                f"no fusion '{name}' in the entry computation "
                f"(fusions: {', '.join(listed[:20]) or 'none'})"
            )
    return [fusion_coalescing(maps, f, device) for f in fusions]


def _launch(module: Module, fusion: Instruction, emitter: Emitter, device: Device) -> Launch:
    mapping = emitter.mapping
    if emitter.kind == "concatenate":
        assert emitter.hero is not None
        return concatenate_launch(module, fusion, emitter.hero, device)
    if mapping is None:
        unroll = unroll_factor(module, fusion, device)
        return loop_launch(indexing_shape(fusion), unroll, device)
    vector = len(mapping.thread_to_input.range_vars) - 1
    return Launch(
        mapping.threads_per_block,
        mapping.blocks,
        (mapping.blocks, 1, 1),
        mapping.vector,
        device.warp_size,
        mapping.thread_to_input,
        vector,
        mapping.thread_to_output,
    )


def _heuristic(module: Module, fusion: Instruction, emitter: Emitter, device: Device) -> bool:
    entry = module.entry
    operands = entry.operand_instructions(fusion)
    if not operands:
        return True
    producer = operands[0]
    both_reductions = _input_fusible_reduction(module, producer, device) and (
        _input_fusible_reduction(module, fusion, device)
    )
    return read_coalesced_heuristic(
        module, emitter.kind, Place(entry, producer), Place(entry, fusion), both_reductions
    )


def _input_fusible_reduction(module: Module, instruction: Instruction, device: Device) -> bool:
    if instruction.opcode == "reduce":
        operand = module.entry.operand_instructions(instruction)[0]
        dims = reduction_dims(operand.shape, instruction.int_list("dimensions"))
        return dims is not None and emitted_by_reduction_emitter(dims, device.warp_size)
    if instruction.opcode != "fusion":
        return False
    return choose_emitter(module, instruction, device).kind.endswith("reduction")


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
class _ThreadMaps:
    """Thread→operand-index maps of one operand: relation-simplified ones
    (XLA's verdict) and pointwise ones (the count), or why there are none."""

    simplified: tuple[IndexingMap, ...] = ()
    reads: tuple[IndexingMap, ...] = ()
    reason: str | None = None
    undefined: bool = False


def _loop_maps(
    maps: ModuleMaps, fusion: Instruction, launch: Launch, number: int, device: Device
) -> _ThreadMaps:
    module = maps.module
    simplified: list[IndexingMap] = []
    reads: list[IndexingMap] = []
    for leaf in _root_leaves(module, fusion):
        output = fusion.shape.leaves[leaf][1]
        if output.num_elements != indexing_shape(fusion).num_elements:
            return _ThreadMaps(reason="roots of different sizes")
        thread = loop_launch(output, launch.unroll, device).thread_map
        for mine, source in (
            (simplified, maps.output_to_input(module.entry, fusion, leaf)[number].maps),
            (reads, maps.reads(module.entry, fusion, leaf)[number].maps),
        ):
            if isinstance(source, Undefined):
                return _ThreadMaps(reason=f"unknown indexing: {source}", undefined=True)
            mine += [compose(thread, counted.map) for counted in source]
    return _ThreadMaps(tuple(simplified), tuple(reads))


def _hero_input_maps(
    maps: ModuleMaps, fusion: Instruction, emitter: Emitter, number: int
) -> _ThreadMaps:
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
    for reduce_input in inputs:
        thread = compose(mapping.thread_to_input, _bitcast(mapping.input_shape, reduce_input.shape))
        for mine, pointwise in ((simplified, False), (reads, True)):
            source = _to_parameter(maps.module, computation, reduce_input, number, pointwise)
            if isinstance(source, Undefined):
                return _ThreadMaps(reason=f"unknown indexing: {source}", undefined=True)
            mine += [compose(thread, m) for m in source]
    if not reads:
        return _ThreadMaps(reason="not loaded through the hero (a reduce's initial value)")
    return _ThreadMaps(tuple(simplified), tuple(reads))


def _concatenate_maps(
    maps: ModuleMaps, fusion: Instruction, emitter: Emitter, launch: Launch, number: int
) -> _ThreadMaps:
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
                return _ThreadMaps(reason=f"unknown indexing: {source}", undefined=True)
            mine += [compose(launch.thread_map, m) for m in source]
    if reads:
        return _ThreadMaps(tuple(simplified), tuple(reads))
    if (
        computation.root is not hero
        and maps.output_to_input(maps.module.entry, fusion)[number].maps
    ):
        return _ThreadMaps(reason="read by the concatenate emitter's epilogue: not modelled")
    return _ThreadMaps()


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
    found = view_maps.to_parameters(simplified=not pointwise)[number].maps
    if isinstance(found, Undefined):
        return found
    return [counted.map for counted in found]


def _unsupported_as_reason(
    maps: ModuleMaps,
    fusion: Instruction,
    emitter: Emitter,
    launch: Launch,
    number: int,
    device: Device,
) -> OperandCoalescing:
    """`_operand`, with what the maps or layouts do not model (a split
    config, …) as the operand's reason rather than the whole report's
    failure."""
    try:
        return _operand(maps, fusion, emitter, launch, number, device)
    except UnsupportedError as error:
        name = maps.module.entry.operand_instructions(fusion)[number].name
        return OperandCoalescing(number, name, 8, None, (), None, 0, reason=str(error))


def _operand(
    maps: ModuleMaps,
    fusion: Instruction,
    emitter: Emitter,
    launch: Launch,
    number: int,
    device: Device,
) -> OperandCoalescing:
    module = maps.module
    operand = module.entry.operand_instructions(fusion)[number]
    shape = operand.shape
    bits = slot_bits(shape) if not shape.is_tuple else 8
    ideal = -(-device.warp_size * launch.unroll * bits // (device.sector_bytes * 8))
    base = OperandCoalescing(number, operand.name, bits, True, (), None, ideal)
    if shape.is_tuple:
        return replace(base, reason="a tuple operand has no single buffer")
    if emitter.kind == "concatenate":
        found = _concatenate_maps(maps, fusion, emitter, launch, number)
    elif emitter.mapping is None:
        found = _loop_maps(maps, fusion, launch, number, device)
    else:
        found = _hero_input_maps(maps, fusion, emitter, number)
    if found.reason is not None:
        return replace(base, xla_coalesced=not found.undefined, reason=found.reason)
    if shape.rank == 0:
        xla = True
    else:
        xla_offsets = physical_offset(_untiled(shape))
        xla = all(
            first_warp_coalesced(simplify(compose(m, xla_offsets)).map, element_bytes=-(-bits // 8))
            for m in _unique(list(found.simplified))
        )
    offsets = physical_offset(shape)
    linearized = tuple(simplify(compose(m, offsets)).map for m in _unique(list(found.reads)))
    base = replace(base, xla_coalesced=xla, linearized=linearized)
    if any(m.rt_vars for m in linearized):
        return replace(base, reason="the offsets depend on runtime values")
    counts: list[SectorCounts] = []
    loads: dict[int, list[IndexingMap]] = {}
    for indexing in linearized:
        loads.setdefault(len(indexing.range_vars), []).append(indexing)
    for group in loads.values():
        request = request_map(group, launch)
        counted = count_sectors(request, element_bits=bits, sector_bytes=device.sector_bytes)
        if counted is None:
            return replace(base, reason="the translation proof or the count ran out of budget")
        counts.append(counted)
    return replace(base, sectors=_combined(counts))


def _untiled(shape: Shape) -> Shape:
    layout = shape.layout_or_default
    return replace(shape, layout=replace(layout, tiles=(), tail_padding_alignment=1))


def _unique(indexing_maps: list[IndexingMap]) -> list[IndexingMap]:
    return list(dict.fromkeys(indexing_maps))


def request_map(pieces: list[IndexingMap], launch: Launch) -> RequestMap:
    """The pieces of one load (thread dims; the operand's loop ids, then
    the launch's symbols) as maps of ``(r, loop ids…)`` with ``(lane,
    vector id)`` as symbols (`sectors`): every symbol but the launch's
    vector one is a loop id."""
    return RequestMap(tuple(_requests(m, launch) for m in pieces), launch.unroll, launch.warp_size)


def _requests(linearized: IndexingMap, launch: Launch) -> IndexingMap:
    warp = launch.warp_size
    per_block = -(-launch.threads_per_block // warp)
    grid_x, grid_y, _ = launch.grid
    own = len(launch.thread_map.range_vars)
    vector_index = len(linearized.range_vars) - own + launch.vector_symbol
    loops = [k for k in range(len(linearized.range_vars)) if k != vector_index]
    r, lane = dim(0), range_var(0)
    thread = (r % per_block) * warp + lane
    values: dict[int, Expr] = {
        0: thread,
        1: const(0),
        2: const(0),
        3: (r // per_block) % grid_x,
        4: r // (per_block * grid_x),
        5: const(0),
    }

    def place(v: Var) -> Expr:
        if v.kind is VarKind.DIM:
            return values[v.index]
        return range_var(1) if v.index == vector_index else dim(1 + loops.index(v.index))

    requests = grid_y * grid_x * per_block
    constraints = [(substitute(e, place), b) for e, b in linearized.constraints]
    constraints.append((thread, Interval(0, launch.threads_per_block - 1)))
    mapped = IndexingMap.create(
        [Interval(0, requests - 1)] + [linearized.range_vars[k].bounds for k in loops],
        [substitute(e, place) for e in linearized.results] or [const(0)],
        range_vars=[Interval(0, warp - 1), linearized.range_vars[vector_index].bounds],
        constraints=constraints,
    )
    return simplify(mapped).map


def _combined(counts: list[SectorCounts]) -> SectorCounts:
    """The counts of several loads of one operand together (none: an
    unused operand, no request)."""
    present = [c for c in counts if c.requests] or counts[:1]
    if not present:
        return SectorCounts(0, 0, 0, 0, 0, Request((), 0, 0, 0), 1, 0, 0)
    worst = max(present, key=lambda c: c.maximum)
    return SectorCounts(
        requests=sum(c.requests for c in present),
        minimum=min(c.minimum for c in present),
        maximum=worst.maximum,
        total=sum(c.total for c in present),
        at_ideal=sum(c.at_ideal for c in present),
        worst=worst.worst,
        period=math.lcm(*(c.period for c in present)) if present else 1,
        breaks=sum(c.breaks for c in present),
        counted=sum(c.counted for c in counts),
    )
