"""A module's answers remembered under the digest of its text, so that the
gate answers an unchanged module without parsing it, composing its maps or
asking a solver.

The answers of `check_module` are a function of the module's text, the
selected checks and the budget — and of the tool and solver versions, which
the persistent store adds to every key (`SqliteCache`).  They are stored
as they are kept (`ModuleAnswers`): each distinct tuple of answers once,
in a head row under the module's key (an answer as three numbers into its
tables of checks, subjects and results, each distinct one written once:
a fusion of a thousand operands has thousands of answers, few results), and the places in rows of
`PLACES_PER_ROW` under keys derived from it — each a record of columns,
written and read one at a time, so that a module of a million instructions
is never one document in memory.  Spans are stored without the file name,
which the caller gives back, so a module that moved keeps its answers.  A
module whose text changed in any byte misses here; its questions still
hit the per-question proof cache.

The cache never decides: every row is authenticated by the store, and a
row that is not what `remember` writes — a head or a row of places
malformed, missing or cut short, a place naming an answer or an operand
that is not there, a count that does not add up — makes the whole module
a miss (and one warning): it is checked again, never read in part.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.checks.result import CheckResult
>>> from verifier.checks.verdict import Outcome
>>> from verifier.gate.answers import Places
>>> refuted = CheckResult(Outcome.REFUTED, "result 1 reaches 255", (("d1", 255), ("d0", 0)))
>>> places = Places()
>>> places.add((("in-bounds", ("operand 1 (", 1, ")"), refuted),), "main", "dot", ("p0", "p1"),
...            SourceSpan("old/m.hlo", 7, 3))
>>> cache, key = MemoryCache(), module_key("HloModule m ...", ("in-bounds",))
>>> remember(cache, key, places.answers("m"))
>>> (again,) = recall(cache, key, "new/m.hlo")
>>> again.subject, again.witness, str(again.span)
('operand 1 (p1)', (('d1', 255), ('d0', 0)), 'new/m.hlo:7:3')
>>> recall(cache, module_key("HloModule m2 ...", ("in-bounds",)), "m2.hlo") is None
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from verifier.checks.budget import Budget
from verifier.checks.cache import CachedRecord, ProofCache
from verifier.checks.result import CheckResult
from verifier.checks.verdict import Outcome
from verifier.errors import SourceSpan
from verifier.gate.answers import (
    Answers,
    ModuleAnswers,
    Places,
    Subject,
    operands_named,
)
from verifier.gate.finding import NO_SOURCE

# Places per row of the store: a row is a few hundred kilobytes of text.
PLACES_PER_ROW = 4096


def module_key(text: str, checks: Sequence[str], budget: Budget | None = None) -> str:
    """The question "what are the findings of `checks` on this module text"."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"module-findings|{digest}|{','.join(checks)}|{budget or Budget()!r}"


def _row_key(key: str, number: int) -> str:
    """The key of row `number` of the places of the module under `key`."""
    return f"{key}|places {number}"


class _Table:
    """The head's tables: each distinct check name, subject and result once,
    an answer three numbers into them (results numbered by object: the
    gate's answers share one per question, so none is hashed)."""

    def __init__(self) -> None:
        self.checks: dict[str, int] = {}
        self.subjects: dict[Subject, int] = {}
        self.results: dict[int, tuple[int, CheckResult]] = {}

    def encoded(self, answers: Answers) -> list[int]:
        """`answers` as (check, subject, result) numbers, one flat list."""
        numbers: list[int] = []
        checks, subjects, results = self.checks, self.subjects, self.results
        for check, subject, result in answers:
            found = results.get(id(result))
            if found is None:
                found = results[id(result)] = (len(results), result)
            numbers += (
                checks.setdefault(check, len(checks)),
                subjects.setdefault(subject, len(subjects)),
                found[0],
            )
        return numbers

    def head(self) -> dict[str, list[object]]:
        return {
            "checks": list(self.checks),
            "subjects": [list(subject) for subject in self.subjects],
            "results": [
                [result.outcome.value, result.message, [list(pair) for pair in result.witness]]
                for _, result in self.results.values()
            ],
        }


def remember(cache: ProofCache, key: str, module: ModuleAnswers) -> None:
    """Store the answers of one module under `key`: its rows of places,
    then its head (so that a reader who finds the head finds every row).

    A row holds its places column by column (`_ROW_COLUMNS`: slices of
    `PlaceColumns`, each encoded once, with no list made per place), the
    computations numbered in the head, and the offsets in the row of the
    places without a source span (`sourceless`)."""
    places = module.places
    computations: dict[str, int] = {}
    count = len(places.kinds)
    rows = 0
    for start in range(0, count, PLACES_PER_ROW):
        end = min(count, start + PLACES_PER_ROW)
        files = places.files[start:end]
        sourceless = (
            [
                offset
                for offset, (name, line) in enumerate(
                    zip(files, places.lines[start:end], strict=True)
                )
                if name == NO_SOURCE.filename and line == NO_SOURCE.line
            ]
            if NO_SOURCE.filename in files
            else []
        )
        row: CachedRecord = {
            "kinds": places.kinds[start:end].tolist(),
            "computations": [
                computations.setdefault(name, len(computations))
                for name in places.computations[start:end]
            ],
            "instructions": places.instructions[start:end],
            "operands": places.operands[start:end],
            "lines": places.lines[start:end].tolist(),
            "columns": places.columns[start:end].tolist(),
            "sourceless": sourceless,
        }
        cache.store(_row_key(key, rows), row)
        rows += 1
    table = _Table()
    head: CachedRecord = {
        "module": module.module,
        "answers": [table.encoded(answers) for answers in module.answers],
        **table.head(),
        "computations": list(computations),
        "places": count,
        "rows": rows,
    }
    cache.store(key, head)


