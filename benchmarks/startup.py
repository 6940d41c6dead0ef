"""Start-up cost of the command line: CPU seconds (user + system) of
``verifier --version``, a one-instruction ``check`` and a one-instruction
``utilization``, each a fresh process as a user runs it, beside the floor a
user cannot go below (``python -c pass``) and the import of islpy alone
(what a command that asks isl pays before any work).  Least of ``--rounds``
rounds, the commands interleaved, all in one run.

Run with bytecode cached, as an installed tool runs (the first round warms
the cache when it is writable)::

    python -m benchmarks.startup [--rounds 5]

prints one line per command: its CPU seconds and its ratio to
``python -c pass``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.cpu import children_cpu

_TINY = """\
HloModule tiny

ENTRY main {
  p0 = f32[8,16] parameter(0)
  ROOT t = f32[16,8] transpose(p0), dimensions={1,0}
}
"""


def _cpu(argv: list[str]) -> float:
    """CPU seconds of one run of `argv` (its output discarded)."""
    before = children_cpu()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return children_cpu() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as scratch:
        tiny = Path(scratch) / "tiny.hlo"
        tiny.write_text(_TINY)
        verifier = [sys.executable, "-m", "verifier"]
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import islpy'": [sys.executable, "-c", "import islpy"],
            "verifier --version": [*verifier, "--version"],
            "verifier check tiny.hlo --no-cache": [*verifier, "check", str(tiny), "--no-cache"],
            "verifier utilization --instruction t tiny.hlo": [
                *verifier,
                "utilization",
                "--instruction",
                "t",
                str(tiny),
            ],
        }
        for argv in commands.values():  # warm the bytecode cache and the disk
            _cpu(argv)
        best = dict.fromkeys(commands, float("inf"))
        for _ in range(rounds):
            for name, argv in commands.items():
                best[name] = min(best[name], _cpu(argv))
    floor = best["python -c pass"]
    for name, seconds in best.items():
        print(f"{name:48} {seconds:6.3f} CPU-s  {seconds / floor:5.1f}x python -c pass")


if __name__ == "__main__":
    main()
