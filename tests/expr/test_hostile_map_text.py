"""Hostile map text: every input error is a located `ParseError`, whatever
the text — huge integers, absurd nesting, very long lines — and the
`--batch` modes keep each bad line's error to that line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from verifier.cli import EXIT_BAD_INPUT, main
from verifier.errors import ParseError
from verifier.expr.parser import INT64_MAX, MAX_NESTING, parse_expr, parse_map

BOUND = ", domain: d0 in [0, 9]"


def located(text: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse_map(text)
    return caught.value


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("(d0) -> (" + "9" * 5000 + ")" + BOUND, 10),  # past Python's 4300-digit limit
        ("(d0) -> (d0 * 9223372036854775808)" + BOUND, 15),  # INT64_MAX + 1
        ("(d0) -> (d0), domain: d0 in [0, 99999999999999999999]", 33),
        ("(d0) -> (d0), domain: d0 in [-" + "1" * 40 + ", 0]", 31),
    ],
)
def test_integers_past_int64_are_located_errors_that_say_int64(text: str, column: int) -> None:
    error = located(text)
    assert (error.span.line, error.span.column) == (1, column)
    assert "int64" in error.message
    assert len(error.message) < 200  # thousands of digits are not echoed back


def test_int64_extremes_are_accepted() -> None:
    parsed = parse_map(f"(d0) -> (d0 + {INT64_MAX}), domain: d0 in [-{INT64_MAX + 1}, 0]")
    assert parsed.dims[0].bounds.lower == -(2**63)
    assert (
        parse_map("(d0) -> (d0 + 000000000000000000000000042)" + BOUND).results[0]
        == (parse_map("(d0) -> (d0 + 42)" + BOUND).results[0])
    )


@pytest.mark.parametrize(
    "text",
    [
        "(d0) -> (" + "(" * 5000 + "d0" + ")" * 5000 + ")" + BOUND,
        "(d0) -> (" + "(" * 5000 + ")" + BOUND,  # unbalanced, still no RecursionError
        "(d0) -> (" + "min(d0, " * 3000 + "d0" + ")" * 3000 + ")" + BOUND,
        "(d0) -> (" + "(" * 3000 + "d0" + " + 1) mod 5" * 3000 + ")" + BOUND,
        "(d0) -> (d0" + " mod 7 * 3" * 3000 + ")" + BOUND,
    ],
)
def test_absurd_nesting_is_a_located_error(text: str) -> None:
    error = located(text)
    assert f"nested deeper than {MAX_NESTING} levels" in error.message
    assert error.span.line == 1 and error.span.column > 9


def test_nesting_up_to_the_limit_is_accepted() -> None:
    levels = MAX_NESTING - 2
    text = "(d0) -> (" + "(" * levels + "d0" + ")" * levels + ")" + BOUND
    assert str(parse_map(text).results[0]) == "d0"


def test_a_run_of_minus_signs_is_no_recursion() -> None:
    assert str(parse_expr("-" * 10_001 + "d0", ["d0"])) == "-d0"


@pytest.mark.parametrize(
    "text",
    [
        "(d0) -> (d0)" + BOUND + " " * 100_000,  # quadratic in a `\s*`-prefixed lexer
        "(d0) -> (d0" + " " * 100_000 + ")" + BOUND,
        "(d0) -> (" + " + ".join(["d0"] * 20_000) + ")" + BOUND,
        "(d0) -> (d0)" + BOUND + ", " + ", ".join(["d0 mod 3 in [0, 2]"] * 5_000),
    ],
)
def test_long_lines_parse(text: str) -> None:
    # No timing is asserted (benchmarks/map_parser.py measures growth); a
    # quadratic lexer or parser takes minutes on these.
    assert parse_map(text).dims[0].bounds.upper == 9


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(d0) -> (" + "x" * 10_000 + ")" + BOUND, "unknown variable"),
        ("(d0) -> (d0)" + BOUND + " \u00a0\u200b", "unexpected character '\\u200b'"),
        ("(d0) -> (d0 + \u0661)" + BOUND, "unexpected character"),  # Arabic-Indic digit
        ("(d0) -> (d0)\x00" + BOUND, "unexpected character '\\x00'"),
    ],
)
def test_any_other_text_is_a_located_error(text: str, message: str) -> None:
    assert message in located(text).message


def run(*argv: str) -> tuple[int, list[dict[str, str]]]:
    out = io.StringIO()
    code = main(list(argv), out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


HOSTILE = [
    "(d0) -> (" + "9" * 5000 + ")" + BOUND,
    "(d0) -> (" + "(" * 5000 + "d0" + ")" * 5000 + ")" + BOUND,
]
GOOD = "(d0) -> (d0 mod 16)" + BOUND


def test_simplify_batch_keeps_each_bad_line_to_itself(tmp_path: Path) -> None:
    batch = tmp_path / "maps.txt"
    batch.write_text("\n".join([HOSTILE[0], GOOD, HOSTILE[1], GOOD]) + "\n")
    code, answers = run("simplify", "--batch", str(batch))
    assert code == EXIT_BAD_INPUT
    assert f"{batch}:1: " in answers[0]["error"] and "int64" in answers[0]["error"]
    assert f"{batch}:3: " in answers[2]["error"] and "nested" in answers[2]["error"]
    assert answers[1]["simplified"] == answers[3]["simplified"] == "(d0) -> (d0)" + BOUND


def test_equiv_batch_keeps_each_bad_line_to_itself(tmp_path: Path) -> None:
    batch = tmp_path / "pairs.tsv"
    lines = [f"{HOSTILE[0]}\t{GOOD}", f"{GOOD}\t{GOOD}", f"{GOOD}\t{HOSTILE[1]}"]
    batch.write_text("\n".join(lines) + "\n")
    code, answers = run("equiv", "--batch", str(batch))
    assert code == EXIT_BAD_INPUT
    assert f"{batch}:1: " in answers[0]["error"] and "int64" in answers[0]["error"]
    assert answers[1] == {"verdict": "equal"}
    assert f"{batch}:3: " in answers[2]["error"] and "nested" in answers[2]["error"]


NOT_UTF8 = b"(d0) -> (d0\xff)" + BOUND.encode()


def test_a_map_file_that_is_not_utf8_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "map.txt"
    path.write_bytes(NOT_UTF8)
    assert main(["simplify", f"@{path}"], io.StringIO()) == EXIT_BAD_INPUT
    assert "1:12: byte 0xff is not UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["simplify", "equiv"])
def test_a_batch_line_that_is_not_utf8_is_that_lines_error(command: str, tmp_path: Path) -> None:
    good = GOOD.encode() if command == "simplify" else GOOD.encode() + b"\t" + GOOD.encode()
    bad = NOT_UTF8 if command == "simplify" else NOT_UTF8 + b"\t" + GOOD.encode()
    batch = tmp_path / "batch.txt"
    batch.write_bytes(b"\n".join([bad, good]) + b"\n")
    code, answers = run(command, "--batch", str(batch))
    assert code == EXIT_BAD_INPUT
    assert f"{batch}:1: " in answers[0]["error"] and "byte 0xff is not UTF-8" in answers[0]["error"]
    assert "error" not in answers[1]
