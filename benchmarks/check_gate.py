"""`verifier check` as users run it, against SPEC §8, in CPU seconds.

Each figure is the command itself in a child process (imports, parsing,
composition, the solvers, rendering: shipped defaults), timed by the CPU
seconds of the child (`resource.getrusage(RUSAGE_CHILDREN)`, user + system,
workers included) because the machine is shared:

* cold: a fresh proof cache; warm: the same cache again, module unchanged;
* on the largest real dump (target ≤ 4 CPU-s cold) and on the fusion of 3
  convolutions and 3 max-pools (target ≤ 3 CPU-s cold);
* check/parse: the cold check against parsing the same text in this
  process (target ≤ 3×);
* ``--jobs 1`` against ``--jobs 2`` over every real dump (wall seconds).

    python benchmarks/check_gate.py
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = Path(__file__).parents[1] / "examples"
MODULES = {
    EXAMPLES / "real" / "transformer_train_step.hlo": 4.0,
    EXAMPLES / "benchmarks" / "convnet_3conv_3pool.hlo": 3.0,
}
TARGET_CHECK_PER_PARSE = 3.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _check(*arguments: str) -> tuple[float, float]:
    """CPU seconds and wall seconds of one `verifier check` run."""
    argv = [sys.executable, "-m", "verifier", "check", "--format", "json", *arguments]
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True)
    if done.returncode not in (0, 1, 3, 4):
        raise SystemExit(f"verifier check failed ({done.returncode}):\n{done.stderr.decode()}")
    return _children_cpu() - cpu, time.perf_counter() - wall


def _parse_cpu(path: Path) -> float:
    from verifier.hlo.parser import parse_module

    text = path.read_text()
    start = time.process_time()
    parse_module(text, str(path))
    return time.process_time() - start


def main() -> None:
    print(
        f"{'module':<32}{'cold CPU-s':>11}{'warm CPU-s':>11}{'target':>8}"
        f"{'cold/target':>12}{'check/parse':>12}"
    )
    for path, target in MODULES.items():
        with tempfile.TemporaryDirectory() as cache:
            cold, _ = _check("--jobs", "1", "--cache-dir", cache, str(path))
            warm, _ = _check("--jobs", "1", "--cache-dir", cache, str(path))
        per_parse = cold / _parse_cpu(path)
        print(
            f"{path.name:<32}{cold:>11.2f}{warm:>11.2f}{target:>8.1f}"
            f"{cold / target:>12.2f}{per_parse:>12.1f}"
        )
    print(f"check/parse target: ≤ {TARGET_CHECK_PER_PARSE:.0f}×")

    # Wall seconds only: the workers are the forkserver's children, whose CPU
    # time RUSAGE_CHILDREN of this process does not see.
    real = sorted(str(p) for p in (EXAMPLES / "real").glob("*.hlo"))
    print(f"\n{'every real dump, cold':<32}{'wall s':>8}")
    walls = {jobs: _check("--jobs", str(jobs), "--no-cache", *real)[1] for jobs in (1, 2)}
    for jobs, wall in walls.items():
        print(f"{f'--jobs {jobs}':<32}{wall:>8.2f}")
    print(f"{'--jobs 1 / --jobs 2':<32}{walls[1] / walls[2]:>8.2f}")


if __name__ == "__main__":
    main()
