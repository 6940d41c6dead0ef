"""Merging a union's maps: the composer tells maps apart by sample pairs
before asking its `same`, so a map it keeps apart must be a different
relation, and one it merges the same relation.  Judged by brute force
(`IndexingMap.relation`), with a `same` that is brute force too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import constraint_intervals, indexing_maps, map_pairs
from verifier.analysis.module_maps import ModuleMaps
from verifier.bridges.isl_questions import relations_equal
from verifier.expr import IndexingMap, Undefined, parse_map
from verifier.fusion.compose import Composer
from verifier.fusion.composed import CountedMap
from verifier.fusion.map_sets import MapSet
from verifier.fusion.sampling import SameRelation, excludes, relation_key
from verifier.hlo import parse_module
from verifier.indexing.control_flow import LOOP_MAP_LIMIT
from verifier.simplify import simplify_relation

_MODULE = parse_module(
    """HloModule m

ENTRY e {
  ROOT p = f32[4] parameter(0)
}
"""
)


def _brute_force_same(a: IndexingMap, b: IndexingMap) -> bool:
    return a.relation() == b.relation()


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(map_pairs())
def test_merges_exactly_the_equal_relations(pair: tuple[IndexingMap, IndexingMap]) -> None:
    a, b = pair
    same_relation = SameRelation(_brute_force_same, prefilter=True)
    assert same_relation(a, b) == (a.relation() == b.relation())


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

    same_relation = SameRelation(same, prefilter=True)
    assert not same_relation(below, above)
    assert asked == []
    assert below.relation() != above.relation()


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(indexing_maps(max_rt_vars=2), st.data())
def test_a_pair_of_the_relation_is_never_shown_outside_it(
    indexing_map: IndexingMap, data: st.DataObject
) -> None:
    """`excludes` is sound: no pair of a map's relation (brute force) is
    shown outside it — also with a constraint on a result itself, which the
    maps of a loop's unions carry (``d0 + rt0 - rt2 in [4, 63]``)."""
    constrained: bool = data.draw(st.booleans())
    if indexing_map.results and constrained:
        result = data.draw(st.sampled_from(indexing_map.results))
        indexing_map = IndexingMap.create(
            indexing_map.dims,
            indexing_map.results,
            range_vars=indexing_map.range_vars,
            rt_vars=indexing_map.rt_vars,
            constraints=[*indexing_map.constraints, (result, data.draw(constraint_intervals()))],
        )
    for pair in indexing_map.relation():
        assert not excludes(indexing_map, pair), pair


def test_sample_pairs_tell_apart_boxes_and_constrained_results_without_asking() -> None:
    """Maps of a loop writing a tile at runtime offsets (the held-out
    fori_dus_2d, scaled down): the identity on two boxes, told apart by a
    corner outside the other's dims' bounds; and a moved tile whose result
    is constrained to [0, 11] or [4, 15], told apart by a corner's result
    outside the other's constraint on that same result."""
    boxes = [
        parse_map(f"(d0, d1) -> (d0, d1), domain: d0 in [{low}, {high}], d1 in [0, 3]")
        for low, high in ((0, 11), (4, 15))
    ]
    moved = [
        parse_map(
            "(d0, d1){rt0, rt1} -> (d0 + rt0 - rt1, d1), domain: d0 in [0, 15], d1 in [0, 1], "
            f"rt0 in [0, 12], rt1 in [0, 12], d0 - rt1 in [0, 3], d0 + rt0 - rt1 in [{low}, {high}]"
        )
        for low, high in ((0, 11), (4, 15))
    ]
    asked: list[tuple[IndexingMap, IndexingMap]] = []

    def same(a: IndexingMap, b: IndexingMap) -> bool:
        asked.append((a, b))
        return _brute_force_same(a, b)

    same_relation = SameRelation(same, prefilter=True)
    for a, b in (boxes, moved):
        assert not same_relation(a, b)
        assert a.relation() != b.relation()
    assert asked == []


