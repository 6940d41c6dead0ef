"""The indexing maps of a module: the one place they come from.

Every consumer — the checks of the gate, exact utilization, the `maps`
report, the research API — asks a `ModuleMaps` for the maps of an
instruction (`ModuleMaps.instruction`: an `InstructionMaps`, each map
paired with the leaves it relates; there is no other way to ask), so a
module's maps are composed, simplified and merged once per run, the same
way for all of them.  Per instruction and direction (fusions
and calls composed through their computation, `verifier.fusion.compose`):

* **simplified** maps (the default): each op's own maps and every
  composition simplified (`verifier.simplify`), and maps merged when isl
  proves them equal as relations — the maps users read and checks prove;
* **raw** maps (``o2i(output, simplified=False)``): composed as the rules give them, and
  merged only when identical.  They keep every range variable of every use
  path, which counting reads needs (``reduce(broadcast(p))`` reads ``p``
  once per reduced element, although its relation is the identity's).  An
  op's own raw maps are what the simplification check compares its
  simplified ones to; a composition is proved through the steps its
  simplified maps carry (`verifier.fusion.compose`), never against the raw
  composition, whose text grows exponentially along a chain of reshapes.

* **reads** maps (`InstructionMaps.reads`): composed and simplified pointwise
  as they are composed — the same dims, range and runtime variables as the
  raw maps, so the same domains and the same number of reads, but linear
  along a chain of reshapes where the raw composition's text grows
  exponentially.  Counting reads uses them.  A loop's unions join the
  pieces of one map (`verifier.fusion.pieces`): what a dynamic-update-slice
  per iteration leaves of the state stays one map, not 2^t.

Merging keeps a multiplicity per map: the number of use paths that read
through it (``add(p0, p0)`` reads p0 twice per output element).

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[4,8] parameter(0)
...   ROOT t = f32[8,4] transpose(p0), dimensions={1,0}
... }''')
>>> maps = ModuleMaps(module)
>>> view = maps.instruction(module.entry, module.entry.root)
>>> ((operand, composed),) = view.o2i(view.outputs[0])
>>> operand.label, [str(counted.map).splitlines()[0] for counted in composed.maps]
('operand 0 (p0)', ['(d0, d1) -> (d1, d0),'])
"""

from __future__ import annotations

from verifier.analysis.instruction_maps import InstructionMaps, MapKind, OutputLeaf, ToOperand
from verifier.expr import IndexingMap
from verifier.fusion.compose import Composer
from verifier.fusion.composed import Progress
from verifier.fusion.pieces import join_pieces
from verifier.hlo import Computation, Instruction, Module
from verifier.indexing.leaves import parameter_leaves
from verifier.indexing.signature import Signatures
from verifier.simplify import simplify, simplify_relation


def _simplified(indexing_map: IndexingMap) -> IndexingMap:
    # Composed maps are relations (symbols existential): every rule, the
    # symbol-changing ones included.
    return simplify_relation(indexing_map)


def _pointwise(indexing_map: IndexingMap) -> IndexingMap:
    # Every variable kept: each point of the domain is one read.
    return simplify(indexing_map).map


def _raw(indexing_map: IndexingMap) -> IndexingMap:
    return indexing_map


def _equal_relations(a: IndexingMap, b: IndexingMap) -> bool:
    """Merge only when isl proves equality; an exhausted budget keeps both
    (a union with a duplicate is still exact)."""
    from verifier.bridges.isl_questions import relations_equal  # islpy: only when asked

    return relations_equal(a, b) is True


class ModuleMaps:
    """Memoised composed maps of `module`, simplified and raw (one instance
    per module and run).

    Maps are memoised per place and on structure (`Composer`): with
    `by_structure` False, every place's maps are computed for that place
    alone, which gives the same maps (what the tests compare against).
    """

    def __init__(self, module: Module, *, by_structure: bool = True) -> None:
        self.module = module
        self.signatures = signatures = Signatures(module) if by_structure else None
        self._composers = {
            True: Composer(
                module,
                transform=_simplified,
                same=_equal_relations,
                prefilter=True,
                signatures=signatures,
            ),
            False: Composer(module, transform=_raw, signatures=signatures),
        }
        self._reads = Composer(
            module,
            transform=_pointwise,
            signatures=signatures,
            join=join_pieces,
        )

    def instruction(self, computation: Computation, instruction: Instruction) -> InstructionMaps:
        """The maps of `instruction` of `computation`, each paired with the
        leaves it relates: what consumers read (`InstructionMaps`)."""
        return InstructionMaps(self, computation, instruction)

    def _composer(self, kind: MapKind) -> Composer:
        """The composer of `kind`'s maps; `InstructionMaps` asks it, and
        labels what it answers by position with the leaves."""
        return self._reads if kind == "reads" else self._composers[kind == "simplified"]

    def to_parameters(
        self,
        output: OutputLeaf,
        *,
        simplified: bool = True,
        progress: Progress | None = None,
    ) -> tuple[ToOperand, ...]:
        """Per parameter leaf of the entry computation: the maps from the
        entry ROOT's output leaf `output` (of
        ``instruction(entry, entry.root).outputs``), composed through the
        whole computation (`progress` told ``(done, total)`` instructions as
        it goes)."""
        entry = self.module.entry
        composed = self._composers[simplified].computation_output_to_input(
            entry, output.number, progress
        )
        pairs = zip(parameter_leaves(entry), composed, strict=True)
        return tuple(ToOperand(leaf, maps) for leaf, maps in pairs)
