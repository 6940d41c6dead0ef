"""Two places that differ in one detail never share maps.

Each case is a module whose entry holds ``a`` and ``b``, equal but for one
detail their maps depend on: their signatures differ, their maps differ,
and each gets the maps computed for it alone.
"""

from __future__ import annotations

import pytest

from tests.analysis.test_structural_memo import assert_same_maps_as_per_place
from verifier.analysis import ModuleMaps
from verifier.analysis.instruction_maps import ToOperand
from verifier.expr import Undefined
from verifier.hlo import Module, parse_module
from verifier.indexing.signature import Signatures

_ONE_DETAIL = {
    "result shape": """
ENTRY e {
  p0 = f32[8] parameter(0)
  a = f32[4,8] broadcast(p0), dimensions={1}
  b = f32[5,8] broadcast(p0), dimensions={1}
  ROOT t = (f32[4,8], f32[5,8]) tuple(a, b)
}""",
    "dimension attribute": """
ENTRY e {
  p0 = f32[4,4,4] parameter(0)
  a = f32[4,4,4] transpose(p0), dimensions={0,2,1}
  b = f32[4,4,4] transpose(p0), dimensions={1,0,2}
  ROOT t = (f32[4,4,4], f32[4,4,4]) tuple(a, b)
}""",
    "slice stride": """
ENTRY e {
  p0 = f32[16] parameter(0)
  a = f32[4] slice(p0), slice={[0:8:2]}
  b = f32[4] slice(p0), slice={[0:16:4]}
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}""",
    "operand layout": """
ENTRY e {
  p0 = f32[4,8]{1,0} parameter(0)
  p1 = f32[4,8]{0,1} parameter(1)
  a = f32[32]{0} bitcast(p0)
  b = f32[32]{0} bitcast(p1)
  ROOT t = (f32[32], f32[32]) tuple(a, b)
}""",
    "constant operand": """
ENTRY e {
  p0 = f32[8] parameter(0)
  one = s32[] constant(1)
  two = s32[] constant(2)
  a = f32[4] dynamic-slice(p0, one), dynamic_slice_sizes={4}
  b = f32[4] dynamic-slice(p0, two), dynamic_slice_sizes={4}
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}""",
    "iota operand's dimension": """
ENTRY e {
  p0 = f32[3,3] parameter(0)
  i0 = s32[2,3] iota(), iota_dimension=0
  i1 = s32[2,3] iota(), iota_dimension=1
  a = f32[1,3] gather(p0, i0), offset_dims={0}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}
  b = f32[1,3] gather(p0, i1), offset_dims={0}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}
  ROOT t = (f32[1,3], f32[1,3]) tuple(a, b)
}""",
    "called computation's body": """
fa {
  q0 = f32[8,8] parameter(0)
  ROOT r = f32[8,8] transpose(q0), dimensions={1,0}
}
fb {
  q0 = f32[8,8] parameter(0)
  ROOT r = f32[8,8] copy(q0)
}
ENTRY e {
  p0 = f32[8,8] parameter(0)
  a = f32[8,8] fusion(p0), kind=kLoop, calls=fa
  b = f32[8,8] fusion(p0), kind=kLoop, calls=fb
  ROOT t = (f32[8,8], f32[8,8]) tuple(a, b)
}""",
    "operand order in a called computation": """
fa {
  q0 = f32[3] parameter(0)
  q1 = f32[3] parameter(1)
  ROOT c = f32[6] concatenate(q0, q1), dimensions={0}
}
fb {
  q0 = f32[3] parameter(0)
  q1 = f32[3] parameter(1)
  ROOT c = f32[6] concatenate(q1, q0), dimensions={0}
}
ENTRY e {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  a = f32[6] fusion(p0, p1), kind=kLoop, calls=fa
  b = f32[6] fusion(p0, p1), kind=kLoop, calls=fb
  ROOT t = (f32[6], f32[6]) tuple(a, b)
}""",
    "a nested called computation": """
ia {
  r0 = f32[8,8] parameter(0)
  ROOT r = f32[8,8] transpose(r0), dimensions={1,0}
}
ib {
  r0 = f32[8,8] parameter(0)
  ROOT r = f32[8,8] negate(r0)
}
fa {
  q0 = f32[8,8] parameter(0)
  ROOT f = f32[8,8] fusion(q0), kind=kLoop, calls=ia
}
fb {
  q0 = f32[8,8] parameter(0)
  ROOT f = f32[8,8] fusion(q0), kind=kLoop, calls=ib
}
ENTRY e {
  p0 = f32[8,8] parameter(0)
  a = f32[8,8] fusion(p0), kind=kLoop, calls=fa
  b = f32[8,8] fusion(p0), kind=kLoop, calls=fb
  ROOT t = (f32[8,8], f32[8,8]) tuple(a, b)
}""",
}


def _parsed(entry: str) -> Module:
    return parse_module("HloModule m\n" + entry)


def _entry_o2i(maps: ModuleMaps, name: str) -> tuple[ToOperand, ...]:
    """The o2i pairs of output 0 of entry instruction `name`."""
    entry = maps.module.entry
    view = maps.instruction(entry, entry.instruction(name))
    return view.o2i(view.outputs[0])


