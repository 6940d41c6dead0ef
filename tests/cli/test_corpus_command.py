"""`verifier corpus` and `verifier plot` usage errors (exit 2), before any
cluster starts."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from verifier.cli import EXIT_BAD_INPUT, main


def test_a_path_that_names_no_module_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["corpus", str(tmp_path / "missing"), "--output", str(tmp_path / "o")]) == 2
    assert main(["corpus", str(tmp_path), "--output", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()


def test_jobs_and_timeout_must_be_positive(tmp_path: Path) -> None:
    module = Path(__file__).parents[2] / "examples" / "spec" / "slice.hlo"
    for flag in (["--jobs", "0"], ["--timeout", "0"]):
        assert main(["corpus", str(module), "--output", str(tmp_path), *flag]) == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["corpus", "plot"])
def test_a_missing_research_extra_is_a_usage_error_with_the_install_line(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # None in sys.modules makes `import` raise ImportError, as when the
    # extra is not installed.
    for name in ("tqdm", "verifier.corpus.run", "verifier.corpus.plot"):
        monkeypatch.setitem(sys.modules, name, None)
    argv = (
        ["corpus", str(tmp_path), "--output", str(tmp_path / "out")]
        if command == "corpus"
        else ["plot", str(tmp_path), "--output", str(tmp_path / "f.png")]
    )
    assert main(argv, io.StringIO()) == EXIT_BAD_INPUT
    error = capsys.readouterr().err
    assert f"verifier {command} needs the research extra" in error
    assert "pip install 'hlo-verifier[research]'" in error
