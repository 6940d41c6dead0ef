"""Ops whose relation lives in another computation or outside HLO: the rules
answer UNDEFINED for every operand and output (never a map, never "not read"),
and the reference interpreter has no semantics for them either."""

from __future__ import annotations

import pytest

from tests.oracle import UnsupportedByOracle, reads
from verifier.expr.indexing_map import Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import input_to_output, output_to_input

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
    o2i = output_to_input(computation, root)
    assert len(o2i) == len(root.operands)
    assert all(isinstance(indexing, Undefined) and indexing.reason for indexing in o2i)
    for operand in range(len(root.operands)):
        i2o = input_to_output(computation, root, operand)
        assert all(isinstance(indexing, Undefined) for indexing in i2o)
