"""Fusion operands read through several maps (a softmax's input: by the
row reduction and by the elementwise ops) get the tile of the union of what
those maps read, where it is a strided box — else no tile, with the
smallest box covering tile 0.  Judged by brute force: the elements each
tile reads are enumerated from the ops' semantics in plain Python
(`tests.tiling.oracle.judge`), and the covering box is the bounding box of
what tile 0 reads."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from tests.tiling.oracle import judge
from verifier.analysis import ModuleMaps
from verifier.hlo import parse_module
from verifier.tiling.analysis import (
    InstructionTiling,
    OperandTiling,
    tile_instruction,
    tiling_space,
)

Index = tuple[int, ...]

SOFTMAX = """HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
fused {
  p0 = f32[6,8] parameter(0)
  ninf = f32[] constant(-inf)
  row = f32[6] reduce(p0, ninf), dimensions={1}, to_apply=mx
  b = f32[6,8] broadcast(row), dimensions={0}
  ROOT s = f32[6,8] subtract(p0, b)
}
ENTRY e {
  x = f32[6,8] parameter(0)
  ROOT f = f32[6,8] fusion(x), kind=kLoop, calls=fused
}"""

COLUMNS = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p0 = f32[6,8] parameter(0)
  zero = f32[] constant(0)
  col = f32[8] reduce(p0, zero), dimensions={0}, to_apply=add
  b = f32[6,8] broadcast(col), dimensions={1}
  ROOT q = f32[6,8] divide(p0, b)
}
ENTRY e {
  x = f32[6,8] parameter(0)
  ROOT f = f32[6,8] fusion(x), kind=kLoop, calls=fused
}"""

MIRROR = """HloModule m
fused {
  p0 = f32[8] parameter(0)
  r = f32[8] reverse(p0), dimensions={0}
  ROOT s = f32[8] add(p0, r)
}
ENTRY e {
  x = f32[8] parameter(0)
  ROOT f = f32[8] fusion(x), kind=kLoop, calls=fused
}"""

TWO_WINDOWS = """HloModule m
fused {
  p0 = f32[12] parameter(0)
  lo = f32[4] slice(p0), slice={[0:4]}
  hi = f32[4] slice(p0), slice={[8:12]}
  ROOT s = f32[4] add(lo, hi)
}
ENTRY e {
  x = f32[12] parameter(0)
  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused
}"""

Reads = Callable[[Index], set[Index]]

CASES: dict[str, tuple[str, tuple[int, ...], Reads]] = {
    "softmax rows": (
        SOFTMAX,
        (6, 8),
        lambda d: {(d[0], j) for j in range(8)} | {(d[0], d[1])},
    ),
    "column sums": (
        COLUMNS,
        (6, 8),
        lambda d: {(i, d[1]) for i in range(6)} | {(d[0], d[1])},
    ),
    "mirror": (MIRROR, (8,), lambda d: {(d[0],), (7 - d[0],)}),
    "two windows": (TWO_WINDOWS, (4,), lambda d: {(d[0],), (d[0] + 8,)}),
}


def _operand(text: str, sizes: tuple[int, ...]) -> OperandTiling:
    return _tiling(text, sizes).operands[0]


def _tiling(text: str, sizes: tuple[int, ...]) -> InstructionTiling:
    module = parse_module(text)
    return tile_instruction(ModuleMaps(module).instruction(module.entry, module.entry.root), sizes)


def _tile_zero(reads: Reads, sizes: tuple[int, ...]) -> set[Index]:
    found: set[Index] = set()
    for index in itertools.product(*(range(t) for t in sizes)):
        found |= reads(index)
    return found


@pytest.mark.parametrize("case", sorted(CASES))
def test_union_tile_by_brute_force(case: str) -> None:
    text, shape, reads = CASES[case]
    tiled = untiled = 0
    for sizes in tiling_space(shape):
        result = _tiling(text, sizes)
        operand = result.operands[0]
        # The fused parameter is read as the operand is: the same tile or none.
        (parameter,) = [inner for inner in result.inner if inner.name == "p0"]
        assert (parameter.tile is None) == (operand.tile is None), sizes
        if parameter.tile is not None:
            assert judge(parameter.tile, reads, shape, sizes) == "exact", sizes
        if operand.tile is not None:
            assert operand.proof is not None and operand.proof.verdict == "exact", sizes
            assert judge(operand.tile, reads, shape, sizes) == "exact", sizes
            tiled += 1
            continue
        assert operand.reason is not None and "are not their union's" in operand.reason
        box = operand.covering_box
        assert box is not None
        read = _tile_zero(reads, sizes)
        low = [min(e[j] for e in read) for j in range(len(box.sizes))]
        high = [max(e[j] for e in read) for j in range(len(box.sizes))]
        assert list(box.offsets) == low, sizes
        assert list(box.sizes) == [h - lo + 1 for lo, h in zip(low, high, strict=True)], sizes
        untiled += 1
    expected = {
        # One map's tile (whole rows, whole columns) holds the other's.
        "softmax rows": (16, 0),
        "column sums": (16, 0),
        # Only the whole vector: a tile of 4 reads {0..3} and {4..7}, a box
        # of 8 that is no map's tile, so it gets none (a limitation).
        "mirror": (1, 3),
        # {i, i + 8} is a box of stride 8 for a tile of 1, again no map's.
        "two windows": (0, 3),
    }
    assert (tiled, untiled) == expected[case]


def test_softmax_union_tile_is_whole_rows() -> None:
    operand = _operand(SOFTMAX, (2, 4))
    assert operand.tile is not None
    assert operand.tile.size_map() == "(d0, d1) -> (d0, 8)"
    assert operand.tile.box_sizes((2, 4)) == (2, 8)
    # Brute force: a tile of 2 × 4 reads 2 whole rows; 4 tiles of 3 cover
    # the 6 rows, each row loaded by the 2 tiles of its row block.
    assert _tile_zero(CASES["softmax rows"][2], (2, 4)) == {
        (i, j) for i in range(2) for j in range(8)
    }
    assert operand.bytes_per_tile == 2 * 8 * 4
    assert operand.shared_elements == 6 * 8
