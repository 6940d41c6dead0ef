"""Which XLA test files to read, and reading one: its tests, each
expectation checked (`verifier.xla_tests.interpret`).

A directory is searched for the files whose expectations are indexing maps:
``*indexing*_test.cc`` and the symbolic-tile tests (``*tile*_test.cc``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from verifier.errors import UsageError
from verifier.inputs import read_regular_file
from verifier.xla_tests.cpp import read_tests
from verifier.xla_tests.interpret import check_test
from verifier.xla_tests.result import Expectation, XlaTestsRun

_PATTERNS = ("*indexing*_test.cc", "*tile*_test.cc")


def test_files(paths: Iterable[str]) -> list[Path]:
    """The test files named, and those under the directories named, sorted."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted({f for p in _PATTERNS for f in path.rglob(p) if f.is_file()})
        elif path.exists():
            found.append(path)  # not a regular file: refused when read
        else:
            raise UsageError(f"{name}: no such file or directory")
    return found


def is_tile_file(filename: str) -> bool:
    return "tile" in Path(filename).name and "indexing" not in Path(filename).name


def check_text(text: str, filename: str, *, producer_first: bool = False) -> list[Expectation]:
    """Every expectation of the C++ test file `text` (named `filename`),
    checked (`producer_first`: `verifier.xla_tests.interpret.check_test`)."""
    tile = is_tile_file(filename)
    return [
        e
        for test in read_tests(text)
        for e in check_test(test, filename, tile_file=tile, producer_first=producer_first)
    ]


def check_files(paths: Iterable[str]) -> XlaTestsRun:
    """`check_text` on every file `test_files` finds."""
    files = test_files(paths)
    expectations: list[Expectation] = []
    for path in files:
        try:
            text = read_regular_file(path).decode("utf-8", errors="surrogateescape")
        except OSError as error:
            raise UsageError(f"{path}: cannot read it ({error.strerror})") from None
        expectations += check_text(text, str(path))
    return XlaTestsRun(len(files), tuple(expectations))
