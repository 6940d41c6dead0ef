"""Brute-force comparison of the indexing rules with the reference interpreter.

For one instruction, every output and every operand:

- the union of the output→input maps' relations equals the oracle's;
- the union of the input→output maps' relations is exactly its inverse
  (an `Undefined` input→output result is recorded, not compared);
- every map's image lies inside its target shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tests.oracle import inverse, operand_arrays, output_shapes, relations
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.hlo import Computation, Instruction, Module, parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input
from verifier.indexing.registry import Indexing

Pair = tuple[tuple[int, ...], tuple[int, ...]]


def union_relation(maps: Iterable[IndexingMap]) -> frozenset[Pair]:
    """The union of the maps' relations (symbols existential)."""
    pairs: set[Pair] = set()
    for indexing_map in maps:
        pairs |= indexing_map.relation()
    return frozenset(pairs)


def operand_dims(
    computation: Computation, instruction: Instruction, operand: int
) -> tuple[int, ...]:
    """The dimensions of operand array `operand` (the oracle's numbering:
    every operand's arrays depth first)."""
    position, path = operand_arrays(computation, instruction)[operand]
    shape = computation.operand_instructions(instruction)[position].shape
    for element in path:
        assert shape.tuple_shapes is not None
        shape = shape.tuple_shapes[element]
    return shape.dimensions


def out_of_bounds(
    pairs: frozenset[Pair], dims: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """A pair of a map's relation whose image leaves `dims`, or None."""
    for source, image in sorted(pairs):
        if len(image) != len(dims) or not all(0 <= e < n for e, n in zip(image, dims, strict=True)):
            return source, image
    return None


def _checked_union(
    where: str, indexing: tuple[IndexingMap, ...], dims: tuple[int, ...]
) -> frozenset[Pair]:
    """The union of the maps' relations, after checking every image is inside `dims`."""
    pairs: set[Pair] = set()
    for indexing_map in indexing:
        relation = indexing_map.relation()
        bad = out_of_bounds(relation, dims)
        assert bad is None, f"{where}: image leaves {dims} at {bad[0]} -> {bad[1]}\n{indexing_map}"
        pairs |= relation
    return frozenset(pairs)


def _describe(pairs: frozenset[Pair], limit: int = 6) -> str:
    shown = sorted(pairs)[:limit]
    more = f" … (+{len(pairs) - limit})" if len(pairs) > limit else ""
    return ", ".join(f"{a}->{b}" for a, b in shown) + more


def _mismatch(
    what: str, text: str, indexing: Indexing, got: frozenset[Pair], want: frozenset[Pair]
) -> str:
    maps = "\n".join(str(m) for m in indexing) if not isinstance(indexing, Undefined) else ""
    return (
        f"{what}: relation differs from the oracle\n"
        f"  only in the maps:   {_describe(got - want)}\n"
        f"  only in the oracle: {_describe(want - got)}\n"
        f"maps:\n{maps}\nHLO:\n{text}"
    )


@dataclass
class CheckReport:
    """What one `check_module` call compared (for coverage assertions)."""

    o2i_compared: int = 0
    i2o_compared: int = 0
    i2o_undefined: list[str] = field(default_factory=list)


def check_instruction(
    computation: Computation, instruction: Instruction, text: str = ""
) -> CheckReport:
    """Assert that the rules for `instruction` match the oracle (see module doc)."""
    report = CheckReport()
    operand_count = len(operand_arrays(computation, instruction))
    shapes = output_shapes(instruction)
    oracle = [relations(computation, instruction, output) for output in range(len(shapes))]
    for output in range(len(shapes)):
        o2i = own_output_to_input(computation, instruction, output)
        assert len(o2i) == operand_count, f"o2i has {len(o2i)} entries for {operand_count} operands"
        for operand, indexing in enumerate(o2i):
            where = f"{instruction.opcode} o2i output {output} operand {operand}"
            assert not isinstance(indexing, Undefined), f"{where}: UNDEFINED ({indexing.reason})"
            got = _checked_union(where, indexing, operand_dims(computation, instruction, operand))
            want = oracle[output][operand]
            assert got == want, _mismatch(where, text, indexing, got, want)
            report.o2i_compared += 1
    for operand in range(operand_count):
        i2o = own_input_to_output(computation, instruction, operand)
        assert len(i2o) == len(shapes), f"i2o has {len(i2o)} entries for {len(shapes)} outputs"
        for output, indexing in enumerate(i2o):
            where = f"{instruction.opcode} i2o operand {operand} output {output}"
            if isinstance(indexing, Undefined):
                report.i2o_undefined.append(f"{where}: {indexing.reason}")
                continue
            got = _checked_union(where, indexing, shapes[output].dimensions)
            want = inverse(oracle[output][operand])
            assert got == want, _mismatch(where, text, indexing, got, want)
            report.i2o_compared += 1
    return report


def check_module(text: str) -> CheckReport:
    """Parse `text` with the real HLO parser and check its ENTRY root."""
    module: Module = parse_module(text)
    return check_instruction(module.entry, module.entry.root, text)
