"""`verifier check` at scale, as users run it (the command line, a cold
proof cache, one process), beside a baseline checkout of the tool in the
same run: CPU seconds per module, and for the generated chain of
`large_module` (or, with ``--jax``, the GPT training step of `jax_gpt`)
the cost per instruction at the margin — between a module of `--layers`
blocks and one of half as many, so start-up and the constant part cancel.

    python benchmarks/check_scale.py --baseline /path/to/other/checkout \\
        [--layers 5000] [--runs 2] [--jax] [FILE ...]

For example, XLA's TORAX predictor-corrector test module (1.7 MB, from
``benchmarks.xla_corpus``'s corpus) beside the checkout before #31's
composition work, on a loaded 2-core machine: 104.9 CPU-s baseline,
68.6 this (1.53x), with ``--runs 1``; after the relation keys of unions
and the per-pair composition memo: 75.2 baseline (the checkout before
them), 55.3 this (1.36x, ``--layers 200 --runs 1``; 47-50 CPU-s when
``verifier check`` runs alone).

Each side is the least CPU time (the child's user + system) of `--runs`
runs, the sides interleaved; every run gets an empty cache directory.
Without `--baseline`, only this checkout is measured.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import large_module

HERE = Path(__file__).parents[1]


def _cpu_seconds(checkout: Path, path: Path) -> float:
    """CPU seconds of one cold `verifier check` of `path` run from `checkout`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "PYTHONPATH": str(checkout)}
        command = [sys.executable, "-m", "verifier", "check", str(path), "--jobs", "1"]
        subprocess.run(
            [*command, "--cache-dir", cache],
            env=environment,
            cwd=checkout,
            stdout=subprocess.DEVNULL,
            check=False,
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _least(checkouts: list[Path], path: Path, runs: int) -> list[float]:
    """Per checkout, the least CPU seconds of `runs` runs, sides interleaved."""
    best = [float("inf")] * len(checkouts)
    for _ in range(runs):
        for side, checkout in enumerate(checkouts):
            best[side] = min(best[side], _cpu_seconds(checkout, path))
    return best


def _instructions(text: str) -> int:
    """The instructions of a module's text: its lines ``name = …`` (this
    script imports no checkout's parser; both sides read the same text)."""
    return sum(1 for line in text.splitlines() if " = " in line and line.startswith("  "))


def _row(name: str, values: list[float], unit: str) -> str:
    cells = "".join(f"{value:>12.3f}" for value in values)
    ratio = f"{values[0] / values[1]:>8.2f}x" if len(values) == 2 and values[1] else ""
    return f"{name:<28}{cells}{ratio}  {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="HLO modules to time as well")
    parser.add_argument("--baseline", type=Path, help="another checkout of the tool to compare")
    parser.add_argument("--layers", type=int, default=5000, help="blocks of the large module")
    parser.add_argument("--runs", type=int, default=2, help="runs per side (least is kept)")
    parser.add_argument(
        "--jax", action="store_true", help="the GPT of jax_gpt.py (the jax extra), not the chain"
    )
    options = parser.parse_args()
    checkouts = ([options.baseline] if options.baseline else []) + [HERE]
    sides = "".join(f"{name:>12}" for name in (["baseline"] if options.baseline else []) + ["this"])
    print(f"{'module':<28}{sides}" + ("   ratio" if options.baseline else ""))
    for path in options.files:
        print(_row(path.name, _least(checkouts, path, options.runs), "CPU-s"), flush=True)
    if options.jax:
        import jax_gpt

        module_text = jax_gpt.module_text
    else:
        module_text = large_module.module_text
    with tempfile.TemporaryDirectory() as directory:
        timed, sizes = [], []
        for layers in (options.layers // 2, options.layers):
            path = Path(directory) / f"large_{layers}.hlo"
            text = module_text(layers)
            path.write_text(text)
            sizes.append(_instructions(text))
            timed.append(_least(checkouts, path, options.runs))
            print(_row(f"{path.stem} ({sizes[-1]} instr.)", timed[-1], "CPU-s"), flush=True)
        margin = [
            (full - half) * 1e3 / (sizes[1] - sizes[0])
            for half, full in zip(timed[0], timed[1], strict=True)
        ]
        print(_row("  at the margin", margin, "ms/instruction"))


if __name__ == "__main__":
    main()
