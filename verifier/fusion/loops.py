"""A while loop's maps: its body composed once per iteration.

The state after ``i + 1`` iterations reads, from output leaf k, the body's
maps from k to parameter leaf l followed by the maps of the state after
``i`` iterations from l (input→output: the other way), starting from the
identity of each leaf; the unrolling stops early when an iteration changes
nothing.  A loop whose trip count is not known
(`verifier.indexing.control_flow.loop_trip_count`), or whose unions grow
past the limits (`LOOP_MAP_LIMIT` maps in one union, `LOOP_DISTINCT_MAP_LIMIT`
distinct maps or `LOOP_WORK_LIMIT` maps over its iterations), is UNDEFINED
between every pair of leaves, the reason naming the loop.

``while((s32[] i, f32[4] x))`` with body ``(i + 1, negate(x))`` run 10
times: output ``{1}`` reads leaf ``{1}`` through ``(d0) -> (d0)``, leaf
``{0}`` not at all.

>>> from verifier.fusion.compose import Composer
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... body {
...   s = (s32[], f32[4]) parameter(0)
...   i = s32[] get-tuple-element(s), index=0
...   x = f32[4] get-tuple-element(s), index=1
...   one = s32[] constant(1)
...   j = s32[] add(i, one)
...   y = f32[4] negate(x)
...   ROOT t = (s32[], f32[4]) tuple(j, y)
... }
... cond {
...   s = (s32[], f32[4]) parameter(0)
...   i = s32[] get-tuple-element(s), index=0
...   n = s32[] constant(10)
...   ROOT lt = pred[] compare(i, n), direction=LT
... }
... ENTRY e {
...   zero = s32[] constant(0)
...   p = f32[4] parameter(0)
...   init = (s32[], f32[4]) tuple(zero, p)
...   ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
... }''')
>>> counter, x = Composer(module).composed_output_to_input(module.entry, module.entry.root, 1)
>>> counter.maps, [str(c.map).splitlines()[0] for c in x.maps]
((), ['(d0) -> (d0),'])
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.expr import IndexingMap, Undefined
from verifier.fusion.composed import NOT_READ, ComposedIndexing, CountedMap, MapJoin, read_entries
from verifier.fusion.map_sets import Extension, MapSet, as_composed, as_set
from verifier.hlo import Computation, Instruction, Module
from verifier.indexing.control_flow import (
    LOOP_DISTINCT_MAP_LIMIT,
    LOOP_MAP_LIMIT,
    LOOP_WORK_LIMIT,
    loop_body,
    loop_trip_count,
)
from verifier.indexing.leaves import instruction_operand_leaves, output_leaves, parameter_leaves

LoopState = tuple[tuple[ComposedIndexing, ...], ...]
"""Per leaf k, per leaf j: the maps from leaf k to leaf j."""

Through = Callable[[Computation, int], tuple[ComposedIndexing, ...]]
"""A computation's maps from one leaf, composed (in the loop's direction)."""


def loop_maps(
    module: Module,
    computation: Computation,
    loop: Instruction,
    direction: str,
    through: Through,
    extension: Extension,
    join: MapJoin | None,
) -> LoopState:
    """`loop`'s maps per leaf in `direction` (``o2i`` or ``i2o``), composed by `through` (the
    body composed from one of its output leaves, or from one of its
    parameter leaves), its unions extended by `extension` and joined by
    `join`."""
    trips = loop_trip_count(module, computation, loop)
    unrolled = (
        trips
        if isinstance(trips, Undefined)
        else _unrolled(module, loop, trips, through, extension, join)
    )
    if isinstance(unrolled, Undefined):
        # One value for every pair of leaves (a loop carrying 300 arrays
        # has 90,000 pairs); rows per output (``o2i``) or per operand leaf
        # (a loop shaped as its body's result may have other leaves than
        # its operand).
        undefined = ComposedIndexing(unrolled)
        operands = len(instruction_operand_leaves(computation, loop))
        outputs = len(output_leaves(loop.shape))
        rows, columns = (outputs, operands) if direction == "o2i" else (operands, outputs)
        return tuple(tuple(undefined for _ in range(columns)) for _ in range(rows))
    return unrolled


def _unrolled(
    module: Module,
    loop: Instruction,
    trips: int,
    through: Through,
    extension: Extension,
    join: MapJoin | None,
) -> LoopState | Undefined:
    """`loop`'s body composed `trips` times, or UNDEFINED when a union
    grows past `LOOP_MAP_LIMIT` maps, or the iterations together past
    `LOOP_DISTINCT_MAP_LIMIT` distinct maps or `LOOP_WORK_LIMIT` maps."""
    body = loop_body(module, loop)
    dimensions = [leaf.shape.dimensions for leaf in parameter_leaves(body)]
    leaves = len(dimensions)
    step = [through(body, leaf) for leaf in range(leaves)]
    state = tuple(
        tuple(
            ComposedIndexing((CountedMap(IndexingMap.identity(dimensions[k])),) if k == j else ())
            for j in range(leaves)
        )
        for k in range(leaves)
    )
    # The maps the iterations have composed (each one merged into its
    # union, a remembered answer when it was made before), and every
    # distinct map among them (each simplified and compared anew).
    composed = 0
    made: set[IndexingMap] = set()
    read_by_step = [read_entries(row) for row in step]
    for _ in range(trips):
        following = _iteration(read_by_step, state, extension, join)
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
    read_by_step: list[list[tuple[int, ComposedIndexing]]],
    state: LoopState,
    extension: Extension,
    join: MapJoin | None,
) -> LoopState:
    """The state after one more iteration: from leaf k to leaf j, the
    union over leaves l of the body's maps from k to l (`read_by_step`:
    per k, the leaves l it reads) followed by the state's from l to j,
    in the order of l.  Only the pairs that read something are
    visited: a loop carrying a tuple of hundreds of arrays, each read
    by one other, costs the pairs read, not the cube of its width."""
    read_by_state = [read_entries(row) for row in state]
    following = []
    for read in read_by_step:
        unions: dict[int, MapSet] = {}
        for through, head in read:
            for j, tail in read_by_state[through]:
                union = unions.setdefault(j, MapSet(capacity=LOOP_MAP_LIMIT + 1, join=join))
                extension.extend(union, as_set(head), tail)
        row = [NOT_READ] * len(state)
        for j, union in unions.items():
            row[j] = as_composed(union if union.maps or union.undefined else None)
        following.append(tuple(row))
    return tuple(following)


def _same_maps(a: LoopState, b: LoopState) -> bool:
    """Whether two loop states hold the same maps (their steps aside)."""
    return [[c.maps for c in row] for row in a] == [[c.maps for c in row] for row in b]
