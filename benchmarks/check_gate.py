"""`verifier check` as users run it, against the targets of docs/ARCHITECTURE.md, in CPU seconds.

Each figure is the command itself in a child process (imports, parsing,
composition, the solvers, rendering: shipped defaults), timed by the CPU
seconds of the child (`resource.getrusage(RUSAGE_CHILDREN)`, user + system)
because the machine is shared.  The children run with their bytecode
compiled once beforehand, as an installed tool has it (pip compiles on
install; a checkout under ``PYTHONDONTWRITEBYTECODE`` would otherwise
recompile every module on every run, 0.3 CPU-s):

* cold: a fresh proof cache; warm: the same cache again, module unchanged
  and the same options (the run is remembered whole: its report printed
  again, no module parsed), with the JSON report and with the text one;
* the same on a module of 95,000 instructions (`large_module.py`, 5,000
  blocks; ``--layers`` for another size), whose warm run should cost what
  the small modules' do (target ≤ 0.15 CPU-s for an unchanged file);
* on the largest real dump (target ≤ 4 CPU-s cold) and on the fusion of 3
  convolutions and 3 max-pools (target ≤ 3 CPU-s cold), ``--jobs 1``;
* check/parse: the cold check against parsing the same text in this
  process (target ≤ 3×), on each module and over every real dump
  (``examples/real/*.hlo``: one ``check --jobs 1 --no-cache`` process
  against parsing all of them here);
* recalled/parse: how far below check/parse faster proofs could take it —
  the same check of the module with a blank line added (its findings are
  not remembered, so it is parsed, composed and checked, and every check's
  question is answered from the proof cache the cold run filled; only the
  composition's own isl comparisons still run), against parsing it;
* start-up: ``verifier --version`` and a cold check of a 2-instruction
  module (target: well under 0.3 CPU-s);
* ``--jobs 1`` against ``--jobs 2`` and the default (no ``--jobs``: the
  cores no other process keeps busy) over every real dump, on the largest
  one alone and on the generated one, cold, in CPU seconds (the workers
  are forked children of the command, reaped, so `RUSAGE_CHILDREN` counts
  them) and wall seconds; and the default on a warm run (no worker starts).

Each figure is the least of ``--repeat`` runs (default 3): on a shared
machine, other jobs only ever add time, and the speed of one such machine
was seen to vary by 1.6× from one run of the same loop to the next.
``--checkout DIR`` measures another checkout too (e.g. the previous
release, unpacked with ``git archive``), in the same run, the two running
each command back to back, first one then the other: before/after;
check/parse divides by this checkout's parse in both.

    python benchmarks/check_gate.py [--checkout DIR] [--repeat N] [--layers N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from large_module import module_text

EXAMPLES = Path(__file__).parents[1] / "examples"
LARGEST = EXAMPLES / "real" / "transformer_train_step.hlo"
MODULES = {LARGEST: 4.0, EXAMPLES / "benchmarks" / "convnet_3conv_3pool.hlo": 3.0}
SMALL = EXAMPLES / "spec" / "add.hlo"
TARGET_CHECK_PER_PARSE = 3.0
TARGET_START_UP = 0.3
TARGET_WARM = 0.15


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _environment(bytecode: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = bytecode
    return environment


def _verifier(environment: dict[str, str], cwd: str | None, *arguments: str) -> tuple[float, float]:
    """CPU seconds and wall seconds of one `verifier` command, of the
    checkout in `cwd` (None: this one), which must have answered (a
    traceback also exits 1, the code of a refutation)."""
    argv = [sys.executable, "-m", "verifier", *arguments]
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=environment, cwd=cwd)
    answered = any(mark in done.stdout for mark in (b"gate: ", b'"status": ', b"verifier "))
    if done.returncode not in (0, 1, 3, 4) or not answered:
        raise SystemExit(
            f"verifier {arguments[0]} failed ({done.returncode}):\n{done.stderr.decode()}"
        )
    return _children_cpu() - cpu, time.perf_counter() - wall


def _parse_cpu(path: Path) -> float:
    from verifier.hlo import parse_module

    text = path.read_text()
    start = time.process_time()
    parse_module(text, str(path))
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", help="another checkout of verifier, measured the same way")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each figure; the least counts (default 3)"
    )
    parser.add_argument(
        "--layers", type=int, default=5000, help="blocks of the generated module (default 5000)"
    )
    options = parser.parse_args()
    checkouts = [None, options.checkout] if options.checkout else [None]
    real = sorted(EXAMPLES.joinpath("real").glob("*.hlo"))
    samples: dict[Checkout, list[Figures]] = {checkout: [] for checkout in checkouts}
    with contextlib.ExitStack() as stack:
        large = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "large.hlo"
        large.write_text(module_text(options.layers))
        modules = [*MODULES, large]
        environments = {}
        for checkout in checkouts:
            environments[checkout] = _environment(
                stack.enter_context(tempfile.TemporaryDirectory())
            )
            # Compiles the bytecode.
            _verifier(environments[checkout], checkout, "check", "--no-cache", str(SMALL))
        for run in range(options.repeat):
            order = checkouts[run % 2 :] + checkouts[: run % 2]
            for checkout, figures in _figures(environments, order, real, modules).items():
                samples[checkout].append(figures)
        for checkout in checkouts:
            print(f"\n=== {checkout or 'this checkout'}")
            _report(_least(samples[checkout]), len(real), modules)


Checkout = str | None
"""A checkout's directory (None: this one)."""

