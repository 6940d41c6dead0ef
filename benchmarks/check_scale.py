"""`verifier check` at scale, as users run it (the command line, one
process per run, a proof cache of its own per module), beside a baseline
checkout of the tool in the same run: for the generated chain of
`large_module` (or, with ``--jax``, the GPT training step of `jax_gpt`,
which needs the ``jax`` extra: ``pip install -e '.[jax]'``), at `--layers`
blocks and at half as many, one row each:

* cold (``--jobs 1``, an empty proof cache): CPU seconds (the child's user
  + system), and the cost per instruction **at the margin** — the
  difference between the two modules' CPU seconds over the difference of
  their instructions, so start-up and the constant part cancel (issue
  #34's goal: ≤ 0.06 ms/instruction);
* peak memory per instruction: the cold run's peak resident set less that
  of the same command on a one-instruction module (the interpreter and the
  imports), over the module's instructions, and at the margin
  (goal: ≤ 4 KB/instruction);
* warm: the same command again, the file unchanged (every answer cached:
  the run is answered from the file's content hash before it is parsed;
  goal: ≤ 0.15 CPU-s whatever the size);
* ``--jobs``: the larger module cold with the default (no ``--jobs``: the
  cores no other process keeps busy, at most the machine's), with
  ``--jobs 2`` (the default on an idle 2-core machine), against
  ``--jobs 1``: CPU seconds (workers included: they are the command's
  reaped children) and wall seconds, their ratios to ``--jobs 1`` (goal:
  never slower); and a warm run with the default, against the warm
  ``--jobs 1`` run (goal: no workers when every answer is cached — a
  worker would show as more CPU).

    python benchmarks/check_scale.py --jax --layers 24 --runs 1 --modules /tmp/gpt
    python benchmarks/check_scale.py --baseline /path/to/other/checkout \\
        [--layers 5000] [--runs 2] [--jax] [--no-jobs] [FILE ...]

With ``--jax --layers 24`` the modules are the 24-layer GPT (91,846
instructions with jax 0.10.2's XLA) and the 12-layer one (27,586);
generating them takes about a minute of CPU, so ``--modules DIR`` keeps
them (``gpt_24.hlo``, ``large_5000.hlo``, …) and reuses them on the next
run.  FILE arguments are timed cold as well, one row each.

For example, XLA's TORAX predictor-corrector test module (1.7 MB, from
``benchmarks.xla_corpus``'s corpus) beside the checkout before #31's
composition work, on a loaded 2-core machine: 104.9 CPU-s baseline,
68.6 this (1.53x), with ``--runs 1``; after the relation keys of unions
and the per-pair composition memo: 75.2 baseline (the checkout before
them), 55.3 this (1.36x, ``--layers 200 --runs 1``; 47-50 CPU-s when
``verifier check`` runs alone).

Each figure is the least of `--runs` runs (peak memory too), the sides
interleaved; every cold run gets an empty cache directory.  Without
`--baseline`, only this checkout is measured.  Wall seconds are only
indicative on a shared machine: other jobs add to them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import large_module

HERE = Path(__file__).parents[1]
TINY = "HloModule tiny\n\nENTRY e {\n  ROOT p = f32[4]{0} parameter(0)\n}\n"


class Usage(NamedTuple):
    """One `verifier check` process: CPU seconds (its workers included),
    wall seconds, and its peak resident set in KB."""

    cpu: float
    wall: float
    peak: float


def _environment(checkout: Path) -> dict[str, str]:
    """The children's environment: `checkout`'s code, its bytecode written
    once under a prefix of its own (kept in the temporary directory for the
    next run: Python recompiles a module whose source changed) and reused,
    as an installed tool has it (compiling every module again would add
    0.3 CPU-s to each run)."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    digest = hashlib.sha256(str(checkout.resolve()).encode()).hexdigest()[:12]
    prefix = Path(tempfile.gettempdir()) / f"check_scale_bytecode_{digest}"
    return {**environment, "PYTHONPATH": str(checkout), "PYTHONPYCACHEPREFIX": str(prefix)}


