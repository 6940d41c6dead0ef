"""The proof cache never decides: unreadable, read-only, locked, corrupt or
full, it is one warning and the run goes on with what still works — the
same findings, the same exit code.  And its trust model: private files, no
symbolic links, rows authenticated with a key the file does not hold, a
read-only mode (forged rows: `test_cache_forgery`)."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from verifier.cli import EXIT_REFUTED, main
from verifier.gate import sqlite_cache
from verifier.gate.cache_key import cache_key
from verifier.gate.sqlite_cache import FILE_NAME, CacheMode, SqliteCache

V1 = (("verifier", "test"),)
KEY = b"the test key"
ROOT = Path(__file__).parents[2]
# One refuted bitcast and a clean module: a cache that decided could flip either.
MODULES = [
    ROOT / "examples" / "checks" / "bitcast_tiled.hlo",
    ROOT / "examples" / "real" / "softmax.hlo",
]


@pytest.fixture(autouse=True)
def private_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's own key file (the user's is not touched)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("VERIFIER_CACHE_KEY", raising=False)


def filled(path: Path, count: int = 3) -> Path:
    with SqliteCache(path, versions=V1) as cache:
        for i in range(count):
            cache.store(f"k{i}", {"outcome": "refuted", "i": i})
    return path


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection may grow the file by no page (`max_page_count` is
    per connection): the next write is "database or disk is full"."""
    configure = SqliteCache._configure

    def no_room(self: SqliteCache, connection: sqlite3.Connection) -> None:
        configure(self, connection)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {pages}")

    monkeypatch.setattr(SqliteCache, "_configure", no_room)


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    path = filled(tmp_path / FILE_NAME)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    yield path
    holder.rollback()
    holder.close()


# ---------------------------------------------------------------- the store


def test_a_directory_where_the_file_should_be_is_one_problem(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).mkdir()
    with SqliteCache(tmp_path / FILE_NAME, versions=V1) as cache:
        assert cache.lookup("k") is None
        cache.store("k", {"outcome": "proved"})
        assert cache.lookup("k") == {"outcome": "proved"}  # in memory, for this run
        assert not cache.readable and not cache.writable
    assert len(cache.problems) == 1 and "not using it" in cache.problems[0]


