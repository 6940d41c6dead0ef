"""XLA's grouped indexing of a fusion, from verifier's maps: for each
instruction of a fusion (and each operand it reads from outside), the maps
from a start instruction's output to that instruction's output — what XLA's
``ComputeGroupedOutputToInputIndexing`` and ``GroupIndexingMapsByProducers``
return.

A fusion is given as XLA's ``HloFusionAdaptor`` gives it: one instruction
(a fusion's called computation, whose parameters stand for the fusion's
operands outside) or a producer and its consumer.  Maps are composed from
the start towards the operands (each instruction's own maps,
`verifier.analysis.ModuleMaps`), users before producers; maps equal as
relations are kept once.

>>> from verifier.hlo import parse_module
>>> from verifier.analysis import ModuleMaps
>>> m = parse_module('''HloModule m
... ENTRY e {
...   p0 = f32[4,8] parameter(0)
...   t = f32[8,4] transpose(p0), dimensions={1,0}
...   ROOT a = f32[8,4] add(t, t)
... }''')
>>> start = Place(m.entry, m.entry.root)
>>> adaptor = producer_consumer(Place(m.entry, m.entry.instruction("t")), start)
>>> groups = grouped(ModuleMaps(m), adaptor, start)
>>> [(name, [str(x).splitlines()[0] for x in maps]) for (_, name), maps in groups.items()]
[('a', ['(d0, d1) -> (d0, d1),']), ('t', ['(d0, d1) -> (d0, d1),']), ('p0', ['(d0, d1) -> (d1, d0),'])]
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.analysis import ModuleMaps
from verifier.bridges.isl_questions import relations_equal
from verifier.errors import UnsupportedError
from verifier.expr import IndexingMap, Undefined, compose
from verifier.hlo import Computation, Instruction


@dataclass(frozen=True)
class Place:
    """An instruction and the computation it is in."""

    computation: Computation
    instruction: Instruction

    @property
    def key(self) -> tuple[str, str]:
        return (self.computation.name, self.instruction.name)


@dataclass(frozen=True)
class Adaptor:
    """The instructions of a fusion (`members`), its roots, and, for a
    fusion instruction, where it is called (its parameters' operands)."""

    members: frozenset[tuple[str, str]]
    roots: tuple[Place, ...]
    caller: Place | None = None


def single(maps: ModuleMaps, place: Place) -> Adaptor:
    """``HloFusionAdaptor::ForInstruction``: a fusion's called computation, or one instruction."""
    instruction = place.instruction
    if instruction.opcode == "fusion" and instruction.called_computations:
        called = maps.module.computation(instruction.called_computations[0])
        members = frozenset(Place(called, i).key for i in called.instructions)
        return Adaptor(members, (Place(called, called.root),), place)
    return Adaptor(frozenset({place.key}), (place,))


def producer_consumer(producer: Place, consumer: Place) -> Adaptor:
    """``HloFusionAdaptor::ForProducerConsumer``: the two instructions."""
    return Adaptor(frozenset({producer.key, consumer.key}), (consumer,))


def operand(maps: ModuleMaps, adaptor: Adaptor, place: Place, index: int) -> Place:
    """Operand `index` of `place`; a parameter of a fused computation is the
    fusion's operand outside it."""
    read = place.computation.operand_instructions(place.instruction)[index]
    caller = adaptor.caller
    number = read.parameter_number if read.opcode == "parameter" else None
    if caller is not None and number is not None and place.key in adaptor.members:
        outside = caller.computation.operand_instructions(caller.instruction)
        if number < len(outside):
            return Place(caller.computation, outside[number])
    return Place(place.computation, read)


def grouped(
    maps: ModuleMaps, adaptor: Adaptor, start: Place
) -> dict[tuple[str, str], list[IndexingMap]]:
    """Per instruction reached from `start` (members, and the operands they
    read from outside), the maps from `start`'s output to its output.
    Raises `UnsupportedError` when an instruction's maps are unknown."""
    shape = start.instruction.shape
    if shape.tuple_shapes:  # a variadic op: its first output's index, as XLA's
        shape = shape.tuple_shapes[0]
    if shape.is_tuple:
        raise UnsupportedError("grouped indexing of an empty tuple")
    found: dict[tuple[str, str], list[IndexingMap]] = {
        start.key: [IndexingMap.identity(shape.dimensions)]
    }
    places = {start.key: start}
    for place in _users_first(maps, adaptor, start):
        if place.key not in adaptor.members:
            continue
        view = maps.instruction(place.computation, place.instruction)
        for leaf, composed in view.o2i(view.outputs[0]):
            if isinstance(composed.maps, Undefined):
                raise UnsupportedError(f"{place.instruction.name}: {composed.maps}")
            target = operand(maps, adaptor, place, leaf.operand)
            places.setdefault(target.key, target)
            bucket = found.setdefault(target.key, [])
            for before in found[place.key]:
                for counted in composed.maps:
                    _add_once(bucket, compose(before, counted.map))
    return found


def _add_once(bucket: list[IndexingMap], indexing_map: IndexingMap) -> None:
    if not any(m == indexing_map or relations_equal(m, indexing_map) is True for m in bucket):
        bucket.append(indexing_map)


def _users_first(maps: ModuleMaps, adaptor: Adaptor, start: Place) -> list[Place]:
    """The places reachable from `start` through members, each after every
    member that reads it (reverse post-order)."""
    seen: set[tuple[str, str]] = set()
    order: list[Place] = []

    def visit(place: Place) -> None:
        if place.key in seen:
            return
        seen.add(place.key)
        if place.key in adaptor.members:
            for index in range(len(place.instruction.operands)):
                visit(operand(maps, adaptor, place, index))
        order.append(place)

    visit(start)
    return order[::-1]
