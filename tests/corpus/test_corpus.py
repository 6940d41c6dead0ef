"""`verifier corpus` end to end on a small corpus: the same tables locally,
on a Dask cluster of separate processes, and resumed; agreeing with
`verifier utilization` module by module; failed modules as rows.

Slow tier (Dask and the analysis processes take seconds to start); `.ci/run`
runs it.  Skipped when the research extra is not installed.
"""

from __future__ import annotations

import io
import json
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from tests.corpus.dask_cluster import dask_cluster  # noqa: E402
from verifier.cli import main  # noqa: E402
from verifier.corpus.tables import MODULES_FILE, OPERANDS_FILE, TIMING_COLUMNS  # noqa: E402

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).parents[2] / "examples"
MODULES = ["slice", "dynamic_slice", "gather", "pad", "concatenate", "dot"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six spec modules, one broken on purpose (refuted), one that is not
    HLO, one that is not UTF-8."""
    root = tmp_path_factory.mktemp("corpus")
    (root / "spec").mkdir()
    for name in MODULES:
        shutil.copy(EXAMPLES / "spec" / f"{name}.hlo", root / "spec" / f"{name}.hlo")
    shutil.copy(EXAMPLES / "checks" / "bitcast_tiled.hlo", root / "bitcast_tiled.hlo")
    (root / "broken.hlo").write_text("HloModule m\nENTRY e {\n  ROOT p = f32[2] bogus(\n}\n")
    (root / "latin1.hlo").write_bytes("HloModule caf\xe9\n".encode("latin-1"))
    return root


def _run(*argv: str) -> str:
    out = io.StringIO()
    assert main(["corpus", *argv, "--jobs", "2", "--no-progress"], out) == 0
    return out.getvalue()


def _tables(directory: Path) -> tuple[Any, Any]:
    """Both tables, without the timing column."""
    modules = pq.read_table(directory / MODULES_FILE).drop_columns(list(TIMING_COLUMNS))
    return modules, pq.read_table(directory / OPERANDS_FILE)


@pytest.fixture(scope="module")
def local(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("local")
    _run(str(corpus), "--output", str(output))
    return output


def test_every_module_is_a_row_and_a_failed_one_never_stops_the_run(
    corpus: Path, local: Path
) -> None:
    rows = {Path(r["file"]).name: r for r in pq.read_table(local / MODULES_FILE).to_pylist()}
    assert len(rows) == len(MODULES) + 3
    assert [r["file"] for r in pq.read_table(local / MODULES_FILE).to_pylist()] == sorted(
        str(p) for p in corpus.rglob("*.hlo")
    )
    broken, latin1 = rows["broken.hlo"], rows["latin1.hlo"]
    assert (
        broken["status"] == "error" and "broken.hlo:3:19: unknown opcode 'bogus'" in broken["error"]
    )
    assert latin1["status"] == "error" and latin1["error"].startswith("not UTF-8 text (")
    assert rows["bitcast_tiled.hlo"]["status"] == "ok"
    assert rows["bitcast_tiled.hlo"]["refuted"] > 0
    for name in MODULES:
        row = rows[f"{name}.hlo"]
        assert row["status"] == "ok" and row["refuted"] == 0 and row["proved"] > 0
        assert row["instructions"] >= 2 and row["seconds"] > 0


def test_the_operand_table_agrees_with_verifier_utilization(corpus: Path, local: Path) -> None:
    operands = pq.read_table(local / OPERANDS_FILE).to_pylist()
    for path in sorted(corpus.rglob("*.hlo")):
        if path.name in ("broken.hlo", "latin1.hlo"):
            continue
        out = io.StringIO()
        assert main(["utilization", str(path), "--format", "json"], out) == 0
        expected = {
            (i["name"], o["operand"]): o
            for i in json.loads(out.getvalue())["instructions"]
            for o in i["operands"]
        }
        rows = {(r["instruction"], r["operand"]): r for r in operands if r["file"] == str(path)}
        assert rows.keys() == expected.keys(), path
        for key, row in rows.items():
            want = expected[key]
            assert row["elements"] == want["elements"]
            assert row["distinct_read"] == want["distinct_read"]
            if isinstance(want["reads"], int):
                assert row["reads"] == want["reads"]
            if isinstance(want["per_execution"], dict):
                span = want["per_execution"]
                assert (row["distinct_read_min"], row["distinct_read_max"]) == (
                    span["min"],
                    span["max"],
                )
            if row["utilization_exact"] is not None:
                assert Fraction(row["utilization_exact"]) == Fraction(want["utilization"])
                assert row["utilization"] == float(Fraction(want["utilization"]))
            assert row["xla_heuristic_elements"] == pytest.approx(want["xla_heuristic_elements"])


def test_resume_keeps_every_row_and_analyses_only_what_changed(
    corpus: Path, local: Path, tmp_path: Path
) -> None:
    resumed = tmp_path / "resumed"
    shutil.copytree(local, resumed)
    assert "0 analysed, 9 kept" in _run(str(corpus), "--output", str(resumed), "--resume")
    assert _tables(resumed) == _tables(local)
    # Same seconds too: nothing was recomputed.
    assert pq.read_table(resumed / MODULES_FILE) == pq.read_table(local / MODULES_FILE)


def test_resume_analyses_again_only_an_edited_module(
    corpus: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    edited, output = tmp_path / "edited", tmp_path / "out"
    shutil.copytree(corpus / "spec", edited)
    _run(str(edited), "--output", str(output))
    slice_hlo = edited / "slice.hlo"
    slice_hlo.write_text(slice_hlo.read_text().replace("HloModule ", "HloModule renamed_", 1))
    capfd.readouterr()
    out = io.StringIO()
    argv = ["corpus", str(edited), "--output", str(output), "--resume", "--progress"]
    assert main(argv, out) == 0
    assert "1 analysed, 5 kept" in out.getvalue()
    # The progress bar: count, rate and time on stderr.
    bar = capfd.readouterr().err
    assert "1/1 [" in bar and ("module/s" in bar or "s/module" in bar)
    rows = {r["file"]: r for r in pq.read_table(output / MODULES_FILE).to_pylist()}
    assert rows[str(slice_hlo)]["module"].startswith("renamed_")


def test_a_cluster_of_separate_processes_gives_the_same_tables(
    corpus: Path, local: Path, tmp_path: Path
) -> None:
    with dask_cluster(workers=2, threads=1) as address:
        _run(str(corpus), "--output", str(tmp_path), "--scheduler", address)
    assert _tables(tmp_path) == _tables(local)


def test_modules_past_the_timeout_are_rows_and_the_run_finishes(
    corpus: Path, tmp_path: Path
) -> None:
    _run(str(corpus / "spec"), "--output", str(tmp_path), "--timeout", "0.001")
    rows = pq.read_table(tmp_path / MODULES_FILE).to_pylist()
    assert len(rows) == len(MODULES)
    assert {(r["status"], r["error"]) for r in rows} == {("timeout", "no answer within 0.001 s")}
    assert pq.read_table(tmp_path / OPERANDS_FILE).num_rows == 0


@pytest.mark.parametrize("seconds", [1.0, 3.0, 6.0])
def test_a_process_killed_at_staggered_times_then_resumed_gives_the_clean_tables(
    seconds: float, corpus: Path, local: Path, tmp_path: Path
) -> None:
    # Interrupted (its tables committed on the way out), then killed a moment
    # later — before, while or after that commit — at a time of its run.
    argv = ["corpus", str(corpus), "--output", str(tmp_path), "--jobs", "2", "--no-progress"]
    process = subprocess.Popen(
        [sys.executable, "-m", "verifier", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(seconds)
        process.send_signal(signal.SIGINT)
        time.sleep(0.05)
    finally:
        process.kill()
        process.wait(timeout=60)
    summary = _run(str(corpus), "--output", str(tmp_path), "--resume")
    assert f"{len(MODULES) + 3} modules" in summary
    assert _tables(tmp_path) == _tables(local)
    assert sorted(p.name for p in tmp_path.iterdir()) == [MODULES_FILE, OPERANDS_FILE]


def test_coalescing_columns_agree_with_verifier_coalescing_and_resume_by_device(
    tmp_path: Path,
) -> None:
    from tests.coalescing.xla_cases import CASES

    corpus, output = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    for name in ("pad", "transpose", "rhs_transposed_layout"):
        (corpus / f"{name}.hlo").write_text(CASES[name][0])
    _run(str(corpus), "--output", str(output), "--coalescing", "rtx-a6000")
    rows = pq.read_table(output / OPERANDS_FILE).to_pylist()
    compared = 0
    for path in sorted(corpus.iterdir()):
        out = io.StringIO()
        assert main(["coalescing", str(path), "--format", "json"], out) == 0
        for fusion in json.loads(out.getvalue()):
            for want in fusion["operands"]:
                (row,) = [
                    r
                    for r in rows
                    if (r["file"], r["instruction"], r["operand"])
                    == (str(path), fusion["instruction"], want["operand"])
                ]
                spr = want["sectors_per_request"] or {"min": None, "mean": None, "max": None}
                assert (
                    row["sectors_per_request_min"],
                    row["sectors_per_request_mean"],
                    row["sectors_per_request_max"],
                ) == (spr["min"], spr["mean"], spr["max"])
                assert row["coalesced"] == want["coalesced"]
                assert row["xla_coalesced"] == want["xla_coalesced"]
                assert row["xla_heuristic_coalesced"] == fusion["xla_heuristic"]
                compared += 1
    assert compared >= 4
    modules = pq.read_table(output / MODULES_FILE).to_pylist()
    assert {row["coalescing_device"] for row in modules} == {"rtx-a6000"}
    # Rows of another device (or none) are not kept by --resume.
    assert "3 analysed, 0 kept" in _run(str(corpus), "--output", str(output), "--resume")
    assert "0 analysed, 3 kept" in _run(str(corpus), "--output", str(output), "--resume")
    plain = pq.read_table(output / OPERANDS_FILE).to_pylist()
    assert all(row["coalescing_emitter"] is None for row in plain)
