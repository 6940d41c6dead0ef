"""Every check on every instruction of a module: the suite the CI gate runs.

`run_checks` walks every computation (fused computations included: their
instructions are checked one by one, and each fusion instruction with its
composed maps), and yields one `Finding` per check and place, e.g. for
``t = f32[8,4] transpose(f32[4,8] p0)``:

* ``in-bounds`` on ``output 0 -> operand 0 (p0)`` and ``operand 0 (p0) -> output 0``.

The composed maps are computed once per run (`ModuleMaps`) and shared by
the checks; every solver question goes through the proof cache, keyed by
the check's name and the canonical text of the maps and shapes it is about,
so a warm cache answers without solvers.  Budgets are solver operation
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

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from verifier.analysis import InstructionError, ModuleMaps, isolated
from verifier.checks import bitcast, bounds, inverse, overflow, partition, simplification
from verifier.checks.cache import ProofCache
from verifier.checks.equivalence import Budget
from verifier.checks.result import DEFAULT_BUDGET, CheckResult
from verifier.errors import UsageError
from verifier.expr import IndexingMap, Undefined
from verifier.fusion.compose import CALLING_OPCODES
from verifier.gate.finding import Finding
from verifier.hlo import Computation, Instruction, Module
from verifier.indexing.leaves import (
    OperandLeaf,
    OutputLeaf,
    instruction_operand_leaves,
    output_leaves,
)
from verifier.indexing.registry import Indexing


@dataclass(frozen=True)
class _Place:
    """One instruction of the module, and how to report about it."""

    module: Module
    computation: Computation
    instruction: Instruction

    def finding(self, check: str, subject: str, result: CheckResult) -> Finding:
        return Finding(
            check,
            result.outcome,
            self.module.name,
            self.computation.name,
            self.instruction.name,
            subject,
            result.message,
            result.witness,
            self.instruction.span,
        )

    def operand_subject(self, operand: int) -> str:
        return f"operand {operand} ({self.instruction.operands[operand]})"


@dataclass(frozen=True)
class _Run:
    maps: ModuleMaps
    cache: ProofCache
    budget: Budget


Checker = Callable[[_Place, _Run], Iterator[Finding]]


@dataclass(frozen=True)
class RegisteredCheck:
    """A check of the gate: its name, a one-line description for report
    readers (SARIF rule descriptions, ``--checks`` help), what runs it on one
    instruction, and whether it is *informational*: its refutation informs
    and never fails the gate (a fusion whose indices do not fit int32 is
    correct, XLA then uses int64; it is only slower on GPUs).  The finding's
    outcome stays the truth either way; the gate decides the severity."""

    name: str
    description: str
    run: Checker
    informational: bool = False


# Every check, in the order the gate runs them (the order of definition below).
_REGISTRY: dict[str, RegisteredCheck] = {}


def _check(
    name: str, description: str, *, informational: bool = False
) -> Callable[[Checker], Checker]:
    """Register the decorated function as check `name`."""

    def register(run: Checker) -> Checker:
        _REGISTRY[name] = RegisteredCheck(name, description, run, informational)
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
) -> Iterator[Finding]:
    """The findings of every check in `only` (default: all of `CHECKS`) on
    every instruction of a module; `progress(done, total)` is called after
    each instruction.  `subject` is the module, or its `ModuleMaps` when the
    caller counts or reports on the same maps (they are composed once).

    With `on_error`, one instruction never sinks the module: an instruction
    that is not valid HLO (a `ParseError` at it, e.g. an attribute its rule
    needs could not be read) or that raises anything else (a bug: an
    `InternalError` naming it) is passed to `on_error`, its findings so far
    are dropped, and the other instructions are still checked.  Without
    `on_error` the exception propagates.
    """
    selected = _selected(only)
    maps = subject if isinstance(subject, ModuleMaps) else ModuleMaps(subject)
    module = maps.module
    run = _Run(maps, cache, budget)
    places = [
        _Place(module, computation, instruction)
        for computation in module.computations
        for instruction in computation.instructions
    ]
    for done, place in enumerate(places, start=1):
        if place.instruction.operands:
            yield from _isolated(place, run, selected, on_error)
        if progress is not None:
            progress(done, len(places))


def _isolated(
    place: _Place,
    run: _Run,
    selected: tuple[str, ...],
    on_error: Callable[[InstructionError], None] | None,
) -> list[Finding]:
    """The findings of one instruction, or none and its error to `on_error`."""

    def findings() -> list[Finding]:
        return [finding for check in selected for finding in _REGISTRY[check].run(place, run)]

    return isolated(place.instruction, findings, on_error) or []


def _selected(only: Collection[str] | None) -> tuple[str, ...]:
    if only is None:
        return CHECKS
    unknown = sorted(set(only) - set(CHECKS))
    if unknown:
        raise UsageError(
            f"unknown check(s) {', '.join(unknown)}; the checks are {', '.join(CHECKS)}"
        )
    return tuple(check for check in CHECKS if check in only)


def _outputs(place: _Place) -> tuple[OutputLeaf, ...]:
    return output_leaves(place.instruction.shape)


def _operands(place: _Place) -> tuple[OperandLeaf, ...]:
    return instruction_operand_leaves(place.computation, place.instruction)


def _is_empty(indexing: Indexing) -> bool:
    return not isinstance(indexing, Undefined) and not indexing


_EVERYWHERE = "every output <-> every operand"


def _indexings(place: _Place, run: _Run) -> list[Indexing]:
    """The indexing of every (output, operand) pair of the instruction, both
    directions (composed and simplified)."""
    instruction, computation = place.instruction, place.computation
    return [
        composed.indexing
        for output in _outputs(place)
        for composed in run.maps.output_to_input(computation, instruction, output.number)
    ] + [
        composed.indexing
        for operand in _operands(place)
        for composed in run.maps.input_to_output(computation, instruction, operand.number)
    ]


def _wholly_undefined(place: _Place, run: _Run) -> Undefined | None:
    """The reason when every map of the instruction, both directions, is
    unknown (a while loop): then each check reports it once, not once per
    pair of leaves of its tuples."""
    return _all_undefined(_indexings(place, run))


def _all_undefined(indexings: list[Indexing]) -> Undefined | None:
    """The first reason when there is an indexing and every one is unknown."""
    if not indexings or not all(isinstance(i, Undefined) for i in indexings):
        return None
    first = indexings[0]
    assert isinstance(first, Undefined)
    return first


@_check(bounds.CHECK, "the image of every indexing map lies inside the shape it indexes")
def _in_bounds(place: _Place, run: _Run) -> Iterator[Finding]:
    instruction = place.instruction
    undefined = _wholly_undefined(place, run)
    if undefined is not None:
        result = bounds.check_in_bounds(undefined, (), run.cache, budget=run.budget)
        yield place.finding(bounds.CHECK, _EVERYWHERE, result)
        return
    operands = _operands(place)
    outputs = _outputs(place)
    for output in outputs:
        per_operand = run.maps.output_to_input(place.computation, instruction, output.number)
        for operand, composed in zip(operands, per_operand, strict=True):
            if _is_empty(composed.indexing):
                continue
            subject = f"{output.label} -> {operand.label}"
            result = bounds.check_in_bounds(
                composed.indexing, operand.shape.dimensions, run.cache, budget=run.budget
            )
            yield place.finding(bounds.CHECK, subject, result)
    for operand in operands:
        per_output = run.maps.input_to_output(place.computation, instruction, operand.number)
        for output, composed in zip(outputs, per_output, strict=True):
            if _is_empty(composed.indexing):
                continue
            subject = f"{operand.label} -> {output.label}"
            result = bounds.check_in_bounds(
                composed.indexing, output.shape.dimensions, run.cache, budget=run.budget
            )
            yield place.finding(bounds.CHECK, subject, result)


@_check(
    partition.CHECK,
    "the operands of a concatenate, pad or dynamic-update-slice cover the output exactly once",
)
def _partition(place: _Place, run: _Run) -> Iterator[Finding]:
    instruction = place.instruction
    if instruction.opcode not in partition.PIECES:
        return
    numbers = partition.PIECES[instruction.opcode] or range(len(instruction.operands))
    # The rules' own maps: simplification renumbers runtime variables per
    # map, and the pieces must share them (the same offsets).
    pieces = [
        (
            place.operand_subject(k),
            run.maps.input_to_output(place.computation, instruction, k, simplified=False)[
                0
            ].indexing,
        )
        for k in numbers
    ]
    result = partition.check_partition(
        pieces, instruction.shape.dimensions, run.cache, budget=run.budget
    )
    yield place.finding(partition.CHECK, "output 0", result)


@_check(
    inverse.CHECK,
    "the input→output relation is the inverse of the output→input relation",
)
def _inverse(place: _Place, run: _Run) -> Iterator[Finding]:
    instruction = place.instruction
    undefined = _wholly_undefined(place, run)
    if undefined is not None:
        result = inverse.check_inverse(undefined, undefined, 0, 0, run.cache, budget=run.budget)
        yield place.finding(inverse.CHECK, _EVERYWHERE, result)
        return
    operands = _operands(place)
    for output in _outputs(place):
        per_operand = run.maps.output_to_input(place.computation, instruction, output.number)
        for operand, composed in zip(operands, per_operand, strict=True):
            reached = run.maps.input_to_output(place.computation, instruction, operand.number)
            backward = reached[output.number].indexing
            if _is_empty(composed.indexing) and _is_empty(backward):
                continue
            result = inverse.check_inverse(
                composed.indexing,
                backward,
                output.shape.rank,
                operand.shape.rank,
                run.cache,
                budget=run.budget,
            )
            subject = f"{operand.label} <-> {output.label}"
            yield place.finding(inverse.CHECK, subject, result)


@_check(bitcast.CHECK, "a bitcast keeps the buffer's bytes and the bits of every element")
def _bitcast(place: _Place, run: _Run) -> Iterator[Finding]:
    instruction = place.instruction
    if instruction.opcode != "bitcast":
        return
    operand = place.computation.instruction(instruction.operands[0]).shape
    (composed,) = run.maps.output_to_input(place.computation, instruction, 0, simplified=False)
    result = bitcast.check_bitcast(
        operand, instruction.shape, composed.indexing, run.cache, budget=run.budget
    )
    yield place.finding(bitcast.CHECK, place.operand_subject(0), result)


def _all_maps(place: _Place, run: _Run) -> tuple[IndexingMap, ...]:
    """Every defined map of the instruction, both directions (the unknown
    ones are reported by in-bounds)."""
    indexings = _indexings(place, run)
    maps: list[IndexingMap] = []
    for indexing in indexings:
        if isinstance(indexing, Undefined):
            continue
        maps.extend(indexing)
    return tuple(dict.fromkeys(maps))


@_check(overflow.CHECK, "every sub-term of every index expression fits int64")
def _overflow(place: _Place, run: _Run) -> Iterator[Finding]:
    yield from _fits(place, run, 64, overflow.CHECK)


@_check(
    overflow.CHECK_INT32,
    "every sub-term of a fusion's index expressions fits int32 "
    "(informational: int64 indexing is correct, only slower)",
    informational=True,
)
def _overflow_int32(place: _Place, run: _Run) -> Iterator[Finding]:
    """Per fusion or call: whether its indices would also fit int32."""
    if place.instruction.opcode in CALLING_OPCODES:
        yield from _fits(place, run, 32, overflow.CHECK_INT32)


def _fits(place: _Place, run: _Run, bits: int, check: str) -> Iterator[Finding]:
    maps = _all_maps(place, run)
    if maps:
        result = overflow.check_overflow(maps, bits, run.cache, budget=run.budget)
        yield place.finding(check, "maps", result)


@_check(simplification.CHECK, "every simplified map equals the composition it simplifies")
def _simplification(place: _Place, run: _Run) -> Iterator[Finding]:
    instruction = place.instruction
    if instruction.opcode in CALLING_OPCODES:
        yield from _composition_steps(place, run)
        return
    outputs = _outputs(place)
    raw = [
        run.maps.output_to_input(place.computation, instruction, output.number, simplified=False)
        for output in outputs
    ]
    # Unknown everywhere, or its unsimplified maps are: reported once.
    undefined = _wholly_undefined(place, run) or _all_undefined(
        [composed.indexing for per_output in raw for composed in per_output]
    )
    if undefined is not None:
        yield _undefined_simplification(place, run, undefined)
        return
    operands = _operands(place)
    for output, raw_maps in zip(outputs, raw, strict=True):
        simplified = run.maps.output_to_input(place.computation, instruction, output.number)
        for operand, before, after in zip(operands, raw_maps, simplified, strict=True):
            if _is_empty(before.indexing) and _is_empty(after.indexing):
                continue
            result = simplification.check_simplification(
                before.indexing,
                after.indexing,
                output.shape.rank,
                operand.shape.rank,
                run.cache,
                budget=run.budget,
            )
            subject = f"{output.label} -> {operand.label}"
            yield place.finding(simplification.CHECK, subject, result)


def _undefined_simplification(place: _Place, run: _Run, undefined: Undefined) -> Finding:
    result = simplification.check_simplification(
        undefined, undefined, 0, 0, run.cache, budget=run.budget
    )
    return place.finding(simplification.CHECK, _EVERYWHERE, result)


def _composition_steps(place: _Place, run: _Run) -> Iterator[Finding]:
    """A fusion, call, conditional, async-start or while loop: its maps were
    simplified as they were composed, and each step is proved (never the
    unsimplified composition, exponential in a chain's length)."""
    instruction = place.instruction
    undefined = _wholly_undefined(place, run)
    if undefined is not None:  # a while loop: reported once
        yield _undefined_simplification(place, run, undefined)
        return
    for output in _outputs(place):
        simplified = run.maps.output_to_input(place.computation, instruction, output.number)
        for operand, composed in zip(_operands(place), simplified, strict=True):
            if isinstance(composed.maps, Undefined):
                result = simplification.check_simplification(
                    composed.maps, composed.maps, 0, 0, run.cache, budget=run.budget
                )
            elif not composed.maps and not composed.steps:
                continue
            else:
                result = simplification.check_simplification_steps(
                    composed.steps, run.cache, budget=run.budget
                )
            subject = f"{output.label} -> {operand.label}"
            yield place.finding(simplification.CHECK, subject, result)


CHECKS: tuple[str, ...] = tuple(_REGISTRY)
INFORMATIONAL_CHECKS: frozenset[str] = frozenset(
    name for name, check in _REGISTRY.items() if check.informational
)


def describe(check: str) -> str:
    """A one-line description of `check` (its name when it has none)."""
    registered = _REGISTRY.get(check)
    return registered.description if registered else check