def _check(checkout: Path, path: Path, cache: Path, jobs: str | None = "1") -> Usage:
    """One `verifier check` of `path` run from `checkout` with the proof
    cache in `cache`; `jobs` None: the default."""
    environment = _environment(checkout)
    command = [sys.executable, "-m", "verifier", "check", str(path), "--cache-dir", str(cache)]
    command += [] if jobs is None else ["--jobs", jobs]
    start = time.perf_counter()
    child = subprocess.Popen(command, env=environment, cwd=checkout, stdout=subprocess.DEVNULL)
    # wait4: this child's own usage (and that of the workers it reaped).
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode not in (0, 1, 3, 4):
        raise SystemExit(f"verifier check {path} exited {child.returncode} ({checkout})")
    return Usage(usage.ru_utime + usage.ru_stime, wall, float(usage.ru_maxrss))


Measure = Callable[[Path, Path], dict[str, Usage]]
"""Given a checkout and a scratch directory: one run's usages by name."""


def _least(checkouts: list[Path], measure: Measure, runs: int) -> list[dict[str, Usage]]:
    """Per checkout, each figure's least over `runs` runs, sides interleaved."""
    best: list[dict[str, Usage]] = [{} for _ in checkouts]
    for _ in range(runs):
        for side, checkout in enumerate(checkouts):
            with tempfile.TemporaryDirectory() as scratch:
                for name, usage in measure(checkout, Path(scratch)).items():
                    seen = best[side].get(name, usage)
                    best[side][name] = Usage(*map(min, zip(seen, usage, strict=True)))
    return best


def _cold(path: Path) -> Measure:
    return lambda checkout, scratch: {"cold": _check(checkout, path, scratch)}


def _module(path: Path, tiny: Path, jobs: bool) -> Measure:
    """Every figure of the larger module: cold and warm, the start-up's
    peak, and with `jobs` the `--jobs` runs (each with a cache of its own)."""

    def measure(checkout: Path, scratch: Path) -> dict[str, Usage]:
        usages = {"tiny": _check(checkout, tiny, scratch / "tiny")}
        usages["cold"] = _check(checkout, path, scratch / "one")
        usages["warm"] = _check(checkout, path, scratch / "one")
        if jobs:
            usages["cold default"] = _check(checkout, path, scratch / "default", None)
            usages["warm default"] = _check(checkout, path, scratch / "default", None)
            usages["cold 2"] = _check(checkout, path, scratch / "two", "2")
        return usages

    return measure


def _instructions(text: str) -> int:
    """The instructions of a module's text: its lines ``name = …`` (this
    script imports no checkout's parser; both sides read the same text)."""
    return sum(1 for line in text.splitlines() if " = " in line and line.startswith("  "))


def _row(name: str, values: Sequence[float], unit: str, goal: str = "") -> str:
    cells = "".join(f"{value:>12.3f}" for value in values)
    ratio = f"{values[0] / values[1]:>8.2f}x" if len(values) == 2 and values[1] else ""
    return f"{name:<34}{cells}{ratio}  {unit}" + (f"  (goal {goal})" if goal else "")


def _module_text(jax: bool) -> Callable[[int], str]:
    if not jax:
        return large_module.module_text
    import jax_gpt

    jax_gpt.require_jax()
    return jax_gpt.module_text


