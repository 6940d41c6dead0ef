"""`verifier check --jobs N` writes the report a single process writes,
byte for byte, in every format (#13)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.gate import files

EXAMPLES = Path(__file__).parents[2] / "examples"

# Three modules, one of them refuted and one that cannot be parsed, so every
# kind of answer crosses the process boundary.
_FILES = (
    EXAMPLES / "spec" / "dot.hlo",
    EXAMPLES / "checks" / "concat_too_wide.hlo",
    EXAMPLES / "spec" / "slice.hlo",
)


def _report(tmp_path: Path, jobs: int, fmt: str) -> tuple[int, str]:
    broken = tmp_path / "broken.hlo"
    broken.write_text("HloModule broken\nENTRY e {\n  ROOT p = f32[2 parameter(0)\n}\n")
    out = io.StringIO()
    arguments = ["check", "--no-cache", "--jobs", str(jobs), "--format", fmt]
    code = main([*arguments, *map(str, _FILES), str(broken)], out)
    return code, out.getvalue()


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif", "text"])
def test_two_jobs_write_the_report_of_one(tmp_path: Path, fmt: str) -> None:
    one = _report(tmp_path, 1, fmt)
    assert one == _report(tmp_path, 2, fmt)
    assert one[0] == 2  # the broken file decides the exit code


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    assert main(["check", "--jobs", "0", str(_FILES[0])], io.StringIO()) == 2


def test_workers_share_the_proof_cache(tmp_path: Path) -> None:
    files = [str(f) for f in _FILES]
    expected = io.StringIO()
    main(["check", "--no-cache", "--jobs", "1", "--format", "json", *files], expected)
    for _ in range(2):  # cold: the workers write the cache; warm: they read it
        out = io.StringIO()
        arguments = ["--cache-dir", str(tmp_path / "cache"), "--jobs", "2", "--format", "json"]
        main(["check", *arguments, *files], out)
        assert out.getvalue() == expected.getvalue()
    assert (tmp_path / "cache" / "proofs.sqlite3").stat().st_size > 0


# A module with an instruction that cannot be checked in the middle of its
# findings, and one with fusions: shares of one module must merge back into
# the findings and errors of one process, in the same order.
_SPLIT = [
    EXAMPLES / "syntax" / "14_literal_labels_tiles.hlo",
    pytest.param(EXAMPLES / "real" / "softmax.hlo", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("path", _SPLIT, ids=lambda p: p.name)
def test_shares_of_one_module_write_the_report_of_one_process(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    arguments = ["check", "--no-cache", "--format", "json", str(path)]
    one = io.StringIO()
    code = main([*arguments, "--jobs", "1"], one)
    monkeypatch.setattr(files, "_INSTRUCTIONS_PER_SHARE", 2)
    assert files.shares_for(path, 2) == 2
    split = io.StringIO()
    assert main([*arguments, "--jobs", "2"], split) == code
    assert split.getvalue() == one.getvalue()


def test_a_split_module_is_remembered_whole_and_recalled_by_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(EXAMPLES / "fusion" / "spec_cases.hlo")
    expected = io.StringIO()
    main(["check", "--no-cache", "--jobs", "1", "--format", "json", path], expected)
    monkeypatch.setattr(files, "_INSTRUCTIONS_PER_SHARE", 2)
    arguments = ["check", "--cache-dir", str(tmp_path / "cache"), "--format", "json", path]
    split = io.StringIO()
    main([*arguments, "--jobs", "2"], split)
    assert split.getvalue() == expected.getvalue()

    def unparsed(*args: object, **kwargs: object) -> None:
        raise AssertionError("a remembered module is not parsed again")

    monkeypatch.setattr("verifier.hlo.parse_module", unparsed)
    recalled = io.StringIO()
    main([*arguments, "--jobs", "1"], recalled)
    assert recalled.getvalue() == expected.getvalue()


@pytest.mark.parametrize(
    ("cores", "load", "jobs"), [(2, 0.2, 2), (2, 1.1, 1), (2, 13.0, 1), (8, 2.6, 5), (1, 0.0, 1)]
)
def test_the_default_jobs_are_the_cores_no_other_process_keeps_busy(
    monkeypatch: pytest.MonkeyPatch, cores: int, load: float, jobs: int
) -> None:
    # A worker on a busy core only slows the run: the default never asks
    # for more processes than the idle cores.
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    monkeypatch.setattr("os.getloadavg", lambda: (load, load, load))
    assert files.default_jobs() == jobs
