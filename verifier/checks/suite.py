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

from verifier.checks import bounds
from verifier.checks.cache import ProofCache
from verifier.checks.equivalence import Budget
from verifier.checks.finding import Finding
from verifier.checks.module_maps import ModuleMaps
from verifier.checks.result import DEFAULT_BUDGET, CheckResult
from verifier.checks.verdict import Outcome
from verifier.errors import UsageError
from verifier.hlo.module import Computation, Instruction, Module
from verifier.hlo.shape import Shape
from verifier.indexing.analysis import output_count

CHECKS: tuple[str, ...] = ("in-bounds",)


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


def run_checks(
    module: Module,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[int, int], None] | None = None,
    only: Collection[str] | None = None,
) -> Iterator[Finding]:
    """The findings of every check in `only` (default: all of `CHECKS`) on
    every instruction of `module`; `progress(done, total)` is called after
    each instruction."""
    selected = _selected(only)
    run = _Run(ModuleMaps(module), cache, budget)
    places = [
        _Place(module, computation, instruction)
        for computation in module.computations
        for instruction in computation.instructions
    ]
    for done, place in enumerate(places, start=1):
        if place.instruction.operands:
            for check in selected:
                yield from _CHECKERS[check](place, run)
        if progress is not None:
            progress(done, len(places))


def _selected(only: Collection[str] | None) -> tuple[str, ...]:
    if only is None:
        return CHECKS
    unknown = sorted(set(only) - set(CHECKS))
    if unknown:
        raise UsageError(
            f"unknown check(s) {', '.join(unknown)}; the checks are {', '.join(CHECKS)}"
        )
    return tuple(check for check in CHECKS if check in only)


def _output_shape(instruction: Instruction, output: int) -> Shape:
    shapes = instruction.shape.tuple_shapes
    return instruction.shape if shapes is None else shapes[output]


def _operand_shape(place: _Place, operand: int) -> Shape | str:
    """The array an operand's maps index, or why there is none."""
    shape = place.computation.instruction(place.instruction.operands[operand]).shape
    if shape.tuple_shapes is None:
        return shape
    if place.instruction.opcode == "get-tuple-element":
        return shape.tuple_shapes[place.instruction.integer("index")]
    return f"operand {operand} is a whole tuple"


def _in_bounds(place: _Place, run: _Run) -> Iterator[Finding]:
    instruction = place.instruction
    outputs = output_count(instruction)
    for output in range(outputs):
        per_operand = run.maps.output_to_input(place.computation, instruction, output)
        for operand, composed in enumerate(per_operand):
            subject = f"output {output} -> {place.operand_subject(operand)}"
            target = _operand_shape(place, operand)
            if isinstance(target, str):
                result = CheckResult(Outcome.UNSUPPORTED, target)
            else:
                result = bounds.check_in_bounds(
                    composed.indexing, target.dimensions, run.cache, budget=run.budget
                )
            yield place.finding(bounds.CHECK, subject, result)
    for operand in range(len(instruction.operands)):
        per_output = run.maps.input_to_output(place.computation, instruction, operand)
        for output, composed in enumerate(per_output):
            subject = f"{place.operand_subject(operand)} -> output {output}"
            result = bounds.check_in_bounds(
                composed.indexing,
                _output_shape(instruction, output).dimensions,
                run.cache,
                budget=run.budget,
            )
            yield place.finding(bounds.CHECK, subject, result)


_CHECKERS: dict[str, Callable[[_Place, _Run], Iterator[Finding]]] = {
    bounds.CHECK: _in_bounds,
}
