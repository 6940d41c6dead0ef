"""Merging a union's maps: the composer tells maps apart by sample pairs
before asking its `same`, so a map it keeps apart must be a different
relation, and one it merges the same relation.  Judged by brute force
(`IndexingMap.relation`), with a `same` that is brute force too."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import indexing_maps, map_pairs
from verifier.expr import IndexingMap, dim, parse_map, range_var, rt_var
from verifier.fusion.compose import Composer, relation_key
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
    composer = Composer(_MODULE, same=_brute_force_same, prefilter=True)
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

    composer = Composer(_MODULE, same=same, prefilter=True)
    assert not composer._same(below, above)
    assert asked == []
    assert below.relation() != above.relation()
    assert composer._same(below, below) and asked == []  # identical keys


@st.composite
def _lone_symbol_maps(draw: st.DrawFn) -> IndexingMap:
    """``(d0, d1)[s0]{rt0, rt1} -> (d0 + s0)`` with each runtime variable in
    one constraint ``a * d0 + b * d1 + c * rt + k in [lo, hi]`` (c = ±1
    mostly, so `relation_key` eliminates it), s0 in one with d1."""
    small = st.integers(-2, 2)
    box = st.tuples(st.integers(0, 2), st.integers(0, 3)).map(lambda t: (t[0], t[0] + t[1]))
    constraints = []
    for symbol in (rt_var(0), rt_var(1), range_var(0)):
        expr = dim(0) * draw(small) + dim(1) * draw(small) + draw(small)
        expr = expr + symbol * draw(st.sampled_from([1, -1, 1, -1, 2]))
        lower = draw(st.integers(-6, 6))
        constraints.append((expr, (lower, lower + draw(st.integers(0, 6)))))
    return IndexingMap.create(
        [draw(box), draw(box)],
        [dim(0) + range_var(0)],
        range_vars=[draw(box)],
        rt_vars=[draw(box), draw(box)],
        constraints=constraints,
    )


@settings(max_examples=300, deadline=None)
@given(st.one_of(indexing_maps(max_range_vars=2, max_rt_vars=2), _lone_symbol_maps()))
def test_relation_key_is_the_same_relation(indexing_map: IndexingMap) -> None:
    assert relation_key(indexing_map).relation() == indexing_map.relation()


def test_maps_with_equal_keys_merge_without_asking() -> None:
    """From a dynamic-update-slice loop: rows below one runtime offset and
    above another, in two orders — both the rows 1 to 3."""
    a = parse_map(
        "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 4], d1 in [0, 2], "
        "rt0 in [0, 4], rt1 in [0, 4], d0 - rt0 in [1, 4], d0 - rt1 in [-4, -1]"
    )
    b = parse_map(
        "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 4], d1 in [0, 2], "
        "rt0 in [0, 4], rt1 in [0, 4], d0 - rt0 in [-4, -1], d0 - rt1 in [1, 4]"
    )
    expected = parse_map("(d0, d1) -> (d0, d1), domain: d0 in [1, 3], d1 in [0, 2]")
    assert relation_key(a) == relation_key(b) == expected
    assert a.relation() == b.relation()

    def never(a: IndexingMap, b: IndexingMap) -> bool:
        raise AssertionError("asked")

    assert Composer(_MODULE, same=never, prefilter=True)._same(a, b)
    assert not Composer(_MODULE, same=lambda a, b: False)._same(a, b)
