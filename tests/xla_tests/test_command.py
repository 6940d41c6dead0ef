"""`verifier xla-tests` end to end: the JSON contract, the exit code, the
SARIF and JUnit places, and the history of a small git repository."""

import io
import json
import subprocess
from pathlib import Path

import pytest

from verifier.cli import main

WRONG = """TEST_F(IndexingMapTest, ModIsSub) {
  auto m = Parse("(d0) -> (d0 mod 4), domain: d0 in [4, 7]");
  EXPECT_TRUE(m.Simplify());
  EXPECT_THAT(m, MatchIndexingMap("(d0) -> (d0 - 3), domain: d0 in [4, 7]"));
}
"""
FIXED = WRONG.replace("d0 - 3", "d0 - 4")


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_json_contract_and_exit_code(tmp_path: Path):
    (tmp_path / "indexing_map_test.cc").write_text(WRONG)
    code, text = run("xla-tests", str(tmp_path), "--format", "json")
    assert code == 1
    document = json.loads(text)
    assert document["files"] == 1 and document["summary"] == {
        "equal": 0,
        "different": 1,
        "not-comparable": 0,
    }
    (e,) = document["expectations"]
    assert {k: e[k] for k in ("line", "test", "kind", "verdict", "reason")} == {
        "line": 4,
        "test": "ModIsSub",
        "kind": "simplify",
        "verdict": "different",
        "reason": None,
    }
    (d0,) = e["witness_point"]["point"].values()
    assert 4 <= d0 <= 7 and e["witness_point"]["computed"] == [d0 % 4] != [d0 - 3]
    assert e["file"].endswith("indexing_map_test.cc") and isinstance(e["witness"], str)
    (tmp_path / "indexing_map_test.cc").write_text(FIXED)
    assert run("xla-tests", str(tmp_path))[0] == 0


def test_sarif_and_junit_are_at_the_cpp_line(tmp_path: Path):
    path = tmp_path / "indexing_map_test.cc"
    path.write_text(WRONG)
    _, sarif = run("xla-tests", str(path), "--format", "sarif")
    (result,) = json.loads(sarif)["runs"][0]["results"]
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 4}
    _, junit = run("xla-tests", str(path), "--format", "junit")
    assert 'line="4"' in junit and 'type="different"' in junit


def test_bad_input_is_exit_2():
    assert run("xla-tests", "/no/such/file.cc")[0] == 2
    assert run("xla-tests", "--since", "2024-01-01", "x.cc")[0] == 2


def git(directory: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(directory), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def test_history_lists_when_a_wrong_expectation_appeared_and_disappeared(tmp_path: Path):
    git(tmp_path, "init", "-q")
    old = tmp_path / "old" / "indexing_map_test.cc"
    old.parent.mkdir()
    old.write_text(FIXED.replace("ModIsSub", "Unchanged") + WRONG)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "wrong")
    new = tmp_path / "new" / "indexing_map_test.cc"
    new.parent.mkdir()
    git(tmp_path, "mv", "old/indexing_map_test.cc", "new/indexing_map_test.cc")
    git(tmp_path, "commit", "-qm", "moved")
    new.write_text(FIXED.replace("ModIsSub", "Unchanged") + FIXED)
    git(tmp_path, "commit", "-qam", "fixed")
    shas = subprocess.run(
        ["git", "-C", str(tmp_path), "log", "--format=%H"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    code, text = run(
        "xla-tests",
        "--git",
        str(tmp_path),
        "old/indexing_map_test.cc",
        "new/indexing_map_test.cc",
        "--format",
        "json",
    )
    assert code == 1
    document = json.loads(text)
    assert document["versions"] == {"indexing_map_test.cc": 3}
    (wrong,) = document["ever_different"]
    assert wrong["test"] == "ModIsSub" and wrong["path"] == "old/indexing_map_test.cc"
    assert wrong["appeared"]["commit"] == shas[2] and wrong["disappeared"]["commit"] == shas[0]
    assert wrong["disappeared"]["as"] == "equal"
    code, text = run(
        "xla-tests", "--git", str(tmp_path), "old/indexing_map_test.cc", "new/indexing_map_test.cc"
    )
    assert code == 1
    assert f"appeared {shas[2][:10]}" in text and f"disappeared {shas[0][:10]}" in text
    assert text.splitlines()[-1] == (
        "indexing_map_test.cc: 3 versions; 1 expectations ever different, 0 still"
    )


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_equiv_of_different_ranks_is_a_finding(fmt: str):
    code, text = run(
        "equiv",
        "(d0) -> (d0), domain: d0 in [0, 3]",
        "(d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 1]",
        "--format",
        fmt,
    )
    assert code == 1
    if fmt == "json":
        assert json.loads(text)["counterexample"]["only_in"] in ("a", "b")
