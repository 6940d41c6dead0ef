"""Loops whose iterations each add a runtime offset end in seconds, not
minutes: real JAX dumps (`examples/real_ops/generate.py`) checked by the
command line under a time guard.

A ``fori_loop`` moving a window by dynamic slices, a ``while_loop`` writing
an array at its counter and a ``scan`` writing a KV cache at its step give
every iteration's maps one more runtime variable, in one constraint only
(``d0 - rt7 in [1, 49]``: the rows past that iteration's offset).  Kept,
the maps grew by a variable per iteration and each iteration cost more than
the last: the first two ran past 40 CPU-s and the third took 37 (at
b46ca45).  Projected out (`project_lone_symbol`), the maps stop growing.
A ``fori_loop`` rewriting a tile at offsets computed from its counter
splits what survives into pieces per iteration until a union passes its
limit: 6 CPU-s while isl compared its maps pair by pair, 1.3 once sample
pairs told them apart."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

_REAL_OPS = Path(__file__).parents[2] / "examples" / "real_ops"
# Each is checked in about a CPU-second on the 2-core CI machine.
_HANG_SECONDS = 60


@pytest.mark.parametrize(
    "name",
    [
        "fori_dynamic_window.hlo",
        "while_carry_roll.hlo",
        "kv_cache_scan.hlo",
        pytest.param("fori_tile_updates.hlo", marks=pytest.mark.slow),  # 1.2 CPU-s
    ],
)
def test_a_loop_adding_a_runtime_offset_per_iteration_is_checked_in_time(name: str) -> None:
    command = ["check", "--jobs", "1", "--no-cache", "--format", "json", str(_REAL_OPS / name)]
    completed = subprocess.run(
        [sys.executable, "-m", "verifier", *command],
        capture_output=True,
        text=True,
        timeout=_HANG_SECONDS,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    outcomes = Counter(f["outcome"] for f in json.loads(completed.stdout)["findings"])
    assert outcomes["proved"] > 300
    assert outcomes["refuted"] == outcomes["unknown"] == 0