Figures = dict[str, float]


def _least(samples: list[Figures]) -> Figures:
    """Each figure's least value over the runs: other jobs on the machine,
    or a slower spell of a shared one, only ever add time."""
    return {name: min(sample[name] for sample in samples) for name in samples[0]}


def _report(least: Figures, real: int, modules: list[Path]) -> None:
    """The figures of one checkout, against the targets (parsing is always
    this checkout's)."""
    print(
        f"{'module':<32}{'cold CPU-s':>11}{'warm json':>10}{'warm text':>10}{'target':>8}"
        f"{'cold/target':>12}{'check/parse':>12}{'recalled/parse':>15}"
    )
    for path in modules:
        target = MODULES.get(path)
        cold, parse = least[f"cold {path.name}"], least[f"parse {path.name}"]
        warm, text = least[f"warm {path.name}"], least[f"warm text {path.name}"]
        recalled = least[f"recalled {path.name}"]
        shown = (f"{target:>8.1f}{cold / target:>12.2f}") if target else f"{'':>8}{'':>12}"
        print(
            f"{path.name:<32}{cold:>11.2f}{warm:>10.2f}{text:>10.2f}{shown}"
            f"{cold / parse:>12.1f}{recalled / parse:>15.1f}"
        )
    print(
        f"check/parse target: ≤ {TARGET_CHECK_PER_PARSE:.0f}×; warm (an unchanged file): "
        f"≤ {TARGET_WARM} CPU-s; recalled: every check's answer from the proof cache"
    )

    every, parse = least["every real dump"], least["parse every real dump"]
    print(
        f"\n{'every real dump (' + str(real) + ' files)':<32}{'cold CPU-s':>11}"
        f"{'parse CPU-s':>12}{'check/parse':>12}"
    )
    print(f"{'check --jobs 1 --no-cache':<32}{every:>11.2f}{parse:>12.2f}{every / parse:>12.1f}")

    print(f"\n{'start-up':<32}{'CPU-s':>8}{'target':>8}")
    print(f"{'verifier --version':<32}{least['--version']:>8.2f}{TARGET_START_UP:>8.1f}")
    print(f"{'verifier check ' + SMALL.name:<32}{least['small']:>8.2f}{TARGET_START_UP:>8.1f}")

    for label in ("every real dump", LARGEST.name, modules[-1].name, "warm, every real dump"):
        print(f"\n{label:<32}{'CPU-s':>8}{'wall s':>8}{'wall / --jobs 1':>16}")
        one = least[f"--jobs 1 {label} wall"]
        for jobs in JOBS:
            cpu, wall = least[f"--jobs {jobs} {label}"], least[f"--jobs {jobs} {label} wall"]
            print(f"{f'--jobs {jobs}':<32}{cpu:>8.2f}{wall:>8.2f}{wall / one:>16.2f}")


