"""The gate over files: which files a run checks, and each one's findings
and errors — in this process, or in worker processes, a module of at least
twice `_INSTRUCTIONS_PER_SHARE` lines split into shares of its instructions,
with the report the same as one process writes.

A module whose text, checks and budget the findings cache knows is
answered from it without parsing (`findings_cache`); a module checked with
no instruction failing is remembered there.  What went wrong with the
proof cache is returned as warnings: the cache never decides (#14).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from verifier.errors import VerifierError
from verifier.gate.run import InputError

if TYPE_CHECKING:
    from verifier.analysis import InstructionError
    from verifier.checks.budget import Budget
    from verifier.checks.cache import MemoryCache, ProofCache
    from verifier.gate.answers import FindingsPart, ModuleAnswers
    from verifier.gate.sqlite_cache import CacheMode, SqliteCache
    from verifier.hlo import Module

    # What a worker answers about its share of a module: its answers, each
    # place with its position (`module_places`), and each instruction that
    # could not be checked with its position, or why the whole file could
    # not be checked.
    _Placed = tuple[ModuleAnswers, tuple[tuple[int, InputError], ...]]
    _ShareAnswer = _Placed | InputError

FileAnswer = tuple["FindingsPart", tuple[InputError, ...]]
"""A file's findings (its module's answers), and what in it could not be checked."""

_T = TypeVar("_T")


class Progress(Protocol):
    """Where a run reports how far it is (the command line prints it)."""

    def start(self, number: int, path: Path) -> None: ...

    def instructions(self, done: int, total: int) -> None: ...

    def finish(self, outcome: str) -> None: ...


@dataclass(frozen=True)
class CacheSetting:
    """How a run, and each of its worker processes, opens the proof cache:
    `mode` (``read``, ``write`` or ``off``) and its `directory` (None: the
    default one)."""

    mode: CacheMode
    directory: Path | None = None

    def open(self) -> SqliteCache | MemoryCache:
        from verifier.checks.cache import MemoryCache
        from verifier.gate.sqlite_cache import FILE_NAME, CacheMode, SqliteCache, default_cache_dir

        if self.mode is CacheMode.OFF:
            return MemoryCache()
        directory = self.directory or default_cache_dir()
        return SqliteCache(directory / FILE_NAME, mode=self.mode)


def collecting(errors: list[InputError]) -> Callable[[InstructionError], None]:
    """An `on_error` that keeps each instruction's error as a report entry."""
    return lambda error: errors.append(InputError.of_instruction(error))


def hlo_files(
    paths: Sequence[str], pattern: str | None = None
) -> tuple[list[Path], list[InputError]]:
    """The HLO modules named by `paths` (directories searched recursively,
    sorted: `.hlo` files and `--xla_dump_to` `.txt` modules, or `pattern`'s
    matches), each once, and an `InputError` per path that names none —
    or that is neither a directory nor a regular file (a FIFO, a device)."""
    from verifier.errors import SourceSpan
    from verifier.inputs import file_kind

    files: dict[Path, None] = {}
    errors: list[InputError] = []
    for name in paths:
        path = Path(name)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            errors.append(InputError(SourceSpan(name, 0, 0), "no such file or directory"))
            continue
        except OSError as error:
            errors.append(InputError(SourceSpan(name, 0, 0), str(error)))
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            # Read, a FIFO blocks and a device never ends: named, it is a mistake.
            kind = file_kind(mode)
            errors.append(InputError(SourceSpan(name, 0, 0), f"not a file or directory ({kind})"))
            continue
        if stat.S_ISDIR(mode):
            from verifier.hlo import hlo_files_under  # the parser's package: not for one file

            found = hlo_files_under(path, pattern)
        else:
            found = [path]
        if not found:
            wanted = f"no file matching {pattern!r}" if pattern else "no HLO module (.hlo, or .txt)"
            errors.append(InputError(SourceSpan(name, 0, 0), f"{wanted} under this directory"))
        files.update(dict.fromkeys(f for f in found if f.is_file()))
    return list(files), errors


