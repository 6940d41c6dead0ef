"""`verifier corpus` and `verifier plot` usage errors (exit 2), before any
cluster starts."""

from __future__ import annotations

from pathlib import Path

from verifier.cli import main


def test_a_path_that_names_no_module_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["corpus", str(tmp_path / "missing"), "--output", str(tmp_path / "o")]) == 2
    assert main(["corpus", str(tmp_path), "--output", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()


def test_jobs_and_timeout_must_be_positive(tmp_path: Path) -> None:
    module = Path(__file__).parents[2] / "examples" / "spec" / "slice.hlo"
    for flag in (["--jobs", "0"], ["--timeout", "0"]):
        assert main(["corpus", str(module), "--output", str(tmp_path), *flag]) == 2
    assert list(tmp_path.iterdir()) == []
