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

Values are arrays: a tuple-shaped value is tracked leaf by leaf
(`verifier.indexing.leaves`), so whole tuples flow through tuple,
get-tuple-element, copy, call and fusion parameters and roots like any
other value.  A conditional is the union of its branches' composed maps
(its branch index read by every output element); an async-start holds its
operands in ``{0}`` and the wrapped computation's result in ``{1}``
(`verifier.fusion.branches`); a while loop with a known trip count n is its
body composed n times (`verifier.fusion.loops`), else UNDEFINED with the
loop named.  What a walk gathers at each value is a `MapSet`
(`verifier.fusion.map_sets`); maps told apart by sample pairs are not
compared by the costly `same` (`verifier.fusion.sampling`); what the
composer returns is `ComposedIndexing` (`verifier.fusion.composed`).

Input→output maps go the other way: from one parameter, in topological
order (every producer before its users), each value's set of maps (parameter
index → the value's index) is composed with the user's own input→output maps
and merged at the user the same way.  For ``p0 + transpose(p0)`` parameter 0
reaches the output through ``(d0, d1) -> (d0, d1)`` and ``(d0, d1) -> (d1,
d0)``, the inverses of the output→input maps.

Every map a composer returns carries the **steps** that made it: each
place where `transform` (the simplifier) replaced a map — an op's own map,
or one composition ``compose(first, second)`` of maps that were themselves
transformed — as the pair (before, after).  A composed map is equal to the
composition of the rules' own maps as soon as every one of its steps is an
equality (composition of relations respects equality, so proved steps
compose into a proved whole): the simplification check proves the steps,
each a question about maps no larger than one op's composition, instead of
comparing with the unsimplified composition, whose text grows
exponentially along a chain of reshapes (each result substitutes its
operand's results several times).  For a chain ``p → reshape → transpose``
simplified as it is composed, the steps are the two ops' own maps and the
one composition::

    (d0, d1) -> ((d1 * 8 + d0) floordiv 8, (d1 * 8 + d0) mod 8)   before
    (d0, d1) -> (d1, d0)                                        after

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... fused {
...   p0 = f32[2,2] parameter(0)
...   t = f32[2,2] transpose(p0), dimensions={1,0}
...   ROOT a = f32[2,2] add(p0, t)
... }
... ENTRY e {
...   x = f32[2,2] parameter(0)
...   ROOT f = f32[2,2] fusion(x), kind=kLoop, calls=fused
... }''')
>>> (p0,) = Composer(module).composed_output_to_input(module.entry, module.entry.root)
>>> [(str(c.map).splitlines()[0], c.multiplicity) for c in p0.maps]
[('(d0, d1) -> (d0, d1),', 1), ('(d0, d1) -> (d1, d0),', 1)]
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.expr import IndexingMap, Undefined
from verifier.fusion.branches import (
    async_start_input_to_output,
    async_start_output_to_input,
    conditional_input_to_output,
    conditional_output_to_input,
)
from verifier.fusion.composed import (
    NOT_READ,
    ComposedIndexing,
    CountedMap,
    MapEquality,
    MapJoin,
    MapTransform,
    Progress,
    quote_names,
    read_entries,
)
from verifier.fusion.loops import LoopState, loop_maps
from verifier.fusion.map_sets import Extension
from verifier.fusion.sampling import SameRelation
from verifier.fusion.walks import Walks
from verifier.hlo import Computation, Instruction, Module
from verifier.indexing import analysis
from verifier.indexing.registry import Indexing
from verifier.indexing.signature import Signatures


def _remove_unused_symbols(indexing_map: IndexingMap) -> IndexingMap:
    return indexing_map.remove_unused_symbols()


class Composer:
    """Composes output→input maps through computations of `module`.

    `transform` is applied to every map it returns, each op's own and each
    composed one (the simplifier);
    `same` decides that two maps are equal as relations (e.g. isl equality)
    when they are not already identical (None, the default: only identical
    maps are merged, each looked up rather than compared with every map of
    its union).  With `prefilter` (worth it when
    `same` is a costly decision), maps told apart by sample pairs are kept
    apart without asking `same`.

    With `signatures`, maps are also memoised on structure: an op's own
    maps on its instruction signature, a computation's composed maps on its
    computation signature (`verifier.indexing.signature`), so the same
    structure under other names — the same fused computation in every
    layer — is composed once.  Only maps that quote no name are shared: an
    unknown indexing (its reason names instructions) and a map with a
    runtime variable (its source is an instruction) are computed per place.

    `join` joins the pieces a loop's unions gather (`MapSet.join`):
    counting reads keeps every piece's points, 2^t pieces after t
    iterations that each split what survives a dynamic-update-slice.

    A composer is a memo, not a value: its tables (below, in `__init__`)
    grow as it is asked, and every answer is a function of the module and
    the arguments, so asking twice gives the same answer, computed once.
    """

    def __init__(
        self,
        module: Module,
        *,
        transform: MapTransform = _remove_unused_symbols,
        same: MapEquality | None = None,
        prefilter: bool = False,
        signatures: Signatures | None = None,
        join: MapJoin | None = None,
    ) -> None:
        self.module = module
        self.signatures = signatures
        self.join = join
        # `transform` per distinct map, and `same` per ordered pair (with
        # its sample-pair prefilter): the memo tables of every extension.
        self._extension = Extension(
            transform, None if same is None else SameRelation(same, prefilter=prefilter)
        )
        # The walks over computations, with their memo tables of
        # dataflows, leaves and remainders.
        self._walks = Walks(self._extension, self._read)
        # The memo tables, each filled once per key:
        # composed maps per (computation, output) and (computation,
        # parameter leaf): a fused computation called from many places, or
        # reached by many map sets of its caller, is composed once;
        self._outputs: dict[tuple[str, int], tuple[ComposedIndexing, ...]] = {}
        self._inputs: dict[tuple[str, int], tuple[ComposedIndexing, ...]] = {}
        # an op's own maps per (computation, instruction, direction), for
        # each output or operand leaf, transformed (every check asks for
        # the same place);
        self._own_maps: dict[tuple[str, str, str], tuple[tuple[ComposedIndexing, ...], ...]] = {}
        # a while loop's maps per (computation, loop, direction), every
        # output (o2i) or operand leaf (i2o) at once: its iterations
        # compute them together;
        self._loops: dict[tuple[str, str, str], LoopState] = {}
        # the entries that read something (`read_entries`) of an
        # instruction's maps per (computation, instruction, direction,
        # output or operand leaf): a tuple of 250 leaves read through by each
        # of 250 get-tuple-elements is walked by its 250 read entries, not
        # 62,500;
        self._reads: dict[tuple[str, str, str, int], tuple[tuple[int, ComposedIndexing], ...]] = {}
        # maps per (what, signature, direction, output or operand), `what`
        # being a computation's composed ones (`signatures`); an op's own
        # rows, every output or operand leaf, per (signature, direction).
        self._structural: dict[tuple[str, int, str, int], tuple[ComposedIndexing, ...]] = {}
        self._own_by_signature: dict[tuple[int, str], tuple[tuple[ComposedIndexing, ...], ...]] = {}

    def composed_output_to_input(
        self, computation: Computation, instruction: Instruction, output: int = 0
    ) -> tuple[ComposedIndexing, ...]:
        """An instruction's maps from output `output`, per operand leaf: its own
        (`analysis.own_output_to_input`), or, for fusions, calls, conditionals,
        async-starts and whiles, composed through the computations they call;
        each map with its multiplicity."""
        through = self.computation_output_to_input
        match instruction.opcode:
            case "fusion" | "call":
                called = self.module.computation(instruction.called_computations[0])
                return through(called, output)
            case "conditional":
                return conditional_output_to_input(self.module, instruction, output, through)
            case "async-start":
                return async_start_output_to_input(
                    self.module, computation, instruction, output, through
                )
            case "while":
                return self._loop(computation, instruction, "o2i")[output]
            case _:
                return self._own_memoized(computation, instruction, "o2i", output)

    def composed_input_to_output(
        self, computation: Computation, instruction: Instruction, operand: int
    ) -> tuple[ComposedIndexing, ...]:
        """An instruction's maps from operand leaf `operand`, per output leaf:
        its own (`analysis.own_input_to_output`), or composed through the
        computations it calls (as `composed_output_to_input`); each map with
        its multiplicity."""
        through = self.computation_input_to_output
        match instruction.opcode:
            case "fusion" | "call":
                called = self.module.computation(instruction.called_computations[0])
                return through(called, operand)
            case "conditional":
                return conditional_input_to_output(
                    self.module, computation, instruction, operand, through
                )
            case "async-start":
                return async_start_input_to_output(
                    self.module, computation, instruction, operand, through
                )
            case "while":
                return self._loop(computation, instruction, "i2o")[operand]
            case _:
                return self._own_memoized(computation, instruction, "i2o", operand)

    def computation_output_to_input(
        self, computation: Computation, output: int = 0, progress: Progress | None = None
    ) -> tuple[ComposedIndexing, ...]:
        """For output (root leaf) `output` of `computation`: one entry per
        parameter leaf (`leaves.parameter_leaves`); `progress` is told
        ``(done, total)`` after each instruction composed through."""
        key = (computation.name, output)
        found = self._outputs.get(key)
        if found is None:
            found = self._outputs[key] = self._by_structure(
                "computation",
                lambda signatures: signatures.computation(computation),
                "o2i",
                output,
                lambda: self._walks.to_parameters(computation, output, progress),
            )
        return found

    def computation_input_to_output(
        self, computation: Computation, parameter: int
    ) -> tuple[ComposedIndexing, ...]:
        """For parameter leaf `parameter` of `computation`: one entry per
        output (root leaf) of the computation."""
        key = (computation.name, parameter)
        found = self._inputs.get(key)
        if found is None:
            found = self._inputs[key] = self._by_structure(
                "computation",
                lambda signatures: signatures.computation(computation),
                "i2o",
                parameter,
                lambda: self._walks.to_outputs(computation, parameter),
            )
        return found

    def _by_structure(
        self,
        what: str,
        signature: Callable[[Signatures], int],
        direction: str,
        number: int,
        compute: Callable[[], tuple[ComposedIndexing, ...]],
    ) -> tuple[ComposedIndexing, ...]:
        """`compute()`, or the maps computed before for the same structure
        (`signature`), when the composer has `signatures` and they quote no
        name."""
        if self.signatures is None:
            return compute()
        key = (what, signature(self.signatures), direction, number)
        found = self._structural.get(key)
        if found is None:
            found = compute()
            if not quote_names(found):
                self._structural[key] = found
        return found

    def _loop(self, computation: Computation, loop: Instruction, direction: str) -> LoopState:
        """A while loop's maps in `direction`, per output leaf (``o2i``: per
        operand leaf) or per operand leaf (``i2o``: per output leaf), once
        (`verifier.fusion.loops`)."""
        key = (computation.name, loop.name, direction)
        found = self._loops.get(key)
        if found is None:
            through = (
                self.computation_output_to_input
                if direction == "o2i"
                else self.computation_input_to_output
            )
            found = self._loops[key] = loop_maps(
                self.module, computation, loop, direction, through, self._extension, self.join
            )
        return found

    def _own_memoized(
        self, computation: Computation, instruction: Instruction, direction: str, number: int
    ) -> tuple[ComposedIndexing, ...]:
        """An op's own maps in `direction` (``o2i`` from output `number`,
        ``i2o`` from operand leaf `number`), computed once: those of every
        output (operand leaf) together, the first time one is asked, so that
        the rule's context is built once per instruction, not once per leaf.
        (A loop composed from one state array at a time asks each of its
        body's get-tuple-elements for one leaf of a 300-array state, then
        each again for the next: 90,000 contexts of 300 leaves each.)"""
        key = (computation.name, instruction.name, direction)
        found = self._own_maps.get(key)
        if found is None:
            found = self._own_maps[key] = self._own_rows(computation, instruction, direction)
        return found[number]

    def _own_rows(
        self, computation: Computation, instruction: Instruction, direction: str
    ) -> tuple[tuple[ComposedIndexing, ...], ...]:
        """Every row of an op's own maps in `direction`, or those computed
        before for the same instruction signature when no row quotes a
        name: one look-up per instruction, not one per leaf (a
        get-tuple-element of a 532-array state, in each of 2,500 forms)."""

        def rows() -> tuple[tuple[ComposedIndexing, ...], ...]:
            if direction == "o2i":
                return tuple(
                    tuple(map(self._own, analysis.own_output_to_input(computation, instruction, k)))
                    for k in range(analysis.output_count(instruction))
                )
            return tuple(
                tuple(map(self._own, row))
                for row in analysis.own_input_to_output_rows(computation, instruction)
            )

        if self.signatures is None:
            return rows()
        key = (self.signatures.instruction(computation, instruction), direction)
        found = self._own_by_signature.get(key)
        if found is None:
            found = rows()
            if not any(map(quote_names, found)):
                self._own_by_signature[key] = found
        return found

    def _own(self, indexing: Indexing) -> ComposedIndexing:
        """An op's own maps of one leaf, transformed, each read once.  (Each
        output of a tuple reads one of its operand leaves and none of the
        others: the entries not read are told apart without a call.)"""
        if indexing == ():
            return NOT_READ
        if isinstance(indexing, Undefined):
            return ComposedIndexing(indexing)
        steps = [self._extension.step(m) for m in indexing]
        return ComposedIndexing(
            tuple(CountedMap(step.after) for step in steps),
            tuple(dict.fromkeys(step for step in steps if step.after != step.before)),
        )

    def _read(
        self, computation: Computation, instruction: Instruction, direction: str, number: int
    ) -> tuple[tuple[int, ComposedIndexing], ...]:
        """The read entries, with their positions, of `composed_output_to_input`
        (``o2i``, from output `number`) or `composed_input_to_output` (``i2o``, from
        operand leaf `number`) at `instruction`: both are functions of
        their arguments, so their sparse form is kept."""
        key = (computation.name, instruction.name, direction, number)
        found = self._reads.get(key)
        if found is None:
            ask = (
                self.composed_output_to_input
                if direction == "o2i"
                else self.composed_input_to_output
            )
            found = self._reads[key] = tuple(read_entries(ask(computation, instruction, number)))
        return found


def maps_follow_signature(instruction: Instruction) -> bool:
    """Whether a composer's maps of `instruction`, when they quote no name,
    are a function of its signature (`Signatures.instruction`: its form,
    its callees' structure, its operands' forms): true of every op but a
    while loop, whose trip count reads its start value two instructions
    up (an operand of its init tuple)."""
    return instruction.opcode != "while"
