"""Every bundled example's `maps`, `check` and `utilization` JSON equals its
golden (see `cli_outputs.py` to update them on purpose)."""

from __future__ import annotations

import json

import pytest

from tests.golden.cli_outputs import DIGESTS, LARGE, OUTPUTS, Case, cases, digest


def _param(case: Case) -> object:
    marks = [pytest.mark.slow] if case.path in LARGE else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in cases()])
def test_output_equals_golden(case: Case) -> None:
    text = case.run()
    whole = OUTPUTS / case.name
    if whole.exists():
        assert text == whole.read_text()
    else:
        assert digest(text) == json.loads(DIGESTS.read_text())[case.name]
