"""The share of operands whose output→input indexing is UNDEFINED, by opcode,
over the committed real dumps (examples/real/*.hlo), with the reasons.

Every instruction of every computation except fusions (their maps are
composed elsewhere); an operand counts as UNDEFINED when any output's
indexing of it is.  Prints one row per opcode, then one row per reason.

    python benchmarks/undefined_by_opcode.py
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from verifier.expr.indexing_map import Undefined
from verifier.hlo.parser import parse_module
from verifier.indexing.analysis import output_count, output_to_input

ROOT = Path(__file__).parents[1] / "examples" / "real"


def main() -> None:
    operands: Counter[str] = Counter()
    undefined: Counter[str] = Counter()
    reasons: Counter[tuple[str, str]] = Counter()
    for path in sorted(ROOT.glob("*.hlo")):
        module = parse_module(path.read_text(), str(path))
        for computation in module.computations:
            for instruction in computation.instructions:
                if instruction.opcode == "fusion" or not instruction.operands:
                    continue
                per_output = [
                    output_to_input(computation, instruction, output)
                    for output in range(output_count(instruction))
                ]
                for operand in range(len(instruction.operands)):
                    operands[instruction.opcode] += 1
                    found = [o[operand] for o in per_output if isinstance(o[operand], Undefined)]
                    if found:
                        undefined[instruction.opcode] += 1
                        reason = found[0].reason if isinstance(found[0], Undefined) else ""
                        reasons[(instruction.opcode, reason)] += 1
    print(f"{'opcode':<24} {'operands':>8} {'UNDEFINED':>9} {'share':>7}")
    for opcode in sorted(operands, key=lambda o: (-undefined[o] / operands[o], o)):
        share = undefined[opcode] / operands[opcode]
        print(f"{opcode:<24} {operands[opcode]:>8} {undefined[opcode]:>9} {share:>7.1%}")
    total, total_undefined = sum(operands.values()), sum(undefined.values())
    print(f"{'total':<24} {total:>8} {total_undefined:>9} {total_undefined / total:>7.1%}")
    print("\nreasons:")
    for (opcode, reason), count in sorted(reasons.items()):
        print(f"  {opcode}: {count} × {reason}")


if __name__ == "__main__":
    main()
