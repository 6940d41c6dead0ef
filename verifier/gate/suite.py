"""Every check on every instruction of a module: the suite the CI gate runs.

`run_checks` walks every computation (fused computations included: their
instructions are checked one by one, and each fusion instruction with its
composed maps), and yields one `Finding` per check and place, e.g. for
``t = f32[8,4] transpose(f32[4,8] p0)``:

* ``in-bounds`` on ``output 0 -> operand 0 (p0)`` and ``operand 0 (p0) -> output 0``.

The composed maps are computed once per run (`ModuleMaps`) and shared by
the checks; an instruction of the same signature as one checked before,
whose maps quote no name, takes its answers (`_answers`: a model's layers
repeat the same instructions); every solver question goes through the
proof cache, keyed by the check's name and the canonical text of the maps
and shapes it is about, so a warm cache answers without solvers.  Budgets are solver operation
counts, never wall-clock time: the same module gives the same findings.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[4,8] parameter(0)
...   ROOT t = f32[8,4] transpose(p0), dimensions={1,0}
... }''')
>>> [(f.check, f.subject, f.outcome.value) for f in run_checks(module, MemoryCache(), only=["in-bounds"])]
[('in-bounds', 'output 0 -> operand 0 (p0)', 'proved'), ('in-bounds', 'operand 0 (p0) -> output 0', 'proved')]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import assert_never

from verifier.analysis import InstructionError, ModuleMaps, isolated
from verifier.analysis.instruction_maps import (
    Indexing,
    InstructionMaps,
    OperandLeaf,
    OutputLeaf,
    Step,
)
from verifier.checks import bounds, inverse, overflow, partition, simplification
from verifier.checks.budget import Budget
from verifier.checks.cache import ProofCache
from verifier.checks.result import DEFAULT_BUDGET, CheckResult
from verifier.expr import IndexingMap, Undefined
from verifier.gate.answers import Answers, CheckAnswer, ModuleAnswers, Places, Subject, subject_text
from verifier.gate.catalog import CHECKS, select_checks
from verifier.gate.finding import Finding
from verifier.gate.questions import Question, QuestionMemo
from verifier.hlo import Computation, Instruction, Module


def _subject(*parts: str | OutputLeaf | OperandLeaf) -> Subject:
    """The subject of `parts`, joined by spaces: for output 0 and operand
    leaf 1 of ``add(p0, p1)``, ``_subject(output, "->", operand)`` is
    ``("output 0 -> operand 1 (", 1, ")")``; at a leaf of a tuple operand,
    ``("output 0 -> operand 0 {1} (", 0, ")")``."""
    pieces: list[str | int] = []
    text = ""
    for part in parts:
        text += " " if text or pieces else ""
        match part:
            case str():
                text += part
            case OutputLeaf():
                text += part.label
            case OperandLeaf():
                pieces += [f"{text}{part.position} (", part.operand]
                text = ")"
            case _:
                assert_never(part)
    return (*pieces, text)


def _whole_operand(number: int) -> Subject:
    """Operand `number` of the instruction as a whole: ``operand 1 (p1)``."""
    return (f"operand {number} (", number, ")")


@dataclass
class _Place:
    """One instruction of the module, its labelled maps (`InstructionMaps`:
    each computed once, however many checks ask), and how to report about
    it.

    Checks read maps only through `maps`, which keeps what it gave:
    `maps.quotes_name` tells whether any of it quotes a name
    (`ComposedIndexing.quotes_name`); answers that read none hold at every
    instruction of the same structure."""

    maps: InstructionMaps

    @property
    def computation(self) -> Computation:
        return self.maps.computation

    @property
    def instruction(self) -> Instruction:
        return self.maps.instruction

    def text(self, subject: Subject) -> str:
        """How `subject` reads at this instruction."""
        return subject_text(subject, self.instruction.operands)

    @cached_property
    def indexings(self) -> tuple[Indexing, ...]:
        """The indexing of every (output, operand) pair of the instruction,
        both directions (composed and simplified)."""
        maps = self.maps
        return tuple(
            composed.indexing for output in maps.outputs for _, composed in maps.o2i(output)
        ) + tuple(
            composed.indexing for operand in maps.operands for _, composed in maps.i2o(operand)
        )

    @cached_property
    def wholly_undefined(self) -> Undefined | None:
        """The reason when every map of the instruction, both directions, is
        unknown (a while loop): then each check reports it once, not once
        per pair of leaves of its tuples."""
        return _all_undefined(self.indexings)


@dataclass(frozen=True)
class _Run:
    """What every check of one run shares: the proof cache, the budget,
    and the answers to the questions asked so far."""

    cache: ProofCache
    budget: Budget
    memo: QuestionMemo = field(default_factory=QuestionMemo)
    # The answers of each check (None: a check whose answers quote names)
    # at the first instruction of each signature whose maps quote none, and
    # all of them as one tuple when those checks gave none there (taken
    # whole, the same object, by every instruction where they give none),
    # and what runs the checks whose answers quote names (run at each).
    answers: dict[int, tuple[tuple[Answers | None, ...], Answers | None, tuple[Checker, ...]]] = (
        field(default_factory=dict)
    )
    # The partition answers by (pieces' maps, output dimensions), their
    # pieces not named (`partition.PartitionAnswer`).
    partitions: dict[Question, partition.PartitionAnswer] = field(default_factory=dict)

    def answer(self, question: Question, compute: Callable[[], CheckResult]) -> CheckResult:
        return self.memo.answer(question, compute)


Checker = Callable[[_Place, _Run], Iterator[CheckAnswer]]


@dataclass(frozen=True)
class RegisteredCheck:
    """What runs check `name` (of the `CATALOG`) on one instruction.

    A check that `quotes_names` passes operand names into its question
    (partition's messages name the pieces): its answers are never taken
    from another instruction."""

    name: str
    run: Checker
    quotes_names: bool = False


# What runs each check of the catalog, registered below in the catalog's order.
_REGISTRY: dict[str, RegisteredCheck] = {}


def _check(name: str, *, quotes_names: bool = False) -> Callable[[Checker], Checker]:
    """Register the decorated function as what runs check `name`."""

    def register(run: Checker) -> Checker:
        _REGISTRY[name] = RegisteredCheck(name, run, quotes_names)
        return run

    return register


def run_checks(
    subject: Module | ModuleMaps,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[int, int], None] | None = None,
    only: Collection[str] | None = None,
    on_error: Callable[[InstructionError], None] | None = None,
    places: Collection[int] | None = None,
) -> Iterator[Finding]:
    """The findings of every check in `only` (default: all of `CHECKS`) on
    every instruction of a module: `check_module`'s, one by one."""
    yield from check_module(
        subject,
        cache,
        budget=budget,
        progress=progress,
        only=only,
        on_error=on_error,
        places=places,
    )


def check_module(
    subject: Module | ModuleMaps,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[int, int], None] | None = None,
    only: Collection[str] | None = None,
    on_error: Callable[[InstructionError], None] | None = None,
    places: Collection[int] | None = None,
) -> ModuleAnswers:
    """The answers of every check in `only` (default: all of `CHECKS`) on
    every instruction of a module, each distinct tuple of answers once
    (`ModuleAnswers`: its findings are read from it); `progress(done,
    total)` is called after each instruction.  `subject` is the module, or
    its `ModuleMaps` when the caller counts or reports on the same maps
    (they are composed once).

    With `places`, only the instructions at those positions (in the order
    of `module_places`), in that order, each place with its position: an
    instruction's findings do not depend on which others are checked, so
    the answers of the `shares` of a module, merged in position order
    (`ModuleAnswers.merged`), are those of the whole module.

    With `on_error`, one instruction never sinks the module: an instruction
    that is not valid HLO (a `ParseError` at it, e.g. an attribute its rule
    needs could not be read) or that raises anything else (a bug: an
    `InternalError` naming it) is passed to `on_error`, its answers are
    dropped, and the other instructions are still checked.  Without
    `on_error` the exception propagates.
    """
    selected = select_checks(only)
    maps = subject if isinstance(subject, ModuleMaps) else ModuleMaps(subject)
    run = _Run(cache, budget)
    found = Places()
    every = module_places(maps.module)
    wanted = range(len(every)) if places is None else sorted(places)
    for done, position in enumerate(wanted, start=1):
        computation, instruction = every[position]
        place = _Place(maps.instruction(computation, instruction))
        if place.instruction.operands:
            _isolated(place, run, selected, on_error, found, -1 if places is None else position)
        if progress is not None:
            progress(done, len(wanted))
    return found.answers(maps.module.name)