def test_maps_that_simplify_alike_merge_without_asking() -> None:
    """From a dynamic-update-slice loop: rows below one runtime offset and
    above another, in two orders — both the rows 1 to 3, one map once each
    lone runtime variable is projected out (`project_lone_symbol`)."""
    a = parse_map(
        "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 4], d1 in [0, 2], "
        "rt0 in [0, 4], rt1 in [0, 4], d0 - rt0 in [1, 4], d0 - rt1 in [-4, -1]"
    )
    b = parse_map(
        "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 4], d1 in [0, 2], "
        "rt0 in [0, 4], rt1 in [0, 4], d0 - rt0 in [-4, -1], d0 - rt1 in [1, 4]"
    )
    expected = parse_map("(d0, d1) -> (d0, d1), domain: d0 in [1, 3], d1 in [0, 2]")
    assert simplify_relation(a) == simplify_relation(b) == expected
    assert a.relation() == b.relation()

    def never(a: IndexingMap, b: IndexingMap) -> bool:
        raise AssertionError("asked")

    union = MapSet()
    for m in (a, b):
        union.add(CountedMap(simplify_relation(m)), SameRelation(never, prefilter=False))
    assert union.maps == [CountedMap(expected, 2)]


def _row_update_loop(trips: int) -> str:
    """A fori loop that adds a row and a column of `x` into row ``i``: each
    iteration splits what survives it at a runtime offset, so the unions
    double until equal maps merge (a union passes `LOOP_MAP_LIMIT` at 6
    trips)."""
    state = "(s32[], f32[6,6])"
    return f"""HloModule rows

body {{
  state = {state} parameter(0)
  i = s32[] get-tuple-element(state), index=0
  x = f32[6,6] get-tuple-element(state), index=1
  zero = s32[] constant(0)
  one = s32[] constant(1)
  row = f32[1,6] dynamic-slice(x, i, zero), dynamic_slice_sizes={{1,6}}
  column = f32[6,1] dynamic-slice(x, zero, i), dynamic_slice_sizes={{6,1}}
  across = f32[1,6] bitcast(column)
  sum = f32[1,6] add(row, across)
  next_x = f32[6,6] dynamic-update-slice(x, sum, i, zero)
  next_i = s32[] add(i, one)
  ROOT next = {state} tuple(next_i, next_x)
}}

condition {{
  state = {state} parameter(0)
  i = s32[] get-tuple-element(state), index=0
  bound = s32[] constant({trips})
  ROOT less = pred[] compare(i, bound), direction=LT
}}

ENTRY main {{
  start = s32[] constant(0)
  p = f32[6,6] parameter(0)
  init = {state} tuple(start, p)
  ROOT loop = {state} while(init), condition=condition, body=body
}}
"""


def _equal_relations(a: IndexingMap, b: IndexingMap) -> bool:
    return relations_equal(a, b) is True


@pytest.mark.slow
def test_prefilter_keeps_a_loops_unions() -> None:
    """The unions of a loop whose maps split at runtime offsets are the same
    maps with the same multiplicities whether the prefilter (relation keys,
    sample pairs) or isl alone decides each merge."""
    module = parse_module(_row_update_loop(4))
    loop = module.entry.root
    found = [
        Composer(module, transform=simplify_relation, same=_equal_relations, prefilter=prefilter)
        .composed_output_to_input(module.entry, loop, 1)[1]
        .maps
        for prefilter in (True, False)
    ]
    assert isinstance(found[0], tuple) and len(found[0]) > 8
    assert found[0] == found[1]