_ROW_COLUMNS = ("kinds", "computations", "instructions", "operands", "lines", "columns")
"""The columns of a row of places, one value per place each."""


class _Malformed(Exception):
    """A stored row that is not what `remember` writes."""


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Malformed(f"{value!r} is not text")
    return value


def _number(value: object) -> int:
    if type(value) is not int:
        raise _Malformed(f"{value!r} is not an integer")
    return value


def _position(value: object, length: int) -> int:
    number = _number(value)
    if not 0 <= number < length:
        raise _Malformed(f"{number} is not a position among {length}")
    return number


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise _Malformed(f"{value!r} is not a list")
    return value


def _subject(value: object) -> Subject:
    pieces: list[str | int] = []
    for piece in _list(value):
        pieces.append(piece if isinstance(piece, str) else _number(piece))
        if isinstance(piece, int) and piece < 0:
            raise _Malformed(f"operand {piece}")
    return tuple(pieces)


def _result(value: object) -> CheckResult:
    outcome, message, witness = _list(value)
    pairs = []
    for pair in _list(witness):
        name, number = _list(pair)
        pairs.append((_text(name), _number(number)))
    return CheckResult(Outcome(_text(outcome)), _text(message), tuple(pairs))


def _decoded_answers(
    value: object, checks: list[str], subjects: list[Subject], results: list[CheckResult]
) -> Answers:
    numbers = _list(value)
    if not numbers or len(numbers) % 3:
        raise _Malformed(f"{len(numbers)} numbers are no answers")
    return tuple(
        (
            checks[_position(check, len(checks))],
            subjects[_position(subject, len(subjects))],
            results[_position(result, len(results))],
        )
        for check, subject, result in zip(numbers[::3], numbers[1::3], numbers[2::3], strict=True)
    )


def _decoded(cache: ProofCache, key: str, head: CachedRecord, filename: str) -> ModuleAnswers:
    """The module stored under `key` whose head is `head`; `_Malformed`
    (or KeyError, TypeError, ValueError) when any of it is not what
    `remember` writes."""
    checks = [_text(check) for check in _list(head["checks"])]
    subjects = [_subject(subject) for subject in _list(head["subjects"])]
    results = [_result(result) for result in _list(head["results"])]
    answers = [
        _decoded_answers(numbers, checks, subjects, results) for numbers in _list(head["answers"])
    ]
    needs = [operands_named(a) for a in answers]
    computations = [_text(name) for name in _list(head["computations"])]
    count, rows = _number(head["places"]), _number(head["rows"])
    places = Places()
    names: dict[str, str] = {}  # one string per name, however many places quote it
    first_new = 0  # answers are numbered in the order places first have them
    for number in range(rows):
        row = cache.lookup(_row_key(key, number))
        if row is None:
            raise _Malformed(f"row {number} of {rows} is missing")
        columns = [_list(row[column]) for column in _ROW_COLUMNS]
        if len({len(column) for column in columns}) != 1:
            raise _Malformed(f"row {number} has columns of unequal lengths")
        sourceless = {_number(offset) for offset in _list(row["sourceless"])}
        if not sourceless <= set(range(len(columns[0]))):
            raise _Malformed(f"row {number} has no place at a sourceless offset")
        for offset, (kind, computation, instruction, operands, line, column) in enumerate(
            zip(*columns, strict=True)
        ):
            kind = _number(kind)
            if not 0 <= kind <= first_new or kind >= len(answers):
                raise _Malformed(f"answers {kind} out of order")
            first_new += kind == first_new
            if not isinstance(operands, list | tuple):  # a tuple in a cache in memory
                raise _Malformed(f"{operands!r} is not a list")
            quoted = tuple(names.setdefault(name, name) for name in map(_text, operands))
            if needs[kind] > len(quoted):
                raise _Malformed("a subject names an operand the place does not have")
            line, column = _number(line), _number(column)
            where = NO_SOURCE if offset in sourceless else SourceSpan(filename, line, column)
            name = _text(instruction)
            places.add(
                answers[kind],
                computations[_position(computation, len(computations))],
                names.setdefault(name, name),
                quoted,
                where,
            )
    module = places.answers(_text(head["module"]))
    if len(module.places.kinds) != count or len(module.answers) != len(answers):
        raise _Malformed("the places do not add up")
    return module


def recall(cache: ProofCache, key: str, filename: str) -> ModuleAnswers | None:
    """The answers stored under `key`, their spans in `filename`; None if
    absent or not in the shape `remember` writes (a miss and a warning,
    never an error)."""
    head = cache.lookup(key)
    if head is None:
        return None
    try:
        return _decoded(cache, key, head, filename)
    except (_Malformed, KeyError, TypeError, ValueError, IndexError):
        from verifier.gate.sqlite_cache import distrusted

        distrusted(cache)
        return None
