"""The indexing maps of a whole module, computed once per run and shared by
every check: per instruction, output→input maps (simplified, and raw for the
simplification check) and input→output maps, fusions and calls composed.

Composed maps are merged when isl proves them equal as relations (an
exhausted budget keeps both: a union with a duplicate is still exact).

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[4,8] parameter(0)
...   ROOT t = f32[8,4] transpose(p0), dimensions={1,0}
... }''')
>>> maps = ModuleMaps(module)
>>> [str(m.map).splitlines()[0] for m in maps.input_to_output(module.entry, module.entry.root, 0)[0].maps]
['(d0, d1) -> (d1, d0),']
"""

from __future__ import annotations

from verifier.bridges.isl import relations_equal
from verifier.expr.indexing_map import IndexingMap
from verifier.fusion.compose import ComposedIndexing, Composer
from verifier.hlo.module import Computation, Instruction, Module
from verifier.simplify import simplify_relation

_Place = tuple[str, str, int]


def _raw(indexing_map: IndexingMap) -> IndexingMap:
    return indexing_map


def _simplified(indexing_map: IndexingMap) -> IndexingMap:
    return simplify_relation(indexing_map)


def _equal_relations(a: IndexingMap, b: IndexingMap) -> bool:
    return relations_equal(a, b) is True


class ModuleMaps:
    """Memoised composed maps of `module` (one instance per run)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._simplified = Composer(module, transform=_simplified, same=_equal_relations)
        self._raw = Composer(module, transform=_raw, same=_equal_relations)
        self._o2i: dict[_Place, tuple[ComposedIndexing, ...]] = {}
        self._raw_o2i: dict[_Place, tuple[ComposedIndexing, ...]] = {}
        self._i2o: dict[_Place, tuple[ComposedIndexing, ...]] = {}

    def output_to_input(
        self, computation: Computation, instruction: Instruction, output: int
    ) -> tuple[ComposedIndexing, ...]:
        """Per operand: the simplified maps from output `output`."""
        place = (computation.name, instruction.name, output)
        if place not in self._o2i:
            self._o2i[place] = self._simplified.output_to_input(computation, instruction, output)
        return self._o2i[place]

    def raw_output_to_input(
        self, computation: Computation, instruction: Instruction, output: int
    ) -> tuple[ComposedIndexing, ...]:
        """Per operand: the maps from output `output`, composed unsimplified."""
        place = (computation.name, instruction.name, output)
        if place not in self._raw_o2i:
            self._raw_o2i[place] = self._raw.output_to_input(computation, instruction, output)
        return self._raw_o2i[place]

    def input_to_output(
        self, computation: Computation, instruction: Instruction, operand: int
    ) -> tuple[ComposedIndexing, ...]:
        """Per output: the simplified maps from operand `operand`."""
        place = (computation.name, instruction.name, operand)
        if place not in self._i2o:
            self._i2o[place] = self._simplified.input_to_output(computation, instruction, operand)
        return self._i2o[place]
