"""A whole fusion (SymbolicTileAnalysis): every inner instruction's tile, the
tile count, bytes per tile and the elements more than one tile loads, the
counts judged by enumerating every tile's box in plain Python."""

from __future__ import annotations

import itertools

from verifier.analysis import ModuleMaps
from verifier.hlo import parse_module
from verifier.tiling import tile_instruction

EPILOGUE = """HloModule m
f {
  lhs = f32[6,4] parameter(0)
  rhs = f32[4,5] parameter(1)
  bias = f32[5] parameter(2)
  dot = f32[6,5] dot(lhs, rhs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bias_b = f32[6,5] broadcast(bias), dimensions={1}
  ROOT sum = f32[6,5] add(dot, bias_b)
}
ENTRY e {
  a = f32[6,4] parameter(0)
  w = f32[4,5] parameter(1)
  b = f32[5] parameter(2)
  ROOT fusion = f32[6,5] fusion(a, w, b), kind=kCustom, calls=f
}"""


def _loaded_more_than_once(boxes: list[set[tuple[int, ...]]], shape: tuple[int, ...]) -> int:
    counts: dict[tuple[int, ...], int] = {}
    for box in boxes:
        for element in box:
            if all(0 <= x < n for x, n in zip(element, shape, strict=True)):
                counts[element] = counts.get(element, 0) + 1
    return sum(1 for c in counts.values() if c > 1)


def test_matmul_epilogue_costs_by_enumeration():
    module = parse_module(EPILOGUE)
    sizes = (4, 2)
    result = tile_instruction(
        ModuleMaps(module).instruction(module.entry, module.entry.root), sizes
    )
    assert result.tiles == 2 * 3
    positions = list(itertools.product(range(2), range(3)))
    # What each tile loads, from the dot's semantics: rows of a, all of k;
    # all of k, columns of w; columns of b.
    lhs: list[set[tuple[int, ...]]] = [
        {(r, k) for r in range(4 * p, 4 * p + 4) for k in range(4)} for p, _ in positions
    ]
    rhs: list[set[tuple[int, ...]]] = [
        {(k, c) for k in range(4) for c in range(2 * q, 2 * q + 2)} for _, q in positions
    ]
    bias: list[set[tuple[int, ...]]] = [
        {(c,) for c in range(2 * q, 2 * q + 2)} for _, q in positions
    ]
    expected: list[tuple[list[set[tuple[int, ...]]], tuple[int, ...]]] = [
        (lhs, (6, 4)),
        (rhs, (4, 5)),
        (bias, (5,)),
    ]
    for operand, (boxes, shape) in zip(result.operands, expected, strict=True):
        assert operand.proof is not None and operand.proof.verdict == "exact"
        assert operand.bytes_per_tile == 4 * len(boxes[0])
        assert operand.shared_elements == _loaded_more_than_once(boxes, shape)
    inner = {t.name: t.tile for t in result.inner}
    assert set(inner) == {"lhs", "rhs", "bias", "dot", "bias_b", "sum"}
    assert all(tile is not None for tile in inner.values())
    assert inner["dot"] is not None and inner["dot"].size_map() == "(d0, d1) -> (d0, d1)"
    assert result.condition_holds is True