# `--jobs` settings compared: one process, two, and the default (no option).
JOBS = ("1", "2", "default")


def _figures(
    environments: dict[Checkout, dict[str, str]],
    order: list[Checkout],
    real: list[Path],
    modules: list[Path],
) -> dict[Checkout, Figures]:
    """One run of every figure of each checkout, by name (CPU seconds; and
    wall seconds for ``--jobs``), each command run by the checkouts in
    `order` one after the other, so that a slower spell of the machine falls
    on them alike; parsing (always this checkout's) is timed once for all."""
    figures: dict[Checkout, Figures] = {checkout: {} for checkout in order}

    def each(name: str, *arguments: str, caches: Path | None = None) -> None:
        """Run `arguments` for each checkout in turn; with `caches`, each
        checkout with its own proof cache under it."""
        for number, checkout in enumerate(order):
            own = ("--cache-dir", str(caches / str(number))) if caches else ()
            cpu, seconds = _verifier(environments[checkout], checkout, *arguments, *own)
            figures[checkout][name] = cpu
            figures[checkout][f"{name} wall"] = seconds

    def parse(name: str, paths: list[Path]) -> None:
        seconds = sum(_parse_cpu(path) for path in paths)
        for checkout in order:
            figures[checkout][name] = seconds

    for path in modules:
        with tempfile.TemporaryDirectory() as directory:
            caches = Path(directory)
            # The same text with a blank line added: its findings are not
            # remembered, its questions are (`recalled`).
            edited = caches / "edited" / path.name
            edited.parent.mkdir()
            edited.write_text(path.read_text() + "\n")
            json = ("check", "--jobs", "1", "--format", "json")
            each(f"cold {path.name}", *json, str(path), caches=caches)
            each(f"warm {path.name}", *json, str(path), caches=caches)
            text = ("check", "--jobs", "1", str(path))
            each(f"first text {path.name}", *text, caches=caches)  # the text run remembered
            each(f"warm text {path.name}", *text, caches=caches)
            each(f"recalled {path.name}", *json, str(edited), caches=caches)
        parse(f"parse {path.name}", [path])
    each("every real dump", "check", "--jobs", "1", "--no-cache", *map(str, real))
    parse("parse every real dump", real)
    each("--version", "--version")
    each("small", "check", "--no-cache", str(SMALL))
    for label, paths in (
        ("every real dump", real),
        (LARGEST.name, [LARGEST]),
        (modules[-1].name, [modules[-1]]),
    ):
        for jobs in JOBS:
            option = () if jobs == "default" else ("--jobs", jobs)
            each(f"--jobs {jobs} {label}", "check", *option, "--no-cache", *map(str, paths))
    # Every module's findings remembered by a JSON run; each text run after
    # it (with a copy of that cache) recalls them, the run itself not
    # remembered: no module to check, so no worker should start.
    with tempfile.TemporaryDirectory() as directory:
        first = Path(directory) / "first"
        each(
            "first json run, every real dump",
            "check",
            "--format",
            "json",
            *map(str, real),
            caches=first,
        )
        for jobs in JOBS:
            option = () if jobs == "default" else ("--jobs", jobs)
            copy = Path(directory) / f"jobs {jobs}"
            shutil.copytree(first, copy)
            each(
                f"--jobs {jobs} warm, every real dump",
                "check",
                *option,
                *map(str, real),
                caches=copy,
            )
    return figures


if __name__ == "__main__":
    main()
