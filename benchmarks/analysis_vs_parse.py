"""Analysis time against HLO parse time on the committed real dumps (target, docs/ARCHITECTURE.md: ≤ 5×).

For every module under examples/real/: the time to parse it, and the time to
compute (and simplify) the output→input maps of every instruction of every
computation, fusions composed.  Prints one row per module and the ratio.

    python benchmarks/analysis_vs_parse.py
"""

from __future__ import annotations

import time
from pathlib import Path

from verifier.analysis import ModuleMaps
from verifier.hlo.module import Module
from verifier.hlo.parser import parse_module

ROOT = Path(__file__).parents[1] / "examples" / "real"


def _analyse(module: Module) -> int:
    """Every instruction's output→input maps, simplified; returns how many."""
    module_maps = ModuleMaps(module)
    maps = 0
    for computation in module.computations:
        for instruction in computation.instructions:
            view = module_maps.instruction(computation, instruction)
            for output in view.outputs:
                for _, composed in view.o2i(output):
                    if isinstance(composed.maps, tuple):
                        maps += len(composed.maps)
    return maps


def main() -> None:
    print(f"{'module':<24}{'instrs':>8}{'parse ms':>10}{'analysis ms':>13}{'ratio':>8}{'maps':>7}")
    total_parse = total_analysis = 0.0
    for path in sorted(ROOT.glob("*.hlo")):
        text = path.read_text()
        start = time.perf_counter()
        module = parse_module(text, str(path))
        parsed = time.perf_counter() - start
        start = time.perf_counter()
        maps = _analyse(module)
        analysed = time.perf_counter() - start
        total_parse += parsed
        total_analysis += analysed
        print(
            f"{path.stem:<24}{module.instruction_count:>8}{parsed * 1e3:>10.1f}"
            f"{analysed * 1e3:>13.1f}{analysed / parsed:>8.1f}{maps:>7}"
        )
    print(
        f"{'total':<24}{'':>8}{total_parse * 1e3:>10.1f}{total_analysis * 1e3:>13.1f}"
        f"{total_analysis / total_parse:>8.1f}   (target: ratio <= 5)"
    )


if __name__ == "__main__":
    main()
