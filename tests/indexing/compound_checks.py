"""The rules of one instruction against `tests.oracle.compound`: o2i unions equal the
oracle's relation, i2o unions its inverse (an UNDEFINED i2o is returned, not
compared), and every map's image lies inside its target shape.  Outputs are
numbered by leaf, depth first; where the oracle has no semantics it raises
`UnsupportedByOracle` before any map is judged."""

from __future__ import annotations

from tests.oracle.compound import inverse_relation, relation
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.hlo import Computation, Instruction, parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

Pair = tuple[tuple[int, ...], tuple[int, ...]]


def _union(maps: tuple[IndexingMap, ...]) -> frozenset[Pair]:
    pairs: set[Pair] = set()
    for m in maps:
        pairs |= m.relation()
    return frozenset(pairs)


def _assert_in_bounds(m: IndexingMap, dims: tuple[int, ...], where: str) -> None:
    assert m.num_results == len(dims), f"{where}: {m.num_results} results for {dims}"
    for point in m.domain_points():
        image = m.evaluate(point)
        assert all(0 <= e < n for e, n in zip(image, dims, strict=True)), (
            f"{where}: image {image} leaves {dims}\n{m}"
        )


def check(text: str) -> list[str]:
    """Check the ENTRY root of `text`; return the reasons of UNDEFINED i2o results."""
    module = parse_module(text)
    return check_instruction(module.entry, module.entry.root, text)


def check_instruction(computation: Computation, instruction: Instruction, text: str) -> list[str]:
    """Check `instruction` (`text` quoted on failure); return the reasons of
    UNDEFINED i2o results."""
    operands = computation.operand_instructions(instruction)
    outputs = [shape for _, shape in instruction.shape.leaves]
    undefined: list[str] = []
    for output in range(len(outputs)):
        for operand, indexing in enumerate(own_output_to_input(computation, instruction, output)):
            where = f"o2i output {output} operand {operand}"
            want = relation(computation, instruction, output, operand)  # the oracle judges first
            assert not isinstance(indexing, Undefined), f"{where}: {indexing.reason}\n{text}"
            for m in indexing:
                _assert_in_bounds(m, operands[operand].shape.dimensions, where)
            got = _union(indexing)
            assert got == want, (
                f"{where}\nonly maps: {sorted(got - want)[:5]}\n"
                f"only oracle: {sorted(want - got)[:5]}\n"
                + "\n".join(map(str, indexing))
                + f"\n{text}"
            )
    for operand in range(len(operands)):
        for output, indexing in enumerate(own_input_to_output(computation, instruction, operand)):
            where = f"i2o operand {operand} output {output}"
            if isinstance(indexing, Undefined):
                undefined.append(indexing.reason)
                continue
            for m in indexing:
                _assert_in_bounds(m, outputs[output].dimensions, where)
            want = inverse_relation(computation, instruction, operand, output)
            got = _union(indexing)
            assert got == want, (
                f"{where}\nonly maps: {sorted(got - want)[:5]}\n"
                f"only oracle: {sorted(want - got)[:5]}\n"
                + "\n".join(map(str, indexing))
                + f"\n{text}"
            )
    return undefined
