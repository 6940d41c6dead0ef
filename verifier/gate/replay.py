"""A `verifier check` run remembered whole — its exit code, the exact text it
printed and the report it wrote — under the digest of everything that
decides them, so that a run over unchanged modules with the same options
answers without parsing a module, decoding a finding or rendering a report.

What decides a run's output is each module's bytes and the path it was
named by (reports print it), the options that change findings or their
rendering (`run_key`'s `options`: checks, budget, ``--strict``, the format,
``--summary``, whether the report goes to a file), and the tool and solver
versions, which the persistent store adds to every key (`SqliteCache`).  A
file whose content changed in any byte, a file added or removed, another
option: a miss, and the run goes on module by module (`findings_cache`,
then the per-question proof cache).

The cache never decides: the stored run is a row of the proof cache like
any other, so it is authenticated under the cache's key, and a row that is
not the run `remember` wrote (malformed, even under the key) is a miss and
one warning (`distrusted`), and the run is checked again.

>>> from verifier.checks.cache import MemoryCache
>>> cache, key = MemoryCache(), "check-run|json|refuted.hlo 1f2e"
>>> remember(cache, key, RunOutputs(1, '{"status": "refuted"}\\n', None, (3,)))
>>> recall(cache, key, 1)
RunOutputs(exit_code=1, stdout='{"status": "refuted"}\\n', report=None, findings=(3,))
>>> cache.store(key, {"exit_code": "one"})
>>> recall(cache, key, 1) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from verifier.checks.cache import ProofCache
from verifier.errors import VerifierError

# A run whose printed text and report together are longer is not
# remembered (its modules' findings still are): storing and reading it
# back would cost about as much as rendering it.
MAX_REMEMBERED_CHARACTERS = 32 * 2**20


class RunOutputs(NamedTuple):
    """What one run gave its user: the `exit_code`, the text on standard
    output, the text of the ``--output`` file (None: no file), and the
    number of findings of each file (for the progress lines)."""

    exit_code: int
    stdout: str
    report: str | None
    findings: tuple[int, ...]


def run_key(files: Sequence[Path], options: Sequence[str]) -> str | None:
    """The question "what does a run with `options` print about `files`",
    from the digest of each file's bytes; None when a file cannot be read
    (the run reports it)."""
    import hashlib  # only when the cache is on

    from verifier.inputs import read_regular_file

    parts = ["check-run", *options]
    for path in files:
        try:
            # !a: a name of undecodable bytes (surrogates) is text the key can hold.
            parts.append(f"{str(path)!a}\0{hashlib.sha256(read_regular_file(path)).hexdigest()}")
        except (OSError, VerifierError):
            return None
    return "\0".join(parts)


def recall(cache: ProofCache, key: str, files: int) -> RunOutputs | None:
    """The run of `files` files stored under `key`; None if absent, or not
    what `remember` writes (a miss and a warning, never an error)."""
    answer = cache.lookup(key)
    if answer is None:
        return None
    try:
        code, stdout, report, findings = (answer[name] for name in RunOutputs._fields)
        if not (
            type(code) is int
            and isinstance(stdout, str)
            and (report is None or isinstance(report, str))
            and isinstance(findings, list)
            and len(findings) == files
            and all(type(count) is int for count in findings)
        ):
            raise TypeError("not a run")
    except (KeyError, TypeError):
        from verifier.gate.sqlite_cache import distrusted

        distrusted(cache)
        return None
    return RunOutputs(code, stdout, report, tuple(findings))


def remember(cache: ProofCache, key: str, outputs: RunOutputs) -> None:
    """Store `outputs` under `key`."""
    cache.store(key, {**outputs._asdict(), "findings": list(outputs.findings)})


class Recording:
    """Text as it is written, kept (while it stays short enough to
    remember) to be stored with the run."""

    def __init__(self) -> None:
        self._pieces: list[str] | None = []
        self._length = 0

    def through(self, chunks: Iterable[str]) -> Iterator[str]:
        """`chunks`, each kept as it passes."""
        for chunk in chunks:
            if self._pieces is not None:
                self._length += len(chunk)
                if self._length > MAX_REMEMBERED_CHARACTERS:
                    self._pieces = None
                else:
                    self._pieces.append(chunk)
            yield chunk

    @property
    def text(self) -> str | None:
        """Everything written, or None if it was too long to keep."""
        return None if self._pieces is None else "".join(self._pieces)
