"""Indexing maps of fusions and whole computations, composed along the graph.

For output ``k`` of a computation, sets of maps are propagated from the root
to the parameters in reverse topological order (every user before its
producers), composing each user's set with the user's own output→input maps
(`compose(consumer, producer)`).  Equal maps are merged at every node with a
multiplicity (the number of use paths), so diamonds cost nothing extra:
paths are never enumerated.  `Undefined` absorbs: once an operand's indexing
is unknown, every producer reached through it is unknown too.

The doc's ``p0 + transpose(p0)`` gives p0 two maps, ``(d0, d1) -> (d0, d1)``
and ``(d0, d1) -> (d1, d0)``; ``add(p0, p0)`` gives one map with
multiplicity 2.

Input→output maps go the other way: from one parameter, in topological
order (every producer before its users), each value's set of maps (parameter
index → the value's index) is composed with the user's own input→output maps
and merged at the user the same way.  For ``p0 + transpose(p0)`` parameter 0
reaches the output through ``(d0, d1) -> (d0, d1)`` and ``(d0, d1) -> (d1,
d0)``, the inverses of the output→input maps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from verifier.expr.indexing_map import IndexingMap, Undefined, compose
from verifier.fusion.graph import computation_graph, users_first_order
from verifier.hlo.module import Computation, Instruction, Module
from verifier.hlo.shape import Shape
from verifier.indexing import analysis
from verifier.indexing.registry import Indexing

MapTransform = Callable[[IndexingMap], IndexingMap]
MapEquality = Callable[[IndexingMap, IndexingMap], bool]

CALLING_OPCODES = frozenset({"fusion", "call"})

# Maps are tracked per array value; a whole tuple consumed by an op other than
# get-tuple-element has no element-to-element relation we can state.
_TUPLE_VALUE = Undefined("indexing through a whole tuple value (not a get-tuple-element)")


@dataclass(frozen=True)
class CountedMap:
    """A map and how many use paths produce it (reads per output element)."""

    map: IndexingMap
    multiplicity: int = 1


@dataclass
class _MapSet:
    """A growing union of maps with multiplicities, or unknown indexing."""

    maps: list[CountedMap] = field(default_factory=list)
    undefined: Undefined | None = None

    def add(self, counted: CountedMap, same: MapEquality) -> None:
        for position, existing in enumerate(self.maps):
            if existing.map == counted.map or same(existing.map, counted.map):
                self.maps[position] = CountedMap(
                    existing.map, existing.multiplicity + counted.multiplicity
                )
                return
        self.maps.append(counted)


@dataclass(frozen=True)
class ComposedIndexing:
    """Per operand (parameter) of a fusion or computation: its maps, or unknown."""

    maps: tuple[CountedMap, ...] | Undefined

    @property
    def indexing(self) -> Indexing:
        if isinstance(self.maps, Undefined):
            return self.maps
        return tuple(counted.map for counted in self.maps)


@dataclass(frozen=True)
class Composer:
    """Composes output→input maps through computations of `module`.

    `transform` is applied to every map it returns, each op's own and each
    composed one (the simplifier);
    `same` decides that two maps are equal as relations (e.g. isl equality)
    when they are not already identical.
    """

    module: Module
    transform: MapTransform = lambda m: m.remove_unused_symbols()
    same: MapEquality = lambda a, b: False
    # Users-first order per computation name, computed once (a fusion is
    # composed once per parameter and per output).
    _orders: dict[str, list[Instruction]] = field(default_factory=dict, compare=False)
    # Composed maps per (computation name, output or parameter), computed
    # once: a fused computation called from many places, or reached by many
    # map sets of its caller, is composed once.
    _outputs: dict[tuple[str, int], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )
    _inputs: dict[tuple[str, int], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )
    # An op's own maps per (computation, instruction, direction, output or
    # operand), transformed once: every check asks for the same place.
    _own_maps: dict[tuple[str, str, str, int], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )
    # `transform` applied once per distinct map (modules repeat the same
    # maps across outputs, fusions and layers).
    _transformed: dict[IndexingMap, IndexingMap] = field(default_factory=dict, compare=False)

    def _transform(self, indexing_map: IndexingMap) -> IndexingMap:
        result = self._transformed.get(indexing_map)
        if result is None:
            result = self._transformed[indexing_map] = self.transform(indexing_map)
        return result

    def _users_first(self, computation: Computation) -> list[Instruction]:
        order = self._orders.get(computation.name)
        if order is None:
            order = users_first_order(computation_graph(computation), computation)
            self._orders[computation.name] = order
        return order

    def output_to_input(
        self, computation: Computation, instruction: Instruction, output: int = 0
    ) -> tuple[ComposedIndexing, ...]:
        """Like `analysis.output_to_input`, with fusions and calls composed, and
        the multiplicity of each map."""
        if instruction.opcode in CALLING_OPCODES:
            called = self.module.computation(instruction.called_computations[0])
            return self.computation_output_to_input(called, output)
        key = (computation.name, instruction.name, "o2i", output)
        found = self._own_maps.get(key)
        if found is None:
            own = analysis.output_to_input(computation, instruction, output)
            found = self._own_maps[key] = self._own(own)
        return found

    def _own(self, indexings: tuple[Indexing, ...]) -> tuple[ComposedIndexing, ...]:
        """An op's own maps, transformed, each read once."""
        return tuple(
            ComposedIndexing(
                indexing
                if isinstance(indexing, Undefined)
                else tuple(CountedMap(self._transform(m)) for m in indexing)
            )
            for indexing in indexings
        )

    def computation_output_to_input(
        self, computation: Computation, output: int = 0
    ) -> tuple[ComposedIndexing, ...]:
        """For output `output` of `computation`: one entry per parameter."""
        key = (computation.name, output)
        found = self._outputs.get(key)
        if found is None:
            found = self._outputs[key] = self._compose_to_parameters(computation, output)
        return found

    def _compose_to_parameters(
        self, computation: Computation, output: int
    ) -> tuple[ComposedIndexing, ...]:
        sets: dict[tuple[str, int], _MapSet] = {}
        start = _root_target(computation, output)
        shape = _output_shape(computation.instruction(start[0]), start[1])
        sets[start] = _MapSet([CountedMap(IndexingMap.identity(shape.dimensions))])
        for instruction in self._users_first(computation):
            for output_index in range(analysis.output_count(instruction)):
                current = sets.pop((instruction.name, output_index), None)
                if current is None or instruction.opcode == "parameter":
                    if current is not None:
                        sets[(instruction.name, output_index)] = current
                    continue
                self._propagate(computation, instruction, output_index, current, sets)
        results: list[ComposedIndexing] = []
        for parameter in computation.parameters:
            found = sets.get((parameter.name, 0))
            if parameter.shape.tuple_shapes is not None:
                reached = any(name == parameter.name for name, _ in sets)
                results.append(ComposedIndexing(_TUPLE_VALUE if reached else ()))
            else:
                results.append(_composed(found))
        return tuple(results)

    def _propagate(
        self,
        computation: Computation,
        instruction: Instruction,
        output_index: int,
        current: _MapSet,
        sets: dict[tuple[str, int], _MapSet],
    ) -> None:
        if instruction.opcode == "get-tuple-element":
            target = (instruction.operands[0], instruction.integer("index"))
            self._merge_into(sets, target, current)
            return
        if instruction.opcode == "tuple":
            target = (instruction.operands[output_index], 0)
            self._merge_into(sets, target, current)
            return
        per_operand = self.output_to_input(computation, instruction, output_index)
        for operand_name, operand in zip(instruction.operands, per_operand, strict=True):
            tuple_shapes = computation.instruction(operand_name).shape.tuple_shapes
            if tuple_shapes is not None:
                for element in range(len(tuple_shapes)):
                    sets.setdefault((operand_name, element), _MapSet()).undefined = _TUPLE_VALUE
                continue
            destination = sets.setdefault((operand_name, 0), _MapSet())
            if current.undefined is not None:
                destination.undefined = current.undefined
                continue
            if isinstance(operand.maps, Undefined):
                destination.undefined = operand.maps
                continue
            self._compose_into(destination, current, operand.maps)

    def input_to_output(
        self, computation: Computation, instruction: Instruction, operand: int
    ) -> tuple[ComposedIndexing, ...]:
        """Like `analysis.input_to_output` (per output of `instruction`), with
        fusions and calls composed, and the multiplicity of each map."""
        if instruction.opcode in CALLING_OPCODES:
            called = self.module.computation(instruction.called_computations[0])
            return self.computation_input_to_output(called, operand)
        key = (computation.name, instruction.name, "i2o", operand)
        found = self._own_maps.get(key)
        if found is None:
            own = analysis.input_to_output(computation, instruction, operand)
            found = self._own_maps[key] = self._own(own)
        return found

    def computation_input_to_output(
        self, computation: Computation, parameter: int
    ) -> tuple[ComposedIndexing, ...]:
        """For parameter number `parameter` of `computation`: one entry per
        output of the computation (the root's tuple elements, or the root)."""
        key = (computation.name, parameter)
        found = self._inputs.get(key)
        if found is None:
            found = self._inputs[key] = self._compose_to_outputs(computation, parameter)
        return found

    def _compose_to_outputs(
        self, computation: Computation, parameter: int
    ) -> tuple[ComposedIndexing, ...]:
        root = computation.root
        outputs = analysis.output_count(root)
        start = computation.parameters[parameter]
        if start.shape.tuple_shapes is not None:
            return tuple(ComposedIndexing(_TUPLE_VALUE) for _ in range(outputs))
        sets: dict[tuple[str, int], _MapSet] = {
            (start.name, 0): _MapSet([CountedMap(IndexingMap.identity(start.shape.dimensions))])
        }
        for instruction in reversed(self._users_first(computation)):
            if instruction.opcode != "parameter":
                self._propagate_forward(computation, instruction, sets)
        return tuple(_composed(sets.get((root.name, output))) for output in range(outputs))

    def _propagate_forward(
        self,
        computation: Computation,
        instruction: Instruction,
        sets: dict[tuple[str, int], _MapSet],
    ) -> None:
        """Extend the maps reaching `instruction`'s operands to its outputs."""
        for position, operand_name in enumerate(instruction.operands):
            operand_shape = computation.instruction(operand_name).shape
            if instruction.opcode == "get-tuple-element":
                current = sets.get((operand_name, instruction.integer("index")))
                if current is not None:
                    self._merge_into(sets, (instruction.name, 0), current)
                continue
            if operand_shape.tuple_shapes is not None:
                if any(name == operand_name for name, _ in sets):
                    for output in range(analysis.output_count(instruction)):
                        sets.setdefault(
                            (instruction.name, output), _MapSet()
                        ).undefined = _TUPLE_VALUE
                continue
            current = sets.get((operand_name, 0))
            if current is None:
                continue
            if instruction.opcode == "tuple":
                self._merge_into(sets, (instruction.name, position), current)
                continue
            per_output = self.input_to_output(computation, instruction, position)
            for output, reached in enumerate(per_output):
                destination = sets.setdefault((instruction.name, output), _MapSet())
                if current.undefined is not None:
                    destination.undefined = current.undefined
                elif isinstance(reached.maps, Undefined):
                    destination.undefined = reached.maps
                else:
                    self._compose_into(destination, current, reached.maps)

    def _compose_into(
        self, destination: _MapSet, current: _MapSet, then: tuple[CountedMap, ...]
    ) -> None:
        """Add every ``first`` of `current` followed by every map of `then`."""
        for first in current.maps:
            for second in then:
                composed = self._transform(compose(first.map, second.map))
                if composed.is_known_empty:
                    continue
                multiplicity = first.multiplicity * second.multiplicity
                destination.add(CountedMap(composed, multiplicity), self.same)

    def _merge_into(
        self, sets: dict[tuple[str, int], _MapSet], target: tuple[str, int], current: _MapSet
    ) -> None:
        destination = sets.setdefault(target, _MapSet())
        if current.undefined is not None:
            destination.undefined = current.undefined
        for counted in current.maps:
            destination.add(counted, self.same)


def _composed(found: _MapSet | None) -> ComposedIndexing:
    """What reached one value: nothing (not read), unknown, or the maps."""
    if found is None:
        return ComposedIndexing(())
    if found.undefined is not None:
        return ComposedIndexing(found.undefined)
    return ComposedIndexing(tuple(found.maps))


def _root_target(computation: Computation, output: int) -> tuple[str, int]:
    """Where output `output` of the computation is produced: the root, or the
    root tuple's operand."""
    root = computation.root
    if root.opcode == "tuple":
        return (root.operands[output], 0)
    return (root.name, output)


def _output_shape(instruction: Instruction, output: int) -> Shape:
    shape = instruction.shape
    if shape.tuple_shapes is not None:
        return shape.tuple_shapes[output]
    return shape
