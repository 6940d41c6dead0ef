"""Start-up cost without timing: each command imports only what its work
needs.  ``--version`` reads no module and asks no solver, so it imports
neither the analysis nor islpy, z3 or networkx; a one-instruction
``utilization`` whose count has a closed form imports no solver; a
one-instruction ``check`` of a transpose answers every question without a
solver (its inverse: a permutation undone), so it imports no solver, nor
the checks that do not apply to it (tiling, bitcast).  One fresh interpreter runs the three commands in turn,
reporting what each one added to `sys.modules`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_TRANSPOSE = """\
HloModule tiny

ENTRY main {
  p0 = f32[8,16] parameter(0)
  ROOT t = f32[16,8] transpose(p0), dimensions={1,0}
}
"""

_WATCHED = (
    "islpy",
    "z3",
    "networkx",
    "importlib.metadata",
    "verifier.analysis.module_maps",
    "verifier.tiling",
    "verifier.checks.bitcast",
    "verifier.coalescing",
)

_SCRIPT = """
import io, json, sys
from verifier.cli import main

watched = tuple(sys.argv[2].split(","))
added = {}
for name, argv in [
    ("version", ["--version"]),
    ("utilization", ["utilization", "--instruction", "t", sys.argv[1]]),
    ("check", ["check", sys.argv[1], "--no-cache", "--jobs", "1"]),
]:
    before = set(sys.modules)
    try:
        code = main(argv, io.StringIO())
    except SystemExit as exit_:  # --version exits from the parser
        code = exit_.code
    assert code == 0, (name, code)
    added[name] = sorted(
        {w for m in set(sys.modules) - before for w in watched if m == w or m.startswith(w + ".")}
    )
print(json.dumps(added))
"""


def test_each_command_imports_only_what_it_needs(tmp_path: Path) -> None:
    module = tmp_path / "tiny.hlo"
    module.write_text(_TRANSPOSE)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2]))
    ran = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(module), ",".join(_WATCHED)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    added = json.loads(ran.stdout.splitlines()[-1])
    assert added == {
        "version": ["importlib.metadata"],
        "utilization": ["verifier.analysis.module_maps"],
        "check": [],
    }
