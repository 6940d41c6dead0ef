"""Convolution, sort, scatter, select-and-scatter, collectives (tuple-form
all-to-all too) and tiled bitcasts on generated tiny configurations: o2i
equals the oracle, i2o is its inverse, every map is in bounds."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.expr.indexing_map import Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

from . import compound_strategies as strategies
from .compound_checks import check

_STRATEGIES = {
    "convolution": strategies.convolution(),
    "cuDNN convolution": strategies.cudnn_convolution(),
    "sort": strategies.sort(),
    "scatter": strategies.scatter(),
    "select-and-scatter": strategies.select_and_scatter(),
    "collectives": strategies.collective(),
    "all-to-all (tuple)": strategies.tuple_all_to_all(),
    "bitcast (tiled)": strategies.bitcast_tiled(),
}
_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("family", sorted(_STRATEGIES))
@settings(_SETTINGS, max_examples=40)
@given(data=st.data())
def test_matches_oracle(family: str, data: st.DataObject) -> None:
    undefined = check(data.draw(_STRATEGIES[family], label="hlo"))
    assert not undefined, undefined


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(_STRATEGIES))
@settings(_SETTINGS, max_examples=1000)
@given(data=st.data())
def test_matches_oracle_sweep(family: str, data: st.DataObject) -> None:
    undefined = check(data.draw(_STRATEGIES[family], label="hlo"))
    assert not undefined, undefined


# Batching dims after the index vector dim, paired in swapped order: the batch
# coordinate of indices dim b is b - 1 there (sizes 2 and 3 tell them apart).
_BATCHING_CASES = {
    "scatter": """HloModule test
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p0 = f32[2,3,2] parameter(0)
  p1 = s32[1,2,3] parameter(1)
  p2 = f32[2,2,3] parameter(2)
  ROOT r = f32[2,3,2] scatter(p0, p1, p2), update_window_dims={0}, inserted_window_dims={},
    scatter_dims_to_operand_dims={0}, index_vector_dim=0, input_batching_dims={1,2},
    scatter_indices_batching_dims={2,1}, to_apply=add
}
""",
}


@pytest.mark.parametrize("name", sorted(_BATCHING_CASES))
def test_batching_dims_after_the_index_vector_dim(name: str) -> None:
    assert not check(_BATCHING_CASES[name])


def test_tuple_all_to_all_with_fewer_operands_than_replicas_is_undefined() -> None:
    text = (
        "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n  p1 = f32[2] parameter(1)\n"
        "  ROOT r = (f32[2], f32[2]) all-to-all(p0, p1), replica_groups={{0,1,2}}\n}\n"
    )
    module = parse_module(text)
    computation, root = module.entry, module.entry.root
    found = [*own_output_to_input(computation, root, 1), *own_input_to_output(computation, root, 0)]
    assert len(found) == 4
    for indexing in found:
        assert isinstance(indexing, Undefined)
        assert "2 operands for groups of 3 replicas" in indexing.reason
