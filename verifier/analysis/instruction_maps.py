"""One instruction's maps, each labelled with the leaves it relates: the
door every consumer of maps goes through.

`ModuleMaps.instruction(computation, instruction)` gives an
`InstructionMaps`: the instruction's output leaves and operand leaves
(`OutputLeaf`, `OperandLeaf`: which array of a tuple-shaped value), and
its composed maps (`ComposedIndexing`: a fusion's or a call's composed
through the computation it calls) as pairs of a leaf and its maps:

* ``o2i(output)``: per operand leaf, the maps from output `output`'s index
  to the operand elements it reads — `ToOperand` pairs;
* ``i2o(operand)``: per output leaf, the maps from operand leaf `operand`'s
  index to the output elements it reaches — `ToOutput` pairs;
* ``reads(output)``: as ``o2i``, with every range variable of every use
  path kept (what counting reads needs, `verifier.analysis.module_maps`).

A consumer — a check, a count, a report — reads which leaf a map is about
from its pair, never from a position in a tuple.  Maps are computed when
first asked and kept (simplified and raw apart), so every check of an
instruction shares them.  ``add(p0, t)`` with ``t = transpose(p0)``:

>>> from verifier.analysis import ModuleMaps
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[4,4] parameter(0)
...   t = f32[4,4] transpose(p0), dimensions={1,0}
...   ROOT a = f32[4,4] add(p0, t)
... }''')
>>> view = ModuleMaps(module).instruction(module.entry, module.entry.root)
>>> [(output.label, operand.label) for output in view.outputs for operand, _ in view.o2i(output)]
[('output 0', 'operand 0 (p0)'), ('output 0', 'operand 1 (t)')]
>>> (p0, t) = view.operands
>>> [(output.label, str(composed.maps[0].map).splitlines()[0]) for output, composed in view.i2o(t)]
[('output 0', '(d0, d1) -> (d0, d1),')]
"""

from __future__ import annotations

import itertools
from functools import cached_property
from typing import TYPE_CHECKING, Literal, NamedTuple

from verifier.fusion.compose import maps_follow_signature
from verifier.fusion.composed import ComposedIndexing, CountedMap, Progress, Step, quote_names
from verifier.hlo import CALLING_OPCODES, Computation, Instruction
from verifier.indexing.leaves import (
    OperandLeaf,
    OutputLeaf,
    instruction_operand_leaves,
    output_leaves,
)
from verifier.indexing.registry import Indexing

if TYPE_CHECKING:
    from verifier.analysis.module_maps import ModuleMaps

__all__ = [
    "ComposedIndexing",
    "CountedMap",
    "Indexing",
    "InstructionMaps",
    "OperandLeaf",
    "OutputLeaf",
    "Progress",
    "Step",
    "ToOperand",
    "ToOutput",
]


class ToOperand(NamedTuple):
    """The maps from one output to operand leaf `operand` (o2i)."""

    operand: OperandLeaf
    maps: ComposedIndexing


class ToOutput(NamedTuple):
    """The maps from one operand leaf to output leaf `output` (i2o)."""

    output: OutputLeaf
    maps: ComposedIndexing


_Direction = Literal["o2i", "i2o"]
MapKind = Literal["simplified", "raw", "reads"]


class InstructionMaps:
    """The labelled maps of `instruction` of `computation` (module
    docstring), asked of `module_maps` once each; not a value — it keeps
    what it was asked, which `quotes_name` reads."""

    def __init__(
        self, module_maps: ModuleMaps, computation: Computation, instruction: Instruction
    ) -> None:
        self.module_maps = module_maps
        self.computation = computation
        self.instruction = instruction
        # The maps asked so far, per (direction and kind, output or operand leaf number).
        self._asked: dict[tuple[_Direction, MapKind, int], tuple[ComposedIndexing, ...]] = {}
        # The pairs `i2o` gave, per (kind, operand leaf number): every check
        # asks each operand leaf of a 500-array tuple again.
        self._to_outputs: dict[tuple[MapKind, int], tuple[ToOutput, ...]] = {}

    @cached_property
    def outputs(self) -> tuple[OutputLeaf, ...]:
        """The instruction's output leaves (one, output 0, for an array)."""
        return output_leaves(self.instruction.shape)

    @cached_property
    def operands(self) -> tuple[OperandLeaf, ...]:
        """Every leaf of every operand, operand by operand."""
        return instruction_operand_leaves(self.computation, self.instruction)

    @property
    def composed(self) -> bool:
        """Whether the maps are composed through a computation the
        instruction calls (a fusion, call, conditional, async-start or
        while loop) rather than its opcode's own rule."""
        return self.instruction.opcode in CALLING_OPCODES

    @property
    def signature(self) -> int | None:
        """The instruction's signature when its maps, if they quote no
        name, are a function of it (`verifier.indexing.signature`): every
        instruction of one signature then has the same maps.  None when
        the module's maps are not memoised on structure, and for a while
        loop (its trip count reads a value two instructions up)."""
        signatures = self.module_maps.signatures
        if signatures is None or not maps_follow_signature(self.instruction):
            return None
        return signatures.instruction(self.computation, self.instruction)

    def o2i(self, output: OutputLeaf, *, simplified: bool = True) -> tuple[ToOperand, ...]:
        """Per operand leaf: the maps from `output`'s index to the elements read."""
        kind: MapKind = "simplified" if simplified else "raw"
        return tuple(map(ToOperand, self.operands, self._maps("o2i", kind, output.number)))

    def i2o(self, operand: OperandLeaf, *, simplified: bool = True) -> tuple[ToOutput, ...]:
        """Per output leaf: the maps from `operand`'s index to the output
        elements it reaches."""
        kind: MapKind = "simplified" if simplified else "raw"
        key = (kind, operand.number)
        found = self._to_outputs.get(key)
        if found is None:
            found = self._to_outputs[key] = tuple(
                map(ToOutput, self.outputs, self._maps("i2o", kind, operand.number))
            )
        return found

    def reads(self, output: OutputLeaf) -> tuple[ToOperand, ...]:
        """Per operand leaf: maps from `output`'s index whose domain points
        are the reads of the operand (`ModuleMaps.reads`)."""
        return tuple(map(ToOperand, self.operands, self._maps("o2i", "reads", output.number)))

    @property
    def quotes_name(self) -> bool:
        """Whether any maps asked so far quote a name
        (`ComposedIndexing.quotes_name`): answers that read none hold at
        every instruction of the same `signature`."""
        return quote_names(itertools.chain.from_iterable(self._asked.values()))

    def _maps(
        self, direction: _Direction, kind: MapKind, number: int
    ) -> tuple[ComposedIndexing, ...]:
        key = (direction, kind, number)
        found = self._asked.get(key)
        if found is None:
            found = self._asked[key] = self._ask(direction, kind, number)
            assert len(found) == len(self.operands if direction == "o2i" else self.outputs)
        return found

    def _ask(
        self, direction: _Direction, kind: MapKind, number: int
    ) -> tuple[ComposedIndexing, ...]:
        composer = self.module_maps._composer(kind)
        if direction == "o2i":
            return composer.composed_output_to_input(self.computation, self.instruction, number)
        return composer.composed_input_to_output(self.computation, self.instruction, number)
