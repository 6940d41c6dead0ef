"""The distribution: `verifier --version`, and a wheel that installs the
`verifier` package and command under the distribution name hlo-verifier."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.gate.run import DISTRIBUTION

ROOT = Path(__file__).parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_version_names_the_release_and_the_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"verifier {PROJECT['version']} ({DISTRIBUTION})\n"
    assert PROJECT["name"] == DISTRIBUTION
    assert PROJECT["scripts"] == {"verifier": "verifier.cli:command"}


def test_the_core_install_stays_small() -> None:
    # The research stack and jax are extras, never dependencies.
    core = " ".join(PROJECT["dependencies"])
    for heavy in ("dask", "pandas", "pyarrow", "matplotlib", "jax", "tqdm"):
        assert heavy not in core
    assert "dask[distributed]" in " ".join(PROJECT["optional-dependencies"]["research"])
    assert PROJECT["optional-dependencies"]["jax"] == ["jax>=0.4.30"]


@pytest.mark.slow  # builds the wheel
def test_the_wheel_carries_the_package_the_worker_and_the_command(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            str(ROOT),
            "-w",
            str(tmp_path),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("hlo_verifier-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (entry_points,) = [n for n in names if n.endswith("entry_points.txt")]
        assert "verifier = verifier.cli:command" in archive.read(entry_points).decode()
    assert {"verifier/cli.py", "verifier/corpus/worker.py", "proofs/runner.py"} <= names
