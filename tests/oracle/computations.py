"""Which elements of its operands does an element of a call, fusion,
conditional or while loop read?  By running the called computations
element by element with the per-instruction oracle (`interpreter.reads`).

- fusion, call: the called computation, from its root leaf back to its
  parameter leaves, one element at a time;
- conditional: the branch index (operand 0, at ``()``) and, per branch
  ``b``, what branch ``b`` reads of operand ``b + 1`` (which branch runs is
  a run-time value: the union);
- while: the body run as many times as the loop runs, the trip count found
  by *executing* the loop's integer scalars (`trip_counts`: constants,
  tuples, get-tuple-element, copies, integer arithmetic, compare, and
  fusions/calls of them), starting from the entry computation.

Nothing here is shared with `verifier.fusion` or `verifier.indexing`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tests.oracle.compound import UnsupportedByOracle
from tests.oracle.interpreter import (
    Element,
    Index,
    arrays,
    indices,
    operand_arrays,
    reads,
)
from verifier.hlo import Computation, Instruction, Module

LeafReads = dict[Index, frozenset[Element]]
"""One output leaf's index → the (operand leaf, index) elements it reads."""

_MAX_TRIPS = 1000


@dataclass
class ComputationOracle:
    """Element reads through the computations of `module` (module doc)."""

    module: Module
    _trips: dict[str, int] = field(default_factory=dict)
    _computed: dict[tuple[str, int], LeafReads] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._trips = trip_counts(self.module)

    def instruction_reads(
        self, computation: Computation, instruction: Instruction, output: int
    ) -> LeafReads:
        """Per index of output leaf `output`: the operand leaf elements read."""
        match instruction.opcode:
            case "fusion" | "call":
                called = self.module.computation(instruction.called_computations[0])
                return self.computation_reads(called, output)
            case "conditional":
                return self._conditional(computation, instruction, output)
            case "while":
                return self._while(instruction, output)
            case _:
                return reads(computation, instruction, output)

    def computation_reads(self, computation: Computation, output: int) -> LeafReads:
        """Per index of root leaf `output`: the parameter leaf elements read
        (parameter leaves numbered depth first, parameter after parameter)."""
        key = (computation.name, output)
        if key not in self._computed:
            shape = arrays(computation.root.shape)[output][1]
            self._computed[key] = {
                index: frozenset(self._to_parameters(computation, output, index))
                for index in indices(shape.dimensions)
            }
        return self._computed[key]

    def _to_parameters(self, computation: Computation, output: int, index: Index) -> set[Element]:
        """Walk back from (root, leaf `output`, `index`) to parameter elements."""
        offsets = _parameter_leaf_offsets(computation)
        found: set[Element] = set()
        seen: set[tuple[str, int, Index]] = set()
        pending = [(computation.root, output, index)]
        while pending:
            instruction, leaf, at = pending.pop()
            if (instruction.name, leaf, at) in seen:
                continue
            seen.add((instruction.name, leaf, at))
            if instruction.opcode == "parameter":
                found.add((offsets[instruction.name] + leaf, at))
                continue
            operands = computation.operand_instructions(instruction)
            numbering = operand_arrays(computation, instruction)
            read = self.instruction_reads(computation, instruction, leaf)[at]
            for number, element_index in read:
                position, path = numbering[number]
                operand = operands[position]
                operand_leaf = [p for p, _ in arrays(operand.shape)].index(path)
                pending.append((operand, operand_leaf, element_index))
        return found

    def _conditional(
        self, computation: Computation, instruction: Instruction, output: int
    ) -> LeafReads:
        names = instruction.attributes.names("branch_computations") or tuple(
            instruction.attributes.word(n) or "" for n in ("true_computation", "false_computation")
        )
        numbering = operand_arrays(computation, instruction)
        shape = arrays(instruction.shape)[output][1]
        result: LeafReads = {}
        for index in indices(shape.dimensions):
            elements: set[Element] = {(0, ())}
            for branch, name in enumerate(names):
                first = numbering.index((branch + 1, _first_path(numbering, branch + 1)))
                branch_reads = self.computation_reads(self.module.computation(name), output)
                elements |= {(first + leaf, at) for leaf, at in branch_reads[index]}
            result[index] = frozenset(elements)
        return result

    def _while(self, instruction: Instruction, output: int) -> LeafReads:
        if instruction.name not in self._trips:
            raise UnsupportedByOracle(f"while '{instruction.name}' was not run to its end")
        body = self.module.computation(instruction.attributes.word("body") or "")
        leaves = [shape for _, shape in arrays(instruction.shape)]
        # state[k][index]: the init elements output leaf k's element reads.
        state: list[LeafReads] = [
            {at: frozenset({(k, at)}) for at in indices(shape.dimensions)}
            for k, shape in enumerate(leaves)
        ]
        for _ in range(self._trips[instruction.name]):
            state = [
                {
                    at: frozenset(
                        element
                        for leaf, read_at in self.computation_reads(body, k)[at]
                        for element in state[leaf][read_at]
                    )
                    for at in indices(shape.dimensions)
                }
                for k, shape in enumerate(leaves)
            ]
        return state[output]