@pytest.mark.parametrize("detail", sorted(_ONE_DETAIL))
def test_places_differing_in_one_detail_do_not_share_maps(detail: str) -> None:
    module = _parsed(_ONE_DETAIL[detail])
    entry = module.entry
    a, b = entry.instruction("a"), entry.instruction("b")
    signatures = Signatures(module)
    assert signatures.instruction(entry, a) != signatures.instruction(entry, b)
    maps = ModuleMaps(module)
    read_a = [composed for _, composed in _entry_o2i(maps, "a")]
    assert read_a != [composed for _, composed in _entry_o2i(maps, "b")]
    assert_same_maps_as_per_place(module)


def test_names_and_metadata_are_not_structure() -> None:
    module = _parsed("""
fa {
  q0 = f32[8,8] parameter(0)
  ROOT r = f32[8,8] transpose(q0), dimensions={1,0}, metadata={op_name="layer_0"}
}
fb {
  x = f32[8,8] parameter(0)
  ROOT y = f32[8,8] transpose(x), dimensions={1,0}, metadata={op_name="layer_1"}
}
ENTRY e {
  p0 = f32[8,8] parameter(0)
  a = f32[8,8] fusion(p0), kind=kLoop, calls=fa
  b = f32[8,8] fusion(p0), kind=kLoop, calls=fb
  ROOT t = (f32[8,8], f32[8,8]) tuple(a, b)
}""")
    entry = module.entry
    signatures = Signatures(module)
    fa, fb = module.computation("fa"), module.computation("fb")
    assert signatures.computation(fa) == signatures.computation(fb)
    assert signatures.instruction(fa, fa.root) == signatures.instruction(fb, fb.root)
    a, b = entry.instruction("a"), entry.instruction("b")
    assert signatures.instruction(entry, a) == signatures.instruction(entry, b)
    assert_same_maps_as_per_place(module)


def test_an_operand_is_its_shape_unless_its_value_folds() -> None:
    # A rule reads an operand's shape (`registry.VALUE_OPCODES`): what
    # computes it is not part of the signature of its users.
    module = _parsed("""
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  n = f32[4] negate(p1), metadata={op_name="n"}
  a = f32[4] multiply(p0, p1)
  b = f32[4] multiply(p0, n)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}""")
    entry = module.entry
    signatures = Signatures(module)
    a, b = entry.instruction("a"), entry.instruction("b")
    assert signatures.instruction(entry, a) == signatures.instruction(entry, b)
    assert_same_maps_as_per_place(module)


def test_the_same_operand_twice_is_another_computation() -> None:
    # add(n0, n0) and add(n0, n1) read operands of the same forms: one
    # instruction signature; the computations differ (operand positions).
    module = _parsed("""
fa {
  q0 = f32[4] parameter(0)
  q1 = f32[4] parameter(1)
  n0 = f32[4] negate(q0)
  n1 = f32[4] negate(q1)
  ROOT s = f32[4] add(n0, n0)
}
fb {
  q0 = f32[4] parameter(0)
  q1 = f32[4] parameter(1)
  n0 = f32[4] negate(q0)
  n1 = f32[4] negate(q1)
  ROOT s = f32[4] add(n0, n1)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  a = f32[4] fusion(p0, p1), kind=kLoop, calls=fa
  b = f32[4] fusion(p0, p1), kind=kLoop, calls=fb
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}""")
    signatures = Signatures(module)
    fa, fb = module.computation("fa"), module.computation("fb")
    assert signatures.instruction(fa, fa.root) == signatures.instruction(fb, fb.root)
    assert signatures.computation(fa) != signatures.computation(fb)
    maps = ModuleMaps(module)
    # fa reads q0 twice per element and q1 never; fb each once.
    read = {
        name: [
            [counted.multiplicity for counted in composed.maps]
            for _, composed in _entry_o2i(maps, name)
            if not isinstance(composed.maps, Undefined)
        ]
        for name in ("a", "b")
    }
    assert read == {"a": [[2], []], "b": [[1], [1]]}
    assert_same_maps_as_per_place(module)


def test_a_runtime_variable_keeps_its_own_source() -> None:
    # Same structure, offsets from different instructions: the maps quote
    # the source, so each place gets its own.
    module = _parsed("""
ENTRY e {
  p0 = f32[8] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  a = f32[4] dynamic-slice(p0, i), dynamic_slice_sizes={4}
  b = f32[4] dynamic-slice(p0, j), dynamic_slice_sizes={4}
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}""")
    maps = ModuleMaps(module)
    ((_, read_a), _) = _entry_o2i(maps, "a")
    ((_, read_b), _) = _entry_o2i(maps, "b")
    assert read_a != read_b
    assert_same_maps_as_per_place(module)


def test_equal_shapes_of_other_objects_are_one_structure() -> None:
    """Signatures remember a shape by its object (the parser shares one per
    distinct shape text): equal shapes of two objects (spelt apart) still
    make one signature, and a different shape another."""
    text = """
HloModule m
ENTRY {name} {{
  p0 = f32[4,8] parameter(0)
  ROOT a = f32[8,4] transpose(p0), dimensions={{1,0}}
}}"""
    first = parse_module(text.format(name="e"))
    second = parse_module(text.format(name="f").replace("f32[8,4]", "f32[8, 4]"))
    other = parse_module(
        text.format(name="g").replace("f32[4,8]", "f32[4,4]").replace("f32[8,4]", "f32[4,4]")
    )
    assert first.entry.instruction("a").shape is not second.entry.instruction("a").shape
    signatures = Signatures(first)
    one, two, three = (
        signatures.instruction(module.entry, module.entry.instruction(name))
        for module, name in ((first, "a"), (second, "a"), (other, "a"))
    )
    assert one == two != three
