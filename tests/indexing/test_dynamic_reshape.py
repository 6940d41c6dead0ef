"""dynamic-reshape with a dynamic minor dimension: an element's row-major
position multiplies run-time sizes, so the rule answers UNDEFINED with that
reason (the static-minor forms are judged by the oracle in
test_rules_vs_oracle)."""

from __future__ import annotations

import pytest

from tests.oracle import reads
from verifier.expr import Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input


@pytest.mark.parametrize(
    ("source", "result"), [("f32[<=24]", "f32[4,<=6]"), ("f32[4,<=6]", "f32[<=24]")]
)
def test_dynamic_minor_dimension_is_undefined(source: str, result: str) -> None:
    sizes = "".join(f"  n{k} = s32[] parameter({k + 1})\n" for k in range(result.count(",") + 1))
    arguments = ", ".join(f"n{k}" for k in range(result.count(",") + 1))
    module = parse_module(
        f"HloModule m\nENTRY e {{\n  x = {source} parameter(0)\n{sizes}"
        f"  ROOT r = {result} dynamic-reshape(x, {arguments})\n}}\n"
    )
    computation, root = module.entry, module.entry.root
    assert any(reads(computation, root).values())  # the oracle does read elements
    for indexing in (
        *own_output_to_input(computation, root),
        *own_input_to_output(computation, root, 0),
    ):
        assert isinstance(indexing, Undefined)
        assert "dynamic minor dimension" in indexing.reason
