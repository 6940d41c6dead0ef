"""Inputs the fuzzer found that broke something, kept so they stay fixed.
Found in verifier/hlo/ and owned by #12 (being rewritten there): marked
xfail until it lands, so they show up as XPASS when it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import Ending, cli_on_module, parse_hlo_file

ROOT = Path(__file__).parents[2]
NOT_UTF8 = (ROOT / "examples" / "spec" / "add.hlo").read_bytes().replace(b"add", b"\xffadd", 1)


@pytest.mark.xfail(reason="#12: HLO bytes that are not UTF-8 raise UnicodeDecodeError")
def test_a_module_file_that_is_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    assert parse_hlo_file(NOT_UTF8, tmp_path).ending is Ending.ERROR


@pytest.mark.xfail(reason="#12: HLO bytes that are not UTF-8 raise UnicodeDecodeError")
@pytest.mark.parametrize("command", ["maps", "utilization"])
def test_commands_on_a_module_that_is_not_utf8_exit_2(command: str, tmp_path: Path) -> None:
    # A traceback exits 1, which means "refuted".
    assert cli_on_module(command, NOT_UTF8, tmp_path).ending is Ending.ERROR


def test_check_on_a_module_that_is_not_utf8_reports_it(tmp_path: Path) -> None:
    assert cli_on_module("check", NOT_UTF8, tmp_path).ending is Ending.ERROR
