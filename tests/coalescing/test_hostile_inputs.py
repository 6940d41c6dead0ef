"""Hostile shapes for `verifier coalescing` and `verifier tile` (a fusion
negating or rearranging one operand): dims of 2^40, zero-sized dims, rank
0, one-element and one-block launches, a tile far larger than the shape,
2-bit and 1-bit types.  Each must end in an answer or exit 2, never in
exit 70; the slow tier runs them as processes under a time guard (a
column-major tiled f32[2^40,7] once ran for minutes)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli import main

HUGE = 1 << 40
CASES = {
    "2^40 elements": (f"f32[{HUGE}]", f"f32[{HUGE}]", "negate(p)"),
    "2^40 column-major": ("f32[1048576,1048576]{0,1}", "f32[1048576,1048576]", "negate(p)"),
    "2^40 packed s4": (f"s4[{HUGE},3]{{0,1:E(4)}}", f"s4[{HUGE},3]", "negate(p)"),
    "2^40 narrow transpose": (f"f32[{HUGE},7]", f"f32[7,{HUGE}]", "transpose(p), dimensions={1,0}"),
    "2^40 tiled column-major": (f"f32[{HUGE},7]{{0,1:T(8,128)}}", f"f32[{HUGE},7]", "negate(p)"),
    "zero dim": ("f32[4,0,3]", "f32[4,0,3]", "negate(p)"),
    "zero transposed": ("f32[4,0,3]", "f32[3,0,4]", "transpose(p), dimensions={2,1,0}"),
    "rank 0": ("f32[]", "f32[]", "negate(p)"),
    "rank 0 broadcast": ("f32[]", "f32[5,7]", "broadcast(p), dimensions={}"),
    "one element": ("f32[1,1,1]{0,2,1:T(8,128)}", "f32[1,1,1]", "negate(p)"),
    "tile of 2^40": (f"f32[4,4]{{1,0:T({HUGE},{HUGE})}}", "f32[4,4]", "negate(p)"),
    "u2 packed": ("u2[64,64]{1,0:E(2)}", "u2[64,64]", "negate(p)"),
    "s1": ("s1[64,64]", "s1[64,64]", "negate(p)"),
    "pad value not a scalar": ("f32[3]", f"f32[{HUGE + 3}]", f"pad(p, p), padding=0_{HUGE}"),
}


def _module(operand: str, output: str, body: str) -> str:
    return (
        f"HloModule h\nf {{\n  p = {operand} parameter(0)\n  ROOT n = {output} {body}\n}}\n"
        f"ENTRY e {{\n  p = {operand} parameter(0)\n"
        f"  ROOT r = {output} fusion(p), kind=kLoop, calls=f\n}}\n"
    )


def _run(tmp_path: Path, name: str, command: str) -> tuple[int, str, str]:
    path = tmp_path / "m.hlo"
    path.write_text(_module(*CASES[name]))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([command, str(path), "--format", "json"], out)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", ["coalescing", "tile"])
@pytest.mark.parametrize("name", ["zero dim", "rank 0", "tile of 2^40", "pad value not a scalar"])
def test_hostile_shapes_answer_or_exit_2(tmp_path: Path, name: str, command: str) -> None:
    code, _, err = _run(tmp_path, name, command)
    assert code in (0, 2), err
    assert "internal error" not in err


def test_2_to_the_40_elements_are_counted_exactly(tmp_path: Path) -> None:
    # Unrolled by 4, each warp reads 128 consecutive aligned f32: 16 sectors,
    # 2^40 / 128 requests (blocks split over y past 2^31 - 1).
    code, out, err = _run(tmp_path, "2^40 elements", "coalescing")
    assert code == 0, err
    answer = json.loads(out)[0]
    (operand,) = answer["operands"]
    assert answer["launch"]["grid"] == [1 << 30, 2, 1]
    assert operand["requests"] == HUGE // 128 == operand["requests_at_ideal"]
    assert operand["sectors_per_request"] == {"min": 16, "mean": 16.0, "max": 16}


def test_a_tile_larger_than_the_shape_puts_rows_2_to_the_40_apart(tmp_path: Path) -> None:
    # 16 threads, one warp: four rows of 16 bytes, each in a sector of its
    # own (ideal 2).
    code, out, err = _run(tmp_path, "tile of 2^40", "coalescing")
    assert code == 0, err
    (operand,) = json.loads(out)[0]["operands"]
    assert (operand["requests"], operand["sectors_per_request"]["max"]) == (1, 4)
    assert operand["coalesced"] is False


@pytest.mark.slow
@pytest.mark.parametrize("command", ["coalescing", "tile"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_hostile_shape_ends_in_time(tmp_path: Path, name: str, command: str) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(_module(*CASES[name]))
    done = subprocess.run(
        [sys.executable, "-m", "verifier", command, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 2), done.stderr
