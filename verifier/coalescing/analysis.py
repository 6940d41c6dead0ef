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
    fused_computation,
    indexing_shape,
    loop_launch,
    reduction_kind,
    unroll_factor,
)
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
from verifier.hlo import Instruction, Module, Shape
from verifier.indexing.layout import physical_offset, slot_bits
from verifier.simplify import simplify


@dataclass(frozen=True)
class OperandCoalescing:
    """One operand: XLA's verdict, the linearised maps and the exact counts
    (`sectors` None with `reason` when they are not known)."""

    operand: int
    name: str
    element_bits: int
    xla_coalesced: bool
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
    unroll = unroll_factor(module, fusion, device)
    launch = loop_launch(indexing_shape(fusion), unroll, device)
    operands = tuple(
        _operand(maps, fusion, launch, number, device) for number in range(len(fusion.operands))
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
        return reduction_kind(instruction, operand.shape, device.warp_size) is not None
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


def _operand(
    maps: ModuleMaps, fusion: Instruction, launch: Launch, number: int, device: Device
) -> OperandCoalescing:
    module = maps.module
    operand = module.entry.operand_instructions(fusion)[number]
    shape = operand.shape
    bits = slot_bits(shape) if not shape.is_tuple else 8
    ideal = -(-device.warp_size * launch.unroll * bits // (device.sector_bytes * 8))
    base = OperandCoalescing(number, operand.name, bits, True, (), None, ideal)
    if shape.is_tuple:
        return replace(base, reason="a tuple operand has no single buffer")
    simplified: list[IndexingMap] = []
    reads: list[IndexingMap] = []
    for leaf in _root_leaves(module, fusion):
        output = fusion.shape.leaves[leaf][1]
        if output.num_elements != indexing_shape(fusion).num_elements:
            return replace(base, reason="roots of different sizes")
        thread = loop_launch(output, launch.unroll, device).thread_to_output
        for mine, source in (
            (simplified, maps.output_to_input(module.entry, fusion, leaf)[number].maps),
            (reads, maps.reads(module.entry, fusion, leaf)[number].maps),
        ):
            if isinstance(source, Undefined):
                return replace(base, xla_coalesced=False, reason=f"unknown indexing: {source}")
            mine += [compose(thread, counted.map) for counted in source]
    if shape.rank == 0:
        xla = True
    else:
        xla_offsets = physical_offset(_untiled(shape))
        xla = all(
            first_warp_coalesced(simplify(compose(m, xla_offsets)).map, element_bytes=-(-bits // 8))
            for m in _unique(simplified)
        )
    offsets = physical_offset(shape)
    linearized = tuple(simplify(compose(m, offsets)).map for m in _unique(reads))
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
    """The pieces of one load (thread dims; loop ids, chunk, unroll id) as
    maps of ``(r, loop ids…)`` with ``(lane, unroll id)`` as symbols
    (`sectors`)."""
    return RequestMap(tuple(_requests(m, launch) for m in pieces), launch.unroll, launch.warp_size)


def _requests(linearized: IndexingMap, launch: Launch) -> IndexingMap:
    warp = launch.warp_size
    per_block = -(-launch.threads_per_block // warp)
    grid_x, grid_y, _ = launch.grid
    loops = len(linearized.range_vars) - 2
    chunks = linearized.range_vars[loops].bounds.size
    r, lane, vector = dim(0), range_var(0), range_var(1)
    thread = (r % per_block) * warp + lane
    values: dict[int, Expr] = {
        0: thread,
        1: const(0),
        2: const(0),
        3: (r // per_block) % grid_x,
        4: (r // (per_block * grid_x)) % grid_y,
        5: const(0),
    }

    def place(v: Var) -> Expr:
        if v.kind is VarKind.DIM:
            return values[v.index]
        if v.index < loops:
            return dim(1 + v.index)
        return r // (per_block * grid_x * grid_y) if v.index == loops else vector

    requests = chunks * grid_y * grid_x * per_block
    constraints = [(substitute(e, place), b) for e, b in linearized.constraints]
    constraints.append((thread, Interval(0, launch.threads_per_block - 1)))
    mapped = IndexingMap.create(
        [Interval(0, requests - 1)] + [v.bounds for v in linearized.range_vars[:loops]],
        [substitute(e, place) for e in linearized.results] or [const(0)],
        range_vars=[Interval(0, warp - 1), linearized.range_vars[loops + 1].bounds],
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
