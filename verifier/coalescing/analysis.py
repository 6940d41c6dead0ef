"""Coalescing of one fusion: the emitter XLA picks and its launch
(`emitter`), every operand's loads (`loads`) linearised by its physical
layout (`verifier.indexing.layout`: minor-to-major, tiles, element size),
their exact sectors per warp request (`requests`, `sectors`), and XLA's two
verdicts beside them (`xla_verdict`: its first warp on XLA's own
linearisation, without tiles).  Maps with the same loop ids whose domains
never meet are one load (a pad's edges, a concatenate's pieces), other
reads are loads of their own (`load_groups`); an operand read at runtime
offsets (a dynamic-slice's) is counted at every runtime alignment and
reported at its worst (`runtime`); one read through per-thread runtime
values (a gather's indices) is not counted.

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

from dataclasses import dataclass, replace
from fractions import Fraction

from verifier.analysis import ModuleMaps
from verifier.analysis.layout import physical_offset, slot_bits
from verifier.coalescing.devices import Device
from verifier.coalescing.emitter import (
    Emitter,
    Launch,
    choose_emitter,
    concatenate_launch,
    indexing_shape,
    loop_launch,
    unroll_factor,
)
from verifier.coalescing.load_groups import loads
from verifier.coalescing.loads import concatenate_loads, hero_input_loads, loop_loads
from verifier.coalescing.reduction import emitted_by_reduction_emitter, reduction_dims
from verifier.coalescing.requests import request_map
from verifier.coalescing.runtime import assignments, fixed, runtime_keys
from verifier.coalescing.sectors import SectorCounts, combined, count_sectors
from verifier.coalescing.xla_verdict import Place, first_warp_coalesced, read_coalesced_heuristic
from verifier.errors import UnsupportedError, UsageError
from verifier.expr import (
    IndexingMap,
    compose,
)
from verifier.hlo import Instruction, Module, Shape
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
    runtime: RuntimeAlignments | None = None  # read at runtime offsets: `sectors` the worst

    @property
    def coalesced(self) -> bool | None:
        """Every request at its ideal sector count (None: not known), at
        every runtime alignment."""
        if self.sectors is None:
            return None
        if self.runtime is not None:
            return self.runtime.every_coalesced
        return self.sectors.at_ideal == self.sectors.requests


@dataclass(frozen=True)
class RuntimeAlignments:
    """An operand read at runtime offsets (`verifier.coalescing.runtime`):
    its runtime values (source instruction, and element when not a
    scalar), how many assignments of them were counted, the worst
    alignment's values (the operand's `sectors`: the most sectors per
    request on average, then the largest request), the best one's values
    and counts, and whether every assignment leaves every request at its
    ideal."""

    values: tuple[str, ...]
    counted: int
    worst: tuple[int, ...]
    best: tuple[int, ...]
    best_sectors: SectorCounts
    every_coalesced: bool


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
    if indexing_shape(fusion).num_elements == 0:
        raise UnsupportedError(
            f"'{fusion.name}' has an empty output {indexing_shape(fusion)}: XLA launches no thread"
        )
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
    except ValueError as error:  # a layout no buffer has (`physical_offset`, `slot_bits`)
        name = maps.module.entry.operand_instructions(fusion)[number].name
        raise UsageError(f"operand {number} ({name}) of '{fusion.name}': {error}") from error
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
        found = concatenate_loads(maps, fusion, emitter, launch, number)
    elif emitter.mapping is None:
        found = loop_loads(maps, fusion, launch, number, device)
    else:
        found = hero_input_loads(maps, fusion, emitter, number)
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
        return _at_runtime_offsets(base, linearized, launch, device)
    counts = _count(linearized, launch, bits, device)
    if counts is None:
        return replace(base, reason=BUDGET)
    return replace(base, sectors=counts)


BUDGET = "the translation proof or the count ran out of budget"


def _count(
    linearized: tuple[IndexingMap, ...], launch: Launch, bits: int, device: Device
) -> SectorCounts | None:
    """Every load's requests counted (`load_groups`), combined; None when
    a count ran out of budget."""
    counts: list[SectorCounts] = []
    for group in loads(list(linearized)):
        request = request_map(group, launch)
        counted = count_sectors(request, element_bits=bits, sector_bytes=device.sector_bytes)
        if counted is None:
            return None
        counts.append(counted)
    return combined(counts)


def _at_runtime_offsets(
    base: OperandCoalescing, linearized: tuple[IndexingMap, ...], launch: Launch, device: Device
) -> OperandCoalescing:
    """The counts of every runtime alignment (`runtime`): the worst one's
    as the operand's, the best one's beside them."""
    keys = runtime_keys(linearized)
    if isinstance(keys, str):
        return replace(base, reason=keys)
    bits = base.element_bits
    values = assignments(linearized, keys, bits, device.sector_bytes * 8)
    if isinstance(values, str):
        return replace(base, reason=values)
    counted: list[tuple[tuple[int, ...], SectorCounts]] = []
    for assignment in values:
        fixed_loads = tuple(_unique([fixed(m, keys, assignment) for m in linearized]))
        counts = _count(fixed_loads, launch, bits, device)
        if counts is None:
            return replace(base, reason=BUDGET)
        counted.append((assignment, counts))
    present = [c for c in counted if c[1].requests] or counted

    def badness(entry: tuple[tuple[int, ...], SectorCounts]) -> tuple[Fraction, int]:
        counts = entry[1]
        return (counts.mean if counts.requests else Fraction(0), counts.maximum)

    worst, best = max(present, key=badness), min(present, key=badness)
    names = tuple(
        f"{instruction}[{element}]" if element else instruction for instruction, element in keys
    )
    alignments = RuntimeAlignments(
        names,
        len(values),
        worst[0],
        best[0],
        best[1],
        all(c.at_ideal == c.requests for _, c in counted),
    )
    return replace(base, sectors=worst[1], runtime=alignments)


def _untiled(shape: Shape) -> Shape:
    layout = shape.layout_or_default
    return replace(shape, layout=replace(layout, tiles=(), tail_padding_alignment=1))


def _unique(indexing_maps: list[IndexingMap]) -> list[IndexingMap]:
    return list(dict.fromkeys(indexing_maps))
