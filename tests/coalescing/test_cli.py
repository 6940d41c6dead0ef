"""`verifier coalescing` end to end: the JSON contract, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.coalescing.xla_cases import CASES
from verifier.cli import main


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_json_contract(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(CASES["rhs_transposed_layout"][0])
    code, text = _run("coalescing", str(path), "--instruction", "fu", "--format", "json")
    assert code == 0
    report = json.loads(text)
    assert {"module", "instruction", "device", "emitter", "xla_heuristic"} <= set(report)
    assert set(report["launch"]) >= {"threads_per_block", "blocks", "unroll", "thread_to_output"}
    lhs, rhs = report["operands"]
    for row in (lhs, rhs):
        assert {
            "operand",
            "name",
            "element_bytes",
            "xla_coalesced",
            "linearized",
            "sectors_per_request",
            "ideal_sectors",
            "coalesced",
        } <= set(row)
    assert (lhs["coalesced"], rhs["coalesced"]) == (True, False)
    assert rhs["sectors_per_request"] == {"min": 32, "mean": 32.0, "max": 32}


def test_unknown_fusion_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(CASES["pad"][0])
    code, _ = _run("coalescing", str(path), "--instruction", "nope")
    assert code == 2
    code, _ = _run("coalescing", str(path), "--device", "tpu")
    assert code == 2


def test_utilization_coalescing_column(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(CASES["pad"][0])
    code, text = _run("utilization", str(path), "--coalescing", "--format", "json")
    assert code == 0
    (fusion,) = json.loads(text)["instructions"]
    column = [row["coalescing"] for row in fusion["operands"]]
    assert column[0]["xla_coalesced"] is True and column[0]["coalesced"] is False
    # As every warp simulated gives them (test_exact.test_the_readme_pad).
    assert column[0]["sectors_per_request"] == {"min": 10, "mean": 56329 / 3988, "max": 17}
    _, plain = _run("utilization", str(path), "--format", "json")
    assert "coalescing" not in plain
