"""The ≥ 100,000-input fuzz tier (``pytest -m slow tests/fuzz``): the
campaign of tests/fuzz/campaign.py in `CHUNKS` chunks, which separate
processes can run in parallel (``-k 'chunk_3_'``), or run from the command
line with its figures printed (``python -m tests.fuzz.campaign``)."""

from __future__ import annotations

import pytest

from tests.fuzz.campaign import chunk, run_campaign
from tests.fuzz.harness import Ending

PARSER_INPUTS = 100_000
CLI_INPUTS = 2_500
CHUNKS = 20


@pytest.mark.slow
@pytest.mark.parametrize("index", range(1, CHUNKS + 1), ids=lambda i: f"chunk_{i}_")
def test_fuzz_campaign_chunk(index: int) -> None:
    numbers = [*chunk(PARSER_INPUTS, index, CHUNKS), *chunk(CLI_INPUTS, index, CHUNKS, 10**9)]
    tally = run_campaign(iter(numbers))
    assert tally.inputs == len(numbers)
    report = "\n".join(tally.report())
    assert tally.count(Ending.TRACEBACK) == 0, report
    assert tally.count(Ending.HANG) == 0, report
    assert tally.count(Ending.WRONG_EXIT) == 0, report
