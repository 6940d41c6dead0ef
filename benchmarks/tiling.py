"""Cost of `verifier tile` per fusion beside `verifier maps` on the same
fusion, on the bundled real dumps: both through the research API
(`verifier.api.Analysis.tile` / `.maps`), each on a fresh analysis of the
already parsed module (no shared memo), CPU time per fusion.

    python benchmarks/tiling.py [FILE.hlo ...]   (default: examples/real*/*.hlo)

Prints, per file: fusions, how many operands got a tile / none, the CPU
seconds of maps and of tile summed over the fusions, and their ratio; then
the totals.  The tile time includes the maps it derives tiles from and the
isl proofs over the tiling space.

Then `verifier check` (a process each, no proof cache) on the Triton
dumps (``examples/triton/*.hlo``, ``examples/checks/triton_*.hlo``): CPU
seconds of ``--checks tiling``, of every other check, and of all checks,
each the least of five runs; ``all/others`` is what the tiling check adds.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

from verifier.api import Analysis
from verifier.gate.catalog import CHECKS
from verifier.hlo import parse_module_file


def measure(path: Path) -> tuple[int, int, int, float, float]:
    module = parse_module_file(str(path))
    fusions = [i.name for i in module.entry.instructions if i.opcode == "fusion"]
    tiled = untiled = 0
    maps_time = tile_time = 0.0
    for name in fusions:
        start = time.process_time()
        Analysis(module, str(path)).maps(name)
        maps_time += time.process_time() - start
        start = time.process_time()
        answer = Analysis(module, str(path)).tile(name)
        tile_time += time.process_time() - start
        for operand in answer["operands"]:
            if operand["tile"] is None:
                untiled += 1
            else:
                tiled += 1
    return len(fusions), tiled, untiled, maps_time, tile_time


def main(paths: list[str]) -> None:
    files = [Path(p) for p in paths] or sorted(Path("examples").glob("real*/*.hlo"))
    totals: list[float] = [0, 0, 0, 0.0, 0.0]
    print(
        f"{'file':48} {'fusions':>7} {'tiled':>5} {'none':>5} {'maps s':>8} {'tile s':>8} {'ratio':>6}"
    )
    for path in files:
        fusions, tiled, untiled, maps_time, tile_time = measure(path)
        if not fusions:
            continue
        for k, value in enumerate((fusions, tiled, untiled, maps_time, tile_time)):
            totals[k] += value
        ratio = tile_time / maps_time if maps_time else float("nan")
        print(
            f"{path!s:48} {fusions:7} {tiled:5} {untiled:5} {maps_time:8.3f} {tile_time:8.3f} {ratio:6.1f}"
        )
    count, tiled_total, none_total, maps_total, tile_total = totals
    ratio_total = tile_total / maps_total if maps_total else float("nan")
    print(
        f"{'total':48} {count:7.0f} {tiled_total:5.0f} {none_total:5.0f} {maps_total:8.3f} "
        f"{tile_total:8.3f} {ratio_total:6.1f}"
    )
    if count:
        print(
            f"per fusion: maps {maps_total / count * 1000:.1f} ms, "
            f"tile {tile_total / count * 1000:.1f} ms"
        )


def check_seconds(path: Path, checks: str | None) -> float:
    """The least CPU seconds of five `verifier check` processes running
    `checks` (None: every check) on `path`, interpreter start included."""
    selected = [] if checks is None else ["--checks", checks]
    command = [sys.executable, "-m", "verifier", "check", "--no-cache", "--jobs", "1"]
    best = float("inf")
    for _ in range(5):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([*command, *selected, str(path)], capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return best


def check_costs() -> None:
    others = ",".join(c for c in CHECKS if c != "tiling")
    files = sorted(Path("examples/triton").glob("*.hlo"))
    files += sorted(Path("examples/checks").glob("triton_*.hlo"))
    print(
        f"\n{'verifier check, CPU s':48} {'tiling':>8} {'others':>8} {'all':>8} {'all/others':>10}"
    )
    for path in files:
        tiling, rest, every = (check_seconds(path, c) for c in ("tiling", others, None))
        print(f"{path!s:48} {tiling:8.3f} {rest:8.3f} {every:8.3f} {every / rest:10.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
    check_costs()