@contextlib.contextmanager
def uncollected(collect: bool) -> Iterator[None]:
    """The cyclic collector paused while a module is checked: a check makes
    hundreds of thousands of long-lived values (maps, findings) and few
    reference cycles, so the collector's passes over them, every 100,000
    allocations, find little — 1.8 of 12.6 CPU-s of a cold check of the
    24-layer GPT (`benchmarks/jax_gpt.py`).  When it resumes, with
    `collect` the module's cycles (its maps) are collected in one pass —
    when another module follows: a pass over a large module's values costs
    about what the paused ones would have — and what survives (the
    findings) is frozen (`gc.freeze`: still freed when no longer
    referenced, only never walked again), so no value is walked twice."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.collect()
        gc.freeze()
        if collecting:
            gc.enable()


def _module_findings(
    path: Path,
    cache: ProofCache,
    checks: Sequence[str],
    budget: Budget,
    progress: Progress | None,
    errors: list[InputError],
    last: bool,
) -> ModuleAnswers:
    """The answers of `checks` on the module in `path`: remembered ones when
    its text is unchanged, else parsed and checked (and remembered when no
    instruction failed; a failed one is added to `errors`); `last`: no
    module follows in this process (`uncollected`)."""
    from verifier.gate.findings_cache import module_key, recall, remember
    from verifier.hlo import decode_hlo, parse_module
    from verifier.inputs import read_regular_file

    text = decode_hlo(read_regular_file(path), str(path))
    key = module_key(text, checks, budget)
    findings = recall(cache, key, str(path))
    if findings is None:
        from verifier.gate.suite import check_module  # the analysis: not for a recalled module

        failed: list[InputError] = []
        with uncollected(collect=not last):
            module = parse_module(text, str(path))
            report = progress.instructions if progress else None
            findings = check_module(
                module,
                cache,
                only=checks,
                budget=budget,
                progress=report,
                on_error=collecting(failed),
            )
            del module  # its answers hold what the reports read of it
            if not failed:
                remember(cache, key, findings)
        errors += failed
        if progress is not None:
            progress.finish(f"done, {len(findings)} findings")
    elif progress is not None:
        progress.finish(f"{len(findings)} findings from the cache (unchanged)")
    return findings


def _guarded(path: Path, compute: Callable[[], _T]) -> _T | InputError:
    """`compute()`, or why the file in `path` could not be checked at all
    (unreadable, not HLO, a bug: the other files still run)."""
    from verifier.errors import ParseError, SourceSpan

    try:
        return compute()
    except ParseError as error:
        return InputError(error.span, error.message)
    except (OSError, VerifierError) as error:
        return InputError(SourceSpan(str(path), 0, 0), str(error))
    except MemoryError:  # the run is out of memory: no file's fault, no bug
        raise
    except Exception as error:  # a bug; the other modules still run
        message = f"{type(error).__name__}: {error}"
        return InputError(SourceSpan(str(path), 0, 0), message, internal=True)


def file_findings(
    path: Path,
    cache: ProofCache,
    checks: Sequence[str],
    budget: Budget,
    progress: Progress | None,
    *,
    last: bool = False,
) -> FileAnswer:
    """The findings of one file, and what in it could not be checked: the
    whole file (unreadable, not HLO, a bug) or single instructions; `last`:
    the last module this process checks (its cycles are left to the end)."""
    errors: list[InputError] = []
    found = _guarded(
        path, lambda: _module_findings(path, cache, checks, budget, progress, errors, last)
    )
    if isinstance(found, InputError):
        return (), (*errors, found)
    return found, tuple(errors)


# The modules `parallel_findings` parsed for the workers it forks, by path.
_parsed_before_fork: dict[Path, Module] = {}

# Instructions (about lines) per share of a module checked by several
# processes.  A share composes again what the other shares' instructions
# share with its own (a fusion repeated in every layer is composed once per
# process), so splitting costs CPU: +23-41 % on the 4,800-line transformer
# for 1.00-1.16x its wall time, +49 % on a generated module of 19,000 lines,
# +14 % on one of 110,000 (`benchmarks/large_module.py`); so only a module
# of more than twice this is split.
_INSTRUCTIONS_PER_SHARE = 25_000


def _share_findings(
    path: Path, cache: ProofCache, checks: Sequence[str], budget: Budget, part: int, parts: int
) -> _Placed:
    """The answers of share `part` of `parts` (`shares`) of the module in
    `path`, with their positions; the parent merges the shares and keeps
    the module's findings cache."""
    from verifier.gate.suite import check_module, shares
    from verifier.hlo import parse_module_file

    module = _parsed_before_fork.get(path)
    if module is None:
        module = parse_module_file(path)
    share = sorted(shares(module, parts)[part])
    failed: list[tuple[int, InputError]] = []
    pending: list[InputError] = []
    place = iter(share)
    position = next(place, -1)

    def placed(done: int, total: int) -> None:
        # Called after each instruction, whose errors were collected before.
        nonlocal position
        failed.extend((position, error) for error in pending)
        pending.clear()
        position = next(place, -1)

    with uncollected(collect=True):
        found = check_module(
            module,
            cache,
            only=checks,
            budget=budget,
            progress=placed,
            on_error=collecting(pending),
            places=share,
        )
        del module
    return found, tuple(failed)


