"""`verifier equiv`, `simplify` and `prove-rules`: verdicts, batch mode, exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from verifier.checks import equivalence
from verifier.cli import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_VACUOUS,
    main,
)
from verifier.expr.parser import parse_map

CASES = Path(__file__).parents[2] / "examples" / "maps" / "simplifier_cases.tsv"
IDENTITY = "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]"
SPEC_CASE_1 = "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_spec_cases_equal_pointwise_in_batch() -> None:
    code, text = run("equiv", "--pointwise", "--batch", str(CASES))
    assert code == EXIT_OK
    answers = [json.loads(line) for line in text.splitlines()]
    assert [a["verdict"] for a in answers] == ["equal"] * 4


def test_wrong_pair_is_different_with_a_point_inside_the_domain() -> None:
    wider = SPEC_CASE_1.replace("d1 in [0, 14]", "d1 in [0, 16]")
    widened_identity = IDENTITY.replace("d1 in [0, 14]", "d1 in [0, 16]")
    code, text = run("equiv", "--pointwise", "--format", "json", wider, widened_identity)
    assert code == EXIT_REFUTED
    witness = json.loads(text)["counterexample"]
    point = {name: value for name, value in witness["point"].items()}
    a, b = parse_map(wider), parse_map(widened_identity)
    values = {v: point[v.name] for v in a.all_variables}
    assert a.contains(values)
    assert list(a.evaluate(values)) == witness["a"] != witness["b"] == list(b.evaluate(values))


def test_empty_domains_are_vacuous() -> None:
    empty = "(d0) -> (d0), domain: d0 in [0, 3], d0 mod 8 in [5, 6]"
    code, text = run("equiv", "--format", "json", empty, empty.replace("-> (d0)", "-> (d0 + 1)"))
    assert code == EXIT_VACUOUS
    assert json.loads(text)["verdict"] == "vacuous"


def test_batch_reports_bad_lines_in_order_and_exits_2(tmp_path: Path) -> None:
    batch = tmp_path / "pairs.tsv"
    batch.write_text(f"{SPEC_CASE_1}\t{IDENTITY}\n(d0) -> (d0 * d0)\t{IDENTITY}\nonly one map\n")
    code, text = run("equiv", "--pointwise", "--batch", str(batch))
    assert code == EXIT_BAD_INPUT
    first, second, third = (json.loads(line) for line in text.splitlines())
    assert first == {"verdict": "equal"}
    assert f"{batch}:2: " in second["error"] and "d0" in second["error"]
    assert f"{batch}:3: " in third["error"]


def test_a_batch_on_several_workers_prints_what_one_prints(tmp_path: Path) -> None:
    # Enough lines for every worker to get chunks: equal, different, bad.
    different = IDENTITY.replace("(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1, d0)")
    lines = [f"{SPEC_CASE_1}\t{IDENTITY}", f"{SPEC_CASE_1}\t{different}", "(d0\t(d0)"]
    batch = tmp_path / "pairs.tsv"
    copies = 3 * equivalence._PAIRS_PER_WORKER // 2  # 2 of 3 lines are pairs: 3 workers
    batch.write_text("\n".join(lines * copies) + "\n")
    one = run("equiv", "--batch", str(batch), "--jobs", "1")
    assert one[0] == EXIT_BAD_INPUT
    assert [json.loads(line).get("verdict") for line in one[1].splitlines()[:3]] == [
        "equal",
        "different",
        None,
    ]
    assert run("equiv", "--batch", str(batch), "--jobs", "3") == one


def test_equiv_jobs_must_be_positive() -> None:
    assert run("equiv", "--jobs", "0", IDENTITY, IDENTITY)[0] == EXIT_BAD_INPUT


def test_simplify_prints_the_spec_result_and_proves_it() -> None:
    code, text = run("simplify", "--prove", "--format", "json", SPEC_CASE_1)
    assert code == EXIT_OK
    answer = json.loads(text)
    assert answer["simplified"] == IDENTITY
    assert answer["verdict"] == "equal"
    assert answer["rules"]


def test_simplify_reports_a_parse_error_with_its_column(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("simplify", "(d0) -> (d0 mod s0), domain: d0 in [0, 3]")
    assert code == EXIT_BAD_INPUT
    assert "MAP:1:" in capsys.readouterr().err


@pytest.mark.slow
def test_prove_rules_proves_every_rule() -> None:
    code, text = run("prove-rules", "--format", "json")
    assert code == EXIT_OK
    assert all(row["verdict"] == "proved" for row in json.loads(text))


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    """``verifier maps --all big.hlo | head -0``: no traceback, no error."""
    import subprocess
    import sys
    from pathlib import Path

    dump = Path(__file__).parents[2] / "examples" / "real" / "cnn_step.hlo"
    child = subprocess.Popen(
        [sys.executable, "-m", "verifier", "maps", "--all", str(dump)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # before the child's first write, which then fails
    errors = child.stderr.read()
    assert child.wait() == 0, errors
    assert errors == b""


def test_cross_check_is_an_option_of_every_proving_command() -> None:
    for policy in ("all", "refutations", "none"):
        code, text = run("equiv", "--cross-check", policy, SPEC_CASE_1, IDENTITY)
        assert (code, text.strip()) == (EXIT_OK, "equal")
        code, text = run("simplify", "--prove", "--cross-check", policy, SPEC_CASE_1)
        assert code == EXIT_OK and "verdict: equal" in text
    assert run("equiv", "--cross-check", "some", SPEC_CASE_1, IDENTITY)[0] == EXIT_BAD_INPUT


def test_a_witness_contradicting_isl_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.bridges import isl_text

    def contradicting(*_: object, **__: object) -> bool:
        return False

    monkeypatch.setattr(isl_text, "relations_equal", contradicting)
    big = "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 999], s0 in [0, 999]"
    code, _ = run("equiv", "--cross-check", "all", big, big.replace("d0 + s0", "s0 + d0"))
    assert code == EXIT_INTERNAL_ERROR
