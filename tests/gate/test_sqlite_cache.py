"""The persistent proof cache: answers survive the process, a version change
misses, two processes can share the file, a bad place is a clear error."""

from __future__ import annotations

import functools
import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from verifier.checks.cache import cached
from verifier.gate import sqlite_cache
from verifier.gate.sqlite_cache import FLUSH_EVERY, KEEP_VERSIONS, SqliteCache, tool_versions

V1 = (("verifier", "1"), ("islpy", "a"), ("z3-solver", "x"))


def test_answers_survive_and_count_hits_and_misses(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    calls: list[str] = []

    def prove(key: str) -> dict[str, object]:
        calls.append(key)
        return {"outcome": "proved", "key": key}

    keys = [f"in-bounds|map {i}" for i in range(3)]
    with SqliteCache(path, versions=V1) as cache:
        for key in keys:
            cached(cache, key, functools.partial(prove, key), dict)
        assert (cache.hits, cache.misses) == (0, 3)
    with SqliteCache(path, versions=V1) as cache:
        answers = [cached(cache, key, functools.partial(prove, key), dict) for key in keys]
        assert (cache.hits, cache.misses) == (3, 0)
    assert calls == keys
    assert answers == [{"outcome": "proved", "key": key} for key in keys]


@pytest.mark.parametrize("changed", ["verifier", "islpy", "z3-solver"])
def test_any_version_change_misses(tmp_path: Path, changed: str) -> None:
    path = tmp_path / "c.sqlite3"
    with SqliteCache(path, versions=V1) as cache:
        cache.store("k", {"outcome": "proved"})
    other = tuple((name, value + "'" if name == changed else value) for name, value in V1)
    with SqliteCache(path, versions=other) as cache:
        assert cache.lookup("k") is None
        assert cache.misses == 1
    with SqliteCache(path, versions=V1) as cache:
        assert cache.lookup("k") == {"outcome": "proved"}


def test_only_the_most_recently_used_versions_keep_their_answers(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    editions = [(("verifier", f"src.{n}"), ("islpy", "a"), ("z3-solver", "x")) for n in range(6)]
    for versions in editions:
        with SqliteCache(path, versions=versions) as cache:
            cache.store("k", {"outcome": "proved"})

    def kept() -> set[str]:
        with sqlite3.connect(path) as connection:
            rows = connection.execute("SELECT versions FROM answers").fetchall()
        return {json.loads(text)["verifier"] for (text,) in rows}

    assert kept() == {f"src.{n}" for n in range(6 - KEEP_VERSIONS, 6)}
    # Opening an old kept edition makes it the most recent: the next new
    # edition evicts the one after it.
    with SqliteCache(path, versions=editions[6 - KEEP_VERSIONS]) as cache:
        assert cache.lookup("k") == {"outcome": "proved"}
    with SqliteCache(path, versions=(("verifier", "src.new"),)) as cache:
        cache.store("k", {"outcome": "proved"})
    assert f"src.{6 - KEEP_VERSIONS}" in kept()
    assert f"src.{7 - KEEP_VERSIONS}" not in kept()


def test_the_tool_version_includes_a_digest_of_its_source() -> None:
    names = [name for name, _ in tool_versions()]
    assert names == ["verifier", "islpy", "z3-solver"]
    assert "+src." in dict(tool_versions())["verifier"]


def test_large_runs_are_written_in_batches(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    cache = SqliteCache(path, versions=V1)
    for i in range(FLUSH_EVERY):
        cache.store(f"k{i}", {"i": i})
    # Already on disk before close: another reader sees them.
    with SqliteCache(path, versions=V1) as reader:
        assert reader.lookup(f"k{FLUSH_EVERY - 1}") == {"i": FLUSH_EVERY - 1}
    cache.close()


def test_a_lookup_searches_an_index_of_questions_alone(tmp_path: Path) -> None:
    # A module's remembered findings are one row of tens of megabytes: in a
    # table whose rows are the keys of its search tree (WITHOUT ROWID), a
    # lookup whose search passes that row reads all of it to compare keys.
    path = tmp_path / "c.sqlite3"
    with SqliteCache(path, versions=V1) as cache:
        cache.store("large", {"findings": ["x" * 100_000]})
        cache.store("small", {"outcome": "proved"})
    with SqliteCache(path, versions=V1) as cache:
        assert cache.lookup("small") == {"outcome": "proved"}
    with sqlite3.connect(path) as raw:
        plan = raw.execute(
            "EXPLAIN QUERY PLAN SELECT answer, tag FROM answers WHERE question = ?", (b"q",)
        ).fetchall()
    raw.close()
    assert [row[-1] for row in plan] == [
        "SEARCH answers USING INDEX sqlite_autoindex_answers_1 (question=?)"
    ]


def _writer(path: str, start: int) -> None:
    with SqliteCache(Path(path), versions=V1) as cache:
        for i in range(start, start + 2000):
            cache.store(f"k{i}", {"i": i})
            if i % 100 == 0:
                cache.flush()


def test_two_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    SqliteCache(path, versions=V1).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(path), s)) for s in (0, 1000)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0]
    with SqliteCache(path, versions=V1) as cache:
        assert all(cache.lookup(f"k{i}") == {"i": i} for i in range(3000))


def test_a_run_whose_source_changed_under_it_keeps_no_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Answers computed by code that is no longer on disk would be stored
    # under the new code's digest, and a later run would take a refutation
    # of the old code for its own.
    path, key = tmp_path / "c.sqlite3", b"k" * 32
    with SqliteCache(path, key=key) as cache:
        cache.store("kept", {"outcome": "proved"})
    cache = SqliteCache(path, key=key)
    cache.store("dropped", {"outcome": "refuted"})
    monkeypatch.setattr(sqlite_cache, "_source_digest", lambda: "edited")
    cache.close()
    assert any("source changed" in problem for problem in cache.problems)
    monkeypatch.undo()
    with SqliteCache(path, key=key) as reader:
        assert reader.lookup("kept") == {"outcome": "proved"}
        assert reader.lookup("dropped") is None
