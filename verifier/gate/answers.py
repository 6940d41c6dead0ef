"""A module's findings as one answer per distinct signature × the places
that share it.

Every layer of a model repeats the same instructions under other names:
the checks answer each signature once (`verifier.gate.suite`), with
subjects that name operands by position (`Subject`).  A `ModuleAnswers`
keeps each distinct tuple of answers once and, for each place (an
instruction with answers), which tuple it has and where it is.  Its
findings are each place's answers read at that place — made one by one,
and only for what a report lists (`where`) — and its counts per check and
outcome are each tuple's counts times its multiplicity, the number of
places that share it (`tally`): a million-instruction chain holds two
tuples and a row per instruction, not nine findings per instruction.

>>> from verifier.checks.result import CheckResult
>>> from verifier.checks.verdict import Outcome
>>> from verifier.errors import SourceSpan
>>> inside = (("in-bounds", ("output 0 -> operand 0 (", 0, ")"), CheckResult(Outcome.PROVED, "ok")),)
>>> places = Places()
>>> for line, (name, operand) in enumerate([("a", "p"), ("b", "a"), ("c", "b")], start=3):
...     places.add(inside, "main", name, (operand,), SourceSpan("m.hlo", line, 3))
>>> module = places.answers("m")
>>> len(module.answers), module.multiplicities, len(module)
(1, (3,), 3)
>>> [(f.instruction, f.subject, str(f.span)) for f in module]
[('a', 'output 0 -> operand 0 (p)', 'm.hlo:3:3'), ('b', 'output 0 -> operand 0 (a)', 'm.hlo:4:3'), ('c', 'output 0 -> operand 0 (b)', 'm.hlo:5:3')]
>>> module.tally()
{('in-bounds', <Outcome.PROVED: 'proved'>): 3}
>>> list(module.where(lambda check, outcome: outcome is Outcome.REFUTED))
[]
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from verifier.checks.verdict import Outcome
from verifier.errors import SourceSpan
from verifier.gate.finding import NO_SOURCE, Finding

if TYPE_CHECKING:  # the maps' modules, which a warm run that replays a report never needs
    from verifier.checks.result import CheckResult

Subject: TypeAlias = tuple[str | int, ...]
"""Where at an instruction a check applies, as text with the name of
operand ``k`` left out at each ``k``: ``("output 0 -> operand 1 (", 1, ")")``
reads ``output 0 -> operand 1 (p1)`` at ``add(p0, p1)`` (`subject_text`).
Without the names, the answers of one instruction hold, subjects and all,
at another of the same structure, whose operands have other names."""

CheckAnswer: TypeAlias = "tuple[str, Subject, CheckResult]"
"""One check's answer about one subject of an instruction."""

Answers: TypeAlias = "tuple[CheckAnswer, ...]"
"""Every answer at one instruction, in the order of the checks."""

Keep: TypeAlias = Callable[[str, Outcome], bool]
"""Which findings a report lists, by check and outcome."""


def subject_text(subject: Subject, operands: Sequence[str]) -> str:
    """How `subject` reads at an instruction whose operands are `operands`.

    >>> subject_text(("output 0 -> operand 1 (", 1, ")"), ("p0", "p1"))
    'output 0 -> operand 1 (p1)'
    """
    return "".join([piece if isinstance(piece, str) else operands[piece] for piece in subject])


def operands_named(answers: Answers) -> int:
    """How many operands the subjects of `answers` name at least (one more
    than the highest position they name)."""
    return 1 + max(
        (piece for _, subject, _ in answers for piece in subject if isinstance(piece, int)),
        default=-1,
    )


class PlaceColumns(NamedTuple):
    """Where each place of a module is, one column per field (a row per
    place costs a few machine words, not an object): the number of its
    answers' tuple (`kinds`), its computation, instruction, operand names,
    span, and position in `module_places` order (-1 when not needed)."""

    kinds: array[int]
    computations: list[str]
    instructions: list[str]
    operands: list[tuple[str, ...]]
    files: list[str]
    lines: array[int]
    columns: array[int]
    positions: array[int]


def _columns() -> PlaceColumns:
    return PlaceColumns(array("q"), [], [], [], [], array("q"), array("q"), array("q"))


class Places:
    """The places of one module as they are checked, in order: each one's
    answers (the same tuple object for places that share it, kept once),
    computation, instruction name, operand names and span — then `answers`
    makes the module's `ModuleAnswers`."""

    def __init__(self) -> None:
        self._distinct: list[Answers] = []
        self._index: dict[int, int] = {}  # id of a distinct tuple (kept alive) -> its index
        self._needs: list[int] = []
        self._columns = _columns()

    def add(
        self,
        answers: Answers,
        computation: str,
        instruction: str,
        operands: tuple[str, ...],
        span: SourceSpan,
        position: int = -1,
    ) -> None:
        """One place; none when `answers` is empty (it has no finding).

        Raises IndexError (nothing added) when a subject names an operand
        the place does not have: reading its findings later would fail."""
        if not answers:
            return
        kind = self._index.get(id(answers))
        needs = operands_named(answers) if kind is None else self._needs[kind]
        if needs > len(operands):
            raise IndexError("tuple index out of range")
        if kind is None:
            kind = self._index[id(answers)] = len(self._distinct)
            self._distinct.append(answers)
            self._needs.append(needs)
        columns = self._columns
        columns.kinds.append(kind)
        columns.computations.append(computation)
        columns.instructions.append(instruction)
        columns.operands.append(operands)
        columns.files.append(span.filename)
        columns.lines.append(span.line)
        columns.columns.append(span.column)
        columns.positions.append(position)

    def answers(self, module: str) -> ModuleAnswers:
        """The module's answers, these places' in their order."""
        return ModuleAnswers(module, tuple(self._distinct), self._columns)


