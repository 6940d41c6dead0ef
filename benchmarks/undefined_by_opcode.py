"""The share of operands whose indexing is UNDEFINED, by opcode and direction,
over the committed real dumps (examples/real/*.hlo), with the reasons.

Every instruction of every computation except fusions (their maps are
composed elsewhere).  An operand counts as UNDEFINED output→input when any
output's map of it is, and input→output when its map to any output is.
Prints one row per opcode (o2i and i2o counts), then one row per reason.

    python benchmarks/undefined_by_opcode.py
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from verifier.expr.indexing_map import Undefined
from verifier.hlo.module import Computation, Instruction
from verifier.hlo.parser import parse_module
from verifier.indexing.analysis import input_to_output, output_count, output_to_input
from verifier.indexing.registry import Indexing

ROOT = Path(__file__).parents[1] / "examples" / "real"


def first_undefined(indexings: list[Indexing]) -> Undefined | None:
    """The first UNDEFINED among one operand's indexings, if any."""
    return next((i for i in indexings if isinstance(i, Undefined)), None)


def per_operand(
    computation: Computation, instruction: Instruction
) -> list[tuple[Undefined | None, Undefined | None]]:
    """Per operand: its first UNDEFINED output→input and input→output indexing."""
    outputs = [
        output_to_input(computation, instruction, output)
        for output in range(output_count(instruction))
    ]
    return [
        (
            first_undefined([o[operand] for o in outputs]),
            first_undefined(list(input_to_output(computation, instruction, operand))),
        )
        for operand in range(len(instruction.operands))
    ]


def main() -> None:
    operands: Counter[str] = Counter()
    undefined: dict[str, Counter[str]] = {"o2i": Counter(), "i2o": Counter()}
    reasons: Counter[tuple[str, str, str]] = Counter()
    for path in sorted(ROOT.glob("*.hlo")):
        module = parse_module(path.read_text(), str(path))
        for computation in module.computations:
            for instruction in computation.instructions:
                if instruction.opcode == "fusion" or not instruction.operands:
                    continue
                for found in per_operand(computation, instruction):
                    operands[instruction.opcode] += 1
                    for direction, undefined_map in zip(("o2i", "i2o"), found, strict=True):
                        if undefined_map is not None:
                            undefined[direction][instruction.opcode] += 1
                            reasons[(instruction.opcode, direction, undefined_map.reason)] += 1
    o2i, i2o = undefined["o2i"], undefined["i2o"]
    print(f"dumps: {', '.join(path.stem for path in sorted(ROOT.glob('*.hlo')))}\n")
    print(
        f"{'opcode':<22} {'operands':>8} {'o2i UNDEF':>9} {'share':>7} {'i2o UNDEF':>9} {'share':>7}"
    )
    for opcode in sorted(operands, key=lambda o: (-(o2i[o] + i2o[o]) / operands[o], o)):
        count = operands[opcode]
        print(
            f"{opcode:<22} {count:>8} {o2i[opcode]:>9} {o2i[opcode] / count:>7.1%}"
            f" {i2o[opcode]:>9} {i2o[opcode] / count:>7.1%}"
        )
    total = sum(operands.values())
    total_o2i, total_i2o = sum(o2i.values()), sum(i2o.values())
    print(
        f"{'total':<22} {total:>8} {total_o2i:>9} {total_o2i / total:>7.1%}"
        f" {total_i2o:>9} {total_i2o / total:>7.1%}"
    )
    print("\nreasons:")
    for (opcode, direction, reason), count in sorted(reasons.items()):
        print(f"  {opcode} ({direction}): {count} × {reason}")


if __name__ == "__main__":
    main()