def test_a_file_below_a_file_is_one_problem(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with SqliteCache(tmp_path / "file" / "sub" / FILE_NAME, versions=V1) as cache:
        assert cache.lookup("k") is None
    assert len(cache.problems) == 1


def test_a_file_of_garbage_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    with SqliteCache(path, versions=V1) as cache:
        cache.store("k", {"outcome": "proved"})
    assert len(cache.problems) == 1 and "not a database" in cache.problems[0]
    assert path.read_bytes() == garbage  # not "repaired": it may be someone's file


def test_a_locked_file_is_read_and_not_written(locked: Path) -> None:
    with SqliteCache(locked, versions=V1, busy_timeout=0.05) as cache:
        assert cache.readable and not cache.writable
        assert cache.lookup("k1") == {"outcome": "refuted", "i": 1}
        cache.store("new", {"outcome": "proved"})
    assert len(cache.problems) == 1 and "locked" in cache.problems[0]
    assert "reading it only" in cache.problems[0]


def test_a_full_disk_stops_writing_and_keeps_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = filled(tmp_path / FILE_NAME)
    full_disk(monkeypatch)
    with SqliteCache(path, versions=V1) as cache:
        for i in range(3 * sqlite_cache.FLUSH_EVERY):  # several failing flushes
            cache.store(f"new{i}", {"outcome": "proved", "pad": "x" * 100})
        assert not cache.writable
        assert cache.lookup("k2") == {"outcome": "refuted", "i": 2}
    assert len(cache.problems) == 1 and "full" in cache.problems[0]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through any permission")
def test_a_read_only_directory_is_read(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    directory.mkdir()
    path = filled(directory / FILE_NAME)
    directory.chmod(0o500)
    try:
        with SqliteCache(path, versions=V1) as cache:
            cache.store("new", {"outcome": "proved"})
        assert len(cache.problems) == 1
    finally:
        directory.chmod(0o700)


def test_an_unwritable_place_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A read-only directory as root sees it (root ignores the mode bits):
    # creating or opening the file for writing is refused.
    path = filled(tmp_path / FILE_NAME)

    def refused(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied", str(path))

    key = cache_key()
    monkeypatch.setattr(os, "open", refused)
    with SqliteCache(path, versions=V1, key=key) as cache:
        assert cache.lookup("k0") == {"outcome": "refuted", "i": 0}
        assert not cache.writable
    assert len(cache.problems) == 1 and "Permission denied" in cache.problems[0]


# ---------------------------------------------------------------- trust


def test_an_edited_or_damaged_entry_is_not_trusted(tmp_path: Path) -> None:
    path = filled(tmp_path / FILE_NAME)
    with sqlite3.connect(path) as raw:
        raw.execute("""UPDATE answers SET answer = '{"outcome": "proved", "i": 0}'""")
    with SqliteCache(path, versions=V1) as cache:
        assert [cache.lookup(f"k{i}") for i in range(3)] == [None, None, None]
    # One warning for the run, however many rows.
    assert len(cache.problems) == 1 and "do not authenticate" in cache.problems[0]
    with sqlite3.connect(path) as raw:  # a tag moved to another question
        raw.execute("UPDATE answers SET tag = zeroblob(32)")
    with SqliteCache(path, versions=V1) as cache:
        assert cache.lookup("k0") is None


def test_an_untouched_entry_is_trusted(tmp_path: Path) -> None:
    with SqliteCache(filled(tmp_path / FILE_NAME), versions=V1) as cache:
        assert cache.lookup("k0") == {"outcome": "refuted", "i": 0}


def test_the_directory_and_file_it_creates_are_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / FILE_NAME
    filled(path)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    for file in path.parent.iterdir():  # the file and any WAL files beside it
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file


def test_a_symbolic_link_at_the_cache_path_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.sqlite3"
    filled(target)
    before = target.read_bytes()
    link = tmp_path / "cache" / FILE_NAME
    link.parent.mkdir()
    link.symlink_to(target)
    with SqliteCache(link, versions=V1) as cache:
        assert cache.lookup("k0") is None
        cache.store("planted", {"outcome": "proved"})
    assert len(cache.problems) == 1 and "symbolic link" in cache.problems[0]
    assert target.read_bytes() == before


def test_read_mode_answers_and_never_writes(tmp_path: Path) -> None:
    path = filled(tmp_path / FILE_NAME)
    before = path.read_bytes()
    with SqliteCache(path, versions=V1, mode=CacheMode.READ) as cache:
        assert cache.lookup("k1") == {"outcome": "refuted", "i": 1}
        cache.store("new", {"outcome": "proved"})
        assert cache.lookup("new") == {"outcome": "proved"}  # for this run only
    # SQLite may leave its shared-memory index beside the file; the file
    # and what it answers are unchanged.
    assert path.read_bytes() == before
    with SqliteCache(path, versions=V1) as cache:
        assert cache.lookup("new") is None
    assert cache.problems == []


def test_read_mode_without_a_cache_creates_none(tmp_path: Path) -> None:
    with SqliteCache(tmp_path / "none" / FILE_NAME, versions=V1, mode=CacheMode.READ) as cache:
        assert cache.lookup("k") is None
    assert not (tmp_path / "none").exists() and cache.problems == []


def old_cache(path: Path, row: bytes) -> bytes:
    """A cache file of schema 2 (an older verifier's) holding one row."""
    with sqlite3.connect(path) as raw:
        raw.execute(
            "CREATE TABLE answers (question BLOB PRIMARY KEY, versions TEXT NOT NULL,"
            " answer TEXT NOT NULL, checksum BLOB NOT NULL) WITHOUT ROWID"
        )
        raw.execute("INSERT INTO answers VALUES (?, 'v', '{}', x'00')", (row,))
        raw.execute("PRAGMA user_version = 2")
    raw.close()
    return path.read_bytes()


def test_a_cache_of_another_schema_is_kept_aside_not_wiped(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    before = old_cache(path, b"first")
    with SqliteCache(path, versions=V1, mode=CacheMode.READ) as reader:
        assert reader.lookup("k") is None
    assert len(reader.problems) == 1 and "schema 2" in reader.problems[0]
    assert path.read_bytes() == before  # read mode touches nothing
    with SqliteCache(path, versions=V1) as cache:
        cache.store("k0", {"outcome": "refuted"})
    (problem,) = cache.problems
    aside = tmp_path / f"{FILE_NAME}.schema-2"
    assert f"kept as {aside}" in problem
    assert aside.read_bytes() == before
    with SqliteCache(path, versions=V1) as cache:
        assert cache.lookup("k0") == {"outcome": "refuted"} and cache.problems == []
    # Another old file later: kept beside the first, which stays as it was.
    path.unlink()
    second = old_cache(path, b"second")
    SqliteCache(path, versions=V1).close()
    assert aside.read_bytes() == before
    assert (tmp_path / f"{FILE_NAME}.schema-2.1").read_bytes() == second


def test_a_sqlite_file_that_is_no_cache_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE mine (x)")
    raw.close()
    before = path.read_bytes()
    with SqliteCache(path, versions=V1) as cache:
        cache.store("k", {"outcome": "proved"})
    assert (tmp_path / f"{FILE_NAME}.schema-0").read_bytes() == before
    with SqliteCache(path, versions=V1) as cache:
        assert cache.lookup("k") == {"outcome": "proved"}


# ---------------------------------------------------------------- the gate


def check(*options: str) -> tuple[int, dict[str, object]]:
    # One process: the breakages below are simulated by patching this one
    # (worker processes of --jobs would not see them).
    out = io.StringIO()
    code = main(["check", "--format", "json", "--jobs", "1", *options, *map(str, MODULES)], out)
    return code, json.loads(out.getvalue())


@pytest.fixture(scope="module")
def without_cache() -> tuple[int, dict[str, object]]:
    return check("--cache-mode", "off")


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("verifier: warning:")]


def edit_every_answer(path: Path) -> None:
    """Flip every stored outcome to "proved" without fixing the tags."""
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE answers SET answer = replace(answer, 'refuted', 'proved')")


@pytest.mark.parametrize(
    "breakage", ["directory", "garbage", "locked", "full", "edited", "symlink"]
)
def test_a_broken_cache_changes_no_finding_and_no_exit_code(
    breakage: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    without_cache: tuple[int, dict[str, object]],
) -> None:
    assert without_cache[0] == EXIT_REFUTED
    path = tmp_path / FILE_NAME
    expected_warnings = 1
    match breakage:
        case "directory":
            path.mkdir()
        case "garbage":
            path.write_bytes(b"SQLite format 3\0" + os.urandom(4096))
        case "locked":
            assert check("--cache-dir", str(tmp_path)) == without_cache  # fill it
            holder = sqlite3.connect(path, isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            monkeypatch.setattr(sqlite_cache, "BUSY_TIMEOUT_SECONDS", 0.05)
        case "full":
            SqliteCache(path, versions=V1).close()
            full_disk(monkeypatch)
        case "edited":
            assert check("--cache-dir", str(tmp_path)) == without_cache
            edit_every_answer(path)  # a miss, and a warning
        case "symlink":
            target = tmp_path / "target.sqlite3"
            SqliteCache(target, versions=V1).close()
            path.symlink_to(target)
    capsys.readouterr()
    assert check("--cache-dir", str(tmp_path)) == without_cache
    assert len(warnings(capsys.readouterr().err)) == expected_warnings
    # And again, now that the first run may have written what it could.
    assert check("--cache-dir", str(tmp_path)) == without_cache
    assert check("--cache-dir", str(tmp_path), "--cache-mode", "read") == without_cache


def test_no_cache_is_cache_mode_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert check("--no-cache")[0] == EXIT_REFUTED
    assert check("--cache-mode", "read")[0] == EXIT_REFUTED
    assert not (tmp_path / "verifier").exists()
    assert check("--cache-mode", "write")[0] == EXIT_REFUTED
    assert (tmp_path / "verifier" / FILE_NAME).is_file()


def test_a_cache_below_a_name_that_is_not_utf8_is_read(tmp_path: Path) -> None:
    # The read-only URI percent-encodes the file system's bytes; encoding the
    # name as UTF-8 raised UnicodeEncodeError (found when --jobs met #14's
    # hostile names).
    directory = tmp_path / os.fsdecode(b"cache\xff")
    path = directory / FILE_NAME
    with SqliteCache(path) as cache:
        cache.store("question", {"outcome": "proved"})
    with SqliteCache(path, mode=CacheMode.READ) as cache:
        assert cache.lookup("question") == {"outcome": "proved"}
        assert cache.problems == []