def _written(directory: Path, stem: str, layers: int, text: Callable[[int], str]) -> Path:
    """The module of `layers` blocks in `directory`, written unless there."""
    path = directory / f"{stem}_{layers}.hlo"
    if not path.exists():
        path.write_text(text(layers))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="*", type=Path, help="HLO modules to time cold as well")
    parser.add_argument("--baseline", type=Path, help="another checkout of the tool to compare")
    parser.add_argument(
        "--layers", type=int, help="blocks of the larger module (default 5000; with --jax, 24)"
    )
    parser.add_argument("--runs", type=int, default=2, help="runs per side (least is kept)")
    parser.add_argument(
        "--jax", action="store_true", help="the GPT of jax_gpt.py (the jax extra), not the chain"
    )
    parser.add_argument(
        "--modules", type=Path, help="keep the generated modules in this directory and reuse them"
    )
    parser.add_argument("--no-jobs", action="store_true", help="skip the --jobs rows")
    options = parser.parse_args()
    text = _module_text(options.jax)
    layers = options.layers or (24 if options.jax else 5000)
    checkouts = ([options.baseline] if options.baseline else []) + [HERE]
    sides = "".join(f"{name:>12}" for name in (["baseline"] if options.baseline else []) + ["this"])
    print(f"{'module':<34}{sides}" + ("   ratio" if options.baseline else ""))
    for path in options.files:
        cold = _least(checkouts, _cold(path), options.runs)
        print(_row(path.name, [side["cold"].cpu for side in cold], "CPU-s"), flush=True)
    with tempfile.TemporaryDirectory() as temporary:
        directory = options.modules or Path(temporary)
        directory.mkdir(parents=True, exist_ok=True)
        stem = "gpt" if options.jax else "large"
        half, full = (_written(directory, stem, n, text) for n in (layers // 2, layers))
        tiny = Path(temporary) / "tiny.hlo"
        tiny.write_text(TINY)
        for side, checkout in enumerate(checkouts):  # compiles the bytecode
            _check(checkout, tiny, Path(temporary) / f"compile {side}")
        sizes = [_instructions(path.read_text()) for path in (half, full)]
        small = _least(checkouts, _cold(half), options.runs)
        print(
            _row(f"{half.stem} ({sizes[0]} instr.), cold", [s["cold"].cpu for s in small], "CPU-s")
        )
        large = _least(checkouts, _module(full, tiny, not options.no_jobs), options.runs)
        print(
            _row(f"{full.stem} ({sizes[1]} instr.), cold", [s["cold"].cpu for s in large], "CPU-s")
        )
        _report(small, large, sizes, options.no_jobs)


def _report(
    small: list[dict[str, Usage]], large: list[dict[str, Usage]], sizes: list[int], no_jobs: bool
) -> None:
    """The rows derived from the two modules' figures, per side."""
    added = sizes[1] - sizes[0]
    margin = [
        (b["cold"].cpu - a["cold"].cpu) * 1e3 / added for a, b in zip(small, large, strict=True)
    ]
    print(_row("  cold at the margin", margin, "ms/instruction", "≤ 0.06"))
    peak = [(b["cold"].peak - b["tiny"].peak) / sizes[1] for b in large]
    print(_row("  peak memory per instruction", peak, "KB/instruction", "≤ 4"))
    peaks = [(b["cold"].peak - a["cold"].peak) / added for a, b in zip(small, large, strict=True)]
    print(_row("  peak memory at the margin", peaks, "KB/instruction"))
    print(_row("  peak memory", [b["cold"].peak / 1024 for b in large], "MiB"))
    print(_row("  start-up (1 instruction)", [b["tiny"].cpu for b in large], "CPU-s"))
    print(_row("  warm, unchanged file", [b["warm"].cpu for b in large], "CPU-s", "≤ 0.15"))
    print(_row("  warm, peak memory", [b["warm"].peak / 1024 for b in large], "MiB"))
    if no_jobs:
        return
    for jobs in ("default", "2"):
        name = f"cold {jobs}"
        cpu = [b[name].cpu / b["cold"].cpu for b in large]
        wall = [b[name].wall / b["cold"].wall for b in large]
        print(_row(f"  --jobs {jobs} / --jobs 1, CPU", cpu, "ratio"))
        print(_row(f"  --jobs {jobs} / --jobs 1, wall", wall, "ratio", "≤ 1"))
    warm = [b["warm default"].cpu for b in large]
    print(_row("  warm, --jobs default", warm, "CPU-s", "= the --jobs 1 run's: no worker"))
    print(
        _row(
            "  warm, --jobs default / --jobs 1",
            [w / b["warm"].cpu for w, b in zip(warm, large, strict=True)],
            "ratio",
        )
    )
    print(f"(load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
