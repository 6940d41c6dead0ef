"""Inputs the fuzzer found that broke something, kept so they stay fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import Ending, cli_on_module, parse_hlo_file
from verifier.errors import ParseError
from verifier.hlo import parse_module

ROOT = Path(__file__).parents[2]
NOT_UTF8 = (ROOT / "examples" / "spec" / "add.hlo").read_bytes().replace(b"add", b"\xffadd", 1)


def test_a_module_file_that_is_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    assert parse_hlo_file(NOT_UTF8, tmp_path).ending is Ending.ERROR


@pytest.mark.parametrize("command", ["maps", "utilization"])
def test_commands_on_a_module_that_is_not_utf8_exit_2(command: str, tmp_path: Path) -> None:
    # A traceback exits 1, which means "refuted".
    assert cli_on_module(command, NOT_UTF8, tmp_path).ending is Ending.ERROR


def test_check_on_a_module_that_is_not_utf8_reports_it(tmp_path: Path) -> None:
    assert cli_on_module("check", NOT_UTF8, tmp_path).ending is Ending.ERROR


def test_a_layout_number_of_thousands_of_digits_is_a_located_error() -> None:
    # The shape fast path read layout numbers with int(), which raises a bare
    # ValueError past 4,300 digits (found by the fast fuzz tier).
    text = "HloModule m\nENTRY e {\n  ROOT p = f32[2]{" + "9" * 5000 + "} parameter(0)\n}\n"
    with pytest.raises(ParseError, match="int64"):
        parse_module(text, "m.hlo")


def test_a_value_with_a_long_run_of_spaces_is_read_in_linear_time(tmp_path: Path) -> None:
    # The slow fuzz tier: inputs 15954, 41934, 55484 and 79448 (30,000 spaces
    # inside an attribute value) took 8 to 18 CPU-s each, past the time guard:
    # the search for a next instruction on the line started at every space of
    # the run and rescanned the rest of it.  Quadratic, this run would take
    # minutes.
    data = (
        b"HloModule m\nENTRY e {\n  p0 = f32[4,4] parameter(0)\n  p1 = f32[] parameter(1)\n"
        b"  ROOT pad = f32[12,16] pad(p0, p1), padding=1_4_1" + b" " * 200_000 + b"x4_8_0\n}\n"
    )
    assert parse_hlo_file(data, tmp_path).ending is Ending.ANSWER


SORT_OUT_OF_RANGE = b"""HloModule m

compare {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY e {
  p = f32[6] parameter(0)
  ROOT s = f32[6] sort(p), dimensions={1}, to_apply=compare
}
"""


@pytest.mark.parametrize("command", ["maps", "utilization"])
def test_a_sort_dimension_past_the_rank_is_a_located_error(command: str, tmp_path: Path) -> None:
    # The CLI fuzz tier of #14's second session: inputs 1000001330 (maps)
    # and 1000001807 (utilization), an IndexError (exit 70).
    assert cli_on_module(command, SORT_OUT_OF_RANGE, tmp_path).ending is Ending.ERROR
