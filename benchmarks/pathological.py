"""Pathological questions through the command line: CPU seconds of
``verifier equiv`` and ``verifier simplify --prove`` on each case of
``tests/pathological.py`` (many symbols, large moduli, many constraints,
deep nesting), and of ``verifier check``, ``verifier maps`` (the entry
ROOT's maps, both directions) and ``verifier utilization`` on
100- and 400-op reshape/transpose chains (``tests/chains.py``), on tuples of
300 and 1,000 leaves and loops carrying 100 and 300 arrays
(``tests/wide.py``: a training step's ROOT and its optimizer loop), and on
the 3-conv/3-pool fusion of ``examples/benchmarks/`` and its variants
(``tests/convnets.py``: strides, padding, dilation, pools, NCHW, an
ImageNet-sized input), children included, with the answer; a case past
the timeout is a hang.  The target (docs/ARCHITECTURE.md): every question answers (exactly or ``unknown``) in
seconds.

Run: ``python benchmarks/pathological.py [--timeout 600] [--checkout DIR]``
(``--checkout`` times another checkout of verifier, e.g. an older commit
unpacked with ``git archive``, on the same cases).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.chains import chain_module
from tests.convnets import CONVNETS, convnet_module
from tests.pathological import cases
from tests.wide import wide_loop_module, wide_tuple_module

ROOT = Path(__file__).parents[1]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _verdict(report: dict[str, Any]) -> str:
    return str(report["verdict"])


def _check_totals(report: dict[str, Any]) -> str:
    totals = report["summary"]["total"]
    return " ".join(f"{n} {outcome}" for outcome, n in totals.items() if n)


def _reads(report: dict[str, Any]) -> str:
    rows = [o for i in report["instructions"] for o in i["operands"]]
    unknown = sum(isinstance(o["reads"], str) for o in rows)
    return f"{len(rows) - unknown} exact, {unknown} unknown reads"


def _pairs(report: dict[str, Any]) -> str:
    rows = [
        row
        for instruction in report["instructions"]
        for direction in ("output_to_input", "input_to_output")
        for row in instruction[direction]
    ]
    unknown = sum(row["maps"] == "UNDEFINED" for row in rows)
    return f"{len(rows) - unknown} known, {unknown} unknown"


def _run(
    argv: list[str],
    timeout: float,
    checkout: str | None,
    answer: Callable[[dict[str, Any]], str] = _verdict,
) -> tuple[str, float]:
    start = _children_cpu()
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "verifier", *argv, "--format", "json"],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=checkout,  # `python -m` puts the working directory first on the path
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"HANG (> {timeout:.0f} s)", timeout
    seconds = _children_cpu() - start
    try:
        text = answer(json.loads(completed.stdout))
    except (ValueError, KeyError):
        text = f"exit {completed.returncode}: {completed.stderr.strip().splitlines()[-1:]}"
    return text, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--checkout", help="the verifier checkout to time (default: this one)")
    options = parser.parse_args()
    print(f"{'case':48} {'question':18} {'answer':22} {'CPU s':>7}")
    for case in cases():
        for question, argv in (
            ("equiv", ["equiv", case.a, case.b]),
            ("simplify --prove", ["simplify", "--prove", case.a]),
        ):
            answer, seconds = _run(argv, options.timeout, options.checkout)
            print(f"{case.name:48} {question:18} {answer:22} {seconds:7.2f}", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        modules = [
            (f"{n}-op reshape/transpose chain", Path(directory) / f"chain_{n}.hlo")
            for n in (100, 400)
        ]
        for _, path in modules:
            path.write_text(chain_module(int(path.stem.split("_")[1])))
        for width in (300, 1000):
            path = Path(directory) / f"tuple_{width}.hlo"
            path.write_text(wide_tuple_module(width))
            modules.append((f"ROOT tuple of {width} leaves", path))
        # 64 trips: the most composed (`UNROLL_LIMIT`), stopped by the bound
        # on the maps its iterations hold (`LOOP_WORK_LIMIT`).
        for width, trips in ((100, 4), (300, 4), (300, 64)):
            path = Path(directory) / f"loop_{width}_{trips}.hlo"
            path.write_text(wide_loop_module(width, trips=trips))
            modules.append((f"loop carrying {width} arrays, {trips} trips", path))
        modules.append(
            ("3-conv/3-pool fusion", ROOT / "examples/benchmarks/convnet_3conv_3pool.hlo")
        )
        for net in CONVNETS:
            path = Path(directory) / f"convnet_{net.name}.hlo"
            path.write_text(convnet_module(net))
            modules.append((f"3-conv/3-pool fusion, {net.name}", path))
        for name, path in modules:
            for question, argv, answer in (
                ("check", ["check", str(path), "--no-cache"], _check_totals),
                ("maps", ["maps", str(path)], _pairs),
                ("utilization", ["utilization", str(path)], _reads),
            ):
                text, seconds = _run(argv, options.timeout, options.checkout, answer)
                print(f"{name:48} {question:18} {text:22} {seconds:7.2f}", flush=True)


if __name__ == "__main__":
    main()