@dataclass(frozen=True, eq=False)
class ModuleAnswers:
    """The findings of one module: its `answers` (each distinct tuple once,
    numbered in the order of the places that first have them) and its
    `places`.  A collection of `Finding`s, in the order the checks gave
    them, made as they are iterated."""

    module: str
    answers: tuple[Answers, ...]
    places: PlaceColumns = field(repr=False)

    @cached_property
    def multiplicities(self) -> tuple[int, ...]:
        """How many places have each of `answers`."""
        counts = [0] * len(self.answers)
        for kind in self.places.kinds:
            counts[kind] += 1
        return tuple(counts)

    def __len__(self) -> int:
        return sum(
            count * len(answers)
            for count, answers in zip(self.multiplicities, self.answers, strict=True)
        )

    def __iter__(self) -> Iterator[Finding]:
        return self.where(lambda check, outcome: True)

    def __contains__(self, finding: object) -> bool:
        return any(finding == mine for mine in self)

    def tally(self) -> dict[tuple[str, Outcome], int]:
        """How many findings of each check have each outcome, in the order
        the findings first show them: each answer's outcome times the
        multiplicity of its tuple."""
        counts: dict[tuple[str, Outcome], int] = {}
        for answers, count in zip(self.answers, self.multiplicities, strict=True):
            for check, _, result in answers:
                key = (check, result.outcome)
                counts[key] = counts.get(key, 0) + count
        return counts

    def where(self, keep: Keep) -> Iterator[Finding]:
        """The findings whose check and outcome `keep` holds, in order; a
        place none of whose answers is kept is skipped unread."""
        kept = [
            tuple(answer for answer in answers if keep(answer[0], answer[2].outcome))
            for answers in self.answers
        ]
        if not any(kept):
            return
        module, places = self.module, self.places
        for row, kind in enumerate(places.kinds):
            answers = kept[kind]
            if not answers:
                continue
            operands = places.operands[row]
            computation, instruction = places.computations[row], places.instructions[row]
            span = _span(places.files[row], places.lines[row], places.columns[row])
            for check, subject, result in answers:
                yield Finding(
                    check,
                    result.outcome,
                    module,
                    computation,
                    instruction,
                    subject_text(subject, operands),
                    result.message,
                    result.witness,
                    span,
                )

    @staticmethod
    def merged(module: str, shares: Iterable[ModuleAnswers]) -> ModuleAnswers:
        """The answers of a module from those of its shares (`Places`
        with positions), places in position order, as one process checking
        the whole module gives them."""
        rows = sorted(
            (share.places.positions[row], share, row)
            for share in shares
            for row in range(len(share.places.kinds))
        )
        places = Places()
        for position, share, row in rows:
            source = share.places
            span = _span(source.files[row], source.lines[row], source.columns[row])
            places.add(
                share.answers[source.kinds[row]],
                source.computations[row],
                source.instructions[row],
                source.operands[row],
                span,
                position,
            )
        return places.answers(module)


def _span(filename: str, line: int, column: int) -> SourceSpan:
    """The span of a place (without its line's text, which no report shows)."""
    if line == NO_SOURCE.line and column == NO_SOURCE.column and filename == NO_SOURCE.filename:
        return NO_SOURCE
    return SourceSpan(filename, line, column)


FindingsPart: TypeAlias = ModuleAnswers | tuple[Finding, ...]
"""The findings of one file: a module's answers, or findings as they are."""


@dataclass(frozen=True, eq=False)
class Findings:
    """Every finding of a run: the findings of each file, in order."""

    parts: tuple[FindingsPart, ...]

    @staticmethod
    def of(findings: Collection[Finding]) -> Findings:
        """`findings` as a run's (a `Findings`, a module's answers, or findings)."""
        if isinstance(findings, Findings):
            return findings
        if isinstance(findings, ModuleAnswers):
            return Findings((findings,))
        return Findings((tuple(findings),))

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def __iter__(self) -> Iterator[Finding]:
        for part in self.parts:
            yield from part

    def __contains__(self, finding: object) -> bool:
        return any(finding in part for part in self.parts)

    def tally(self) -> dict[tuple[str, Outcome], int]:
        """How many findings of each check have each outcome, in the order
        the findings first show them (`ModuleAnswers.tally`)."""
        counts: dict[tuple[str, Outcome], int] = {}
        for part in self.parts:
            if isinstance(part, ModuleAnswers):
                pairs: Iterable[tuple[tuple[str, Outcome], int]] = part.tally().items()
            else:
                pairs = (((f.check, f.outcome), 1) for f in part)
            for key, count in pairs:
                counts[key] = counts.get(key, 0) + count
        return counts

    def where(self, keep: Keep) -> Iterator[Finding]:
        """The findings whose check and outcome `keep` holds, in order."""
        for part in self.parts:
            if isinstance(part, ModuleAnswers):
                yield from part.where(keep)
            else:
                yield from (f for f in part if keep(f.check, f.outcome))