def module_places(module: Module) -> list[tuple[Computation, Instruction]]:
    """Every instruction of `module` with its computation, computation by
    computation: the order of the findings."""
    return [
        (computation, instruction)
        for computation in module.computations
        for instruction in computation.instructions
    ]


def shares(module: Module, parts: int) -> tuple[tuple[int, ...], ...]:
    """The positions of `module_places` in `parts` shares of about the same
    number of instructions, for as many processes.  A computation that an
    instruction calls (a fusion's) is in the share of its first caller —
    whose composed maps go through it — so that no computation is composed
    by two processes; whole callers are dealt out largest first, each to
    the share with fewest instructions so far (the first of them on a tie).

    >>> from verifier.hlo import parse_module
    >>> module = parse_module('''
    ... HloModule m
    ... fused {
    ...   q0 = f32[4] parameter(0)
    ...   ROOT n = f32[4] negate(q0)
    ... }
    ... ENTRY e {
    ...   p0 = f32[4] parameter(0)
    ...   f = f32[4] fusion(p0), kind=kLoop, calls=fused
    ...   ROOT a = f32[4] add(f, p0)
    ... }''')
    >>> shares(module, 2)
    ((0, 1, 3), (2, 4))
    """
    places = module_places(module)
    first_caller: dict[str, int] = {}
    for position, (_, instruction) in enumerate(places):
        for called in instruction.called_computations:
            first_caller.setdefault(called, position)
    # The position of each computation's caller at the top (an instruction
    # of a computation nobody calls), None for such a computation itself.
    top: dict[str, int | None] = {}

    def top_of(computation: str, seen: frozenset[str]) -> int | None:
        if computation not in top:
            caller = first_caller.get(computation)
            if caller is None or computation in seen:
                top[computation] = None
            else:
                above = top_of(places[caller][0].name, seen | {computation})
                top[computation] = caller if above is None else above
        return top[computation]

    groups: dict[int, list[int]] = {}
    for position, (computation, _) in enumerate(places):
        owner = top_of(computation.name, frozenset())
        groups.setdefault(position if owner is None else owner, []).append(position)
    dealt: list[list[int]] = [[] for _ in range(parts)]
    for group in sorted(groups.values(), key=lambda g: (-len(g), g[0])):
        smallest = min(range(parts), key=lambda k: (len(dealt[k]), k))
        dealt[smallest].extend(group)
    return tuple(tuple(sorted(share)) for share in dealt)


