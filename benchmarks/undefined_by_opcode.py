"""The share of operands whose indexing is UNDEFINED, by opcode and direction,
over the committed real dumps (examples/real/*.hlo, examples/real_ops/*.hlo,
or the directories given), with the reasons.

The maps are those `verifier check` checks and `verifier maps` prints:
`ModuleMaps`'s simplified ones (composed, simplified and merged when isl
proves two equal — a while loop's unions stay small where unmerged ones
would pass the composer's bounds), for every instruction of every
computation, calls, conditionals and async-starts composed through the
computations they call (fusions are composed too, but left out of the
table: their operands' maps are their fused instructions').  (The unmerged
maps such a loop passes the bounds with are what the simplification check
compares against: an `unsupported` simplification finding, not an UNDEFINED
operand.)  An operand
counts as UNDEFINED output→input when any output's map of any of its arrays
is, and input→output when the map of any of its arrays to any output is.
Prints one row per opcode (o2i and i2o counts), then one row per reason.

    python benchmarks/undefined_by_opcode.py [DIR...]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from verifier.analysis import ModuleMaps
from verifier.expr import Undefined
from verifier.hlo import Computation, Instruction, parse_module
from verifier.indexing.registry import Indexing

EXAMPLES = Path(__file__).parents[1] / "examples"
CORPORA = (EXAMPLES / "real", EXAMPLES / "real_ops")


def first_undefined(indexings: list[Indexing]) -> Undefined | None:
    """The first UNDEFINED among one operand's indexings, if any."""
    return next((i for i in indexings if isinstance(i, Undefined)), None)


def per_operand(
    maps: ModuleMaps, computation: Computation, instruction: Instruction
) -> list[tuple[Undefined | None, Undefined | None]]:
    """Per operand: its first UNDEFINED output→input and input→output indexing."""
    view = maps.instruction(computation, instruction)
    forward = [pair for output in view.outputs for pair in view.o2i(output)]
    found = []
    for operand in range(len(instruction.operands)):
        mine = [leaf for leaf in view.operands if leaf.operand == operand]
        found.append(
            (
                first_undefined([c.indexing for leaf, c in forward if leaf.operand == operand]),
                first_undefined([c.indexing for leaf in mine for _, c in view.i2o(leaf)]),
            )
        )
    return found


def main(directories: list[Path]) -> None:
    paths = sorted(path for directory in directories for path in directory.glob("*.hlo"))
    operands: Counter[str] = Counter()
    undefined: dict[str, Counter[str]] = {"o2i": Counter(), "i2o": Counter()}
    reasons: Counter[tuple[str, str, str]] = Counter()
    for path in paths:
        module = parse_module(path.read_text(), str(path))
        maps = ModuleMaps(module)
        for computation in module.computations:
            for instruction in computation.instructions:
                if instruction.opcode == "fusion" or not instruction.operands:
                    continue
                for found in per_operand(maps, computation, instruction):
                    operands[instruction.opcode] += 1
                    for direction, undefined_map in zip(("o2i", "i2o"), found, strict=True):
                        if undefined_map is not None:
                            undefined[direction][instruction.opcode] += 1
                            reasons[(instruction.opcode, direction, undefined_map.reason)] += 1
    o2i, i2o = undefined["o2i"], undefined["i2o"]
    print(f"dumps: {', '.join(path.stem for path in paths)}\n")
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
    main([Path(argument) for argument in sys.argv[1:]] or list(CORPORA))
