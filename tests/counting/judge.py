"""Brute-force utilization from the reference interpreters (plain loops over
every output element; no maps, no counting code).

For an instruction of a module: per operand, the distinct elements read over
every output (`distinct`), and the number of (output element, operand
element) reads (`pairs`).  For a fusion, reads are followed through the
fused computation element by element, path by path, so `pairs` counts one
read per use path, as reads with multiplicity do (`verifier.counting.utilization`).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Set
from dataclasses import dataclass

from tests import oracle
from tests.oracle import compound
from tests.oracle.interpreter import indices
from verifier.hlo import Computation, Instruction, Module, parse_module

Index = tuple[int, ...]


def _reads(
    computation: Computation, instruction: Instruction, output: int
) -> dict[Index, Set[tuple[int, Index]]]:
    if instruction.opcode in compound.SUPPORTED_OPCODES:
        return dict(compound.reads(computation, instruction, output))
    return dict(oracle.reads(computation, instruction, output))


def _outputs(instruction: Instruction) -> int:
    return len(oracle.output_shapes(instruction))


def _operand_array(
    computation: Computation, instruction: Instruction, number: int
) -> tuple[Instruction, int, int]:
    """Operand array `number` (the interpreters' numbering): the operand, its
    position, and the array's number among the operand's own arrays."""
    position, path = oracle.operand_arrays(computation, instruction)[number]
    producer = computation.operand_instructions(instruction)[position]
    own = [p for p, _ in oracle.arrays(producer.shape)].index(path)
    return producer, position, own


@dataclass(frozen=True)
class Judged:
    distinct: tuple[int, ...]
    pairs: tuple[int, ...]


def judge(module: Module, instruction: Instruction) -> Judged:
    """Distinct elements and reads per operand of an ENTRY instruction."""
    computation = module.entry
    seen: list[set[tuple[int, Index]]] = [set() for _ in instruction.operands]
    pairs = [0 for _ in instruction.operands]
    for output in range(_outputs(instruction)):
        if instruction.opcode == "fusion":
            table = _fused_reads(module, instruction, output)
        else:
            table = {
                index: Counter(elements)
                for index, elements in _reads(computation, instruction, output).items()
            }
        for counter in table.values():
            for (number, element), paths in counter.items():
                array = 0
                if instruction.opcode != "fusion":
                    _, number, array = _operand_array(computation, instruction, number)
                seen[number].add((array, element))
                pairs[number] += paths
    return Judged(tuple(len(s) for s in seen), tuple(pairs))


def _fused_reads(
    module: Module, fusion: Instruction, output: int
) -> dict[Index, Counter[tuple[int, Index]]]:
    """Root output index → Counter of (parameter number, element) → paths."""
    fused = module.computation(fusion.called_computations[0])
    numbers = {p.name: k for k, p in enumerate(fused.parameters)}
    memo: dict[tuple[str, int], dict[Index, Set[tuple[int, Index]]]] = {}

    def reads_of(instruction: Instruction, out: int) -> dict[Index, Set[tuple[int, Index]]]:
        key = (instruction.name, out)
        if key not in memo:
            memo[key] = _reads(fused, instruction, out)
        return memo[key]

    def follow(instruction: Instruction, out: int, index: Index) -> Counter[tuple[int, Index]]:
        if instruction.opcode == "parameter":
            return Counter({(numbers[instruction.name], index): 1})
        total: Counter[tuple[int, Index]] = Counter()
        for number, element in reads_of(instruction, out)[index]:
            producer, _, own = _operand_array(fused, instruction, number)
            total += follow(producer, own, element)
        return total

    root = fused.root
    shape = oracle.output_shapes(root)[output]
    return {index: follow(root, output, index) for index in indices(shape.dimensions)}


_RUNTIME_OFFSET = re.compile(r"^(\s*of\d+ = s32\[\] )parameter\(\d+\)$", re.MULTILINE)


def runtime_offsets(text: str) -> int:
    """How many scalar offsets of `text` are runtime parameters."""
    return len(_RUNTIME_OFFSET.findall(text))


def with_offsets(text: str, values: tuple[int, ...]) -> str:
    """`text` with its runtime offsets replaced by constants (in order)."""
    replacement = iter(values)
    return _RUNTIME_OFFSET.sub(lambda m: f"{m.group(1)}constant({next(replacement)})", text)


def per_execution(text: str, values_per_offset: range) -> list[tuple[int, ...]]:
    """Distinct elements per operand, for every assignment of the runtime
    offsets (the offset operands, which become constants, are dropped from
    the comparison by the caller)."""
    results = []
    for values in itertools.product(values_per_offset, repeat=runtime_offsets(text)):
        module = parse_module(with_offsets(text, values))
        results.append(judge(module, module.entry.root).distinct)
    return results
