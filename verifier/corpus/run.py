"""`verifier corpus`: every module of a corpus analysed on a Dask cluster,
into the two corpus tables (`tables`).

Each module is one Dask task.  The task hands the module's text (read
here, so the workers need no shared file system) to an `IsolatedAnalyser`
of its worker — one analysis process per worker thread, reused between
modules — with the run's timeout; a module that times out or kills its
analysis process is a row (``timeout``, ``error``), and so is one whose
Dask worker dies.  The cluster is an in-process local one with `jobs`
threads by default (each thread drives its own analysis process, so `jobs`
modules are analysed at once), or the one whose scheduler is at
`scheduler` (``tcp://host:8786``): the same tables either way.

With `resume`, a module whose file, content hash (SHA-256) and verifier
version (package version and a digest of its source) already have a row in
the output directory keeps that row and its operand rows, and is not
analysed again (when it was analysed with the same `coalescing` device,
or both without).  The output directory is checked (created, written to)
before any module is read.  The tables are committed together
(`tables.write_tables`) every `CHECKPOINT_SECONDS` during a run and when it
is interrupted, so a run stopped at any instant — killed, interrupted, out
of disk — resumes from its last commit: ``--resume`` then gives the rows of
a run never stopped, none lost and none twice.
"""

from __future__ import annotations

import atexit
import hashlib
import queue
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.corpus.rows import OUTCOME_COLUMNS, Row, Status
from verifier.corpus.supervisor import IsolatedAnalyser
from verifier.corpus.tables import check_output, read_rows, write_tables
from verifier.gate.sqlite_cache import tool_versions

if TYPE_CHECKING:
    from distributed import Client, Future

CHECKPOINT_SECONDS = 30.0

# Modules handed to the cluster ahead of the ones running, per worker thread:
# enough to keep every thread busy, few enough that texts stay on disk.
QUEUED_PER_THREAD = 2


@dataclass(frozen=True)
class CorpusOptions:
    output: Path
    scheduler: str | None = None
    jobs: int = 2
    resume: bool = False
    timeout: float = 300.0
    coalescing: str | None = None  # a device name: the coalescing columns


@dataclass(frozen=True)
class CorpusSummary:
    """What a run did: modules per status, and how many were analysed
    (the others kept their rows from an earlier run)."""

    statuses: dict[str, int]
    analysed: int
    resumed: int


@dataclass(frozen=True)
class _Module:
    path: Path
    sha256: str

    @property
    def file(self) -> str:
        return str(self.path)


def corpus_version() -> str:
    """The verifier version a row was computed with: package version and a
    digest of the source (an edit is a new version)."""
    return dict(tool_versions())["verifier"]


def run_corpus(
    files: Sequence[Path],
    options: CorpusOptions,
    progress: Callable[[int, Row], None] | None = None,
) -> CorpusSummary:
    """Analyse `files` into the tables of `options.output`.  `progress(total,
    row)` is called with the number of modules to analyse and each module
    row as it arrives (first with an empty row, before any analysis)."""
    check_output(options.output)
    version = corpus_version()
    modules = [_read(path) for path in files]
    kept_modules, kept_operands = _kept(modules, options, version)
    pending = [m for m in modules if m.file not in kept_modules]
    module_rows = dict(kept_modules)
    operand_rows = {file: kept_operands.get(file, []) for file in kept_modules}
    if progress is not None:
        progress(len(pending), {})
    last_checkpoint = time.monotonic()
    try:
        for module_row, operands in _analysed(pending, options, version):
            module_rows[module_row["file"]] = module_row
            operand_rows[module_row["file"]] = operands
            if progress is not None:
                progress(len(pending), module_row)
            if time.monotonic() - last_checkpoint > CHECKPOINT_SECONDS:
                _write(options.output, module_rows, operand_rows)
                last_checkpoint = time.monotonic()
    finally:
        # Also when interrupted: what is done is kept for --resume.
        _write(options.output, module_rows, operand_rows)
    statuses = Counter(row["status"] for row in module_rows.values())
    return CorpusSummary(dict(sorted(statuses.items())), len(pending), len(kept_modules))