def _isolated(
    place: _Place,
    run: _Run,
    selected: tuple[str, ...],
    on_error: Callable[[InstructionError], None] | None,
    found: Places,
    position: int,
) -> None:
    """The answers of one instruction added to `found`, or none and its
    error to `on_error`."""
    instruction = place.instruction

    def add() -> None:
        found.add(
            _answers(place, run, selected),
            place.computation.name,
            instruction.name,
            instruction.operands,
            instruction.span,
            position,
        )

    isolated(instruction, add, on_error)


def _answers(place: _Place, run: _Run, selected: tuple[str, ...]) -> Answers:
    """The answers of the `selected` checks at `place`, in their order.

    Answers that read no map quoting a name depend on the instruction's
    signature alone (`verifier.indexing.signature`; its maps do,
    `maps_follow_signature`): they are computed at the first instruction of
    each signature and taken from it at the others — every layer of a model
    repeats the same instructions under other names — as the same tuple,
    kept once by `Places`, when the checks whose answers quote names give
    none there.
    """
    signature = place.maps.signature
    known = run.answers.get(signature) if signature is not None else None
    if known is not None:
        per_check, whole, quoting = known
        quoted = [tuple(check(place, run)) for check in quoting]
        if whole is not None and not any(quoted):
            return whole
        fresh = iter(quoted)
        return tuple(
            answer
            for answers in per_check
            for answer in (next(fresh) if answers is None else answers)
        )
    parts = [tuple(_REGISTRY[check].run(place, run)) for check in selected]
    everything = tuple(answer for answers in parts for answer in answers)
    if signature is not None and not place.maps.quotes_name:
        stored = tuple(
            None if _REGISTRY[check].quotes_names else answers
            for check, answers in zip(selected, parts, strict=True)
        )
        quoted = [part for part, answers in zip(parts, stored, strict=True) if answers is None]
        quoting = tuple(
            _REGISTRY[check].run
            for check, answers in zip(selected, stored, strict=True)
            if answers is None
        )
        run.answers[signature] = (stored, None if any(quoted) else everything, quoting)
    return everything


_NOT_READ: Indexing = ()
"""The indexing of a pair of leaves with no map: ``indexing == _NOT_READ``
tells it apart (an `Undefined` equals no tuple) without a call, for each
of the million pairs of a tuple of a thousand leaves."""


