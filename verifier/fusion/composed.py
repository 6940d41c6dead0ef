"""What a composer returns: per operand (or output) leaf, composed maps with
their multiplicities and the simplification steps behind them.

A `CountedMap` is a map and how many use paths produce it (reads per
output element); a `ComposedIndexing` is one leaf's maps — a tuple of
counted maps, the empty tuple when the leaf is not read (`NOT_READ`), or
`Undefined` with its reason — and the `Step`s that made them: each place
where the composer's transform (the simplifier) replaced a map, as the pair
(before, after).  ``p0 + transpose(p0)`` reads p0 through two maps, each
once; ``add(p0, p0)`` through one map, twice:

>>> from verifier.expr import IndexingMap
>>> twice = ComposedIndexing((CountedMap(IndexingMap.identity((4,)), 2),))
>>> [str(m).splitlines()[0] for m in twice.indexing]
['(d0) -> (d0),']
>>> twice.maps[0].multiplicity, twice.quotes_name, NOT_READ.indexing
(2, False, ())
>>> read_entries((NOT_READ, twice)) == [(1, twice)]
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter

from verifier.expr import IndexingMap, Undefined
from verifier.indexing.registry import Indexing

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as a long composition goes (the command line shows it)."""

MapTransform = Callable[[IndexingMap], IndexingMap]
"""What a composer applies to every map it makes (the simplifier)."""

MapEquality = Callable[[IndexingMap, IndexingMap], bool]
"""Whether two maps are equal as relations (e.g. isl equality)."""

MapJoin = Callable[[IndexingMap, IndexingMap], IndexingMap | None]
"""One map whose domain is the disjoint union of two maps' domains, or None
(`verifier.fusion.pieces.join_pieces`)."""


@dataclass(frozen=True)
class Step:
    """One use of a composer's transform: `before` became `after`, which
    must be the same relation."""

    before: IndexingMap
    after: IndexingMap


@dataclass(frozen=True)
class CountedMap:
    """A map and how many use paths produce it (reads per output element)."""

    map: IndexingMap
    multiplicity: int = 1


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

    @property
    def is_read(self) -> bool:
        """Whether the leaf is read at all (unknown counts as read)."""
        return isinstance(self.maps, Undefined) or bool(self.maps)


NOT_READ = ComposedIndexing(())
"""A leaf no element is read from."""

_QUOTES_NAME = attrgetter("quotes_name")


def quote_names(composed: Iterable[ComposedIndexing]) -> bool:
    """Whether any of `composed` quotes a name (`ComposedIndexing.quotes_name`):
    then they hold at this place only, not at every place of its structure."""
    return any(map(_QUOTES_NAME, composed))


def read_entries(row: Iterable[ComposedIndexing]) -> list[tuple[int, ComposedIndexing]]:
    """The entries of `row` that read something, with their positions."""
    return [(k, entry) for k, entry in enumerate(row) if entry.is_read]
