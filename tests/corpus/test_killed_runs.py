"""`verifier corpus` stopped at any instant and resumed gives the rows of a
run never stopped: none lost, none twice.

The run is stopped at every instant where it changes the output directory
— before each table file written (also half written), renamed, flushed or
removed — by a fault that, once raised, is raised again by every later file
operation of the run, as a killed process does nothing more (its `finally`
clauses included).  The resumed tables are compared row by row with a clean
run's.  The modules' rows are computed once, by the real analysis
(`rows.analyse_text`), and handed to the runs in place of the Dask cluster
(the cluster and killed processes: `test_corpus`'s slow tier).
"""

from __future__ import annotations

import errno
import io
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from verifier.cli import EXIT_BAD_INPUT, main  # noqa: E402
from verifier.corpus import run  # noqa: E402
from verifier.corpus.rows import ModuleAnswer, Row, analyse_text  # noqa: E402
from verifier.corpus.run import CorpusOptions, run_corpus  # noqa: E402
from verifier.corpus.tables import MODULES_FILE, OPERANDS_FILE  # noqa: E402

WRITE_TABLE = pq.write_table
EXAMPLES = Path(__file__).parents[2] / "examples" / "spec"
MODULES = ["slice", "pad", "concatenate"]


class Killed(BaseException):
    """The run is dead from here on (not an `Exception`: nothing catches it)."""


