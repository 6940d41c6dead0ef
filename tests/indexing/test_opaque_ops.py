"""Ops whose relation lives in another computation or outside HLO: the rules
answer UNDEFINED for every operand and output (never a map, never "not read"),
and the reference interpreter has no semantics for them either."""

from __future__ import annotations

import pytest

from tests.oracle import UnsupportedByOracle, reads
from verifier.expr.indexing_map import Undefined
from verifier.expr.parser import parse_map
from verifier.hlo import parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

_BODY = "body {\n  a = f32[4] parameter(0)\n  ROOT n = f32[4] negate(a)\n}\n"
_COND = "cond {\n  a = f32[4] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
_CASES = {
    "call": "r = f32[4] call(p0), to_apply=body",
    "custom-call": 'r = f32[4] custom-call(p0), custom_call_target="foo"',
    "while": "r = f32[4] while(p0), condition=cond, body=body",
    "conditional": "r = f32[4] conditional(b, p0, p0), true_computation=body, false_computation=body",
}


@pytest.mark.parametrize("opcode", sorted(_CASES))
def test_opaque_op_is_undefined(opcode: str) -> None:
    text = (
        "HloModule m\n" + _BODY + _COND + "ENTRY e {\n  p0 = f32[4] parameter(0)\n"
        "  b = pred[] parameter(1)\n  ROOT " + _CASES[opcode] + "\n}\n"
    )
    module = parse_module(text)
    computation, root = module.entry, module.entry.root
    assert root.opcode == opcode
    with pytest.raises(UnsupportedByOracle):
        reads(computation, root)
    o2i = own_output_to_input(computation, root)
    assert len(o2i) == len(root.operands)
    assert all(isinstance(indexing, Undefined) and indexing.reason for indexing in o2i)
    for operand in range(len(root.operands)):
        i2o = own_input_to_output(computation, root, operand)
        assert all(isinstance(indexing, Undefined) for indexing in i2o)


@pytest.mark.parametrize(
    ("target", "operand", "result"),
    [
        # What shard_map lowers to before partitioning (Shardy), from a JAX dump.
        ("xla.sdy.LocalToGlobalShape", "f32[4,4]", "f32[8,16]"),
        ("xla.sdy.GlobalToLocalShape", "f32[8,16]", "f32[4,4]"),
        ("SPMDShardToFullShape", "f32[4,4]", "f32[8,16]"),
        # An annotation written with another shape is not one that returns its operand.
        ("xla.sdy.Sharding", "f32[4,4]", "f32[16]"),
        ("Sharding", "f32[4,4]", "f32[4,2]"),
    ],
)
def test_a_call_that_changes_the_shape_is_undefined(target: str, operand: str, result: str) -> None:
    module = parse_module(
        f"HloModule m\nENTRY e {{\n  p0 = {operand} parameter(0)\n"
        f'  ROOT r = {result} custom-call(p0), custom_call_target="{target}"\n}}\n'
    )
    computation, root = module.entry, module.entry.root
    (o2i,) = own_output_to_input(computation, root)
    (i2o,) = own_input_to_output(computation, root, 0)
    assert isinstance(o2i, Undefined) and target in o2i.reason
    assert isinstance(i2o, Undefined)


def test_a_sharding_annotation_of_the_same_shape_passes_its_operand_through() -> None:
    module = parse_module(
        "HloModule m\nENTRY e {\n  p0 = f32[4,4] parameter(0)\n"
        '  ROOT r = f32[4,4] custom-call(p0), custom_call_target="xla.sdy.FuncResultSharding"\n}\n'
    )
    (o2i,) = own_output_to_input(module.entry, module.entry.root)
    assert o2i == (parse_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 3]"),)
