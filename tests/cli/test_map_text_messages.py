"""What a user typing maps meets: a missing ``)`` is reported as the ``)``
expected at line:column; ``--batch --format text`` prints text; a batch's
errors name the file and line; counterexamples read ``d0 = 1, s0 = 2``
(checked against the maps evaluated here, in plain Python)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from verifier.cli import EXIT_BAD_INPUT, EXIT_REFUTED, main
from verifier.errors import ParseError
from verifier.expr import parse_map


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(argv, out)
    return code, out.getvalue(), capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "where", "opened"),
    [
        ("(d0, d1)[s0] -> (d0 + s0, d1, domain: d0 in [0, 3], d1 in [0, 3], s0 in [0, 1]", 29, 17),
        ("(d0) -> (d0,\n  domain: d0 in [0, 3]", 12, 9),
        ("(d0) -> (d0, is_simplified: true", 12, 9),
    ],
)
def test_a_missing_parenthesis_is_what_was_expected(text: str, where: int, opened: int) -> None:
    with pytest.raises(ParseError) as raised:
        parse_map(text, "MAP")
    message = str(raised.value)
    assert message.startswith(
        f"MAP:1:{where}: expected ')' closing the results opened at 1:{opened}"
    )
    assert "unknown variable" not in message


def test_the_command_line_reports_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["simplify", "(d0) -> (d0 floordiv 2, domain: d0 in [0, 7]"], capsys)
    assert code == EXIT_BAD_INPUT
    assert "MAP:1:23: expected ')' closing the results opened at 1:9, found 'domain'" in err


A = "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 2]"
B = "(d0)[s0] -> (d0), domain: d0 in [0, 3], s0 in [0, 2]"
SHORT = "(d0) -> (d0), domain: d0 in [0, 2]"


def test_a_pointwise_counterexample_reads_as_assignments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["equiv", "--pointwise", A, B], capsys)
    assert code == EXIT_REFUTED
    found = re.fullmatch(
        r"different: at d0 = (\d+), s0 = (\d+): map a gives \((\d+)\), map b gives \((\d+)\)\n", out
    )
    assert found, out
    d0, s0, a, b = map(int, found.groups())
    assert (a, b) == (d0 + s0, d0) and a != b  # the maps, evaluated here


def test_a_point_outside_one_domain_is_said_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["equiv", "--pointwise", "(d0) -> (d0), domain: d0 in [0, 3]", SHORT], capsys
    )
    assert code == EXIT_REFUTED
    assert out == "different: at d0 = 3: map a gives (3), map b is not defined there\n"


def test_a_relation_counterexample_reads_as_assignments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["equiv", A, B], capsys)
    assert code == EXIT_REFUTED
    found = re.fullmatch(
        r"different: at d0 = (\d+), the result \((\d+)\) is related by map a "
        r"\(with s0 = (\d+)\) and not by map b\n",
        out,
    )
    assert found, out
    d0, result, s0 = map(int, found.groups())
    assert result == d0 + s0 and s0 <= 2  # map a relates it; map b relates only (d0)
    assert result != d0


@pytest.fixture
def pairs(tmp_path: Path) -> str:
    path = tmp_path / "pairs.tsv"
    path.write_text(f"{A}\t{A}\n# a comment\nnot a pair\n{'(d0) -> (d0'}\t{B}\n")
    return str(path)


def test_a_batch_in_text_prints_text_and_names_the_file_and_line(
    pairs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["equiv", "--batch", pairs, "--format", "text"], capsys)
    assert code == EXIT_BAD_INPUT
    lines = out.splitlines()
    assert lines[0] == "equal"
    assert lines[1] == f"error: {pairs}:3: expected two maps separated by a tab, got 1 field(s)"
    assert lines[2] == (
        f"error: {pairs}:4: <map>:1:12: expected ',' or ')' closing the results opened at 1:9, "
        "found end of input"
    )
    assert not any(line.startswith("{") for line in lines)


def test_a_batch_writes_json_lines_by_default_naming_the_file(
    pairs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["equiv", "--batch", pairs], capsys)
    assert code == EXIT_BAD_INPUT
    answers = [json.loads(line) for line in out.splitlines()]
    assert answers[0] == {"verdict": "equal"}
    assert answers[1]["error"].startswith(f"{pairs}:3: ")


def test_a_simplify_batch_in_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "maps.txt"
    path.write_text("(d0) -> (d0 floordiv 1), domain: d0 in [0, 3]\n(d0) -> (d0\n")
    code, out, _ = run(["simplify", "--batch", str(path), "--format", "text"], capsys)
    assert code == EXIT_BAD_INPUT
    assert out.startswith("(d0) -> (d0),\ndomain: d0 in [0, 3]\nrules: ")
    assert f"error: {path}:2: MAP:1:" in out and "{" not in out
