"""Convolution, sort, scatter, select-and-scatter, collectives and tiled bitcasts on
generated tiny configurations: o2i equals the oracle, i2o is its inverse,
every map is in bounds."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from . import strategies
from .checks import check

_STRATEGIES = {
    "convolution": strategies.convolution(),
    "sort": strategies.sort(),
    "scatter": strategies.scatter(),
    "select-and-scatter": strategies.select_and_scatter(),
    "collectives": strategies.collective(),
    "bitcast (tiled)": strategies.bitcast_tiled(),
}
_SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@pytest.mark.parametrize("family", sorted(_STRATEGIES))
@settings(max_examples=60, **_SETTINGS)
@given(data=st.data())
def test_matches_oracle(family: str, data: st.DataObject) -> None:
    undefined = check(data.draw(_STRATEGIES[family], label="hlo"))
    assert not undefined, undefined


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(_STRATEGIES))
@settings(max_examples=1000, **_SETTINGS)
@given(data=st.data())
def test_matches_oracle_sweep(family: str, data: st.DataObject) -> None:
    undefined = check(data.draw(_STRATEGIES[family], label="hlo"))
    assert not undefined, undefined