def _worker_findings(
    path: Path, setting: CacheSetting, budget: Budget, checks: Sequence[str]
) -> tuple[FileAnswer, tuple[str, ...]]:
    """`file_findings` in a worker process, with its own connection to the
    shared proof cache (SQLite in WAL mode: several writers are safe), and
    what went wrong with the cache (the parent warns)."""
    cache = setting.open()
    return _with_closed(cache, lambda: file_findings(path, cache, checks, budget, None))


def _worker_share(
    path: Path, setting: CacheSetting, budget: Budget, checks: Sequence[str], part: int, parts: int
) -> tuple[_ShareAnswer, tuple[str, ...]]:
    """`_share_findings` in a worker process, as `_worker_findings`."""
    cache = setting.open()
    share = functools.partial(_share_findings, path, cache, checks, budget, part, parts)
    return _with_closed(cache, lambda: _guarded(path, share))


def _with_closed(
    cache: SqliteCache | MemoryCache, compute: Callable[[], _T]
) -> tuple[_T, tuple[str, ...]]:
    """`compute()`, then `cache` closed, and what went wrong with it."""
    from verifier.gate.sqlite_cache import SqliteCache

    try:
        answer = compute()
    finally:
        if isinstance(cache, SqliteCache):
            cache.close()
    return answer, tuple(cache.problems) if isinstance(cache, SqliteCache) else ()


def default_jobs() -> int:
    """The processes of a run whose ``--jobs`` is not given: the cores that
    no other process keeps busy — the machine's cores less its load over
    the last minute, rounded — and at least one.  A worker on a core
    another job holds only slows both (a second process there: 0.56-0.89×
    the wall time of one), so a busy machine runs as ``--jobs 1`` does.

    >>> 1 <= default_jobs() <= (os.cpu_count() or 1)
    True
    """
    cores = os.cpu_count() or 1
    try:
        busy = round(os.getloadavg()[0])
    except (AttributeError, OSError):  # no load average here (Windows)
        busy = 0
    return max(1, min(cores, cores - busy))