@pytest.mark.slow
def test_a_union_past_the_map_bound_is_unknown_naming_the_bound() -> None:
    """At 6 trips a union passes `LOOP_MAP_LIMIT`: the loop is unknown and
    the reason names that bound (the union stops taking maps at the bound
    plus one: what it would hold past that is never read)."""
    module = parse_module(_row_update_loop(6))
    loop = module.entry.root
    view = ModuleMaps(module).instruction(module.entry, loop)
    for _, composed in view.o2i(view.outputs[1]):
        assert isinstance(composed.maps, Undefined)
        assert "composing its body 6 times gives a union of more than " in composed.maps.reason
        assert f"{LOOP_MAP_LIMIT} maps between two state arrays" in composed.maps.reason


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(indexing_maps(max_rt_vars=2))
def test_a_relation_key_is_the_lowest_point_and_its_results(indexing_map: IndexingMap) -> None:
    """`relation_key`, when found, is the relation's lowest dims point and
    every result there, by brute force: a function of the relation, so
    maps with different keys are different relations."""
    key = relation_key(indexing_map)
    relation = indexing_map.relation()
    if key is None:
        return
    lowest = min(x for x, _ in relation)
    assert key == (lowest, frozenset(y for x, y in relation if x == lowest))


def test_equal_relations_of_other_forms_share_a_key() -> None:
    """``d0 + s0`` and ``d0 + 1 - s0`` over ``s0 in [0, 1]`` relate the same
    pairs: the same key, so the union still asks whether they merge."""
    a = parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]")
    b = parse_map("(d0)[s0] -> (d0 - s0 + 1), domain: d0 in [0, 3], s0 in [0, 1]")
    assert a != b and a.relation() == b.relation()
    assert relation_key(a) == relation_key(b) == ((0,), frozenset({(0,), (1,)}))


_SLICES = """HloModule slices

fused {
  p = f32[12] parameter(0)
  a = f32[8] slice(p), slice={[0:8]}
  b = f32[8] slice(p), slice={[2:10]}
  c = f32[8] slice(p), slice={[4:12]}
  r = f32[8] reverse(a), dimensions={0}
  rr = f32[8] reverse(r), dimensions={0}
  ab = f32[8] add(a, b)
  bc = f32[8] add(b, c)
  s = f32[8] add(ab, bc)
  ROOT t = f32[8] add(s, rr)
}

ENTRY e {
  x = f32[12] parameter(0)
  ROOT f = f32[8] fusion(x), kind=kLoop, calls=fused
}
"""


def test_the_relation_key_index_never_decides_a_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same unions, maps and multiplicities, with the relation keys as
    they are and with every key bypassed (None: each map compared with
    every map held); the union holds each relation once (brute force)."""
    from verifier.fusion import sampling

    module = parse_module(_SLICES)

    def composed() -> tuple[object, ...]:
        composer = Composer(
            module, transform=simplify_relation, same=_brute_force_same, prefilter=True
        )
        root = module.entry.root
        return (
            composer.composed_output_to_input(module.entry, root)[0].maps,
            composer.composed_input_to_output(module.entry, root, 0)[0].maps,
        )

    keyed = composed()
    monkeypatch.setattr(sampling, "relation_key", lambda indexing_map: None)
    bypassed = composed()
    assert keyed == bypassed
    (o2i, _) = keyed
    assert isinstance(o2i, tuple)
    relations = [counted.map.relation() for counted in o2i]
    assert len(set(relations)) == len(relations) == 3
    assert sorted(counted.multiplicity for counted in o2i) == [1, 2, 2]


class _Forgetful(dict):  # type: ignore[type-arg]
    """A memo table that keeps nothing: every composition made anew."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def test_the_composition_memo_never_decides_a_union() -> None:
    """The same unions, maps, multiplicities and steps, with the
    composition memo of `Extension` as it is and with one that keeps
    nothing."""
    module = parse_module(_SLICES)

    def composed(forget: bool) -> tuple[object, ...]:
        composer = Composer(
            module, transform=simplify_relation, same=_brute_force_same, prefilter=True
        )
        if forget:
            composer._extension._compositions = _Forgetful()
        root = module.entry.root
        o2i = composer.composed_output_to_input(module.entry, root)[0]
        i2o = composer.composed_input_to_output(module.entry, root, 0)[0]
        return o2i.maps, o2i.steps, i2o.maps, i2o.steps

    assert composed(False) == composed(True)
