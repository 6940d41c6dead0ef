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

**The cache never decides.**  It is an optimisation: a cache that cannot be
opened, read or written — unreadable, read-only, locked, corrupt, full, or
a directory where the file should be — is used as far as it works (read
only, or not at all), and each such degradation is one line in `problems`
for the caller to show; the answers, hence the verdicts, are the same.

**Trust.**  Whoever can write the file decides verdicts: an answer edited to
"proved" passes the gate.  So a directory or file the cache creates is
private (0700 / 0600), a symbolic link at the file's path is refused, and
every row carries a checksum of its question and answer, so a row that was
corrupted or edited by hand without recomputing it is ignored (a miss).
The checksum is not a signature: it detects damage, not a forger who can
write the file.  `CacheMode.READ` lets a run use a cache written by a
trusted one (CI restoring the cache of a protected branch) without
writing to it.

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
>>> with SqliteCache(path.parent / "missing" / "proofs.sqlite3", mode=CacheMode.READ) as cache:
...     (cache.lookup(question), cache.problems)
(None, [])
"""

from __future__ import annotations

import contextlib
import enum
import functools
import hashlib
import importlib.metadata
import json
import os
import sqlite3
import stat
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

from verifier.checks.cache import Answer
from verifier.gate.run import tool_version

Versions = tuple[tuple[str, str], ...]

FILE_NAME = "proofs.sqlite3"
FLUSH_EVERY = 512
BUSY_TIMEOUT_SECONDS = 10.0
KEEP_VERSIONS = 4
# Bumped whenever the tables change; a file of another schema is rebuilt
# (written) or ignored (read only).
SCHEMA_VERSION = 2
_SCHEMA = (
    "CREATE TABLE answers ("
    " question BLOB PRIMARY KEY,"  # sha256 of the versions and the question key
    " versions TEXT NOT NULL,"
    " answer TEXT NOT NULL,"
    " checksum BLOB NOT NULL"  # sha256 of question and answer: damage is a miss
    ") WITHOUT ROWID",
    # When each version set was last opened (bookkeeping only: the answers
    # never depend on it).
    "CREATE TABLE used (versions TEXT PRIMARY KEY, opened INTEGER NOT NULL)",
)


class CacheMode(enum.Enum):
    """How a run uses the persistent cache (``--cache-mode``)."""

    READ = "read"  # answer from it, never write (an untrusted run)
    WRITE = "write"  # answer from it and add new answers (the default)
    OFF = "off"  # keep answers in memory for one run only


class CacheUnavailable(Exception):
    """Why the cache could not be opened in some mode (internal: it becomes
    one of `SqliteCache.problems`, never an error of the run)."""


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
        ("verifier", f"{tool_version()}+src.{_source_digest()}"),
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


def _checksum(question: bytes, answer: str) -> bytes:
    return hashlib.sha256(question + b"\0" + answer.encode()).digest()


class SqliteCache:
    """A `ProofCache` in an SQLite file; counts its `hits` and `misses`.

    Use it as a context manager (or call `close`): new answers are written
    when it closes.  Opening, reading and writing never raise: what fails is
    described in `problems` (one line each) and the cache goes on with what
    still works — `readable` and `writable` say what that is.
    """

    def __init__(
        self,
        path: Path,
        *,
        versions: Versions | None = None,
        mode: CacheMode = CacheMode.WRITE,
        busy_timeout: float | None = None,
    ) -> None:
        self.path = path
        self.versions = tool_versions() if versions is None else versions
        self._versions_text = json.dumps(dict(self.versions), sort_keys=True)
        self._busy_timeout = BUSY_TIMEOUT_SECONDS if busy_timeout is None else busy_timeout
        self._pending: dict[bytes, str] = {}
        self._connection: sqlite3.Connection | None = None
        self.problems: list[str] = []
        self.hits = 0
        self.misses = 0
        self.writable = False
        if mode is CacheMode.OFF:
            return
        unwritable: CacheUnavailable | None = None
        if mode is CacheMode.WRITE:
            try:
                self._connection = self._open_for_writing()
                self.writable = True
                return
            except CacheUnavailable as failure:
                unwritable = failure
        try:
            self._connection = self._open_for_reading()
            if unwritable is not None:
                self._degrade(f"cannot write the proof cache {path}: {unwritable}; reading it only")
        except CacheUnavailable as unreadable:
            cause = unwritable or unreadable
            if cause.args:  # no reason: there is no cache to read yet
                self._degrade(
                    f"cannot use the proof cache {path}: {cause}; not using it "
                    "(--cache-dir DIR for another place, or --cache-mode off)"
                )

    @property
    def readable(self) -> bool:
        return self._connection is not None

    def _degrade(self, problem: str) -> None:
        self.problems.append(problem)

    # ------------------------------------------------------------- opening

    def _refuse_links(self) -> None:
        for path in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
            if path.is_symlink():
                raise CacheUnavailable(f"{path} is a symbolic link (refused: see the README)")

    def _open_for_writing(self) -> sqlite3.Connection:
        try:
            self._refuse_links()
            self._create_private()
            connection = sqlite3.connect(self.path, isolation_level=None, timeout=0)
        except (OSError, sqlite3.Error) as error:
            raise CacheUnavailable(str(error)) from None
        try:
            self._configure(connection)
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                if connection.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    # Another schema (an older verifier): a cache, so rebuilt.
                    connection.execute("DROP TABLE IF EXISTS answers")
                    connection.execute("DROP TABLE IF EXISTS used")
                    for statement in _SCHEMA:
                        connection.execute(statement)
                    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self._forget_old_versions(connection)
        except sqlite3.Error as error:
            connection.close()
            raise CacheUnavailable(str(error)) from None
        return connection

    def _create_private(self) -> None:
        """The directory (0700) and the file (0600), when they do not exist;
        existing ones are left as they are."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(self.path, flags, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise CacheUnavailable(f"{self.path} is not a regular file")
        finally:
            os.close(descriptor)

    def _open_for_reading(self) -> sqlite3.Connection:
        if not self.path.exists():
            raise CacheUnavailable()
        try:
            self._refuse_links()
            if not self.path.is_file():
                raise CacheUnavailable(f"{self.path} is not a regular file")
            uri = f"file:{quote(os.fsencode(self.path))}?mode=ro"
            connection = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=0)
        except (OSError, sqlite3.Error) as error:
            raise CacheUnavailable(str(error)) from None
        try:
            self._configure(connection)
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                raise CacheUnavailable(f"written with cache schema {version}, not {SCHEMA_VERSION}")
            connection.execute("SELECT 1 FROM answers LIMIT 1").fetchall()
        except sqlite3.Error as error:
            connection.close()
            raise CacheUnavailable(str(error)) from None
        except CacheUnavailable:
            connection.close()
            raise
        return connection

    def _configure(self, connection: sqlite3.Connection) -> None:
        connection.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")

    def _forget_old_versions(self, connection: sqlite3.Connection) -> None:
        """Mark this version set used; drop the answers of all but the
        `KEEP_VERSIONS` most recently used ones (inside the caller's
        transaction)."""
        opened = connection.execute("SELECT COALESCE(MAX(opened), 0) + 1 FROM used").fetchone()[0]
        connection.execute(
            "INSERT OR REPLACE INTO used (versions, opened) VALUES (?, ?)",
            (self._versions_text, opened),
        )
        stale = connection.execute(
            "SELECT versions FROM used ORDER BY opened DESC LIMIT -1 OFFSET ?",
            (KEEP_VERSIONS,),
        ).fetchall()
        for (versions,) in stale:
            connection.execute("DELETE FROM answers WHERE versions = ?", (versions,))
            connection.execute("DELETE FROM used WHERE versions = ?", (versions,))

    # ------------------------------------------------------------- answers

    def _question(self, key: str) -> bytes:
        return hashlib.sha256(f"{self._versions_text}\0{key}".encode()).digest()

    def _stored(self, question: bytes) -> str | None:
        """The answer text stored for `question` whose checksum holds."""
        if self._connection is None:
            return None
        try:
            row = self._connection.execute(
                "SELECT answer, checksum FROM answers WHERE question = ?", (question,)
            ).fetchone()
        except sqlite3.Error as error:
            self._close_connection()
            self._degrade(f"cannot read the proof cache {self.path}: {error}; not using it")
            return None
        if row is None:
            return None
        answer, checksum = row
        if not isinstance(answer, str) or checksum != _checksum(question, answer):
            return None  # damaged or edited: not trusted
        return answer

    def lookup(self, key: str) -> Answer | None:
        question = self._question(key)
        text = self._pending.get(question) or self._stored(question)
        answer = None if text is None else _decoded(text)
        if answer is None:
            self.misses += 1
            return None
        self.hits += 1
        return answer

    def store(self, key: str, answer: Answer) -> None:
        # Kept in memory until written; when the file cannot be written, for
        # the rest of the run (repeated questions are still answered once).
        self._pending[self._question(key)] = json.dumps(answer, sort_keys=True)
        if self.writable and len(self._pending) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write the answers stored since the last flush, in one transaction;
        if that fails, stop writing (one problem) and keep reading."""
        if not self._pending or not self.writable or self._connection is None:
            return
        rows = [(q, self._versions_text, a, _checksum(q, a)) for q, a in self._pending.items()]
        try:
            with self._connection:
                self._connection.execute("BEGIN IMMEDIATE")
                self._connection.executemany(
                    "INSERT OR REPLACE INTO answers (question, versions, answer, checksum)"
                    " VALUES (?, ?, ?, ?)",
                    rows,
                )
        except sqlite3.Error as error:
            self.writable = False
            self._degrade(
                f"cannot write the proof cache {self.path}: {error}; "
                "this run's new answers are not kept"
            )
            return
        self._pending.clear()

    def _close_connection(self) -> None:
        if self._connection is not None:
            # Closing a broken file: nothing is left to save.
            with contextlib.suppress(sqlite3.Error):
                self._connection.close()
            self._connection = None
        self.writable = False

    def close(self) -> None:
        """Flush and close the file."""
        try:
            self.flush()
        finally:
            self._close_connection()

    def __enter__(self) -> SqliteCache:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _decoded(text: str) -> Answer | None:
    """The answer stored as `text`, or None if it is not a JSON object."""
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None