_EVERYWHERE: Subject = ("every output <-> every operand",)


def _all_undefined(indexings: Sequence[Indexing]) -> Undefined | None:
    """The first reason when there is an indexing and every one is unknown."""
    if not indexings or not all(isinstance(i, Undefined) for i in indexings):
        return None
    first = indexings[0]
    assert isinstance(first, Undefined)
    return first


@_check(bounds.CHECK)
def _in_bounds(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    undefined = place.wholly_undefined
    if undefined is not None:
        yield bounds.CHECK, _EVERYWHERE, _in_shape(undefined, (), run)
        return
    maps = place.maps
    for output in maps.outputs:
        for operand, composed in maps.o2i(output):
            if composed.indexing != _NOT_READ:
                result = _in_shape(composed.indexing, operand.shape.dimensions, run)
                yield bounds.CHECK, _subject(output, "->", operand), result
    for operand in maps.operands:
        for output, composed in maps.i2o(operand):
            if composed.indexing != _NOT_READ:
                result = _in_shape(composed.indexing, output.shape.dimensions, run)
                yield bounds.CHECK, _subject(operand, "->", output), result


def _in_shape(indexing: Indexing, dimensions: tuple[int, ...], run: _Run) -> CheckResult:
    return run.answer(
        (bounds.CHECK, indexing, dimensions),
        lambda: bounds.check_in_bounds(indexing, dimensions, run.cache, budget=run.budget),
    )


@_check(partition.CHECK, quotes_names=True)
def _partition(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    instruction = place.instruction
    if instruction.opcode not in partition.PIECES:
        return
    numbers = partition.PIECES[instruction.opcode] or range(len(instruction.operands))
    # The rules' own maps: simplification renumbers runtime variables per
    # map, and the pieces must share them (the same offsets).  The pieces
    # and the output are arrays: operand k is operand leaf k.
    indexings = []
    for k in numbers:
        ((_, composed),) = place.maps.i2o(place.maps.operands[k], simplified=False)
        indexings.append(composed.indexing)
    # Asked once per distinct question; each place names its own pieces.
    dimensions = instruction.shape.dimensions
    question = (tuple(indexings), dimensions)
    answer = run.partitions.get(question)
    if answer is None:
        answer = run.partitions[question] = partition.partition_answer(
            indexings, dimensions, run.cache, budget=run.budget
        )
    result = answer.result([place.text(_whole_operand(k)) for k in numbers])
    yield partition.CHECK, ("output 0",), result


@_check(inverse.CHECK)
def _inverse(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    undefined = place.wholly_undefined
    if undefined is not None:
        yield inverse.CHECK, _EVERYWHERE, _inverts(undefined, undefined, 0, 0, run)
        return
    maps = place.maps
    # By leaf number: hashing a leaf hashes its shape, for each of the
    # 60,000 pairs of a conditional of 250 outputs.
    backwards = [
        {output.number: composed for output, composed in maps.i2o(operand)}
        for operand in maps.operands
    ]
    for output in maps.outputs:
        for operand, composed in maps.o2i(output):
            backward = backwards[operand.number][output.number].indexing
            if composed.indexing == _NOT_READ and backward == _NOT_READ:
                continue
            result = _inverts(
                composed.indexing, backward, output.shape.rank, operand.shape.rank, run
            )
            yield inverse.CHECK, _subject(operand, "<->", output), result


def _inverts(
    forward: Indexing, backward: Indexing, output_rank: int, operand_rank: int, run: _Run
) -> CheckResult:
    return run.answer(
        (inverse.CHECK, forward, backward, output_rank, operand_rank),
        lambda: inverse.check_inverse(
            forward, backward, output_rank, operand_rank, run.cache, budget=run.budget
        ),
    )


@_check("bitcast")
def _bitcast(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    instruction = place.instruction
    if instruction.opcode != "bitcast":
        return
    from verifier.checks import bitcast  # the layout analysis: only for a bitcast

    operand = place.computation.instruction(instruction.operands[0]).shape
    # A bitcast to a tuple (which XLA's parser reads) is judged at its first
    # leaf: its rule says it is unsupported, and the check reports that.
    ((_, composed),) = place.maps.o2i(place.maps.outputs[0], simplified=False)
    result = run.answer(
        (bitcast.CHECK, operand, instruction.shape, composed.indexing),
        lambda: bitcast.check_bitcast(
            operand, instruction.shape, composed.indexing, run.cache, budget=run.budget
        ),
    )
    yield bitcast.CHECK, _whole_operand(0), result


def _all_maps(place: _Place) -> tuple[IndexingMap, ...]:
    """Every defined map of the instruction, both directions (the unknown
    ones are reported by in-bounds)."""
    return tuple(
        dict.fromkeys(
            m for indexing in place.indexings if indexing.__class__ is tuple for m in indexing
        )
    )


@_check(overflow.CHECK)
def _overflow(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    yield from _fits(place, run, 64, overflow.CHECK)


@_check(overflow.CHECK_INT32)
def _overflow_int32(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    """Per fusion or call: whether its indices would also fit int32."""
    if place.maps.composed:
        yield from _fits(place, run, 32, overflow.CHECK_INT32)


def _fits(place: _Place, run: _Run, bits: int, check: str) -> Iterator[CheckAnswer]:
    maps = _all_maps(place)
    if maps:
        result = run.answer(
            (check, maps, bits),
            lambda: overflow.check_overflow(maps, bits, run.cache, budget=run.budget),
        )
        yield check, ("maps",), result


@_check(simplification.CHECK)
def _simplification(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    maps = place.maps
    if maps.composed:
        yield from _composition_steps(place, run)
        return
    raw = [maps.o2i(output, simplified=False) for output in maps.outputs]
    # Unknown everywhere, or its unsimplified maps are: reported once.
    undefined = place.wholly_undefined or _all_undefined(
        [composed.indexing for per_output in raw for _, composed in per_output]
    )
    if undefined is not None:
        yield _undefined_simplification(run, undefined)
        return
    for output, raw_maps in zip(maps.outputs, raw, strict=True):
        for (operand, before), (_, after) in zip(raw_maps, maps.o2i(output), strict=True):
            if before.indexing == _NOT_READ and after.indexing == _NOT_READ:
                continue
            result = _simplifies(
                before.indexing, after.indexing, output.shape.rank, operand.shape.rank, run
            )
            yield simplification.CHECK, _subject(output, "->", operand), result


def _simplifies(
    raw: Indexing, simplified: Indexing, output_rank: int, operand_rank: int, run: _Run
) -> CheckResult:
    return run.answer(
        (simplification.CHECK, raw, simplified, output_rank, operand_rank),
        lambda: simplification.check_simplification(
            raw, simplified, output_rank, operand_rank, run.cache, budget=run.budget
        ),
    )


def _undefined_simplification(run: _Run, undefined: Undefined) -> CheckAnswer:
    return simplification.CHECK, _EVERYWHERE, _simplifies(undefined, undefined, 0, 0, run)


def _composition_steps(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    """A fusion, call, conditional, async-start or while loop: its maps were
    simplified as they were composed, and each step is proved (never the
    unsimplified composition, exponential in a chain's length)."""
    undefined = place.wholly_undefined
    if undefined is not None:  # a while loop: reported once
        yield _undefined_simplification(run, undefined)
        return

    def check_step(step: Step) -> CheckResult:
        # The compositions of a module share most of their steps: each is
        # asked once per run (the question of `_simplifies` on one map).
        before, after = (step.before,), (step.after,)
        return run.answer(
            (simplification.CHECK, before, after, step.before.num_dims, step.before.num_results),
            lambda: simplification.step_question(step, run.cache, budget=run.budget),
        )

    for output in place.maps.outputs:
        for operand, composed in place.maps.o2i(output):
            if isinstance(composed.maps, Undefined):
                result = _simplifies(composed.maps, composed.maps, 0, 0, run)
            elif not composed.maps and not composed.steps:
                continue
            else:
                result = simplification.check_simplification_steps(
                    composed.steps, run.cache, budget=run.budget, check_step=check_step
                )
            yield simplification.CHECK, _subject(output, "->", operand), result


@_check("tiling", quotes_names=True)
def _tiling(place: _Place, run: _Run) -> Iterator[CheckAnswer]:
    """A block-level fusion's chosen tile sizes (`verifier.gate.tiling`)."""
    if place.instruction.opcode != "fusion":
        return
    from verifier.gate import tiling  # the tiling analysis: only for a fusion

    for subject, result in tiling.tiling_answers(place.maps):
        yield tiling.CHECK, (subject,), result


assert tuple(_REGISTRY) == CHECKS, "each check of the catalog has a runner, in its order"
