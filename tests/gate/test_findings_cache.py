"""A module's answers remembered in rows (a head, then rows of places) read
back as the same findings in the file they are recalled for; a row that is
not what was written — missing, cut short, naming an answer or an operand
that is not there, a count off — makes the module a miss, never findings
read in part or a verdict (#34)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from verifier.analysis import ModuleMaps
from verifier.checks.cache import CachedRecord, MemoryCache
from verifier.gate import findings_cache
from verifier.gate.answers import ModuleAnswers
from verifier.gate.findings_cache import module_key, recall, remember
from verifier.gate.suite import check_module
from verifier.hlo import parse_module

# A repeated signature, a refuted bitcast (a witness), a concatenate
# (partition names its pieces): in four rows of places.
_MODULE = """
HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  p1 = f32[8] parameter(1)
  p2 = f32[3,5]{1,0:T(2,2)} parameter(2)
  tiled = f32[15]{0} bitcast(p2)
  a = f32[4,8] negate(p0)
  b = f32[4,8] negate(a)
  c = f32[4,8] negate(b)
  t = f32[8,4] transpose(c), dimensions={1,0}
  cat = f32[16] concatenate(p1, p1), dimensions={0}
  ROOT bad = f32[32]{0} bitcast(t)
}"""


class Rows(dict[str, CachedRecord]):
    """A proof cache whose rows a test can edit."""

    def lookup(self, key: str) -> CachedRecord | None:
        return self.get(key)

    def store(self, key: str, answer: CachedRecord) -> None:
        self[key] = answer


Remembered = tuple[Rows, str, ModuleAnswers]


@pytest.fixture(scope="module")
def remembered() -> Remembered:
    """The module's answers, and its rows in a cache (checked once)."""
    module = parse_module(_MODULE, "old/m.hlo")
    answers = check_module(ModuleMaps(module), MemoryCache())
    cache, key = Rows(), module_key(_MODULE, ("every",))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(findings_cache, "PLACES_PER_ROW", 2)
        remember(cache, key, answers)
    return cache, key, answers


def _copy(remembered: Remembered) -> Remembered:
    cache, key, answers = remembered
    return Rows({question: dict(row) for question, row in cache.items()}), key, answers


def _json(finding: object) -> str:
    return json.dumps(finding.to_json())  # type: ignore[attr-defined]


def test_recalled_answers_are_the_findings_in_the_new_file(remembered: Remembered) -> None:
    cache, key, answers = _copy(remembered)
    assert len(cache) == 1 + 4  # the head and four rows of two places
    again = recall(cache, key, "new/m.hlo")
    assert again is not None
    expected = [_json(f).replace("old/m.hlo", "new/m.hlo") for f in answers]
    assert [_json(f) for f in again] == expected
    assert again.tally() == answers.tally() and again.multiplicities == answers.multiplicities
    assert any(f.witness for f in again)  # the refuted bitcast's


def _row(cache: Rows, key: str, number: int) -> dict[str, list[object]]:
    row: dict[str, list[object]] = json.loads(json.dumps(cache[f"{key}|places {number}"]))
    return row


def _edit_place(column: str, value: Callable[[object], object]) -> Callable[[Rows, str], None]:
    def edit(cache: Rows, key: str) -> None:
        row = _row(cache, key, 1)
        row[column][0] = value(row[column][0])
        cache[f"{key}|places 1"] = row

    return edit


def _edit_row(column: str, value: Callable[[list[object]], object]) -> Callable[[Rows, str], None]:
    def edit(cache: Rows, key: str) -> None:
        row = _row(cache, key, 0)
        cache[f"{key}|places 0"] = {**row, column: value(row[column])}

    return edit


def _drop_row(cache: Rows, key: str) -> None:
    del cache[f"{key}|places 2"]


def _drop_a_place(cache: Rows, key: str) -> None:
    cache[f"{key}|places 0"] = {name: values[1:] for name, values in _row(cache, key, 0).items()}


def _edit_head(name: str, value: Callable[[object], object]) -> Callable[[Rows, str], None]:
    def edit(cache: Rows, key: str) -> None:
        cache[key] = {**cache[key], name: value(cache[key][name])}

    return edit


def _edit_table(name: str, edit: Callable[[list[object]], object]) -> Callable[[Rows, str], None]:
    """Edit the head's table `name` (its checks, subjects, results or answers)."""

    def change(cache: Rows, key: str) -> None:
        head = json.loads(json.dumps(cache[key]))
        edit(head[name])
        cache[key] = head

    return change


def _first(edit: Callable[[list[object]], object]) -> Callable[[list[object]], object]:
    return lambda table: edit(table[0])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "damage",
    [
        _drop_row,
        _edit_row("lines", lambda lines: lines[:-1]),  # one column shorter
        _drop_a_place,
        _edit_place("kinds", lambda kind: 99),  # an answer that is not there
        _edit_place("kinds", lambda kind: 5),  # out of the order places first have them
        _edit_place("operands", lambda operands: []),  # fewer operands than a subject names
        _edit_place("lines", lambda line: "7:3"),
        _edit_place("columns", lambda column: None),
        _edit_place("computations", lambda computation: 9),
        _edit_place("computations", lambda computation: -1),
        _edit_place("instructions", lambda instruction: 7),
        _edit_row("sourceless", lambda offsets: [2]),  # past the row's two places
        _edit_row("sourceless", lambda offsets: "0"),
        _edit_row("kinds", lambda kinds: None),
        _edit_head("places", lambda count: count + 1),  # type: ignore[operator]
        _edit_head("rows", lambda rows: rows - 1),  # type: ignore[operator]
        _edit_head("answers", lambda answers: answers[:-1]),  # type: ignore[index]
        _edit_head("module", lambda module: None),
        _edit_table("results", _first(lambda result: result.__setitem__(0, "fine"))),
        _edit_table("subjects", lambda subjects: subjects.__setitem__(0, [True])),
        _edit_table("subjects", lambda subjects: subjects.__setitem__(0, ["operand ", -1])),
        _edit_table("results", _first(lambda result: result.__setitem__(2, [["d0", "many"]]))),
        _edit_table("answers", _first(lambda numbers: numbers.pop())),
        _edit_table("answers", _first(lambda numbers: numbers.__setitem__(2, 999))),
        _edit_table("answers", _first(lambda numbers: numbers.__setitem__(1, -1))),
        _edit_table("results", _first(lambda result: result.pop())),
        _edit_table("checks", lambda checks: checks.__setitem__(0, 3)),
        _edit_table("answers", lambda answers: answers.__setitem__(0, [])),
    ],
    ids=[
        "a row missing",
        "a column cut short",
        "a place dropped",
        "no such answer",
        "answers out of order",
        "operands missing",
        "a line as text",
        "no column",
        "no such computation",
        "a computation counted from the end",
        "an instruction name of a number",
        "a sourceless place past the row",
        "sourceless places as text",
        "no kinds",
        "a place more counted",
        "a row less counted",
        "an answer dropped",
        "no module name",
        "an unknown outcome",
        "a subject of a boolean",
        "a negative operand",
        "a witness not a number",
        "an answer cut short",
        "no such result",
        "a subject counted from the end",
        "a result cut short",
        "a check of a number",
        "a tuple of no answers",
    ],
)
def test_a_damaged_row_makes_the_module_a_miss(
    damage: Callable[[Rows, str], None], remembered: Remembered
) -> None:
    cache, key, _ = _copy(remembered)
    assert recall(cache, key, "m.hlo") is not None
    damage(cache, key)
    assert recall(cache, key, "m.hlo") is None
