"""Every supported opcode, on generated small configurations: the rules' maps
equal the reference interpreter's relation in both directions, and every
map's image lies inside its target shape."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .hlo_strategies import STRATEGIES
from .relations import check_module

# Data-movement and dynamic ops have many more configurations than an
# elementwise op of a given arity; give them more examples.
_RICH = {
    "broadcast", "transpose", "reverse", "slice", "reshape", "bitcast", "bitcast-convert",
    "concatenate", "pad", "reduce", "reduce-window", "dot", "dynamic-slice",
    "dynamic-update-slice", "gather", "tuple", "get-tuple-element",
}  # fmt: skip


def _run(opcode: str, data: st.DataObject) -> None:
    text = data.draw(STRATEGIES[opcode], label="hlo")
    check_module(text)


@pytest.mark.parametrize("opcode", sorted(_RICH))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rich_op_matches_oracle(opcode: str, data: st.DataObject) -> None:
    _run(opcode, data)


@pytest.mark.parametrize("opcode", sorted(set(STRATEGIES) - _RICH))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_simple_op_matches_oracle(opcode: str, data: st.DataObject) -> None:
    _run(opcode, data)


@pytest.mark.slow
@pytest.mark.parametrize("opcode", sorted(STRATEGIES))
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_op_matches_oracle_sweep(opcode: str, data: st.DataObject) -> None:
    _run(opcode, data)
