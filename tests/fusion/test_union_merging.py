"""Merging a union's maps: the composer tells maps apart by sample pairs
before asking its `same`, so a map it keeps apart must be a different
relation, and one it merges the same relation.  Judged by brute force
(`IndexingMap.relation`), with a `same` that is brute force too."""

from __future__ import annotations

from hypothesis import given, settings

from tests.strategies import map_pairs
from verifier.expr import IndexingMap, parse_map
from verifier.fusion.compose import Composer
from verifier.hlo import parse_module

_MODULE = parse_module(
    """HloModule m

ENTRY e {
  ROOT p = f32[4] parameter(0)
}
"""
)


def _brute_force_same(a: IndexingMap, b: IndexingMap) -> bool:
    return a.relation() == b.relation()


@settings(max_examples=300, deadline=None)
@given(map_pairs())
def test_merges_exactly_the_equal_relations(pair: tuple[IndexingMap, IndexingMap]) -> None:
    a, b = pair
    composer = Composer(_MODULE, same=_brute_force_same)
    assert composer._same(a, b) == (a.relation() == b.relation())


def test_sample_pairs_tell_apart_without_asking() -> None:
    """Two maps of a dynamic-update-slice loop's union (fori_dynamic_update):
    both identities, on the elements below and above a runtime offset.  The
    lowest point of the first, d0 = 0, is not in the second."""
    below = parse_map(
        "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 6], "
        "rt0 in [0, 6], rt1 in [0, 6], d0 - rt0 in [-6, -1], d0 - rt1 in [-6, -1]"
    )
    above = parse_map(
        "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 6], "
        "rt0 in [0, 6], rt1 in [0, 6], d0 - rt0 in [1, 6], d0 - rt1 in [-6, -1]"
    )
    asked: list[tuple[IndexingMap, IndexingMap]] = []

    def same(a: IndexingMap, b: IndexingMap) -> bool:
        asked.append((a, b))
        return _brute_force_same(a, b)

    composer = Composer(_MODULE, same=same)
    assert not composer._same(below, above)
    assert asked == []
    assert below.relation() != above.relation()
    assert composer._same(below, below) and asked == [(below, below)]
