"""`verifier equiv --batch` against the islpy script a user would write, on
the same XLA-style pairs, from one run (target, docs/ARCHITECTURE.md: ≥ 2,000 pairs/s on 2 cores
and faster than the script; no pair over 2 s).

The pairs come from `xla_pairs.py` (reshape chains, transposes, slices of
pads, reductions and convolutions with 4–5 symbols, mods and floordivs of
sums; about 70 % equal) and are written to a file, XLA text and isl text.
Then, on those pairs:

* **verifier CLI** — ``verifier equiv --batch FILE`` as a subprocess with
  its shipped defaults (parsing, a worker process per core, the default
  ``--cross-check``), and with ``--jobs 1``, ``--cross-check all`` and
  ``none`` for the cost of the workers and of the policy;
* **islpy script** — a one-process script reading the isl text,
  ``isl.Map(a).is_equal(isl.Map(b))`` per line (the conversion from XLA text
  is done for it, untimed), under the verifier's operation budget (without
  one it does not finish);
* **floor** — ``is_equal`` alone on isl objects built beforehand (same
  budget).

CPU seconds are user + system time of the process and its children
(`resource.getrusage`), the measure that holds on a shared machine; each
path runs ``--repeat`` times (default 3, at least 2: the first run writes
the bytecode the others use, as an installed tool has its modules
compiled) and its least CPU time counts,
with that run's wall time (other jobs on the machine only ever add time:
contention for the cores and their caches); pairs/s
is wall-clock, and — since the machine may be shared — also projected onto
two cores busy throughout (CPU seconds / 2: a bound wall time does not
reach, since the start-up before the workers fork runs in one process).  The slowest pair is
timed in-process as ``verifier equiv`` answers it (parsing, `EQUIV_BUDGET`,
the default cross-check), over the generated pairs and the pathological
ones of ``tests/pathological.py`` (4 symbols and ``mod 20000``, 30
symbols, deep nesting, many constraints).

``--checkout DIR`` also times another checkout's CLI on the same pairs
(e.g. the previous release, unpacked with ``git archive``): before/after
from one run.

Run: ``python benchmarks/equivalence.py [--pairs 3000] [--seed 0] [--repeat 3] [--checkout DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import islpy as isl
import xla_pairs

from verifier.checks.budget import EQUIV_BUDGET
from verifier.checks.equivalence import check_equivalence
from verifier.expr import parse_map

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.pathological import cases

TARGET_PAIRS_PER_SECOND = 2000.0
MAX_PAIR_SECONDS = 2.0

# Without an operation budget the script runs for hours on one different
# pair in a few hundred (isl's is_equal on projected symbols), so it gets
# the budget `verifier equiv` uses (`EQUIV_BUDGET`, not the gate's larger
# one), and counts the pairs it cannot decide.
_ISLPY_SCRIPT = f"""
import sys
import islpy as isl

context = isl.Context()
equal = undecided = 0
for line in open(sys.argv[1]):
    a, b = line.rstrip("\\n").split("\\t")
    context.set_max_operations({EQUIV_BUDGET.isl_operations})
    context.reset_operations()
    try:
        equal += isl.Map(a, context).is_equal(isl.Map(b, context))
    except isl.Error:
        undecided += 1
