"""A persistent `ProofCache` on SQLite, so that a second `verifier check` over
unchanged modules answers from disk instead of asking the solvers again.

An answer is stored under its question key *and* the versions that produced
it: the tool (its package version and a digest of its own source, so an
edited checkout never reuses an answer an older checkout proved), islpy
(which bundles isl) and z3.  A different version is a miss, never a stale
answer.  The default file lives in the user's cache directory
(``$XDG_CACHE_HOME/verifier`` or ``~/.cache/verifier``).  Only the answers
of the `KEEP_VERSIONS` most recently used version sets are kept, so a
checkout edited again and again does not grow the file without end.  A run
whose checkout changes under it (its modules are read when first used) keeps
none of its new answers: the source is read again before each write.  Two processes may
share the file: it is in WAL mode with a busy timeout, and each process
writes its new answers in one short transaction when it closes (or every
`FLUSH_EVERY` answers).

**The cache never decides.**  It is an optimisation: a cache that cannot be
opened, read or written — unreadable, read-only, locked, corrupt, full, or
a directory where the file should be — is used as far as it works (read
only, or not at all), and each such degradation is one line in `problems`
for the caller to show; the answers, hence the verdicts, are the same.

**Trust.**  The cache never decides a verdict either: every row carries an
HMAC-SHA256 of its question and answer under a secret key the file does
not contain (`cache_key`: ``$VERIFIER_CACHE_KEY``, or a private key file
in the user's config directory).  A row whose tag does not hold — forged
by someone who can write the file, damaged, or written under another key
— and a row that is not a JSON object are ignored (a miss: the question
is answered again) with one warning in `problems`.  A cache file (or its
``-wal``/``-shm`` files) that belongs to another user or that group or
others may write is not used at all, nor is a symbolic link at its path;
a directory or file the cache creates is private (0700 / 0600).  A file
of another schema version is renamed aside (``proofs.sqlite3.schema-N``),
never wiped, and a new one started.  `CacheMode.READ` lets a run use a
cache written by a trusted one (CI restoring the cache of a protected
branch) without writing to it.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "proofs.sqlite3"
>>> question = "in-bounds|(d0) -> (d0), domain: d0 in [0, 3]|[4]"
>>> key = b"a secret the file does not hold"
>>> with SqliteCache(path, versions=(("verifier", "0.1.0"),), key=key) as cache:
...     cache.store(question, {"outcome": "proved"})
>>> with SqliteCache(path, versions=(("verifier", "0.1.0"),), key=key) as cache:
...     (cache.lookup(question), cache.hits, cache.misses)
({'outcome': 'proved'}, 1, 0)
>>> with SqliteCache(path, versions=(("verifier", "0.2.0"),), key=key) as cache:
...     (cache.lookup(question), cache.hits, cache.misses)
(None, 0, 1)
>>> with SqliteCache(path, versions=(("verifier", "0.1.0"),), key=b"another key") as cache:
...     (cache.lookup(question), ["do not authenticate" in p for p in cache.problems])
(None, [True])
>>> with SqliteCache(path.parent / "missing" / "proofs.sqlite3", mode=CacheMode.READ) as cache:
...     (cache.lookup(question), cache.problems)
(None, [])
"""

from __future__ import annotations

import contextlib
import enum
import functools
import hashlib
import hmac
import json
import os
import sqlite3
import stat
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

from verifier.checks.cache import CachedRecord, ProofCache
from verifier.gate.cache_key import KeyUnavailable, cache_key
from verifier.gate.run import tool_version

Versions = tuple[tuple[str, str], ...]

