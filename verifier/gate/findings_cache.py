"""A module's answers remembered under the digest of its text, so that the
gate answers an unchanged module without parsing it, composing its maps or
asking a solver.

The answers of `check_module` are a function of the module's text, the
selected checks and the budget — and of the tool and solver versions, which
the persistent store adds to every key (`SqliteCache`).  They are stored
as they are kept (`ModuleAnswers`): each distinct tuple of answers once,
in a head row under the module's key, and the places in rows of
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


def _encoded_answers(answers: Answers) -> list[object]:
    return [
        [
            check,
            list(subject),
            result.outcome.value,
            result.message,
            [[name, value] for name, value in result.witness],
        ]
        for check, subject, result in answers
    ]


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
    head: CachedRecord = {
        "module": module.module,
        "answers": [_encoded_answers(answers) for answers in module.answers],
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


def _decoded_answers(value: object) -> Answers:
    answers = []
    for answer in _list(value):
        check, subject, outcome, message, witness = _list(answer)
        pairs = []
        for pair in _list(witness):
            name, number = _list(pair)
            pairs.append((_text(name), _number(number)))
        result = CheckResult(Outcome(_text(outcome)), _text(message), tuple(pairs))
        answers.append((_text(check), _subject(subject), result))
    if not answers:
        raise _Malformed("a place without answers")
    return tuple(answers)


def _decoded(cache: ProofCache, key: str, head: CachedRecord, filename: str) -> ModuleAnswers:
    """The module stored under `key` whose head is `head`; `_Malformed`
    (or KeyError, TypeError, ValueError) when any of it is not what
    `remember` writes."""
    answers = [_decoded_answers(answers) for answers in _list(head["answers"])]
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
