"""Pathological questions through the command line: CPU seconds of
``verifier equiv`` and ``verifier simplify --prove`` on each case of
``tests/pathological.py`` (many symbols, large moduli, many constraints,
deep nesting), children included, with the answer; a case past the timeout
is a hang.  SPEC §8: every question answers (exactly or ``unknown``) in
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.pathological import cases


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: list[str], timeout: float, checkout: str | None) -> tuple[str, float]:
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
        answer = json.loads(completed.stdout)["verdict"]
    except (ValueError, KeyError):
        answer = f"exit {completed.returncode}: {completed.stderr.strip().splitlines()[-1:]}"
    return str(answer), seconds


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


if __name__ == "__main__":
    main()
