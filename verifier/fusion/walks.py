"""Walking one computation's dataflow, extending map sets at each instruction.

Output→input maps are walked from the root to the parameters in reverse
topological order (every user before its producers): the set reaching each
output leaf of an instruction is extended (`Extension.extend`) by the
instruction's own maps to the operand leaves it reads, merged there with
the sets of its other users.  Input→output maps are walked from one
parameter leaf in topological order (every producer first), each value's
set extended by its users' maps to their outputs.  Equal maps merge at every
node with a multiplicity (the number of use paths), so diamonds cost
nothing extra: paths are never enumerated.  ``add(p0, p0)`` reaches p0
through ``(d0) -> (d0)`` twice:

>>> from verifier.fusion.map_sets import Extension
>>> from verifier.hlo import parse_module
>>> from verifier.indexing.analysis import own_output_to_input
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[4] parameter(0)
...   ROOT a = f32[4] add(p0, p0)
... }''')
>>> def read(computation, instruction, direction, number):
...     own = own_output_to_input(computation, instruction, number)
...     return [(k, ComposedIndexing(tuple(map(CountedMap, maps)))) for k, maps in enumerate(own)]
>>> walks = Walks(Extension(lambda m: m, None), read)
>>> (p0,) = walks.to_parameters(module.entry, 0)
>>> [(str(c.map).splitlines()[0], c.multiplicity) for c in p0.maps]
[('(d0) -> (d0),', 2)]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from verifier.expr import IndexingMap
from verifier.fusion import graph
from verifier.fusion.composed import ComposedIndexing, CountedMap, Progress
from verifier.fusion.graph import Dataflow
from verifier.fusion.map_sets import Extension, MapSet, as_composed, frozen_key
from verifier.hlo import Computation, Instruction
from verifier.indexing import analysis
from verifier.indexing import leaves as leaf_lists
from verifier.indexing.leaves import OperandLeaf, output_leaves

Read = Callable[[Computation, Instruction, str, int], Sequence[tuple[int, ComposedIndexing]]]
"""An instruction's maps that read something, with their positions: in
direction ``o2i`` from an output leaf (per operand leaf), ``i2o`` from an
operand leaf (per output leaf)."""

_Value = tuple[str, int]
"""One array of a computation: (instruction name, output leaf number)."""


class Walks:
    """The two walks over computations of one module, each instruction's
    maps given by `read`, each set extended by `extension`.

    Mutable on purpose: its memo tables grow as computations are walked;
    every answer is a function of its arguments."""

    def __init__(self, extension: Extension, read: Read) -> None:
        self.extension = extension
        self.read = read
        # The memo tables, each filled once per key: the dataflow of each
        # computation (a fusion is composed once per parameter and per
        # output); operand leaves per (computation, instruction), parameter
        # leaves per computation, the number of each operand's first leaf
        # per (computation, instruction) (a fused computation is walked
        # once per parameter and per output); what the rest of a computation
        # makes of the maps one value holds, per (computation, value, those
        # maps), when no other value holding maps is still to be read
        # (`to_outputs`).
        self._dataflows: dict[str, Dataflow] = {}
        self._leaves: dict[tuple[str, str], tuple[OperandLeaf, ...]] = {}
        self._parameters: dict[str, tuple[OperandLeaf, ...]] = {}
        self._first_leaf: dict[tuple[str, str], tuple[int, ...]] = {}
        self._remainders: dict[tuple[str, str, Hashable], tuple[ComposedIndexing, ...]] = {}
        # the operand leaves a get-tuple-element reads (those of its
        # element) per (computation, instruction).
        self._element_leaves: dict[tuple[str, str], range] = {}

    def to_parameters(
        self, computation: Computation, output: int, progress: Progress | None = None
    ) -> tuple[ComposedIndexing, ...]:
        """Walk the instructions upstream of the root, users first,
        extending the maps that reach each output leaf to its operand leaves."""
        root = computation.root
        shape = output_leaves(root.shape)[output].shape
        sets: dict[_Value, MapSet] = {
            (root.name, output): MapSet([CountedMap(IndexingMap.identity(shape.dimensions))])
        }
        total = len(computation.instructions)
        upstream = self.dataflow(computation).upstream(root.name)
        for done, instruction in enumerate(upstream, start=1):
            if progress is not None:
                progress(done, total)
            if instruction.opcode == "parameter":
                continue
            for output_index in range(analysis.output_count(instruction)):
                current = sets.pop((instruction.name, output_index), None)
                if current is not None:
                    self._propagate(computation, instruction, output_index, current, sets)
        return tuple(
            as_composed(sets.get((leaf.name, leaf.leaf)))
            for leaf in self.parameter_leaves(computation)
        )

    def _propagate(
        self,
        computation: Computation,
        instruction: Instruction,
        output_index: int,
        current: MapSet,
        sets: dict[_Value, MapSet],
    ) -> None:
        """Extend the maps reaching output `output_index` of `instruction` to
        the operand leaves it reads."""
        leaves = self.operand_leaves(computation, instruction)
        for number, read in self.read(computation, instruction, "o2i", output_index):
            leaf = leaves[number]
            destination = sets.setdefault((leaf.name, leaf.leaf), MapSet())
            self.extension.extend(destination, current, read)

    def to_outputs(self, computation: Computation, parameter: int) -> tuple[ComposedIndexing, ...]:
        """Walk the instructions downstream of the parameter, producers
        first, extending the maps that reach each one to its outputs.

        Where the last value still to be read that holds maps is the one
        just made, the rest of the walk depends on that value and its maps
        alone: it is taken from an earlier walk that got there with the
        same maps (`_remainders`).  A chain that every parameter of a
        layer-by-layer fusion joins in turn (XLA's recomputation through
        every layer: 286 parameters, 937 instructions) is walked once, not
        once per parameter."""
        root = computation.root
        flow = self.dataflow(computation)
        start = self.parameter_leaves(computation)[parameter]
        # Per instruction, the maps reaching each of its output leaves.
        sets: dict[str, dict[int, MapSet]] = {
            start.name: {
                start.leaf: MapSet([CountedMap(IndexingMap.identity(start.shape.dimensions))])
            }
        }
        # Per value holding maps, how many of its users are still to be
        # walked (the root: always one, its maps are the answer).
        unread = {start.name: flow.user_count(start.name)}
        passed: list[tuple[str, str, Hashable]] = []
        for instruction in flow.downstream(start.name):
            # One whose operands hold no maps (they stopped on the way: a
            # value not read) is passed by.
            if instruction.opcode == "parameter" or not any(
                name in sets for name in instruction.operands
            ):
                continue
            self._propagate_forward(computation, instruction, sets)
            for name in dict.fromkeys(instruction.operands):
                if name in unread and name != root.name:
                    unread[name] -= 1
                    if not unread[name]:
                        del unread[name]
            name, users = instruction.name, flow.user_count(instruction.name)
            if name in sets and (name == root.name or users):
                unread[name] = users or 1
                if len(unread) == 1 and name != root.name:
                    key = (computation.name, name, frozen_key(sets[name]))
                    found = self._remainders.get(key)
                    if found is not None:
                        return self._remember(passed, found)
                    passed.append(key)
        reaching = sets.get(root.name, {})
        return self._remember(
            passed,
            tuple(
                as_composed(reaching.get(output)) for output in range(analysis.output_count(root))
            ),
        )

    def _remember(
        self, passed: list[tuple[str, str, Hashable]], found: tuple[ComposedIndexing, ...]
    ) -> tuple[ComposedIndexing, ...]:
        for key in passed:
            self._remainders[key] = found
        return found

    def _propagate_forward(
        self,
        computation: Computation,
        instruction: Instruction,
        sets: dict[str, dict[int, MapSet]],
    ) -> None:
        """Extend the maps reaching `instruction`'s operand leaves to its
        outputs: only the leaves that hold maps are visited (a loop body's
        get-tuple-elements each read one leaf of a state of hundreds)."""
        outputs: dict[int, MapSet] = {}
        element = (
            self.element_leaves(computation, instruction)
            if instruction.opcode == "get-tuple-element"
            else None
        )
        for operand, name in zip(
            self.first_leaves(computation, instruction), instruction.operands, strict=True
        ):
            reaching = sets.get(name, {})
            # A get-tuple-element reads nothing of the other elements'
            # leaves: those of its element alone are asked, in order.
            leaves = (
                sorted(reaching)
                if element is None or len(element) >= len(reaching)
                else [leaf for leaf in element if leaf in reaching]
            )
            for leaf in leaves:
                for output, reached in self.read(computation, instruction, "i2o", operand + leaf):
                    destination = outputs.setdefault(output, MapSet())
                    self.extension.extend(destination, reaching[leaf], reached)
        if outputs:
            sets[instruction.name] = outputs

    def element_leaves(self, computation: Computation, instruction: Instruction) -> range:
        """The leaves of get-tuple-element `instruction`'s operand inside
        the element it takes (numbered depth first: consecutive)."""
        key = (computation.name, instruction.name)
        found = self._element_leaves.get(key)
        if found is None:
            element = instruction.integer("index")
            (operand,) = instruction.operands
            numbers = [
                number
                for number, (index, _) in enumerate(computation.instruction(operand).shape.leaves)
                if index[:1] == (element,)
            ]
            found = self._element_leaves[key] = (
                range(numbers[0], numbers[-1] + 1) if numbers else range(0)
            )
        return found

    def parameter_leaves(self, computation: Computation) -> tuple[OperandLeaf, ...]:
        found = self._parameters.get(computation.name)
        if found is None:
            found = self._parameters[computation.name] = leaf_lists.parameter_leaves(computation)
        return found

    def first_leaves(self, computation: Computation, instruction: Instruction) -> tuple[int, ...]:
        key = (computation.name, instruction.name)
        found = self._first_leaf.get(key)
        if found is None:
            found = self._first_leaf[key] = leaf_lists.first_operand_leaves(
                computation, instruction
            )
        return found

    def dataflow(self, computation: Computation) -> Dataflow:
        found = self._dataflows.get(computation.name)
        if found is None:
            found = self._dataflows[computation.name] = graph.dataflow(computation)
        return found

    def operand_leaves(
        self, computation: Computation, instruction: Instruction
    ) -> tuple[OperandLeaf, ...]:
        key = (computation.name, instruction.name)
        leaves = self._leaves.get(key)
        if leaves is None:
            leaves = self._leaves[key] = leaf_lists.instruction_operand_leaves(
                computation, instruction
            )
        return leaves