def shares_for(path: Path, jobs: int) -> int:
    """Into how many shares the module in `path` is split for `jobs` processes."""
    from verifier.inputs import read_regular_file

    try:
        lines = read_regular_file(path).count(b"\n")
    except (OSError, VerifierError):
        return 1  # the worker reports it
    return max(1, min(jobs, lines // _INSTRUCTIONS_PER_SHARE))


def _decoded(path: Path) -> str:
    from verifier.hlo import decode_hlo
    from verifier.inputs import read_regular_file

    return decode_hlo(read_regular_file(path), str(path))


def _merged(answers: Sequence[_ShareAnswer]) -> FileAnswer:
    """One module's answer from its shares': the findings and errors in
    position order, as one process checking the whole module lists them."""
    from verifier.gate.answers import ModuleAnswers

    placed: list[_Placed] = []
    for answer in answers:
        if isinstance(answer, InputError):
            return (), (answer,)  # every share parses the same text
        placed.append(answer)
    found = ModuleAnswers.merged(placed[0][0].module, [found for found, _ in placed])
    failed = sorted((pair for _, failed in placed for pair in failed), key=lambda p: p[0])
    return found, tuple(e for _, e in failed)


def parallel_findings(
    files: Sequence[Path],
    setting: CacheSetting,
    budget: Budget,
    checks: Sequence[str],
    jobs: int,
    parts: Sequence[int],
    progress: Progress | None,
    cache: ProofCache,
) -> Iterator[tuple[FileAnswer, tuple[str, ...]]]:
    """Each file's answer (and its workers' cache problems), checked by
    worker processes, in file order (so the report is the one a single
    process writes).  A module with more than one of `parts` is split into
    as many shares of its instructions, one process each (`shares`); this
    process merges them, and recalls and remembers its findings in
    `cache`.  Every module's findings are recalled here first: when none,
    or one module in one share, is left to check, no worker starts and
    this process checks it."""
    from verifier.gate.answers import ModuleAnswers
    from verifier.gate.findings_cache import module_key, recall, remember
    from verifier.hlo import parse_module

    # Every module is first looked up here: one whose findings are
    # remembered needs no worker.  Modules to split are parsed here, before
    # the workers fork, so that they inherit them (and the analysis's
    # imports) instead of each parsing the text again; where they are
    # spawned instead (`verifier.pool`), they parse it.
    keys: dict[Path, str] = {}
    recalled: dict[Path, ModuleAnswers] = {}
    for path, count in zip(files, parts, strict=True):
        text = _guarded(path, functools.partial(_decoded, path))
        if not isinstance(text, str):
            continue  # a worker reports it
        key = module_key(text, checks, budget)
        remembered = recall(cache, key, str(path))
        if remembered is not None:
            recalled[path] = remembered
        elif count > 1:
            keys[path] = key
            parsed = _guarded(path, functools.partial(parse_module, text, str(path)))
            if not isinstance(parsed, InputError):  # else a worker reports it
                _parsed_before_fork[path] = parsed
    left = [count for path, count in zip(files, parts, strict=True) if path not in recalled]
    if sum(left) <= 1:
        # Nothing, or one module in one share, left to check: a worker
        # would only add its start-up.
        for number, path in enumerate(files, start=1):
            if progress is not None:
                progress.start(number, path)
            if path in recalled:
                if progress is not None:
                    progress.finish(f"{len(recalled[path])} findings from the cache (unchanged)")
                yield (recalled[path], ()), ()
            else:
                last = number == len(files)
                yield file_findings(path, cache, checks, budget, progress, last=last), ()
        return
    from concurrent.futures import Future

    # islpy, which the checks import on first use: imported once, inherited by the workers.
    from verifier.bridges import isl_sets  # noqa: F401
    from verifier.gate import suite  # noqa: F401  (imported once, inherited by the workers)
    from verifier.pool import worker_pool

    try:
        with worker_pool(min(jobs, sum(left))) as pool:
            _parsed_before_fork.clear()  # the workers have forked with their copies
            whole: dict[Path, Future[tuple[FileAnswer, tuple[str, ...]]]] = {}
            split: dict[Path, tuple[str, list[Future[tuple[_ShareAnswer, tuple[str, ...]]]]]] = {}
            for path, count in zip(files, parts, strict=True):
                if path in keys:
                    split[path] = (
                        keys[path],
                        [
                            pool.submit(_worker_share, path, setting, budget, checks, part, count)
                            for part in range(count)
                        ],
                    )
                elif path not in recalled:
                    whole[path] = pool.submit(_worker_findings, path, setting, budget, checks)
            for number, path in enumerate(files, start=1):
                if path in whole:
                    answer, problems = whole[path].result()
                elif path in recalled:
                    answer, problems = (recalled[path], ()), ()
                else:
                    key, futures = split[path]
                    results = [future.result() for future in futures]
                    answer = _merged([share for share, _ in results])
                    problems = tuple(p for _, share_problems in results for p in share_problems)
                    if isinstance(answer[0], ModuleAnswers) and not answer[1]:
                        remember(cache, key, answer[0])
                if progress is not None:
                    progress.start(number, path)
                    found, failed = answer
                    # The errors themselves are in the report.
                    progress.finish(
                        f"{len(found)} findings"
                        + (f", {len(failed)} not checked" if failed else "")
                    )
                yield answer, problems
    finally:
        _parsed_before_fork.clear()  # also when the workers failed to start
