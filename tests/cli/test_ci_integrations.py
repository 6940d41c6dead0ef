"""The CI integrations users copy: the pre-commit hook and the GitHub
Actions workflow, each run the way its host runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from verifier.cli import main

ROOT = Path(__file__).parents[2]
GOOD = "examples/spec/slice.hlo"
REFUTED = "examples/checks/bitcast_tiled.hlo"


def test_the_pre_commit_hook_gates_the_staged_hlo_files(tmp_path: Path) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {"id", "name", "entry", "language"} <= hook.keys()
    assert hook["language"] == "python"  # pre-commit installs this repository with pip
    files = re.compile(hook["files"])
    staged = [GOOD, REFUTED, "README.md", "verifier/cli.py"]
    chosen = [name for name in staged if files.search(name)]
    assert chosen == [GOOD, REFUTED]
    command, *arguments = hook["entry"].split()
    assert command == "verifier"
    cache = ["--cache-dir", str(tmp_path)]
    # pre-commit appends the file names to the entry; the exit code decides.
    assert main([*arguments, *cache, str(ROOT / GOOD)]) == 0
    assert main([*arguments, *cache, *(str(ROOT / name) for name in chosen)]) == 1


def _workflow() -> dict[str, Any]:
    workflow: dict[str, Any] = yaml.safe_load((ROOT / "examples/ci/github-actions.yml").read_text())
    return workflow


def _step(steps: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (step,) = [s for s in steps if s.get("name") == name]
    return step


def test_the_workflow_uploads_what_the_gate_writes_and_keeps_the_proof_cache() -> None:
    workflow = _workflow()
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["gate"]["steps"]
    gate = _step(steps, "Gate")
    assert "--format sarif --output verifier.sarif" in gate["run"]
    assert "--format junit --output verifier-junit.xml" in gate["run"]
    upload = _step(steps, "Upload SARIF to code scanning")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "verifier.sarif" and upload["if"] == "always()"
    assert _step(steps, "Publish the JUnit report")["with"]["report_paths"] == "verifier-junit.xml"
    cache = _step(steps, "Restore the proof cache")
    # The cache directory `verifier check` uses when XDG_CACHE_HOME is unset (a runner's case).
    assert (
        cache["uses"].startswith("actions/cache@") and cache["with"]["path"] == "~/.cache/verifier"
    )
    assert (
        _step(steps, "Fail when the gate fails")["run"] == "exit ${{ steps.gate.outputs.status }}"
    )
    # Rows authenticated with a secret; only pushes (not pull requests) write.
    assert workflow["env"]["VERIFIER_CACHE_KEY"] == "${{ secrets.VERIFIER_CACHE_KEY }}"
    mode = workflow["env"]["VERIFIER_CACHE_MODE"]
    assert mode == "${{ github.event_name == 'push' && 'write' || 'read' }}"
    assert gate["run"].count('--cache-mode "$VERIFIER_CACHE_MODE"') == 2


def test_the_integrations_install_verifier_from_its_repository_never_the_index() -> None:
    workflow = _workflow()
    install = _step(workflow["jobs"]["gate"]["steps"], "Install verifier")["run"]
    (command,) = [line for line in install.splitlines() if "pip install" in line]
    assert command.split("pip install ", 1)[1] == '"git+${VERIFIER_REPOSITORY}@${VERIFIER_REF}"'
    assert {"VERIFIER_REPOSITORY", "VERIFIER_REF"} <= workflow["env"].keys()
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    # pre-commit installs this repository at `rev`; nothing from the index.
    assert hook["language"] == "python" and "additional_dependencies" not in hook


def _install_step(environment: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    install = _step(_workflow()["jobs"]["gate"]["steps"], "Install verifier")
    return subprocess.run(
        ["bash", "-e", "-c", install["run"]],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_install_step_refuses_to_run_unpinned(tmp_path: Path) -> None:
    for unset in ("VERIFIER_REPOSITORY", "VERIFIER_REF"):
        environment = {**os.environ, "VERIFIER_REPOSITORY": "x", "VERIFIER_REF": "y", unset: ""}
        done = _install_step(environment, tmp_path)
        assert done.returncode != 0 and f"set {unset}" in done.stderr


@pytest.mark.slow  # a clone, a virtual environment and a build: seconds
def test_the_install_step_installs_the_pinned_commit_of_a_clone(tmp_path: Path) -> None:
    clone = tmp_path / "verifier.git"
    git = ["git", "-c", "advice.detachedHead=false"]
    subprocess.run([*git, "clone", "-q", "--bare", str(ROOT), str(clone)], check=True)
    commit = subprocess.run(
        [*git, "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    # A runner's Python: a virtual environment of its own on the PATH.
    runner = tmp_path / "runner"
    subprocess.run([sys.executable, "-m", "venv", str(runner)], check=True, timeout=300)
    environment = {
        **os.environ,
        "PATH": f"{runner / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VERIFIER_REPOSITORY": clone.as_uri(),
        "VERIFIER_REF": commit,
        "PIP_NO_DEPS": "1",  # the dependencies come from this environment (below)
    }
    environment.pop("PYTHONPATH", None)
    environment.pop("VIRTUAL_ENV", None)
    done = _install_step(environment, tmp_path)
    assert done.returncode == 0, done.stderr
    # The runner's verifier is the one installed, with this environment's
    # dependencies (islpy, z3) behind it.
    dependencies = sysconfig.get_paths()["purelib"]
    run = {**environment, "PYTHONPATH": dependencies, "XDG_CACHE_HOME": str(tmp_path / "c")}

    def verifier(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [str(runner / "bin" / "verifier"), *argv]
        return subprocess.run(command, env=run, cwd=tmp_path, capture_output=True, text=True)

    located = subprocess.run(
        [str(runner / "bin" / "python"), "-c", "import verifier; print(verifier.__file__)"],
        env=run,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(located.stdout.strip()).is_relative_to(runner)
    assert verifier("--version").stdout.startswith("verifier ")
    # The gate, as the workflow and the pre-commit hook run it.
    assert verifier("check", str(ROOT / GOOD)).returncode == 0
    assert verifier("check", str(ROOT / GOOD), str(ROOT / REFUTED)).returncode == 1


@pytest.mark.slow  # two verifier processes
def test_the_workflow_gate_step_writes_both_reports_and_the_exit_status(tmp_path: Path) -> None:
    gate = _step(_workflow()["jobs"]["gate"]["steps"], "Gate")
    outputs = tmp_path / "github_output"
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "VERIFIER_PATHS": f"{ROOT / GOOD} {ROOT / REFUTED}",
        "GITHUB_OUTPUT": str(outputs),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "VERIFIER_CACHE_KEY": "the secret of the test",
        "VERIFIER_CACHE_MODE": "write",
    }
    done = subprocess.run(
        ["bash", "-e", "-c", gate["run"]],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert outputs.read_text() == "status=1\n"  # refuted: the last step fails the job
    sarif = json.loads((tmp_path / "verifier.sarif").read_text())
    schema = json.loads((ROOT / "tests/report/sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["bitcast"]
    assert b"<failure" in (tmp_path / "verifier-junit.xml").read_bytes()
    assert (tmp_path / "cache" / "verifier" / "proofs.sqlite3").exists()
