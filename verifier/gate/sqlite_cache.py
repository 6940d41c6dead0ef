"""A persistent `ProofCache` on SQLite, so that a second `verifier check` over
unchanged modules answers from disk instead of asking the solvers again.

An answer is stored under its question key *and* the versions that produced
it: the tool (its package version and a digest of its own source, so an
edited checkout never reuses an answer an older checkout proved), islpy
(which bundles isl) and z3.  A different version is a miss, never a stale
answer.  The default file lives in the user's cache directory
(``$XDG_CACHE_HOME/verifier`` or ``~/.cache/verifier``).  Only the answers
of the `KEEP_VERSIONS` most recently used version sets are kept, so a
checkout edited again and again does not grow the file without end.  Two processes may
share the file: it is in WAL mode with a busy timeout, and each process
writes its new answers in one short transaction when it closes (or every
`FLUSH_EVERY` answers).

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "proofs.sqlite3"
>>> question = "in-bounds|(d0) -> (d0), domain: d0 in [0, 3]|[4]"
>>> with SqliteCache(path, versions=(("verifier", "0.1.0"),)) as cache:
...     cache.store(question, {"outcome": "proved"})
>>> with SqliteCache(path, versions=(("verifier", "0.1.0"),)) as cache:
...     (cache.lookup(question), cache.hits, cache.misses)
({'outcome': 'proved'}, 1, 0)
>>> with SqliteCache(path, versions=(("verifier", "0.2.0"),)) as cache:
...     (cache.lookup(question), cache.hits, cache.misses)
(None, 0, 1)
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import sqlite3
from pathlib import Path
from types import TracebackType

from verifier.checks.cache import Answer
from verifier.errors import UsageError

Versions = tuple[tuple[str, str], ...]

FILE_NAME = "proofs.sqlite3"
FLUSH_EVERY = 512
_BUSY_TIMEOUT_MS = 30_000
KEEP_VERSIONS = 4
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS answers ("
    " question BLOB PRIMARY KEY,"  # sha256 of the versions and the question key
    " versions TEXT NOT NULL,"
    " answer TEXT NOT NULL"
    ") WITHOUT ROWID",
    # When each version set was last opened (bookkeeping only: the answers
    # never depend on it).
    "CREATE TABLE IF NOT EXISTS used (versions TEXT PRIMARY KEY, opened INTEGER NOT NULL)",
)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/verifier``, or ``~/.cache/verifier`` when it is unset."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "verifier"


@functools.cache
def tool_versions() -> Versions:
    """The versions an answer depends on: this tool (package version and
    source digest), islpy (and the isl it bundles) and z3."""

    def version(distribution: str) -> str:
        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            return "unknown"

    return (
        ("verifier", f"{version('verifier')}+src.{_source_digest()}"),
        ("islpy", version("islpy")),
        ("z3-solver", version("z3-solver")),
    )


def _source_digest() -> str:
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode())
        digest.update(b"\0")
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


class SqliteCache:
    """A `ProofCache` in an SQLite file; counts its `hits` and `misses`.

    Use it as a context manager (or call `close`): new answers are written
    when it closes.
    """

    def __init__(self, path: Path, *, versions: Versions | None = None) -> None:
        self.path = path
        self.versions = tool_versions() if versions is None else versions
        self._versions_text = json.dumps(dict(self.versions), sort_keys=True)
        self._pending: dict[bytes, str] = {}
        self.hits = 0
        self.misses = 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(path, isolation_level=None)
            self._connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            self._connection.execute("PRAGMA journal_mode = WAL")
            self._connection.execute("PRAGMA synchronous = NORMAL")
            for statement in _SCHEMA:
                self._connection.execute(statement)
            self._forget_old_versions()
        except (OSError, sqlite3.Error) as error:
            raise UsageError(
                f"cannot open the proof cache at {path}: {error} "
                "(use --cache-dir DIR for another place, or --no-cache)"
            ) from error

    def _forget_old_versions(self) -> None:
        """Mark this version set used; drop the answers of all but the
        `KEEP_VERSIONS` most recently used ones."""
        with self._connection:
            self._connection.execute("BEGIN IMMEDIATE")
            opened = self._connection.execute(
                "SELECT COALESCE(MAX(opened), 0) + 1 FROM used"
            ).fetchone()[0]
            self._connection.execute(
                "INSERT OR REPLACE INTO used (versions, opened) VALUES (?, ?)",
                (self._versions_text, opened),
            )
            stale = self._connection.execute(
                "SELECT versions FROM used ORDER BY opened DESC LIMIT -1 OFFSET ?",
                (KEEP_VERSIONS,),
            ).fetchall()
            for (versions,) in stale:
                self._connection.execute("DELETE FROM answers WHERE versions = ?", (versions,))
                self._connection.execute("DELETE FROM used WHERE versions = ?", (versions,))

    def _question(self, key: str) -> bytes:
        return hashlib.sha256(f"{self._versions_text}\0{key}".encode()).digest()

    def lookup(self, key: str) -> Answer | None:
        question = self._question(key)
        text = self._pending.get(question)
        if text is None:
            row = self._connection.execute(
                "SELECT answer FROM answers WHERE question = ?", (question,)
            ).fetchone()
            text = None if row is None else str(row[0])
        if text is None:
            self.misses += 1
            return None
        self.hits += 1
        answer: Answer = json.loads(text)
        return answer

    def store(self, key: str, answer: Answer) -> None:
        self._pending[self._question(key)] = json.dumps(answer, sort_keys=True)
        if len(self._pending) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write the answers stored since the last flush, in one transaction."""
        if not self._pending:
            return
        rows = [(q, self._versions_text, a) for q, a in self._pending.items()]
        with self._connection:
            self._connection.execute("BEGIN IMMEDIATE")
            self._connection.executemany(
                "INSERT OR REPLACE INTO answers (question, versions, answer) VALUES (?, ?, ?)",
                rows,
            )
        self._pending.clear()

    def close(self) -> None:
        """Flush and close the file."""
        try:
            self.flush()
        finally:
            self._connection.close()

    def __enter__(self) -> SqliteCache:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
