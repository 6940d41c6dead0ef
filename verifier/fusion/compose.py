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
operands in ``{0}`` and the wrapped computation's result in ``{1}``; a
while loop with a known trip count n is its body composed n times
(`verifier.indexing.control_flow`), else UNDEFINED with the loop named.

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
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter

from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    Ranges,
    Undefined,
    Var,
    compose,
    linear_terms,
    range_var,
    variables_of,
)
from verifier.fusion.graph import Dataflow, dataflow
from verifier.hlo import Computation, Instruction, Module, Shape, ShapeIndex
from verifier.indexing import analysis
from verifier.indexing.control_flow import (
    LOOP_DISTINCT_MAP_LIMIT,
    LOOP_MAP_LIMIT,
    LOOP_WORK_LIMIT,
    loop_body,
    loop_trip_count,
)
from verifier.indexing.leaves import (
    OperandLeaf,
    first_operand_leaves,
    instruction_operand_leaves,
    output_leaves,
    parameter_leaves,
)
from verifier.indexing.registry import Indexing
from verifier.indexing.shapes import dims_box
from verifier.indexing.signature import Signatures

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as a long composition goes (the command line shows it)."""

MapTransform = Callable[[IndexingMap], IndexingMap]
MapEquality = Callable[[IndexingMap, IndexingMap], bool]
# One map whose domain is the disjoint union of two maps' domains, or None
# (`verifier.fusion.pieces.join_pieces`).
MapJoin = Callable[[IndexingMap, IndexingMap], IndexingMap | None]

CALLING_OPCODES = frozenset({"fusion", "call", "conditional", "async-start", "while"})
"""Opcodes whose maps are composed through the computations they call."""

_Value = tuple[str, int]
"""One array of a computation: (instruction name, output leaf number)."""


@dataclass(frozen=True)
class Step:
    """One use of `Composer.transform`: `before` became `after`, which
    must be the same relation."""

    before: IndexingMap
    after: IndexingMap


@dataclass(frozen=True)
class CountedMap:
    """A map and how many use paths produce it (reads per output element)."""

    map: IndexingMap
    multiplicity: int = 1


@dataclass
class _MapSet:
    """A growing union of maps with multiplicities, or unknown indexing.

    With a `capacity`, a union that holds that many maps takes no more
    (`full`): its owner asks only whether it passed a limit (a loop's
    unions, `LOOP_MAP_LIMIT`), so the maps past it are not composed, nor
    compared with the others.  With a `join`, a map that is another piece
    of one already held, read as often, is joined with it (`MapJoin`)."""

    maps: list[CountedMap] = field(default_factory=list)
    undefined: Undefined | None = None
    # The steps behind `maps`, in order, each once.
    steps: dict[Step, None] = field(default_factory=dict)
    capacity: int | None = None
    join: MapJoin | None = None

    @property
    def full(self) -> bool:
        return self.capacity is not None and len(self.maps) >= self.capacity

    def add(self, counted: CountedMap, same: MapEquality) -> None:
        if self.full:
            return
        for position, existing in enumerate(self.maps):
            if existing.map == counted.map or same(existing.map, counted.map):
                self.maps[position] = CountedMap(
                    existing.map, existing.multiplicity + counted.multiplicity
                )
                return
        if self.join is not None:
            for position, existing in enumerate(self.maps):
                joined = (
                    self.join(existing.map, counted.map)
                    if existing.multiplicity == counted.multiplicity
                    else None
                )
                if joined is not None:
                    del self.maps[position]
                    self.add(CountedMap(joined, counted.multiplicity), same)
                    return
        self.maps.append(counted)


@dataclass(frozen=True)
class ComposedIndexing:
    """Per operand (parameter) of a fusion or computation: its maps, or
    unknown, and the transform steps behind the maps (module docstring)."""

    maps: tuple[CountedMap, ...] | Undefined
    steps: tuple[Step, ...] = ()

    @cached_property
    def indexing(self) -> Indexing:
        if isinstance(self.maps, Undefined):
            return self.maps
        return tuple(counted.map for counted in self.maps)

    @cached_property
    def quotes_name(self) -> bool:
        """Whether these maps can differ between places of the same
        structure: an unknown indexing (its reason names instructions) or a
        runtime variable (its source is an instruction)."""
        if isinstance(self.maps, Undefined):
            return True
        maps = [counted.map for counted in self.maps]
        maps += [m for step in self.steps for m in (step.before, step.after)]
        return any(m.rt_vars for m in maps)


_NOT_READ = ComposedIndexing(())
_QUOTES_NAME = attrgetter("quotes_name")


def quote_names(composed: Iterable[ComposedIndexing]) -> bool:
    """Whether any of `composed` quotes a name (`ComposedIndexing.quotes_name`):
    then they hold at this place only, not at every place of its structure."""
    return any(map(_QUOTES_NAME, composed))


@dataclass(frozen=True)
class Composer:
    """Composes output→input maps through computations of `module`.

    `transform` is applied to every map it returns, each op's own and each
    composed one (the simplifier);
    `same` decides that two maps are equal as relations (e.g. isl equality)
    when they are not already identical.  With `prefilter` (worth it when
    `same` is a costly decision), maps told apart by sample pairs are kept
    apart without asking `same`.

    With `signatures`, maps are also memoised on structure: an op's own
    maps on its instruction signature, a computation's composed maps on its
    computation signature (`verifier.indexing.signature`), so the same
    structure under other names — the same fused computation in every
    layer — is composed once.  Only maps that quote no name are shared: an
    unknown indexing (its reason names instructions) and a map with a
    runtime variable (its source is an instruction) are computed per place.
    """

    module: Module
    transform: MapTransform = lambda m: m.remove_unused_symbols()
    same: MapEquality = lambda a, b: False
    prefilter: bool = False
    signatures: Signatures | None = None
    # Joins the pieces a loop's unions gather (`_MapSet.join`): counting
    # reads keeps every piece's points, 2^t pieces after t iterations that
    # each split what survives a dynamic-update-slice.
    join: MapJoin | None = None
    # The dataflow of each computation, by name, computed once (a fusion is
    # composed once per parameter and per output).
    _dataflows: dict[str, Dataflow] = field(default_factory=dict, compare=False)
    # Composed maps per (computation name, output or parameter), computed
    # once: a fused computation called from many places, or reached by many
    # map sets of its caller, is composed once.
    _outputs: dict[tuple[str, int], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )
    _inputs: dict[tuple[str, int], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )
    # What the rest of a computation makes of the maps one value holds,
    # per (computation, value, those maps), when no other value holding
    # maps is still to be read (`_compose_to_outputs`).
    _remainders: dict[tuple[str, str, Hashable], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )
    # An op's own maps per (computation, instruction, direction), for each
    # output or operand leaf, transformed once: every check asks for the
    # same place.
    _own_maps: dict[tuple[str, str, str], tuple[tuple[ComposedIndexing, ...], ...]] = field(
        default_factory=dict, compare=False
    )
    # `transform` applied once per distinct map, as a step (modules repeat
    # the same maps across outputs, fusions and layers).
    _steps: dict[IndexingMap, Step] = field(default_factory=dict, compare=False)
    # `same` asked once per ordered pair: a loop's iterations, unrolled,
    # merge the same maps into the same unions (random bits: 2,412
    # questions, 130 distinct).
    _sames: dict[tuple[IndexingMap, IndexingMap], bool] = field(default_factory=dict, compare=False)
    # Sample pairs of each map's relation (`_sample_pairs`), found once: a
    # map is compared with every other map of its union.
    _samples: dict[IndexingMap, tuple[_Pair, ...]] = field(default_factory=dict, compare=False)
    # `_excludes` per (map, sample pair), decided once: the sample pairs of
    # a loop's maps repeat (the held-out fori_dynamic_update: 64,504 questions, 9,022 distinct).
    _exclusions: dict[tuple[IndexingMap, _Pair], bool] = field(default_factory=dict, compare=False)
    # A while loop's maps per (computation, loop, direction), every output
    # (o2i) or operand leaf (i2o) at once: its iterations compute them together.
    _loops: dict[tuple[str, str, str], tuple[tuple[ComposedIndexing, ...], ...]] = field(
        default_factory=dict, compare=False
    )
    # Operand leaves per (computation, instruction), listed once: a fused
    # computation is walked once per parameter and per output.
    _leaves: dict[tuple[str, str], tuple[OperandLeaf, ...]] = field(
        default_factory=dict, compare=False
    )
    # Parameter leaves per computation, listed once: a computation is
    # composed once per parameter leaf and per output.
    _parameters: dict[str, tuple[OperandLeaf, ...]] = field(default_factory=dict, compare=False)
    # The number of each operand's first leaf, per (computation, instruction).
    _first_leaf: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict, compare=False)
    # The entries that read something (`_read_entries`) of an instruction's
    # maps per (computation, instruction, direction, output or operand
    # leaf), listed once: a tuple of 250 leaves read through by each of 250
    # get-tuple-elements is walked by its 250 read entries, not 62,500.
    _reads: dict[tuple[str, str, str, int], tuple[tuple[int, ComposedIndexing], ...]] = field(
        default_factory=dict, compare=False
    )
    # Maps per (what, signature, direction, output or operand), `what` being
    # an op's own maps or a computation's composed ones (`signatures`).
    _structural: dict[tuple[str, int, str, int], tuple[ComposedIndexing, ...]] = field(
        default_factory=dict, compare=False
    )

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

    def _operand_leaves(
        self, computation: Computation, instruction: Instruction
    ) -> tuple[OperandLeaf, ...]:
        key = (computation.name, instruction.name)
        leaves = self._leaves.get(key)
        if leaves is None:
            leaves = self._leaves[key] = instruction_operand_leaves(computation, instruction)
        return leaves

    def _same(self, a: IndexingMap, b: IndexingMap) -> bool:
        found = self._sames.get((a, b))
        if found is None:
            if not self.prefilter:
                found = self.same(a, b)
            else:
                found = not self._told_apart(a, b) and self.same(a, b)
            self._sames[a, b] = found
        return found

    def _told_apart(self, a: IndexingMap, b: IndexingMap) -> bool:
        """Whether a sample pair of one map's relation is shown outside the
        other's (`_excludes`): then they are different relations, without
        asking `same` (most maps a loop adds to a union are new ones, and
        each is compared with every map already there)."""
        if (a.num_dims, a.num_results) != (b.num_dims, b.num_results):
            return False  # `same` answers different spaces itself
        return any(self._excludes(b, pair) for pair in self._sample_pairs(a)) or any(
            self._excludes(a, pair) for pair in self._sample_pairs(b)
        )

    def _excludes(self, indexing_map: IndexingMap, pair: _Pair) -> bool:
        found = self._exclusions.get((indexing_map, pair))
        if found is None:
            found = self._exclusions[indexing_map, pair] = _excludes(indexing_map, pair)
        return found

    def _sample_pairs(self, indexing_map: IndexingMap) -> tuple[_Pair, ...]:
        found = self._samples.get(indexing_map)
        if found is None:
            found = self._samples[indexing_map] = _sample_pairs(indexing_map)
        return found

    def _dataflow(self, computation: Computation) -> Dataflow:
        found = self._dataflows.get(computation.name)
        if found is None:
            found = self._dataflows[computation.name] = dataflow(computation)
        return found

    def _read(
        self, computation: Computation, instruction: Instruction, direction: str, number: int
    ) -> tuple[tuple[int, ComposedIndexing], ...]:
        """The read entries, with their positions, of `output_to_input`
        (``o2i``, from output `number`) or `input_to_output` (``i2o``, from
        operand leaf `number`) at `instruction`: both are functions of
        their arguments, so their sparse form is kept."""
        key = (computation.name, instruction.name, direction, number)
        found = self._reads.get(key)
        if found is None:
            ask = self.output_to_input if direction == "o2i" else self.input_to_output
            found = self._reads[key] = tuple(_read_entries(ask(computation, instruction, number)))
        return found

    def output_to_input(
        self, computation: Computation, instruction: Instruction, output: int = 0
    ) -> tuple[ComposedIndexing, ...]:
        """Like `analysis.output_to_input` (per operand leaf), with fusions,
        calls, conditionals and async-starts composed through the computations
        they call, and the multiplicity of each map."""
        match instruction.opcode:
            case "fusion" | "call":
                called = self.module.computation(instruction.called_computations[0])
                return self.computation_output_to_input(called, output)
            case "conditional":
                return self._conditional_output_to_input(computation, instruction, output)
            case "async-start":
                return self._async_start_output_to_input(computation, instruction, output)
            case "while":
                return self._loop(computation, instruction, "o2i")[output]
            case _:
                return self._own_memoized(computation, instruction, "o2i", output)

    def _conditional_output_to_input(
        self, computation: Computation, instruction: Instruction, output: int
    ) -> tuple[ComposedIndexing, ...]:
        """The union over branches (which one runs is a run-time value): the
        branch index is read by every output element, ``(d…) -> ()``; branch
        ``b``'s operand (operand ``b + 1``) by branch ``b``'s composed maps."""
        shape = output_leaves(instruction.shape)[output].shape
        index_read = ComposedIndexing((CountedMap(IndexingMap.create(dims_box(shape), [])),))
        found = [index_read]
        for branch in _branches(self.module, instruction):
            found += self.computation_output_to_input(branch, output)
        return tuple(found)

    def _async_start_output_to_input(
        self, computation: Computation, instruction: Instruction, output: int
    ) -> tuple[ComposedIndexing, ...]:
        """``((operands…), result, context…) async-start(operands…), calls=c``:
        element ``{0}`` holds the operands, ``{1}`` the result of ``c`` on
        them (composed through ``c``), the contexts read nothing."""
        leaf = output_leaves(instruction.shape)[output]
        operands = instruction_operand_leaves(computation, instruction)
        if leaf.index[0] == 0:
            forwarded = _same_place(operands, leaf.index[1:])
            identity = CountedMap(IndexingMap.identity(leaf.shape.dimensions))
            return tuple(
                ComposedIndexing((identity,) if o.number == forwarded else ()) for o in operands
            )
        if leaf.index[0] == 1:
            called = self.module.computation(instruction.called_computations[0])
            late = _late_bound(instruction, called)
            if late is not None:
                return tuple(ComposedIndexing(late) for _ in operands)
            first = _first_leaf_of_element(instruction.shape, 1)
            return self.computation_output_to_input(called, output - first)
        return tuple(ComposedIndexing(()) for _ in operands)

    def _loop(
        self, computation: Computation, loop: Instruction, direction: str
    ) -> tuple[tuple[ComposedIndexing, ...], ...]:
        """A while loop's maps in `direction`, per output leaf (``o2i``: per
        operand leaf) or per operand leaf (``i2o``: per output leaf).

        The state after ``i + 1`` iterations reads, from output leaf k, the
        body's maps from k to parameter leaf l followed by the maps of the
        state after ``i`` iterations from l (``i2o``: the other way), from
        the identity of each leaf; the loop stops early when an iteration
        changes nothing.  ``while((s32[] i, f32[4] x))`` with body ``(i + 1,
        negate(x))`` run 10 times: output ``{1}`` reads leaf ``{1}`` through
        ``(d0) -> (d0)``, leaf ``{0}`` not at all.
        """
        key = (computation.name, loop.name, direction)
        found = self._loops.get(key)
        if found is not None:
            return found
        trips = loop_trip_count(self.module, computation, loop)
        unrolled = trips if isinstance(trips, Undefined) else self._unrolled(loop, trips, direction)
        if isinstance(unrolled, Undefined):
            # One value for every pair of leaves (a loop carrying 300 arrays
            # has 90,000 pairs); rows per output (``o2i``) or per operand leaf.
            undefined = ComposedIndexing(unrolled)
            operands = len(instruction_operand_leaves(computation, loop))
            outputs = len(output_leaves(loop.shape))
            rows, columns = (outputs, operands) if direction == "o2i" else (operands, outputs)
            unrolled = tuple(tuple(undefined for _ in range(columns)) for _ in range(rows))
        self._loops[key] = unrolled
        return unrolled

    def _unrolled(
        self, loop: Instruction, trips: int, direction: str
    ) -> tuple[tuple[ComposedIndexing, ...], ...] | Undefined:
        """`loop`'s body composed `trips` times (see `_loop`), or UNDEFINED
        when a union grows past `LOOP_MAP_LIMIT` maps, or the iterations
        together past `LOOP_DISTINCT_MAP_LIMIT` distinct maps or
        `LOOP_WORK_LIMIT` maps."""
        body = loop_body(self.module, loop)
        dimensions = [leaf.shape.dimensions for leaf in parameter_leaves(body)]
        leaves = len(dimensions)
        step = [
            self.computation_output_to_input(body, leaf)
            if direction == "o2i"
            else self.computation_input_to_output(body, leaf)
            for leaf in range(leaves)
        ]
        state = tuple(
            tuple(
                ComposedIndexing(
                    (CountedMap(IndexingMap.identity(dimensions[k])),) if k == j else ()
                )
                for j in range(leaves)
            )
            for k in range(leaves)
        )
        # The maps the iterations have composed (each one merged into its
        # union, a remembered answer when it was made before), and every
        # distinct map among them (each simplified and compared anew).
        composed = 0
        made: set[IndexingMap] = set()
        read_by_step = [_read_entries(row) for row in step]
        for _ in range(trips):
            following = self._iteration(read_by_step, state)
            if _same_maps(following, state):
                # Unchanged maps; the steps that proved this iteration too.
                state = following
                break
            state = following
            defined = [c.maps for row in state for c in row if isinstance(c.maps, tuple)]
            composed += sum(len(maps) for maps in defined)
            made.update(counted.map for maps in defined for counted in maps)
            if max(map(len, defined), default=0) > LOOP_MAP_LIMIT:
                too_many = f"a union of more than {LOOP_MAP_LIMIT} maps between two state arrays"
            elif len(made) > LOOP_DISTINCT_MAP_LIMIT:
                too_many = f"more than {LOOP_DISTINCT_MAP_LIMIT} distinct maps over its iterations"
            elif composed > LOOP_WORK_LIMIT:
                too_many = f"more than {LOOP_WORK_LIMIT} maps over its iterations"
            else:
                continue
            return Undefined(
                f"while loop '{loop.name}' (body {body.name}): composing its body "
                f"{trips} times gives {too_many}"
            )
        return state

    def _iteration(
        self,
        read_by_step: list[list[tuple[int, ComposedIndexing]]],
        state: tuple[tuple[ComposedIndexing, ...], ...],
    ) -> tuple[tuple[ComposedIndexing, ...], ...]:
        """The state after one more iteration: from leaf k to leaf j, the
        union over leaves l of the body's maps from k to l (`read_by_step`:
        per k, the leaves l it reads) followed by the state's from l to j,
        in the order of l.  Only the pairs that read something are
        visited: a loop carrying a tuple of hundreds of arrays, each read
        by one other, costs the pairs read, not the cube of its width."""
        read_by_state = [_read_entries(row) for row in state]
        following = []
        for read in read_by_step:
            unions: dict[int, _MapSet] = {}
            for through, head in read:
                for j, tail in read_by_state[through]:
                    current = (
                        _MapSet(undefined=head.maps)
                        if isinstance(head.maps, Undefined)
                        else _MapSet(list(head.maps), steps=dict.fromkeys(head.steps))
                    )
                    union = unions.setdefault(
                        j, _MapSet(capacity=LOOP_MAP_LIMIT + 1, join=self.join)
                    )
                    self._extend(union, current, tail)
            row = [_NOT_READ] * len(state)
            for j, union in unions.items():
                row[j] = _composed(union if union.maps or union.undefined else None)
            following.append(tuple(row))
        return tuple(following)

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
            count = (
                analysis.output_count(instruction)
                if direction == "o2i"
                else len(self._operand_leaves(computation, instruction))
            )
            found = self._own_maps[key] = tuple(
                self._own_structural(computation, instruction, direction, k) for k in range(count)
            )
        return found[number]

    def _own_structural(
        self, computation: Computation, instruction: Instruction, direction: str, number: int
    ) -> tuple[ComposedIndexing, ...]:
        def own() -> tuple[ComposedIndexing, ...]:
            return self._own(
                analysis.output_to_input(computation, instruction, number)
                if direction == "o2i"
                else analysis.input_to_output(computation, instruction, number)
            )

        return self._by_structure(
            "own",
            lambda signatures: signatures.instruction(computation, instruction),
            direction,
            number,
            own,
        )

    def _own(self, indexings: tuple[Indexing, ...]) -> tuple[ComposedIndexing, ...]:
        """An op's own maps, transformed, each read once.  (Each output of
        a tuple reads one of its operand leaves and none of the others:
        the entries not read are told apart without a call.)"""
        return tuple(
            _NOT_READ if indexing == () else self._own_indexing(indexing) for indexing in indexings
        )

    def _own_indexing(self, indexing: Indexing) -> ComposedIndexing:
        if isinstance(indexing, Undefined):
            return ComposedIndexing(indexing)
        steps = [self._step(m) for m in indexing]
        return ComposedIndexing(
            tuple(CountedMap(step.after) for step in steps),
            tuple(dict.fromkeys(step for step in steps if step.after != step.before)),
        )

    def _step(self, indexing_map: IndexingMap) -> Step:
        step = self._steps.get(indexing_map)
        if step is None:
            step = self._steps[indexing_map] = Step(indexing_map, self.transform(indexing_map))
        return step

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
                lambda: self._compose_to_parameters(computation, output, progress),
            )
        return found

    def _compose_to_parameters(
        self, computation: Computation, output: int, progress: Progress | None = None
    ) -> tuple[ComposedIndexing, ...]:
        root = computation.root
        shape = output_leaves(root.shape)[output].shape
        sets: dict[_Value, _MapSet] = {
            (root.name, output): _MapSet([CountedMap(IndexingMap.identity(shape.dimensions))])
        }
        total = len(computation.instructions)
        upstream = self._dataflow(computation).upstream(root.name)
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
            _composed(sets.get((leaf.name, leaf.leaf)))
            for leaf in self._parameter_leaves(computation)
        )

    def _propagate(
        self,
        computation: Computation,
        instruction: Instruction,
        output_index: int,
        current: _MapSet,
        sets: dict[_Value, _MapSet],
    ) -> None:
        """Extend the maps reaching output `output_index` of `instruction` to
        the operand leaves it reads."""
        leaves = self._operand_leaves(computation, instruction)
        for number, read in self._read(computation, instruction, "o2i", output_index):
            leaf = leaves[number]
            self._extend(sets.setdefault((leaf.name, leaf.leaf), _MapSet()), current, read)

    def input_to_output(
        self, computation: Computation, instruction: Instruction, operand: int
    ) -> tuple[ComposedIndexing, ...]:
        """Like `analysis.input_to_output` (per output leaf, from operand leaf
        `operand`), with fusions, calls, conditionals and async-starts
        composed, and the multiplicity of each map."""
        match instruction.opcode:
            case "fusion" | "call":
                called = self.module.computation(instruction.called_computations[0])
                return self.computation_input_to_output(called, operand)
            case "conditional":
                return self._conditional_input_to_output(computation, instruction, operand)
            case "async-start":
                return self._async_start_input_to_output(computation, instruction, operand)
            case "while":
                return self._loop(computation, instruction, "i2o")[operand]
            case _:
                return self._own_memoized(computation, instruction, "i2o", operand)

    def _conditional_input_to_output(
        self, computation: Computation, instruction: Instruction, operand: int
    ) -> tuple[ComposedIndexing, ...]:
        """The branch index reaches every output element; a leaf of branch
        ``b``'s operand reaches what branch ``b`` makes of it."""
        leaf = instruction_operand_leaves(computation, instruction)[operand]
        if leaf.operand == 0:
            return tuple(
                ComposedIndexing((CountedMap(_everywhere(output.shape.dimensions)),))
                for output in output_leaves(instruction.shape)
            )
        branch = _branches(self.module, instruction)[leaf.operand - 1]
        return self.computation_input_to_output(branch, leaf.leaf)

    def _async_start_input_to_output(
        self, computation: Computation, instruction: Instruction, operand: int
    ) -> tuple[ComposedIndexing, ...]:
        """An operand leaf reaches its copy in ``{0}`` and, through the
        wrapped computation, the result ``{1}``."""
        leaf = instruction_operand_leaves(computation, instruction)[operand]
        called = self.module.computation(instruction.called_computations[0])
        late = _late_bound(instruction, called)
        through = (
            self.computation_input_to_output(called, operand)
            if late is None
            else tuple(ComposedIndexing(late) for _ in output_leaves(called.root.shape))
        )
        found: list[ComposedIndexing] = []
        for output in output_leaves(instruction.shape):
            if output.index[0] == 0 and output.index[1:] == (leaf.operand, *leaf.index):
                found.append(
                    ComposedIndexing((CountedMap(IndexingMap.identity(leaf.shape.dimensions)),))
                )
            elif output.index[0] == 1:
                found.append(through[output.number - _first_leaf_of_element(instruction.shape, 1)])
            else:
                found.append(ComposedIndexing(()))
        return tuple(found)

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
                lambda: self._compose_to_outputs(computation, parameter),
            )
        return found

    def _compose_to_outputs(
        self, computation: Computation, parameter: int
    ) -> tuple[ComposedIndexing, ...]:
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
        flow = self._dataflow(computation)
        start = self._parameter_leaves(computation)[parameter]
        # Per instruction, the maps reaching each of its output leaves.
        sets: dict[str, dict[int, _MapSet]] = {
            start.name: {
                start.leaf: _MapSet([CountedMap(IndexingMap.identity(start.shape.dimensions))])
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
                    key = (computation.name, name, _frozen(sets[name]))
                    found = self._remainders.get(key)
                    if found is not None:
                        return self._remember(passed, found)
                    passed.append(key)
        reaching = sets.get(root.name, {})
        return self._remember(
            passed,
            tuple(_composed(reaching.get(output)) for output in range(analysis.output_count(root))),
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
        sets: dict[str, dict[int, _MapSet]],
    ) -> None:
        """Extend the maps reaching `instruction`'s operand leaves to its
        outputs: only the leaves that hold maps are visited (a loop body's
        get-tuple-elements each read one leaf of a state of hundreds)."""
        outputs: dict[int, _MapSet] = {}
        for operand, name in zip(
            self._first_leaves(computation, instruction), instruction.operands, strict=True
        ):
            reaching = sets.get(name, {})
            for leaf in sorted(reaching):
                for output, reached in self._read(computation, instruction, "i2o", operand + leaf):
                    self._extend(outputs.setdefault(output, _MapSet()), reaching[leaf], reached)
        if outputs:
            sets[instruction.name] = outputs

    def _parameter_leaves(self, computation: Computation) -> tuple[OperandLeaf, ...]:
        found = self._parameters.get(computation.name)
        if found is None:
            found = self._parameters[computation.name] = parameter_leaves(computation)
        return found

    def _first_leaves(self, computation: Computation, instruction: Instruction) -> tuple[int, ...]:
        key = (computation.name, instruction.name)
        found = self._first_leaf.get(key)
        if found is None:
            found = self._first_leaf[key] = first_operand_leaves(computation, instruction)
        return found

    def _extend(self, destination: _MapSet, current: _MapSet, then: ComposedIndexing) -> None:
        """Add every map of `current` followed by every map of `then`."""
        if current.undefined is not None:
            destination.undefined = current.undefined
        elif isinstance(then.maps, Undefined):
            destination.undefined = then.maps
        else:
            destination.steps.update(current.steps)
            destination.steps.update(dict.fromkeys(then.steps))
            self._compose_into(destination, current, then.maps)

    def _compose_into(
        self, destination: _MapSet, current: _MapSet, then: tuple[CountedMap, ...]
    ) -> None:
        """Add every ``first`` of `current` followed by every map of `then`."""
        for first in current.maps:
            for second in then:
                if destination.full:
                    return
                # `compose` and `transform` each remember what they made.
                step = self._step(compose(first.map, second.map))
                if step.after != step.before:
                    destination.steps[step] = None
                composed = step.after
                if composed.is_known_empty:
                    continue
                multiplicity = first.multiplicity * second.multiplicity
                destination.add(CountedMap(composed, multiplicity), self._same)


def _frozen(leaves: dict[int, _MapSet]) -> Hashable:
    """A value's maps per output leaf, as a key: everything of them the
    rest of a walk reads."""
    return tuple(
        (leaf, tuple(found.maps), found.undefined, tuple(found.steps))
        for leaf, found in sorted(leaves.items())
    )


def _composed(found: _MapSet | None) -> ComposedIndexing:
    """What reached one value: nothing (not read), unknown, or the maps."""
    if found is None:
        return _NOT_READ
    if found.undefined is not None:
        return ComposedIndexing(found.undefined)
    return ComposedIndexing(tuple(found.maps), tuple(found.steps))


def maps_follow_signature(instruction: Instruction) -> bool:
    """Whether a composer's maps of `instruction`, when they quote no name,
    are a function of its signature (`Signatures.instruction`: its form,
    its callees' structure, its operands' forms): true of every op but a
    while loop, whose trip count reads its start value two instructions
    up (an operand of its init tuple)."""
    return instruction.opcode != "while"


def _same_maps(
    a: tuple[tuple[ComposedIndexing, ...], ...], b: tuple[tuple[ComposedIndexing, ...], ...]
) -> bool:
    """Whether two loop states hold the same maps (their steps aside)."""
    return [[c.maps for c in row] for row in a] == [[c.maps for c in row] for row in b]


_Pair = tuple[tuple[int, ...], tuple[int, ...]]
"""A pair (dims point, results) of a map's relation."""

_SAMPLE_NODES = 64
"""The most partial assignments one search for a sample pair visits."""


_SAMPLE_ORDERS = ((False, False), (True, True))
"""(dims descending, symbols descending) of each search for a sample pair:
the lowest and the highest corner.  (The mixed corners, which tell a free
symbol from a dim, left 1,218 of lstm_scan_grad's 2,168 unequal pairs to
isl but cost more CPU than they saved.)"""


def _sample_pairs(indexing_map: IndexingMap) -> tuple[_Pair, ...]:
    """Up to two pairs of `indexing_map`'s relation: the first point of its
    domain found trying each variable's values from the lowest up, and from
    the highest down (`_SAMPLE_ORDERS`, `_domain_point`); fewer when a
    search gives up.

    ``(d0)[s0] -> (d0 + s0)``, ``d0 in [0, 3], s0 in [0, 1]``, ``d0 + s0 in
    [1, 4]`` gives ``((0,), (1,))`` (d0 = 0, s0 = 1) and ``((3,), (4,))``.
    """
    pairs: dict[_Pair, None] = {}
    for dims_descending, symbols_descending in _SAMPLE_ORDERS:
        descending = (dims_descending,) * indexing_map.num_dims + (symbols_descending,) * len(
            indexing_map.symbols
        )
        point = _domain_point(indexing_map, descending)
        if point is not None:
            dims = tuple(point[v] for v in indexing_map.all_variables[: indexing_map.num_dims])
            pairs[dims, indexing_map.evaluate(point)] = None
    return tuple(pairs)


def _domain_point(indexing_map: IndexingMap, descending: tuple[bool, ...]) -> dict[Var, int] | None:
    """A point of the domain by depth-first search over the variables in
    header order, variable ``k``'s values tried from the highest down when
    ``descending[k]``: a value is abandoned as soon as interval arithmetic
    shows that a constraint on its variable cannot hold with the values
    before it (`_may_hold`); `None` after `_SAMPLE_NODES` values tried
    without a point."""
    variables = indexing_map.all_variables
    tests = [(e, allowed, _linear_form(e)) for e, allowed in indexing_map.constraints]
    on_variable = [[test for test in tests if v in variables_of(test[0])] for v in variables]
    fixed: dict[Var, Interval] = {}
    nodes = 0

    def bounds(variable: Var) -> Interval:
        return fixed.get(variable) or indexing_map.bounds(variable)

    def search(k: int) -> bool:
        nonlocal nodes
        if k == len(variables):
            return True
        variable = variables[k]
        interval = indexing_map.bounds(variable)
        values = range(interval.lower, interval.upper + 1)
        for value in reversed(values) if descending[k] else values:
            nodes += 1
            if nodes > _SAMPLE_NODES:
                return False
            fixed[variable] = Interval.point(value)
            if _may_hold(on_variable[k], bounds) and search(k + 1):
                return True
        fixed.pop(variable, None)
        return False

    if not search(0):
        return None
    point = {v: interval.lower for v, interval in fixed.items()}
    return point if indexing_map.contains(point) else None


_LinearForm = tuple[tuple[tuple[Var, int], ...], int]
"""``((variable, coefficient), …), constant``: a sum of scaled variables."""

_Test = tuple[Expr, Interval, _LinearForm | None]
"""A constraint ``expr in allowed``, with `expr`'s linear form when it has one."""


def _linear_form(expr: Expr) -> _LinearForm | None:
    """`expr` as a sum of scaled variables and a constant, or `None` when a
    term is not a variable (a division, a modulus, a min or max)."""
    terms, constant = linear_terms(expr)
    if not all(isinstance(base, Var) for base in terms):
        return None
    return tuple((base, k) for base, k in terms.items() if isinstance(base, Var)), constant


def _may_hold(tests: list[_Test], bounds: Callable[[Var], Interval]) -> bool:
    """Whether each of the constraints `tests` may hold with its variables
    in `bounds` (false only when interval arithmetic shows one cannot): a
    linear one summed directly, the others through `Ranges`."""
    ranges: Ranges | None = None
    for expr, allowed, linear in tests:
        if linear is None:
            ranges = ranges or Ranges(bounds, {})
            interval = ranges.interval(expr)
        else:
            terms, lower = linear
            upper = lower
            for variable, coefficient in terms:
                bound = bounds(variable)
                low, high = coefficient * bound.lower, coefficient * bound.upper
                lower += min(low, high)
                upper += max(low, high)
            interval = Interval(lower, upper)
        if interval.intersect(allowed).is_empty:
            return False
    return True


def _excludes(indexing_map: IndexingMap, pair: _Pair) -> bool:
    """Whether the pair ``(x, y)`` is shown outside `indexing_map`'s relation:
    ``x`` lies outside the dims' bounds, or, with the dims at ``x`` and the
    symbols anywhere in their bounds, interval arithmetic puts some result
    away from ``y`` or some constraint out of reach.  (False means only
    "not shown".)

    ``(d0)[s0] -> (d0 + s0)``, ``d0 in [0, 3], s0 in [0, 1]`` excludes
    ``((0,), (2,))``: at d0 = 0 the result lies in [0, 1]; and ``((4,),
    (4,))``: d0 = 4 is outside its bounds.  With the constraint ``d0 + s0
    in [2, 4]`` it also excludes ``((1,), (1,))``: that result is 1.
    """
    x, y = pair
    variables = indexing_map.all_variables[: indexing_map.num_dims]
    if any(value not in indexing_map.bounds(v) for v, value in zip(variables, x, strict=True)):
        return True
    dims = dict(zip(variables, map(Interval.point, x), strict=True))
    ranges = Ranges(lambda v: dims.get(v) or indexing_map.bounds(v), {})
    # A constraint on a result itself holds at that result's value.
    values = dict(zip(indexing_map.results, y, strict=True))
    return any(
        value not in ranges.interval(result)
        for result, value in zip(indexing_map.results, y, strict=True)
    ) or any(
        (values[expr] not in allowed)
        if expr in values
        else ranges.interval(expr).intersect(allowed).is_empty
        for expr, allowed in indexing_map.constraints
    )


def _not_read(indexing: ComposedIndexing) -> bool:
    return not isinstance(indexing.maps, Undefined) and not indexing.maps


def _read_entries(row: tuple[ComposedIndexing, ...]) -> list[tuple[int, ComposedIndexing]]:
    """The entries of `row` that read something, with their positions."""
    return [(k, entry) for k, entry in enumerate(row) if not _not_read(entry)]


def _everywhere(dimensions: tuple[int, ...]) -> IndexingMap:
    """``()[s0, …] -> (s0, …)``: one element reaches every element of `dimensions`."""
    return IndexingMap.create(
        [], [range_var(k) for k in range(len(dimensions))], range_vars=dims_box(dimensions)
    )


def _branches(module: Module, instruction: Instruction) -> tuple[Computation, ...]:
    """A conditional's branch computations, in operand order (``true``
    before ``false`` for a predicate)."""
    names = instruction.attributes.names("branch_computations")
    if names is None:
        names = tuple(
            instruction.attributes.word(name) or ""
            for name in ("true_computation", "false_computation")
        )
    if len(names) != len(instruction.operands) - 1:
        raise ValueError(
            f"conditional '{instruction.name}' has {len(names)} branches and "
            f"{len(instruction.operands) - 1} branch operands"
        )
    return tuple(module.computation(name) for name in names)


def _same_place(operands: tuple[OperandLeaf, ...], index: ShapeIndex) -> int:
    """The operand leaf at (operand number, shape index) `index`."""
    return next(o.number for o in operands if (o.operand, *o.index) == index)


def _late_bound(start: Instruction, called: Computation) -> Undefined | None:
    """Why the result of async-start `start` is not composed through
    `called` — it passes fewer operands than `called` has parameters, the
    others bound later by async-updates — or None."""
    if len(start.operands) == len(called.parameters):
        return None
    return Undefined(
        f"async-start passes {len(start.operands)} of the {len(called.parameters)} operands "
        f"of '{called.name}' (the others bound later, by async-update): not composed"
    )


def _first_leaf_of_element(shape: Shape, element: int) -> int:
    """The number of the first output leaf inside tuple element `element`."""
    return next(leaf.number for leaf in output_leaves(shape) if leaf.index[0] == element)
