"""`verifier tile` on generated fusions against the independent brute force
(`tests.tiling.simulator`: random ops chained in a fusion, random sizes of
any value), and the disagreements the audit found, minimised."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

import verifier
from tests.coalescing.simulator import Fusion, Node, Param
from tests.tiling.simulator import footprints, judge, random_case
from verifier.cli import main

CONCATENATED = """HloModule c
fused {
  p0 = f32[1] parameter(0)
  p1 = f32[5] parameter(1)
  ROOT c = f32[6] concatenate(p0, p1), dimensions={0}
}
ENTRY main {
  p0 = f32[1] parameter(0)
  p1 = f32[5] parameter(1)
  ROOT fusion = f32[6] fusion(p0, p1), kind=kLoop, calls=fused
}
"""


def test_an_unpadded_pads_value_has_no_tile_and_no_crash(tmp_path: Path) -> None:
    # The pad's value is read by no element: it ended in exit 70.
    path = tmp_path / "m.hlo"
    path.write_text(
        "HloModule m\nfused {\n  p0 = f32[6] parameter(0)\n  z = f32[] constant(0)\n"
        "  ROOT v = f32[6] pad(p0, z), padding=0_0\n}\n"
        "ENTRY main {\n  p0 = f32[6] parameter(0)\n"
        "  ROOT fusion = f32[6] fusion(p0), kind=kLoop, calls=fused\n}\n"
    )
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["tile", str(path), "--sizes", "4"], out) == 0
    assert "exact: proved" in out.getvalue()


def test_a_concatenated_operand_is_judged_at_every_tile() -> None:
    # p0's map is `(d0) -> (0)` with d0 in [0, 0]: every tile's box is
    # {0}, which tiles 1..5 do not read.  The proof tiled only the map's
    # tightened domain and called it exact.
    (row, _) = verifier.loads(CONCATENATED).tile("fusion", sizes=[1])["operands"]
    tile = row["tile"]
    assert (tile["offset_map"].split(",")[0], tile["stride_map"]) == ("(d0) -> (0)", "(d0) -> (0)")
    p0, p1 = Param(0, (1,), "f32", (0,)), Param(1, (5,), "f32", (0,))
    fusion = Fusion(Node("concatenate", (6,), "f32", (p0, p1), (0,)), (p0, p1), (0,))
    per, every = footprints(fusion, (1,))
    assert per[0].get((3,), set()) == set() and every[0] == {(0,)}  # box {0} ∩ read, not read
    assert tile["exact"] == "refuted"
    assert judge(fusion, (1,))[1] == []


def test_witnesses_are_elements_the_fusion_reads() -> None:
    # Operand 1 is read only by output rows 2 and 3; the footprint took
    # rows 0 and 1 too (the map's lower bound dropped), and the witness
    # named element -10.
    p0, p1 = Param(0, (2, 6), "f32", (1, 0)), Param(1, (12,), "f32", (0,))
    rows = Node("reshape", (2, 6), "f32", (p1,))
    root = Node("concatenate", (4, 6), "f32", (p0, rows), (0,))
    fusion = Fusion(root, (p0, p1), (1, 0))
    answer = verifier.loads(fusion.text()).tile("fusion", sizes=[4, 2])
    witness = answer["operands"][1]["tile"]["witness"]
    assert witness is not None and "-" not in witness.split("element")[1]
    assert judge(fusion, (4, 2))[1] == []


@pytest.mark.parametrize("seed", range(30))
def test_generated_fusions_tile_as_brute_force(seed: int) -> None:
    fusion, sizes = random_case(seed)
    assert judge(fusion, sizes)[1] == [], fusion.text()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(10))
def test_many_generated_fusions_tile_as_brute_force(chunk: int) -> None:
    for seed in range(100 + 100 * chunk, 200 + 100 * chunk):
        fusion, sizes = random_case(seed)
        assert judge(fusion, sizes)[1] == [], (seed, fusion.text())
