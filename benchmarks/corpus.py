"""`verifier corpus` on a corpus of real dumps: locally, resumed, on a Dask
cluster of separate processes on this machine, against the loop a
researcher would write (the API, module after module, in one process).

Prints, from one run:

* the wall and CPU seconds of each (CPU: this process's children, so the
  command's analysis processes and the cluster's processes count);
* resume / run (the issue asks for at most 25 %);
* whether the three runs' tables are equal (every column but ``seconds``);
* how many modules' operand rows differ from `verifier utilization`'s
  answers (``verifier.load(path).utilization_rows()``, the command's rows).

    pip install -e '.[research]'
    python -m benchmarks.corpus [CORPUS_DIR] [--jobs N]

Without CORPUS_DIR, ``examples/corpus``: the committed JAX dumps of 14
program families (SPMD on 8 devices and an ``--xla_dump_to`` directory
included).  Not all of ``examples/``: counting the 3-conv/3-pool fusion in
``examples/benchmarks`` takes minutes of isl's count budget.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq

import verifier
from benchmarks.cpu import children_cpu, own_cpu
from tests.corpus.dask_cluster import dask_cluster
from verifier.corpus.tables import MODULES_FILE, OPERANDS_FILE, TIMING_COLUMNS

ROOT = Path(__file__).resolve().parents[1]


def _timed(action: Callable[[], object], cpu: Callable[[], float]) -> tuple[float, float]:
    wall, before = time.monotonic(), cpu()
    action()
    return time.monotonic() - wall, cpu() - before


def _corpus(*argv: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "verifier", "corpus", *argv, "--no-progress"],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _tables(directory: Path) -> tuple[object, object]:
    modules = pq.read_table(directory / MODULES_FILE).drop_columns(list(TIMING_COLUMNS))
    return modules, pq.read_table(directory / OPERANDS_FILE)


def _api_loop(files: list[Path]) -> None:
    """What a researcher wrote before: every module in turn, in one process."""
    for path in files:
        module = verifier.load(path)
        module.utilization_rows()
        module.checks()


def _disagreements(directory: Path, files: list[Path]) -> int:
    """Modules whose operand rows differ from `verifier utilization`'s."""
    rows: dict[str, list[tuple[object, ...]]] = {}
    for row in pq.read_table(directory / OPERANDS_FILE).to_pylist():
        exact = None if row["utilization_exact"] is None else Fraction(row["utilization_exact"])
        key = (row["instruction"], row["operand"], row["distinct_read"], row["reads"], exact)
        rows.setdefault(row["file"], []).append(key)
    differing = 0
    for path in files:
        expected = sorted(
            (
                r["instruction"],
                r["operand"],
                r["distinct_read"],
                r["reads"] if isinstance(r["reads"], int) else None,
                r["utilization"],
            )
            for r in verifier.load(path).utilization_rows()
        )
        differing += sorted(rows.get(str(path), [])) != expected
    return differing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="corpus-benchmark-"))
    corpus = args.corpus
    if corpus is None:
        corpus = ROOT / "examples" / "corpus"
    files = sorted(corpus.rglob("*.hlo"))
    jobs = ["--jobs", str(args.jobs)]
    print(f"corpus: {len(files)} modules under {corpus}; {args.jobs} jobs")

    local, cluster = work / "local", work / "cluster"
    run = _timed(lambda: _corpus(str(corpus), "--output", str(local), *jobs), children_cpu)
    first = _tables(local)
    resumed = _timed(
        lambda: _corpus(str(corpus), "--output", str(local), "--resume", *jobs), children_cpu
    )
    with dask_cluster(workers=args.jobs, threads=1) as address:
        on_cluster = _timed(
            lambda: _corpus(str(corpus), "--output", str(cluster), "--scheduler", address),
            children_cpu,
        )
    loop = _timed(lambda: _api_loop(files), own_cpu)

    def line(name: str, timing: tuple[float, float]) -> str:
        return f"  {name:<34} {timing[0]:8.1f} s wall {timing[1]:8.1f} s CPU"

    print(line("verifier corpus (local cluster)", run))
    print(line("verifier corpus --resume (finished)", resumed))
    print(line("verifier corpus --scheduler", on_cluster) + "  (CPU: client only)")
    print(line("API loop, one process (baseline)", loop))
    print(
        f"resume / run: {resumed[0] / run[0]:.0%} wall, {resumed[1] / run[1]:.0%} CPU "
        "(asked: at most 25 %)"
    )
    print(f"run / API loop: {run[0] / loop[0]:.2f}× wall")
    equal = first == _tables(local) == _tables(cluster)
    print(f"tables equal (all but seconds), local = resumed = cluster: {equal}")
    statuses = pq.read_table(local / MODULES_FILE).column("status").to_pylist()
    print(f"statuses: { {s: statuses.count(s) for s in sorted(set(statuses))} }")
    print(f"modules whose rows differ from verifier utilization: {_disagreements(local, files)}")


if __name__ == "__main__":
    main()
