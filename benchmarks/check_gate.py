"""`verifier check` as users run it, against the targets of docs/ARCHITECTURE.md, in CPU seconds.

Each figure is the command itself in a child process (imports, parsing,
composition, the solvers, rendering: shipped defaults), timed by the CPU
seconds of the child (`resource.getrusage(RUSAGE_CHILDREN)`, user + system)
because the machine is shared.  The children run with their bytecode
compiled once beforehand, as an installed tool has it (pip compiles on
install; a checkout under ``PYTHONDONTWRITEBYTECODE`` would otherwise
recompile every module on every run, 0.3 CPU-s):

* cold: a fresh proof cache; warm: the same cache again, module unchanged;
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
* rendering: the warm run writing the JSON report against the same warm
  run printing ``--summary`` only (target: under a third of the warm run);
* start-up: ``verifier --version`` and a cold check of a 2-instruction
  module (target: well under 0.3 CPU-s);
* ``--jobs 1`` against ``--jobs 2`` over every real dump, and on the
  largest one alone (wall seconds: the workers are the forkserver's
  children, whose CPU time `RUSAGE_CHILDREN` of this process does not see).

Each figure is the least of ``--repeat`` runs (default 3): on a shared
machine, other jobs only ever add time, and the speed of one such machine
was seen to vary by 1.6× from one run of the same loop to the next.
``--checkout DIR`` measures another checkout too (e.g. the previous
release, unpacked with ``git archive``), in the same run, the two running
each command back to back, first one then the other: before/after;
check/parse divides by this checkout's parse in both.

    python benchmarks/check_gate.py [--checkout DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = Path(__file__).parents[1] / "examples"
LARGEST = EXAMPLES / "real" / "transformer_train_step.hlo"
MODULES = {LARGEST: 4.0, EXAMPLES / "benchmarks" / "convnet_3conv_3pool.hlo": 3.0}
SMALL = EXAMPLES / "spec" / "add.hlo"
TARGET_CHECK_PER_PARSE = 3.0
TARGET_START_UP = 0.3


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
    options = parser.parse_args()
    checkouts = [None, options.checkout] if options.checkout else [None]
    real = sorted(EXAMPLES.joinpath("real").glob("*.hlo"))
    samples: dict[Checkout, list[Figures]] = {checkout: [] for checkout in checkouts}
    with contextlib.ExitStack() as stack:
        environments = {}
        for checkout in checkouts:
            environments[checkout] = _environment(
                stack.enter_context(tempfile.TemporaryDirectory())
            )
            # Compiles the bytecode.
            _verifier(environments[checkout], checkout, "check", "--no-cache", str(SMALL))
        for run in range(options.repeat):
            order = checkouts[run % 2 :] + checkouts[: run % 2]
            for checkout, figures in _figures(environments, order, real).items():
                samples[checkout].append(figures)
    for checkout in checkouts:
        print(f"\n=== {checkout or 'this checkout'}")
        _report(_least(samples[checkout]), len(real))


Checkout = str | None
"""A checkout's directory (None: this one)."""

Figures = dict[str, float]


def _least(samples: list[Figures]) -> Figures:
    """Each figure's least value over the runs: other jobs on the machine,
    or a slower spell of a shared one, only ever add time."""
    return {name: min(sample[name] for sample in samples) for name in samples[0]}


def _report(least: Figures, real: int) -> None:
    """The figures of one checkout, against the targets (parsing is always
    this checkout's)."""
    print(
        f"{'module':<32}{'cold CPU-s':>11}{'warm CPU-s':>11}{'target':>8}"
        f"{'cold/target':>12}{'check/parse':>12}{'render/warm':>12}{'recalled/parse':>15}"
    )
    for path, target in MODULES.items():
        cold, warm, parse = (least[f"{kind} {path.name}"] for kind in ("cold", "warm", "parse"))
        summary, recalled = (least[f"{kind} {path.name}"] for kind in ("summary", "recalled"))
        print(
            f"{path.name:<32}{cold:>11.2f}{warm:>11.2f}{target:>8.1f}{cold / target:>12.2f}"
            f"{cold / parse:>12.1f}{(warm - summary) / warm:>12.2f}{recalled / parse:>15.1f}"
        )
    print(
        f"check/parse target: ≤ {TARGET_CHECK_PER_PARSE:.0f}×; render/warm: < 0.33; "
        "recalled: every check's answer from the proof cache"
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

    for label in ("every real dump", LARGEST.name):
        print(f"\n{label + ', cold':<32}{'wall s':>8}")
        walls = {jobs: least[f"--jobs {jobs} {label}"] for jobs in (1, 2)}
        for jobs, wall in walls.items():
            print(f"{f'--jobs {jobs}':<32}{wall:>8.2f}")
        print(f"{'--jobs 1 / --jobs 2':<32}{walls[1] / walls[2]:>8.2f}")


def _figures(
    environments: dict[Checkout, dict[str, str]], order: list[Checkout], real: list[Path]
) -> dict[Checkout, Figures]:
    """One run of every figure of each checkout, by name (CPU seconds; wall
    seconds for ``--jobs``), each command run by the checkouts in `order`
    one after the other, so that a slower spell of the machine falls on
    them alike; parsing (always this checkout's) is timed once for all."""
    figures: dict[Checkout, Figures] = {checkout: {} for checkout in order}

    def each(name: str, *arguments: str, wall: bool = False, caches: Path | None = None) -> None:
        """Run `arguments` for each checkout in turn; with `caches`, each
        checkout with its own proof cache under it."""
        for number, checkout in enumerate(order):
            own = ("--cache-dir", str(caches / str(number))) if caches else ()
            cpu, seconds = _verifier(environments[checkout], checkout, *arguments, *own)
            figures[checkout][name] = seconds if wall else cpu

    def parse(name: str, paths: list[Path]) -> None:
        seconds = sum(_parse_cpu(path) for path in paths)
        for checkout in order:
            figures[checkout][name] = seconds

    for path in MODULES:
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
            summary = ("check", "--jobs", "1", "--summary", str(path))
            each(f"summary {path.name}", *summary, caches=caches)
            each(f"recalled {path.name}", *json, str(edited), caches=caches)
        parse(f"parse {path.name}", [path])
    each("every real dump", "check", "--jobs", "1", "--no-cache", *map(str, real))
    parse("parse every real dump", real)
    each("--version", "--version")
    each("small", "check", "--no-cache", str(SMALL))
    for label, paths in (("every real dump", real), (LARGEST.name, [LARGEST])):
        for jobs in (1, 2):
            arguments = ("check", "--jobs", str(jobs), "--no-cache", *map(str, paths))
            each(f"--jobs {jobs} {label}", *arguments, wall=True)
    return figures


if __name__ == "__main__":
    main()