FILE_NAME = "proofs.sqlite3"
FLUSH_EVERY = 512
BUSY_TIMEOUT_SECONDS = 10.0
KEEP_VERSIONS = 4
# Bumped whenever the tables change; a file of another schema is renamed
# aside and a new one started (written) or ignored (read only).
SCHEMA_VERSION = 4
# The answers are rows of a rowid table, found through the index of their
# questions, which holds the questions alone: a lookup reads the index and
# then its one row.  In a WITHOUT ROWID table (schema 3) each row is a key
# of the search tree, and a search that passes a row too large for its
# page reads the whole row to compare it — a module's remembered findings
# (97 MB for the 92,000-instruction GPT) were read back for every lookup
# whose search passed them: 0.1 CPU-s each, and a warm run's peak memory.
_SCHEMA = (
    "CREATE TABLE answers ("
    " question BLOB PRIMARY KEY,"  # sha256 of the versions and the question key
    " versions TEXT NOT NULL,"
    " answer TEXT NOT NULL,"
    " tag BLOB NOT NULL"  # HMAC-SHA256 of question and answer under the key
    ")",
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

    import importlib.metadata  # only to open the cache: a fifth of a check's start-up

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


def _source_unchanged() -> bool:
    """Whether the tool's source on disk is still the one `tool_versions`
    read (its digest, 50 ms)."""
    return dict(tool_versions())["verifier"].endswith(f"+src.{_source_digest()}")


def _tag(key: bytes, question: bytes, answer: str) -> bytes:
    return hmac.digest(key, question + b"\0" + answer.encode(), "sha256")


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
        key: bytes | None = None,
    ) -> None:
        self.path = path
        # The tool's own source is read again before each write when the
        # versions are the tool's (`_source_unchanged`).
        self._own_versions = versions is None
        self.versions = tool_versions() if versions is None else versions
        self._versions_text = json.dumps(dict(self.versions), sort_keys=True)
        self._busy_timeout = BUSY_TIMEOUT_SECONDS if busy_timeout is None else busy_timeout
        self._pending: dict[bytes, str] = {}
        self._connection: sqlite3.Connection | None = None
        self.problems: list[str] = []
        self.hits = 0
        self.misses = 0
        self.writable = False
        self._warned: set[str] = set()
        if mode is CacheMode.OFF:
            return
        try:
            self._key = cache_key() if key is None else key
        except KeyUnavailable as missing:
            self._degrade(
                f"cannot authenticate the proof cache {path}: {missing}; not using it "
                "(see the README's trust model)"
            )
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

    def _refuse_untrusted(self) -> None:
        """Refuse a symbolic link at the file's path (or its ``-wal`` and
        ``-shm`` files'), and a file another user owns or may write."""
        for path in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
            try:
                status = path.lstat()
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(status.st_mode):
                raise CacheUnavailable(f"{path} is a symbolic link (refused: see the README)")
            _refuse_foreign(path, status)

    def _open_for_writing(self, retry: bool = True) -> sqlite3.Connection:
        try:
            self._refuse_untrusted()
            identity = self._create_private()
            connection = sqlite3.connect(self.path, isolation_level=None, timeout=0)
        except (OSError, sqlite3.Error) as error:
            raise CacheUnavailable(str(error)) from None
        try:
            self._configure(connection)
            version = _schema(connection)
            if version not in (None, SCHEMA_VERSION):
                # Another schema (another verifier's, or no cache at all):
                # kept aside, never wiped, and a new file started.
                connection.close()
                if not retry:
                    raise CacheUnavailable(f"written with cache schema {version}")
                self._keep_aside(version, identity)
                return self._open_for_writing(retry=False)
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                if _schema(connection) is None:  # still new: no other process made it
                    for statement in _SCHEMA:
                        connection.execute(statement)
                    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self._forget_old_versions(connection)
        except sqlite3.Error as error:
            connection.close()
            raise CacheUnavailable(str(error)) from None
        return connection

    def _keep_aside(self, version: int, identity: tuple[int, int]) -> None:
        """Rename the file of schema `version` (and its WAL, if any) to the
        first free ``NAME.schema-VERSION[.N]`` beside it, unless another
        process already replaced it (`identity`: its device and inode)."""
        try:
            status = self.path.stat()
            if (status.st_dev, status.st_ino) != identity:
                return  # another process moved it and started a new file
            aside = self._link_aside(version)
            for journal in ("-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.rename(f"{self.path}{journal}", f"{aside}{journal}")
            self.path.unlink()
        except OSError as error:
            raise CacheUnavailable(
                f"written with cache schema {version}, not {SCHEMA_VERSION}, "
                f"and cannot be renamed aside: {error}"
            ) from None
        self._degrade(
            f"the proof cache {self.path} was written with cache schema {version}, "
            f"not {SCHEMA_VERSION}: kept as {aside}, and a new cache started"
        )

    def _link_aside(self, version: int) -> Path:
        """A new link to the file at the first free ``NAME.schema-VERSION[.N]``
        (a link never replaces an earlier file kept aside)."""
        number = 0
        while True:
            suffix = f".schema-{version}" + (f".{number}" if number else "")
            aside = self.path.with_name(self.path.name + suffix)
            try:
                os.link(self.path, aside)
                return aside
            except FileExistsError:
                number += 1

    def _create_private(self) -> tuple[int, int]:
        """The directory (0700) and the file (0600), when they do not exist;
        existing ones are left as they are (but one of another user, or
        that others may write, is refused).  The file's device and inode."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(self.path, flags, 0o600)
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                raise CacheUnavailable(f"{self.path} is not a regular file")
            _refuse_foreign(self.path, status)
            return status.st_dev, status.st_ino
        finally:
            os.close(descriptor)

    def _open_for_reading(self) -> sqlite3.Connection:
        if not self.path.exists():
            raise CacheUnavailable()
        try:
            self._refuse_untrusted()
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
        """The answer text stored for `question` whose tag holds."""
        if self._connection is None:
            return None
        try:
            row = self._connection.execute(
                "SELECT answer, tag FROM answers WHERE question = ?", (question,)
            ).fetchone()
        except sqlite3.Error as error:
            self._close_connection()
            self._degrade(f"cannot read the proof cache {self.path}: {error}; not using it")
            return None
        if row is None:
            return None
        answer, tag = row
        if not (
            isinstance(answer, str)
            and isinstance(tag, bytes)
            and hmac.compare_digest(tag, _tag(self._key, question, answer))
        ):
            self.warn_once(
                f"the proof cache {self.path} holds answers that do not authenticate with "
                "this run's key (forged, damaged, or written under another key): "
                "ignored, and their questions answered again"
            )
            return None
        return answer

    def warn_once(self, problem: str) -> None:
        """Add `problem` to `problems`, unless it is there already."""
        if problem not in self._warned:
            self._warned.add(problem)
            self._degrade(problem)

    def lookup(self, key: str) -> CachedRecord | None:
        question = self._question(key)
        text = self._pending.get(question) or self._stored(question)
        answer = None if text is None else _decoded(text)
        if text is not None and answer is None:
            self.warn_once(
                f"the proof cache {self.path} holds answers that are not JSON objects: "
                "ignored, and their questions answered again"
            )
        if answer is None:
            self.misses += 1
            return None
        self.hits += 1
        return answer

    def store(self, key: str, answer: CachedRecord) -> None:
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
        if self._own_versions and not _source_unchanged():
            # This run's answers came from code that is no longer the code
            # on disk, whose digest they would be stored under (a checkout
            # edited, merged or stashed while it ran; its modules are read
            # when first used): a later run would take them for its own.
            self.writable = False
            self._pending.clear()
            self._degrade(
                f"the tool's source changed while this run went on: its new answers are not "
                f"kept in the proof cache {self.path}"
            )
            return
        rows = [
            (q, self._versions_text, a, _tag(self._key, q, a)) for q, a in self._pending.items()
        ]
        try:
            with self._connection:
                self._connection.execute("BEGIN IMMEDIATE")
                self._connection.executemany(
                    "INSERT OR REPLACE INTO answers (question, versions, answer, tag)"
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


def _schema(connection: sqlite3.Connection) -> int | None:
    """The schema version of the file, None for a new (empty) one."""
    version: int = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    return None if version == 0 and tables == 0 else version


def _refuse_foreign(path: Path, status: os.stat_result) -> None:
    """Refuse a file of the cache that another user owns or that group or
    others may write: they could plant answers in it."""
    if status.st_uid != os.geteuid():
        raise CacheUnavailable(f"{path} belongs to another user (uid {status.st_uid})")
    mode = stat.S_IMODE(status.st_mode)
    if mode & 0o022:
        raise CacheUnavailable(f"{path} may be written by group or others (mode {oct(mode)})")


def distrusted(cache: ProofCache) -> None:
    """Warn (once a run) that `cache` holds a row that authenticates but is
    not what the check reading it writes (a miss: its question is answered
    again); a cache in memory holds only this run's answers."""
    if isinstance(cache, SqliteCache):
        cache.warn_once(
            f"the proof cache {cache.path} holds answers that are not what the check "
            "reading them writes: ignored, and their questions answered again"
        )


def _decoded(text: str) -> CachedRecord | None:
    """The answer stored as `text`, or None if it is not a JSON object."""
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None