def _read(path: Path) -> _Module:
    """`path` and the hash of its content (the text is read again when the
    module is handed to the cluster: a corpus need not fit in memory)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return _Module(path, digest.hexdigest())


def _kept(
    modules: Sequence[_Module], options: CorpusOptions, version: str
) -> tuple[dict[str, Row], dict[str, list[Row]]]:
    """The rows of an earlier run that `--resume` keeps: same file, same
    content, same verifier version."""
    if not options.resume:
        return {}, {}
    old_modules, old_operands = read_rows(options.output)
    current = {(m.file, m.sha256) for m in modules}
    kept = {
        row["file"]: row
        for row in old_modules
        if (row["file"], row["sha256"]) in current
        and row["verifier_version"] == version
        and row.get("coalescing_device") == options.coalescing
    }
    operands: dict[str, list[Row]] = {}
    for row in old_operands:
        if row["file"] in kept:
            operands.setdefault(row["file"], []).append(row)
    return kept, operands


def _write(output: Path, modules: dict[str, Row], operands: dict[str, list[Row]]) -> None:
    write_tables(output, list(modules.values()), [r for rows in operands.values() for r in rows])


def _analysed(
    pending: Sequence[_Module], options: CorpusOptions, version: str
) -> Iterator[tuple[Row, list[Row]]]:
    """The rows of every pending module, in the order they finish."""
    if not pending:
        return
    from distributed import as_completed

    with _client(options) as client:
        threads = sum(client.nthreads().values())  # type: ignore[no-untyped-call]
        waiting = iter(pending)
        submitted = {}

        def submit(module: _Module) -> Future[tuple[Row, list[Row]]]:
            future = client.submit(
                analyse_module,
                module.file,
                module.sha256,
                module.path.read_bytes(),
                options.timeout,
                options.coalescing,
                pure=False,
            )
            submitted[future.key] = module
            return future

        first = [
            submit(m) for _, m in zip(range(threads * QUEUED_PER_THREAD), waiting, strict=False)
        ]
        finished = as_completed(first)  # type: ignore[no-untyped-call]
        for future in finished:
            module = submitted.pop(future.key)
            try:
                module_row, operands = future.result()
            except Exception as error:  # a lost worker is one module's row
                module_row, operands = (
                    _failed(module, version, "error", f"dask: {error!r}", options.coalescing),
                    [],
                )
            yield module_row, operands
            following = next(waiting, None)
            if following is not None:
                finished.add(submit(following))  # type: ignore[no-untyped-call]
        client.run(close_analysers)


@contextmanager
def _client(options: CorpusOptions) -> Iterator[Client]:
    from distributed import Client, LocalCluster

    if options.scheduler is not None:
        remote = Client(options.scheduler, timeout=30)  # type: ignore[no-untyped-call]
        with remote as client:
            yield client
        return
    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=1,
            threads_per_worker=max(1, options.jobs),
            processes=False,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,  # type: ignore[no-untyped-call]
    ):
        yield client


def _failed(
    module: _Module, version: str, status: Status, error: str, coalescing: str | None
) -> Row:
    return _module_row(
        module.file, module.sha256, version, status, 0.0, error=error, coalescing=coalescing
    )


def _module_row(
    file: str,
    sha256: str,
    version: str,
    status: Status,
    seconds: float,
    counts: Row | None = None,
    error: str | None = None,
    cpu_seconds: float | None = None,
    coalescing: str | None = None,
) -> Row:
    empty: Row = {"module": None, "instructions": None, **dict.fromkeys(OUTCOME_COLUMNS)}
    return {
        "file": file,
        "sha256": sha256,
        "verifier_version": version,
        "status": status,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "coalescing_device": coalescing,
        **(counts or empty),
        "error": error,
    }


# ---------------------------------------------------------------- on the workers

_IDLE: queue.SimpleQueue[IsolatedAnalyser] = queue.SimpleQueue()
_ALL: list[IsolatedAnalyser] = []


def analyse_module(
    file: str, sha256: str, data: bytes, timeout: float, coalescing: str | None = None
) -> tuple[Row, list[Row]]:
    """The Dask task: one module's row and operand rows, analysed by an idle
    analysis process of this worker (a new one when every one is busy)."""
    version = corpus_version()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return _module_row(
            file,
            sha256,
            version,
            "error",
            0.0,
            error=f"not UTF-8 text ({error})",
            coalescing=coalescing,
        ), []
    try:
        analyser = _IDLE.get_nowait()
    except queue.Empty:
        analyser = IsolatedAnalyser(timeout)
        _ALL.append(analyser)
    try:
        analyser.timeout = timeout
        attempt = analyser.analyse(file, text, coalescing)
    finally:
        _IDLE.put(analyser)
    if attempt.answer is None:
        row = _module_row(
            file,
            sha256,
            version,
            attempt.status,
            attempt.seconds,
            error=attempt.error,
            cpu_seconds=attempt.cpu_seconds,
            coalescing=coalescing,
        )
        return row, []
    row = _module_row(
        file,
        sha256,
        version,
        "ok",
        attempt.seconds,
        attempt.answer.module,
        None,
        attempt.cpu_seconds,
        coalescing,
    )
    return row, list(attempt.answer.operands)


def close_analysers() -> None:
    """Stop this process's analysis processes (at the end of a run, and at exit)."""
    while _ALL:
        _ALL.pop().close()
    while not _IDLE.empty():
        _IDLE.get_nowait()


atexit.register(close_analysers)
