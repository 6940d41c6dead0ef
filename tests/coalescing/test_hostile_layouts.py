"""Layouts and shapes the tools cannot answer on exit 2 with a message
naming the problem, from `verifier coalescing` and `verifier tile` alike:
never a traceback (exit 70) nor a silent answer.  `verifier tile` reads
layouts only for bytes per tile, which it leaves out where the layout has
none (`LOGICAL`)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from verifier.cli import main

HOSTILE = {
    "zero tile dimension": ("f32[4,8]{1,0:T(0,2)}", "f32[4,8]", "tile dimension 0"),
    "not a permutation": ("f32[4,8]{1,2}", "f32[4,8]", "not a permutation"),
    "too few dims": ("f32[4,8]{0}", "f32[4,8]", "not a permutation"),
    "combine last": ("f32[4,8]{1,0:T(2,*)}", "f32[4,8]", "combines its most minor dim"),
    "E narrower than the type": ("f32[4,8]{1,0:E(4)}", "f32[4,8]", "narrower"),
    "empty output": ("f32[0,8]{1,0:T(2,2)}", "f32[0,8]", "empty output"),
}

LOGICAL = {"combine last", "E narrower than the type"}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("command", ["coalescing", "tile"])
def test_hostile_layout_exits_2_naming_it(tmp_path: Path, name: str, command: str) -> None:
    operand, output, message = HOSTILE[name]
    if command == "tile" and name in LOGICAL:
        pytest.skip("tiles are logical: the layout only sizes the bytes, left out for it")
    path = tmp_path / "m.hlo"
    path.write_text(
        f"HloModule h\nf {{\n  p = {operand} parameter(0)\n  ROOT n = {output} negate(p)\n}}\n"
        f"ENTRY e {{\n  p = {operand} parameter(0)\n"
        f"  ROOT r = {output} fusion(p), kind=kLoop, calls=f\n}}\n"
    )
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([command, str(path)], io.StringIO())
    assert code == 2, err.getvalue()
    assert message in err.getvalue()
