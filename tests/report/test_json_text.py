"""indented: byte for byte what json.dumps(value, indent=2) writes, on
generated report-shaped values and on the gate reports of real modules."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.report.json_text import indented

_SCALARS = st.none() | st.booleans() | st.integers() | st.text()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(_VALUES)
def test_indented_is_json_dumps_with_indent_2(value: object) -> None:
    assert indented(value) == json.dumps(value, indent=2)


def test_tuples_are_lists_and_other_values_are_refused() -> None:
    assert indented({"w": (1, "a")}) == json.dumps({"w": [1, "a"]}, indent=2)
    for wrong in ({1: "key"}, {"x": 1.5}, {"x": object()}):
        with pytest.raises(TypeError):
            indented(wrong)
