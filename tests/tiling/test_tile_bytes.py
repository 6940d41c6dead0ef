"""Bytes per tile from the operand's physical layout, judged by brute force:
every element of every tile's box inside the operand is placed in the
buffer by `tests.oracle_layout` (the tiled-layout document's "pad, reshape,
transpose", sharing no code with the tool), the memory tiles of the first
tiling holding them are counted from those linear addresses (slot ``a``
lies in memory tile ``a // slots``), and the most over the tile positions,
times the bytes of a memory tile, is the answer."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest

from tests.oracle_layout import buffer_order, offsets, slot_bits
from verifier.analysis import ModuleMaps
from verifier.hlo import parse_module, parse_shape
from verifier.tiling.analysis import tile_instruction, tiling_space

Index = tuple[int, ...]

# name: (operand shape with layout, op of p0 giving the output, output
# shape, the element the output index's tile origin reads first).
CASES: dict[str, tuple[str, str, tuple[int, ...], Callable[[Index], Index]]] = {
    "untiled rows": ("f32[6,20]{1,0}", "negate(p0)", (6, 20), lambda d: d),
    "T(4,8)": ("f32[6,20]{1,0:T(4,8)}", "negate(p0)", (6, 20), lambda d: d),
    "T(2,8) columns major": (
        "f32[20,6]{0,1:T(2,8)}",
        "transpose(p0), dimensions={1,0}",
        (6, 20),
        lambda d: (d[1], d[0]),
    ),
    "strided slice T(8,16)": (
        "f32[12,40]{1,0:T(8,16)}",
        "slice(p0), slice={[1:12:2], [3:40:3]}",
        (6, 13),
        lambda d: (1 + 2 * d[0], 3 + 3 * d[1]),
    ),
    "bf16 T(8,128)(2,1)": (
        "bf16[8,160]{1,0:T(8,128)(2,1)}",
        "negate(p0)",
        (8, 160),
        lambda d: d,
    ),
    "s4 T(8,8)E(4)": ("s4[16,12]{1,0:T(8,8)E(4)}", "negate(p0)", (16, 12), lambda d: d),
    "second tiling pads T(3)(2)": ("f32[10]{0:T(3)(2)}", "negate(p0)", (10,), lambda d: d),
    "tile of higher rank T(2,4)": ("f32[10]{0:T(2,4)}", "negate(p0)", (10,), lambda d: d),
}


def _module(operand: str, op: str, output: tuple[int, ...]) -> str:
    element = operand.split("[")[0]
    dims = ",".join(str(n) for n in output)
    return f"""HloModule m
ENTRY e {{
  p0 = {operand} parameter(0)
  ROOT r = {element}[{dims}] {op}
}}"""


def _brute_force_bytes(
    operand: str,
    output: tuple[int, ...],
    sizes: tuple[int, ...],
    box_sizes: tuple[int, ...],
    strides: tuple[int, ...],
    first: Callable[[Index], Index],
) -> int:
    shape = parse_shape(operand)
    address = offsets(shape)
    tiles = shape.layout_or_default.tiles
    first_tile = tiles[0].dimensions if tiles else ()
    # Memory tiles: the first tiling's grid over the physical dims it tiles.
    physical = list(reversed(shape.layout_or_default.minor_to_major))
    extents = [shape.dimensions[k] for k in physical]
    padded = [1] * max(0, len(first_tile) - len(extents)) + extents
    tiled = padded[len(padded) - len(first_tile) :] if first_tile else []
    count = math.prod(padded[: len(padded) - len(first_tile)]) * math.prod(
        -(-n // t) for n, t in zip(tiled, first_tile, strict=True)
    )
    slots = len(buffer_order(shape)) // count
    most = 0
    counts = [-(-n // t) for n, t in zip(output, sizes, strict=True)]
    for position in itertools.product(*(range(c) for c in counts)):
        origin = first(tuple(p * t for p, t in zip(position, sizes, strict=True)))
        held = set()
        for q in itertools.product(*(range(n) for n in box_sizes)):
            element = tuple(o + k * s for o, k, s in zip(origin, q, strides, strict=True))
            if element in address:
                held.add(address[element] // slots)
        most = max(most, len(held))
    return math.ceil(most * slots * slot_bits(shape) / 8)


@pytest.mark.parametrize("case", sorted(CASES))
def test_bytes_per_tile_by_enumerating_addresses(case: str) -> None:
    operand, op, output, first = CASES[case]
    module = parse_module(_module(operand, op, output))
    maps = ModuleMaps(module)
    for sizes in tiling_space(output)[::2]:
        result = tile_instruction(maps.instruction(module.entry, module.entry.root), sizes)
        (tiled,) = result.operands
        assert tiled.tile is not None
        expected = _brute_force_bytes(
            operand,
            output,
            sizes,
            tiled.tile.box_sizes(sizes),
            tiled.tile.box_strides(sizes),
            first,
        )
        assert tiled.bytes_per_tile == expected, sizes


DYNAMIC = """HloModule m
ENTRY e {
  p0 = f32[40,16]{1,0:T(8,16)} parameter(0)
  i = s32[] parameter(1)
  zero = s32[] constant(0)
  ROOT r = f32[16,16] dynamic-slice(p0, i, zero), dynamic_slice_sizes={16,16}
}"""


def test_bytes_per_tile_at_a_runtime_offset():
    """A dynamic slice starts at any row in [0, 24]: the most over every
    start and tile position."""
    module = parse_module(DYNAMIC)
    maps = ModuleMaps(module)
    for sizes in [(1, 16), (4, 16), (8, 8), (16, 16), (3, 16)]:
        result = tile_instruction(maps.instruction(module.entry, module.entry.root), sizes)
        tiled = result.operands[0]
        assert tiled.tile is not None
        box_sizes, strides = tiled.tile.box_sizes(sizes), tiled.tile.box_strides(sizes)
        expected = max(
            _brute_force_bytes(
                "f32[40,16]{1,0:T(8,16)}", (16, 16), sizes, box_sizes, strides, _rows_from(start)
            )
            for start in range(25)
        )
        assert tiled.bytes_per_tile == expected, sizes


def _rows_from(start: int) -> Callable[[Index], Index]:
    """The element a dynamic slice starting at row `start` reads first."""
    return lambda d: (start + d[0], d[1])