def _first_path(numbering: list[tuple[int, Index]], operand: int) -> Index:
    """The path of operand `operand`'s first array."""
    return next(path for position, path in numbering if position == operand)


def _parameter_leaf_offsets(computation: Computation) -> dict[str, int]:
    offsets: dict[str, int] = {}
    count = 0
    for parameter in computation.parameters:
        offsets[parameter.name] = count
        count += len(arrays(parameter.shape))
    return offsets


# ------------------------------------------------------------------ trip counts

Value = int | bool | tuple["Value", ...] | None
"""An integer or predicate scalar, a tuple, or None (an array, or unknown)."""


def trip_counts(module: Module) -> dict[str, int]:
    """Every while loop reached from the entry, run on its integer scalars:
    loop name → how many times its body ran."""
    counts: dict[str, int] = {}
    _Runner(module, counts).run(module.entry, [None] * len(module.entry.parameters))
    return counts


@dataclass
class _Runner:
    module: Module
    counts: dict[str, int]

    def run(self, computation: Computation, arguments: list[Value]) -> Value:
        values: dict[str, Value] = {}
        for instruction in _operands_first(computation):
            operands = [values[o.name] for o in computation.operand_instructions(instruction)]
            values[instruction.name] = self._value(instruction, operands, arguments)
        return values[computation.root.name]

    def _value(
        self, instruction: Instruction, operands: list[Value], arguments: list[Value]
    ) -> Value:
        if instruction.shape.rank != 0 and instruction.shape.tuple_shapes is None:
            return None
        match instruction.opcode:
            case "parameter":
                number = instruction.parameter_number
                assert number is not None
                return arguments[number]
            case "constant":
                return _scalar(instruction.literal or "")
            case "copy":
                return operands[0]
            case "tuple":
                return tuple(operands)
            case "get-tuple-element":
                whole = operands[0]
                return whole[instruction.integer("index")] if isinstance(whole, tuple) else None
            case "add" | "subtract" | "multiply" | "compare":
                return _arithmetic(instruction, operands)
            case "fusion" | "call":
                called = self.module.computation(instruction.called_computations[0])
                return self.run(called, operands)
            case "while":
                return self._loop(instruction, operands[0])
            case _:
                return None

    def _loop(self, instruction: Instruction, state: Value) -> Value:
        condition = self.module.computation(instruction.attributes.word("condition") or "")
        body = self.module.computation(instruction.attributes.word("body") or "")
        for trips in range(_MAX_TRIPS + 1):
            going = self.run(condition, [state])
            if going is None:
                return None
            if going is False:
                self.counts[instruction.name] = trips
                return state
            state = self.run(body, [state])
        return None


def _scalar(literal: str) -> Value:
    text = literal.strip()
    if text in ("true", "false"):
        return text == "true"
    return int(text) if text.lstrip("-").isdigit() else None


def _arithmetic(instruction: Instruction, operands: list[Value]) -> Value:
    lhs, rhs = operands
    if not isinstance(lhs, int) or not isinstance(rhs, int):
        return None
    match instruction.opcode:
        case "add":
            return lhs + rhs
        case "subtract":
            return lhs - rhs
        case "multiply":
            return lhs * rhs
    direction = instruction.attributes.word("direction")
    return {
        "LT": lhs < rhs,
        "LE": lhs <= rhs,
        "GT": lhs > rhs,
        "GE": lhs >= rhs,
        "EQ": lhs == rhs,
        "NE": lhs != rhs,
    }.get(direction or "")


def _operands_first(computation: Computation) -> Iterator[Instruction]:
    """The instructions of `computation`, each after its operands."""
    done: set[str] = set()
    for start in computation.instructions:
        stack = [(start, False)]
        while stack:
            instruction, expanded = stack.pop()
            if instruction.name in done:
                continue
            if expanded:
                done.add(instruction.name)
                yield instruction
                continue
            stack.append((instruction, True))
            stack.extend((o, False) for o in computation.operand_instructions(instruction))
