"""Map sets: the growing union of maps a composition gathers at one value.

A `MapSet` holds maps with multiplicities (the number of use paths), or
unknown indexing (`Undefined` absorbs), and the simplification steps behind
its maps.  A map equal to one held — identical, or equal as a relation by
the `same` the owner passes (None: identical only, looked up, not compared
with each map held; with `same`, compared only with the maps held under
its relation key or under none, `verifier.fusion.sampling.relation_key`:
the others are other relations) — adds its multiplicity to it; with a `join`,
a map that is another piece of one held, read as often, is joined with it;
with a `capacity`, a full set takes no more.

`Extension.extend` is the composition step of every walk: each map of one
set followed by each map of an op's own (`compose(first, second)`), the
result transformed once per distinct map (recorded as a `Step`) and merged
into a destination set.  ``p0 + transpose(p0)`` reaching p0 from the
identity on the output:

>>> from verifier.expr import IndexingMap, parse_map
>>> identity = IndexingMap.identity((2, 2))
>>> swap = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 1], d1 in [0, 1]")
>>> extension = Extension(transform=lambda m: m, same=None)
>>> at_p0 = MapSet()
>>> for read in (identity, swap, identity):
...     extension.extend(at_p0, MapSet([CountedMap(identity)]),
...                      ComposedIndexing((CountedMap(read),)))
>>> [(str(c.map).splitlines()[0], c.multiplicity) for c in at_p0.maps]
[('(d0, d1) -> (d0, d1),', 2), ('(d0, d1) -> (d1, d0),', 1)]
>>> as_composed(at_p0).indexing == (identity, swap), as_composed(None) == NOT_READ
(True, True)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from verifier.expr import IndexingMap, Undefined, compose
from verifier.fusion.composed import (
    NOT_READ,
    ComposedIndexing,
    CountedMap,
    MapJoin,
    MapTransform,
    Step,
)
from verifier.fusion.sampling import RelationKey, SameRelation


@dataclass
class MapSet:
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
    # The first position of each map in `maps` (`same` None), and the
    # positions of the maps under each relation key (with `same`), made
    # when first needed and dropped when a join removes a map.
    _positions: dict[IndexingMap, int] | None = field(default=None, repr=False, compare=False)
    _by_key: dict[RelationKey, list[int]] | None = field(default=None, repr=False, compare=False)

    @property
    def full(self) -> bool:
        return self.capacity is not None and len(self.maps) >= self.capacity

    def add(self, counted: CountedMap, same: SameRelation | None) -> None:
        if self.full:
            return
        position = self._held(counted.map, same)
        if position is not None:
            existing = self.maps[position]
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
                    self._positions = self._by_key = None
                    self.add(CountedMap(joined, counted.multiplicity), same)
                    return
        if self._positions is not None:
            self._positions.setdefault(counted.map, len(self.maps))
        if self._by_key is not None:
            if same is None:  # keyed by no one: made again when next needed
                self._by_key = None
            else:
                self._by_key.setdefault(same.key(counted.map), []).append(len(self.maps))
        self.maps.append(counted)

    def _held(self, indexing_map: IndexingMap, same: SameRelation | None) -> int | None:
        """The first position holding a map identical to `indexing_map` or
        equal to it by `same`; without `same`, the identical one, looked up."""
        if same is None:
            if self._positions is None:
                self._positions = {}
                for position, existing in enumerate(self.maps):
                    self._positions.setdefault(existing.map, position)
            return self._positions.get(indexing_map)
        if self._by_key is None:
            self._by_key = {}
            for position, existing in enumerate(self.maps):
                self._by_key.setdefault(same.key(existing.map), []).append(position)
        key = same.key(indexing_map)
        unkeyed = self._by_key.get(None, [])
        if key is None:
            positions: Sequence[int] = range(len(self.maps))
        elif unkeyed:
            positions = sorted([*self._by_key.get(key, ()), *unkeyed])
        else:
            positions = self._by_key.get(key, ())
        return same.first_held(self.maps, indexing_map, positions)


def as_composed(found: MapSet | None) -> ComposedIndexing:
    """What reached one value: nothing (not read), unknown, or the maps."""
    if found is None:
        return NOT_READ
    if found.undefined is not None:
        return ComposedIndexing(found.undefined)
    return ComposedIndexing(tuple(found.maps), tuple(found.steps))


def as_set(composed: ComposedIndexing) -> MapSet:
    """A set holding `composed`'s maps and steps (or its unknown indexing)."""
    if isinstance(composed.maps, Undefined):
        return MapSet(undefined=composed.maps)
    return MapSet(list(composed.maps), steps=dict.fromkeys(composed.steps))


def frozen_key(leaves: dict[int, MapSet]) -> Hashable:
    """A value's maps per output leaf, as a key: everything of them the
    rest of a walk reads."""
    return tuple(
        (leaf, tuple(found.maps), found.undefined, tuple(found.steps))
        for leaf, found in sorted(leaves.items())
    )


class Extension:
    """Extends map sets by an op's maps: `transform` applied once per
    distinct map (a memo table of `Step`s, since modules repeat the same
    maps across outputs, fusions and layers), equal maps merged by `same`
    (None: identical maps only).

    Mutable on purpose: `_steps` grows as maps are made; the answers never
    change (a step is a function of its map)."""

    def __init__(self, transform: MapTransform, same: SameRelation | None) -> None:
        self.transform = transform
        self.same = same
        # Memo tables: `transform` of each map seen, as a step; the step of
        # each composition (`compose` then `transform`) per pair of maps,
        # with whether it changed the map (TORAX composes 1.3 million
        # pairs, a few thousand distinct).
        self._steps: dict[IndexingMap, Step] = {}
        self._compositions: dict[tuple[IndexingMap, IndexingMap], tuple[Step, bool]] = {}

    def step(self, indexing_map: IndexingMap) -> Step:
        """`indexing_map` and what `transform` makes of it, decided once."""
        step = self._steps.get(indexing_map)
        if step is None:
            step = self._steps[indexing_map] = Step(indexing_map, self.transform(indexing_map))
        return step

    def extend(self, destination: MapSet, current: MapSet, then: ComposedIndexing) -> None:
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
        self, destination: MapSet, current: MapSet, then: tuple[CountedMap, ...]
    ) -> None:
        """Add every ``first`` of `current` followed by every map of `then`."""
        for first in current.maps:
            for second in then:
                if destination.full:
                    return
                pair = (first.map, second.map)
                found = self._compositions.get(pair)
                if found is None:
                    step = self.step(compose(*pair))
                    found = self._compositions[pair] = (step, step.after != step.before)
                step, changed = found
                if changed:
                    destination.steps[step] = None
                composed = step.after
                if composed.is_known_empty:
                    continue
                multiplicity = first.multiplicity * second.multiplicity
                destination.add(CountedMap(composed, multiplicity), self.same)
