"""A run that runs out of memory says so, with the limit it hit (exit 71),
instead of calling it a bug (exit 70): checked in a subprocess whose
address space (RLIMIT_AS) is limited to what it had after its imports
plus 48 MiB, on a module that needs more."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli import EXIT_OUT_OF_MEMORY

ROOT = Path(__file__).parents[2]

# Imports what the command needs, then limits the address space to what the
# process holds plus a margin, and runs the command line.
_RUNNER = """
import re, resource, sys
from verifier import cli
from verifier.analysis import ModuleMaps
from verifier.gate import suite
from verifier.hlo import parse_module_file
from verifier.memory import memory_limits
from verifier.report import maps
held = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
resource.setrlimit(resource.RLIMIT_AS, (held + 48 * 2**20, resource.RLIM_INFINITY))
sys.exit(cli.main(sys.argv[1:]))
"""


def long_chain(instructions: int) -> str:
    lines = ["HloModule chain", "ENTRY main {", "  p0 = f32[64,64] parameter(0)"]
    lines += [
        f"  n{k} = f32[64,64] negate({'p0' if k == 0 else f'n{k - 1}'})"
        for k in range(instructions)
    ]
    lines += [f"  ROOT r = f32[64,64] negate(n{instructions - 1})", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # two 60,000-instruction runs to their limit: 4 CPU-s
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("command", [["maps", "--all"], ["check", "--no-cache", "--jobs", "1"]])
def test_out_of_memory_names_the_limit(tmp_path: Path, command: list[str]) -> None:
    module = tmp_path / "chain.hlo"
    module.write_text(long_chain(60_000))
    finished = subprocess.run(
        [sys.executable, "-c", _RUNNER, *command, str(module)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )
    assert finished.returncode == EXIT_OUT_OF_MEMORY, finished.stderr[-2000:]
    assert f"out of memory while reading {module}" in finished.stderr
    assert "the address space limit is" in finished.stderr and "(ulimit -v)" in finished.stderr
    assert "bug" not in finished.stderr and "Traceback" not in finished.stderr
