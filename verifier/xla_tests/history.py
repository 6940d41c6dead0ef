"""Every expectation that was ever ``different`` in the history of XLA's test
files, with the commits where it appeared and disappeared.

Paths with the same file name are one file that moved (XLA moved these
tests from ``xla/service/gpu/model`` to ``xla/hlo/analysis``); its commits
are read oldest first, and each version is checked as
`verifier.xla_tests.files` checks a file.  (Not ``git log --follow``: its
rename detection reads every blob of a commit, which a partial clone
lacks.)  An expectation is known across versions by its test, its kind and
the text of the line it starts on — lines move as the file grows around it,
and a fix changes the expected text, so the fixed expectation is a new
one and the wrong one *disappears* at the fix.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from verifier.errors import UsageError
from verifier.xla_tests.files import check_text
from verifier.xla_tests.result import Agreement, Expectation

# Where XLA keeps these tests today, and where it kept them before.
DEFAULT_PATHS = (
    "xla/service/gpu/model/indexing_map_test.cc",
    "xla/hlo/analysis/indexing_map_test.cc",
    "xla/service/gpu/model/indexing_analysis_test.cc",
    "xla/hlo/analysis/indexing_analysis_test.cc",
)


# XLA's commit 35bb0a5ed0 swapped the arguments of ComposeIndexingMaps
# (`verifier.xla_tests.interpret.check_test`); the versions committed before
# it are read with the old order.
_COMPOSE_ORDER_CHANGED = datetime.fromisoformat("2024-02-01T09:25:49-08:00")


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str
    path: str


@dataclass(frozen=True)
class WrongExpectation:
    """An expectation found ``different``: where it first was, and the first
    later commit of the file where it no longer was (None: still there)."""

    expectation: Expectation
    appeared: Commit
    disappeared: Commit | None
    # What it was at `disappeared`: "equal" (fixed), "not-comparable" or "removed".
    disappeared_as: str | None = None

    def to_json(self) -> dict[str, object]:
        return self.expectation.to_json() | {
            "path": self.appeared.path,
            "appeared": {"commit": self.appeared.sha, "date": self.appeared.date},
            "disappeared": None
            if self.disappeared is None
            else {
                "commit": self.disappeared.sha,
                "date": self.disappeared.date,
                "as": self.disappeared_as,
            },
        }


@dataclass(frozen=True)
class History:
    """The versions read per path and every expectation ever wrong."""

    versions: dict[str, int]
    wrong: tuple[WrongExpectation, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "versions": self.versions,
            "ever_different": [w.to_json() for w in self.wrong],
            "summary": {
                "ever_different": len(self.wrong),
                "still_different": sum(w.disappeared is None for w in self.wrong),
            },
        }


def _git(directory: str, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", directory, *args],
            capture_output=True,
            check=False,
            text=True,
            errors="surrogateescape",
        )
    except OSError as error:
        raise UsageError(f"--git {directory}: cannot run git ({error.strerror})") from None
    if done.returncode != 0:
        raise UsageError(f"--git {directory}: git {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


def commits(directory: str, paths: Sequence[str], since: str | None = None) -> list[Commit]:
    """The commits that changed any of `paths` (one file in its places),
    oldest first, each with the place the file had then."""
    args = ["log", "--no-renames", "--name-only", "--format=%x00%H %cI"]
    if since is not None:
        args.append(f"--since={since}")
    found: list[Commit] = []
    for entry in _git(directory, *args, "--", *paths).split("\0")[1:]:
        lines = [line for line in entry.splitlines() if line.strip()]
        if len(lines) < 2:
            continue
        sha, date = lines[0].split(" ", 1)
        found += [Commit(sha, date, path) for path in lines[1:] if path in paths]
    return found[::-1]


def _by_place(expectations: Sequence[Expectation]) -> dict[tuple[str, int], Expectation]:
    """Each expectation by its test and its rank among the test's expectations."""
    ranks: Counter[str] = Counter()
    found: dict[tuple[str, int], Expectation] = {}
    for expectation in expectations:
        ranks[expectation.test] += 1
        found[expectation.test, ranks[expectation.test]] = expectation
    return found


def history(
    directory: str, paths: Sequence[str] = DEFAULT_PATHS, since: str | None = None
) -> History:
    """`History` of `paths` in the git directory `directory`."""
    versions: dict[str, int] = {}
    wrong: list[WrongExpectation] = []
    lineages: dict[str, list[str]] = {}
    for path in paths:
        lineages.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    for name, places in lineages.items():
        found = commits(directory, places, since)
        open_: dict[tuple[str, int], tuple[Expectation, Commit]] = {}
        read = 0
        for commit in found:
            try:
                text = _git(directory, "show", f"{commit.sha}:{commit.path}")
            except UsageError:
                continue  # the commit deleted the file from this place
            read += 1
            legacy = datetime.fromisoformat(commit.date) < _COMPOSE_ORDER_CHANGED
            current = _by_place(check_text(text, commit.path, producer_first=legacy))
            for key in list(open_):
                now = current.get(key)
                if now is None or now.verdict is not Agreement.DIFFERENT:
                    expectation, appeared = open_.pop(key)
                    how = "removed" if now is None else now.verdict.value
                    wrong.append(WrongExpectation(expectation, appeared, commit, how))
            for key, expectation in current.items():
                if expectation.verdict is Agreement.DIFFERENT and key not in open_:
                    open_[key] = (expectation, commit)
        versions[name] = read
        wrong += [WrongExpectation(e, appeared, None) for e, appeared in open_.values()]
    return History(versions, tuple(wrong))