print(equal, undecided)
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _environment(bytecode: str) -> dict[str, str]:
    """This environment, with bytecode written under `bytecode` (an installed
    tool has its modules compiled: pip compiles on install; under
    ``PYTHONDONTWRITEBYTECODE`` a checkout would compile every module on
    every run, 0.05 s before the workers fork)."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = bytecode
    return environment


def _subprocess(
    argv: list[str], repeat: int, environment: dict[str, str], cwd: str | None = None
) -> tuple[float, float, str]:
    """Wall and CPU seconds (children included) of the run of a command with
    the least CPU time of `repeat`, and its stdout; `cwd` first on the path of
    ``python -m`` (another checkout).  The first run compiles the bytecode
    (`_environment`), so `repeat` must be at least 2."""
    runs = []
    for _ in range(repeat):
        cpu, wall = _children_cpu(), time.perf_counter()
        completed = subprocess.run(
            argv, capture_output=True, text=True, check=False, cwd=cwd, env=environment
        )
        wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
        if completed.returncode not in (0, 1, 3):
            raise SystemExit(f"{argv[:4]} failed ({completed.returncode}): {completed.stderr}")
        runs.append((cpu, wall, completed.stdout))
    cpu, wall, stdout = min(runs)
    return wall, cpu, stdout


def _floor(isl_path: Path, repeat: int) -> tuple[float, float]:
    """``is_equal`` on prebuilt isl objects: (wall, CPU) seconds of the
    pass with the least CPU time of `repeat`."""
    context = isl.Context()
    maps = [
        tuple(isl.Map(text, context) for text in line.split("\t"))
        for line in isl_path.read_text().splitlines()
    ]
    context.set_max_operations(EQUIV_BUDGET.isl_operations)
    runs = []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        for a, b in maps:
            context.reset_operations()
            with contextlib.suppress(isl.Error):  # undecided within the budget, as in the script
                a.is_equal(b)
        runs.append((time.process_time() - cpu, time.perf_counter() - wall))
    cpu, wall = min(runs)
    return wall, cpu


def _slowest(pairs: list[tuple[str, str]]) -> tuple[float, str]:
    """The CPU seconds and the name of the slowest pair, answered in-process
    as ``verifier equiv`` answers it."""
    named = [(f"line {n}", a, b) for n, (a, b) in enumerate(pairs, start=1)]
    named += [(case.name, case.a, case.b) for case in cases()]
    slowest = (0.0, "")
    for name, a, b in named:
        start = time.process_time()
        check_equivalence(parse_map(a), parse_map(b), budget=EQUIV_BUDGET)
        slowest = max(slowest, (time.process_time() - start, name))
    return slowest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per path; the least CPU counts")
    parser.add_argument("--checkout", help="another checkout of verifier to time on the pairs")
    options = parser.parse_args()

    pairs = xla_pairs.generate(options.pairs, options.seed)
    path = Path(tempfile.gettempdir()) / f"verifier_xla_pairs_{options.seed}.tsv"
    isl_path = xla_pairs.write(pairs, path)
    script = path.with_suffix(".islpy_script.py")
    script.write_text(_ISLPY_SCRIPT)
    verifier = [sys.executable, "-m", "verifier", "equiv", "--batch", str(path)]

    rows: list[tuple[str, float, float]] = []
    repeat = options.repeat
    if repeat < 2:
        parser.error("--repeat: at least 2 (the first run compiles the bytecode)")
    with tempfile.TemporaryDirectory() as bytecode:
        environment = _environment(bytecode)
        wall, cpu, out = _subprocess(verifier, repeat, environment)
        verdicts = Counter(json.loads(line).get("verdict", "error") for line in out.splitlines())
        rows.append(("verifier equiv --batch (shipped defaults)", wall, cpu))
        wall, cpu, out = _subprocess(
            [sys.executable, str(script), str(isl_path)], repeat, environment
        )
        rows.append(("islpy script (isl.Map(text), is_equal)", wall, cpu))
        script_equal, script_undecided = (int(n) for n in out.split())
        rows.append(("floor: is_equal on prebuilt isl objects", *_floor(isl_path, repeat)))
        for variant in (["--jobs", "1"], ["--cross-check", "all"], ["--cross-check", "none"]):
            wall, cpu, _ = _subprocess([*verifier, *variant], repeat, environment)
            rows.append((f"verifier equiv --batch {' '.join(variant)}", wall, cpu))
        if options.checkout:
            wall, cpu, _ = _subprocess(verifier, repeat, environment, cwd=options.checkout)
            rows.append((f"{options.checkout}: equiv --batch", wall, cpu))
    slowest_seconds, slowest_name = _slowest(pairs)

    count = len(pairs)
    print(
        f"{count} pairs in {path} (isl text: {isl_path}); verifier: {dict(verdicts)}; "
        f"the islpy script finds {script_equal} equal, {script_undecided} undecided"
    )
    print(
        f"{'path':48} {'wall s':>7} {'CPU s':>7} {'pairs/s':>8} {'pairs/CPU-s':>11} "
        f"{'2 idle cores':>12}"
    )
    for name, wall, cpu in rows:
        print(
            f"{name:48} {wall:7.2f} {cpu:7.2f} {count / wall:8.0f} {count / cpu:11.0f} "
            f"{2 * count / cpu:12.0f}"
        )
    cli, script_cpu, floor_cpu = rows[0], rows[1][2], rows[2][2]
    print(
        f"verifier / islpy script, pairs per CPU-second: {script_cpu / cli[2]:.2f}x; "
        f"verifier / floor: {floor_cpu / cli[2]:.3f}x"
    )
    projected, wall = 2 * count / cli[2], count / cli[1]

    def verdict(rate: float) -> str:
        return "met" if rate >= TARGET_PAIRS_PER_SECOND else "NOT met"

    print(
        f"target {TARGET_PAIRS_PER_SECOND:.0f} pairs/s on 2 cores: {wall:.0f} wall on this "
        f"machine ({os.cpu_count()} CPUs; {verdict(wall)} unless other jobs ran), "
        f"{projected:.0f} projected on 2 cores busy throughout, serial start-up "
        f"included ({verdict(projected)}); "
        f"faster than the script: {'yes' if cli[2] < script_cpu else 'NO'}; "
        f"slowest pair {slowest_seconds:.2f} CPU s ({slowest_name}), "
        f"{'within' if slowest_seconds <= MAX_PAIR_SECONDS else 'OVER'} {MAX_PAIR_SECONDS:.0f} s"
    )


if __name__ == "__main__":
    main()