class Fault:
    """Counts the run's file operations; from the `at`-th on, each raises
    `Killed` (a table file being written is left half written)."""

    def __init__(self, at: int | None) -> None:
        self.at = at
        self.count = 0

    def step(self) -> bool:
        """Whether the run dies at this operation."""
        self.count += 1
        return self.at is not None and self.count >= self.at

    def wrap(self, operation: Callable[..., Any]) -> Callable[..., Any]:
        def faulty(*args: Any, **kwargs: Any) -> Any:
            if self.step():
                raise Killed
            return operation(*args, **kwargs)

        return faulty

    def write_table(self, table: Any, where: Any, **kwargs: Any) -> None:
        if self.step():
            WRITE_TABLE(table, where, **kwargs)
            data = Path(where).read_bytes()
            Path(where).write_bytes(data[: len(data) // 2])
            raise Killed
        WRITE_TABLE(table, where, **kwargs)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("corpus")
    for name in MODULES:
        shutil.copy(EXAMPLES / f"{name}.hlo", root / f"{name}.hlo")
    return sorted(root.iterdir())


@pytest.fixture(scope="module")
def answers(corpus: list[Path]) -> dict[str, ModuleAnswer]:
    return {str(path): analyse_text(path.read_text(), str(path)) for path in corpus}


@pytest.fixture
def analysed(
    answers: dict[str, ModuleAnswer], monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[str]]:
    """The analysis answers from `answers`, in the order of the pending
    modules, one per step of the run (a checkpoint after each); the files
    analysed, in order."""
    done: list[str] = []

    def replayed(
        pending: Sequence[Any], options: CorpusOptions, version: str
    ) -> Iterator[tuple[Row, list[Row]]]:
        for module in pending:
            answer = answers[module.file]
            done.append(module.file)
            row = run._module_row(module.file, module.sha256, version, "ok", 1.0, answer.module)
            yield row, list(answer.operands)

    monkeypatch.setattr(run, "_analysed", replayed)
    monkeypatch.setattr(run, "CHECKPOINT_SECONDS", -1.0)
    yield done


def rows(directory: Path) -> tuple[list[Row], list[Row]]:
    return (
        pq.read_table(directory / MODULES_FILE).to_pylist(),
        pq.read_table(directory / OPERANDS_FILE).to_pylist(),
    )


def killed_run(
    files: list[Path], output: Path, at: int | None, monkeypatch: pytest.MonkeyPatch, resume: bool
) -> Fault:
    """A run of `files` into `output` that dies at file operation `at`."""
    fault = Fault(at)
    with monkeypatch.context() as patch:
        patch.setattr(pq, "write_table", fault.write_table)
        for name in ("replace", "unlink"):
            patch.setattr(os, name, fault.wrap(getattr(os, name)))
        # A flush changes nothing a killed process leaves (only a power cut
        # loses what was not flushed): an instant, without the disk's wait.
        patch.setattr(os, "fsync", fault.wrap(lambda descriptor: None))
        try:
            run_corpus(files, CorpusOptions(output, resume=resume))
        except Killed:
            assert at is not None
    return fault


@pytest.mark.parametrize(
    "committed",
    [
        # The last module of a resumed run: every instant of its commits.
        len(MODULES) - 1,
        # Every instant of a whole run, fresh or resuming an earlier one.
        pytest.param(0, marks=pytest.mark.slow),
        pytest.param(1, marks=pytest.mark.slow),
    ],
)
def test_a_run_killed_at_any_instant_then_resumed_loses_no_row_and_adds_none(
    corpus: list[Path],
    analysed: list[str],
    committed: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean = tmp_path / "clean"
    run_corpus(corpus, CorpusOptions(clean))
    expected = rows(clean)
    assert len(expected[0]) == len(MODULES) and len(expected[1]) >= 2 * len(MODULES)
    # The killed run is fresh, or itself resumes a run of the first modules.
    resume = committed > 0
    earlier = tmp_path / "earlier"
    run_corpus(corpus[:committed], CorpusOptions(earlier))
    counted = tmp_path / "count"
    shutil.copytree(earlier, counted)
    instants = killed_run(corpus, counted, None, monkeypatch, resume).count
    assert instants > 4 * (len(MODULES) - committed)  # at least one commit per module
    kept: list[int] = []
    for at in range(1, instants + 1):
        output = tmp_path / f"killed-{at}"
        if resume:
            shutil.copytree(earlier, output)
        killed_run(corpus, output, at, monkeypatch, resume)
        analysed.clear()
        out = io.StringIO()
        assert main(["corpus", *map(str, corpus), "--output", str(output), "--resume"], out) == 0
        assert rows(output) == expected, f"killed at file operation {at} of {instants}"
        assert sorted(p.name for p in output.iterdir()) == [MODULES_FILE, OPERANDS_FILE]
        # What the killed run had committed is kept; only the rest is analysed.
        assert f"{len(analysed)} analysed, {len(MODULES) - len(analysed)} kept" in out.getvalue()
        kept.append(len(MODULES) - len(analysed))
    assert kept == sorted(kept) and kept[0] == committed and kept[-1] == len(MODULES)


def test_the_output_directory_is_checked_before_any_work(
    corpus: list[Path], analysed: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    for output, reason in [(a_file, "not a directory"), (a_file / "below", "Not a directory")]:
        argv = ["corpus", *map(str, corpus), "--output", str(output)]
        assert main(argv, io.StringIO()) == EXIT_BAD_INPUT
        assert reason in capsys.readouterr().err
    assert analysed == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through any permission")
def test_an_unwritable_output_directory_is_refused_before_any_work(
    corpus: list[Path], analysed: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path.chmod(0o500)
    try:
        argv = ["corpus", *map(str, corpus), "--output", str(tmp_path / "out")]
        assert main(argv, io.StringIO()) == EXIT_BAD_INPUT
    finally:
        tmp_path.chmod(0o700)
    assert "cannot write the tables there" in capsys.readouterr().err
    assert analysed == []


def test_a_full_disk_keeps_the_last_committed_tables(
    corpus: list[Path],
    analysed: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_corpus(corpus[:2], CorpusOptions(tmp_path))
    before = rows(tmp_path)

    def full(table: Any, where: Any, **kwargs: Any) -> None:
        Path(where).write_bytes(b"PAR1")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))

    monkeypatch.setattr(pq, "write_table", full)
    argv = ["corpus", *map(str, corpus), "--output", str(tmp_path), "--resume"]
    assert main(argv, io.StringIO()) == EXIT_BAD_INPUT
    assert "No space left on device" in capsys.readouterr().err
    monkeypatch.undo()
    assert rows(tmp_path) == before
