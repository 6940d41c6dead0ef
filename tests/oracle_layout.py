"""Tiled layouts and bitcasts by brute force, written from the tiled-layout
document's definitions (test support; shares no code with
`verifier.indexing.layout` or `verifier.indexing.bitcast`).

The buffer is built as the document describes tiling, "pad, reshape,
transpose", on a numpy array holding each logical element's number
(row-major) and ``-1`` for padding:

1. transpose the array to physical order (most major dim first);
2. for each tiling ``(t_k … t_1)``: put leading 1-dims in front when the tile
   has more dims than the array; merge a dim whose tile size is ``*`` (or
   ``-1``) into the next minor one (a reshape); pad each tiled dim up to a
   multiple of its tile size; reshape each into ``(d / t, t)``; transpose
   the ``t`` dims behind every ``d / t`` dim;
3. flatten: the element numbers in buffer order.

The buffer size is XLA's ``ShapeUtil::ArraySize``: the array after the first
tiling (its padding only), rounded up to a multiple of ``L(n)``, times the
slot width — ``E(n)``, else the type's bits rounded up to whole bytes —
in bytes rounded up.  `array_size_as_xla_writes_it` is XLA's loop itself
(for tiles without ``*``).

A bitcast relates an output element to every operand element whose bits
overlap its bits; it is valid when both buffers have the same bytes, no
element sits past its buffer, and the bits of the elements are the same set
on both sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from verifier.hlo import Shape

_TYPE_BITS = {"pred": 1, "s1": 1, "s2": 2, "u2": 2, "s4": 4, "u4": 4, "s8": 8, "u8": 8}
_TYPE_BITS |= {"f8e5m2": 8, "bf16": 16, "f16": 16, "s16": 16, "f32": 32, "s32": 32, "u32": 32}
_TYPE_BITS |= {"f64": 64, "s64": 64, "f6e2m3fn": 6}
_TYPE_BITS |= {"u16": 16, "u64": 64, "f8e4m3fn": 8, "c64": 64, "c128": 128}

Index = tuple[int, ...]


def _merge_combined(array: np.ndarray, tile: tuple[int, ...]) -> tuple[np.ndarray, list[int]]:
    """Merge each tiled dim whose tile size is ``*``/``-1`` into the next one."""
    kept = array.ndim - len(tile)
    sizes, tiles, pending = list(array.shape[:kept]), [], 1
    for size, t in zip(array.shape[kept:], tile, strict=True):
        pending *= size
        if t < 0:  # "*" is parsed as a very negative number, "-1" as -1
            continue
        sizes.append(pending)
        tiles.append(t)
        pending = 1
    return array.reshape(sizes), tiles


def _tile_once(array: np.ndarray, tile: tuple[int, ...]) -> np.ndarray:
    if len(tile) > array.ndim:
        array = array.reshape((1,) * (len(tile) - array.ndim) + array.shape)
    array, tiles = _merge_combined(array, tile)
    kept = array.ndim - len(tiles)
    padding = [(0, 0)] * kept + [
        (0, -size % t) for size, t in zip(array.shape[kept:], tiles, strict=True)
    ]
    array = np.pad(array, padding, constant_values=-1)
    split = list(array.shape[:kept])
    for size, t in zip(array.shape[kept:], tiles, strict=True):
        split += [size // t, t]
    array = array.reshape(split)
    grid = [kept + 2 * j for j in range(len(tiles))]
    inner = [kept + 2 * j + 1 for j in range(len(tiles))]
    return array.transpose([*range(kept), *grid, *inner])


def _levels(shape: Shape) -> list[np.ndarray]:
    """The physical-order array, then the array after each tiling."""
    layout = shape.layout_or_default
    numbers = np.arange(math.prod(shape.dimensions), dtype=np.int64).reshape(shape.dimensions)
    arrays = [numbers.transpose(list(reversed(layout.minor_to_major)))]
    for tile in layout.tiles:
        arrays.append(_tile_once(arrays[-1], tile.dimensions))
    return arrays


def buffer_order(shape: Shape) -> np.ndarray:
    """Each slot's element number (row-major logical), ``-1`` for padding;
    as many slots as the offsets span (every tiling's padding)."""
    return _levels(shape)[-1].reshape(-1)


def offsets(shape: Shape) -> dict[Index, int]:
    """Logical index → offset (slot) in the buffer."""
    order = buffer_order(shape)
    slots = np.flatnonzero(order >= 0)
    return {
        tuple(int(i) for i in np.unravel_index(int(order[slot]), shape.dimensions)): int(slot)
        for slot in slots
    }


def slot_bits(shape: Shape) -> int:
    declared = shape.layout_or_default.element_size_in_bits
    return declared or 8 * math.ceil(_TYPE_BITS[shape.element_type] / 8)


def buffer_elements(shape: Shape) -> int:
    levels = _levels(shape)
    elements = levels[1].size if len(levels) > 1 else levels[0].size
    alignment = shape.layout_or_default.tail_padding_alignment
    return math.ceil(elements / alignment) * alignment


def buffer_bytes(shape: Shape) -> int:
    return math.ceil(buffer_elements(shape) * slot_bits(shape) / 8)


def array_size_as_xla_writes_it(shape: Shape) -> int:
    """``ShapeUtil::ArraySize`` as XLA's C++ computes it (tiles without ``*``)."""
    layout = shape.layout_or_default
    if not layout.tiles:
        elements = math.prod(shape.dimensions)
    else:
        tile = layout.tiles[0].dimensions
        elements, dim = 1, 0
        while dim < len(tile):
            size = shape.dimensions[layout.minor_to_major[dim]] if dim < shape.rank else 1
            elements *= math.ceil(size / tile[len(tile) - dim - 1]) * tile[len(tile) - dim - 1]
            dim += 1
        while dim < shape.rank:
            elements *= shape.dimensions[layout.minor_to_major[dim]]
            dim += 1
    alignment = layout.tail_padding_alignment
    elements = math.ceil(elements / alignment) * alignment
    return math.ceil(elements * slot_bits(shape) / 8)


def element_bits(shape: Shape) -> dict[Index, range]:
    """Logical index → the bits of the buffer its slot holds."""
    width = slot_bits(shape)
    return {index: range(o * width, (o + 1) * width) for index, o in offsets(shape).items()}


def bitcast_reads(source: Shape, target: Shape) -> set[tuple[Index, Index]]:
    """Pairs (source element, target element) whose bits overlap."""
    target_bits = element_bits(target)
    return {
        (index, other)
        for index, held in element_bits(source).items()
        for other, there in target_bits.items()
        if held.start < there.stop and there.start < held.stop
    }


@dataclass(frozen=True)
class BitcastVerdict:
    outcome: Literal["proved", "refuted", "vacuous"]
    reason: str


def bitcast_verdict(operand: Shape, output: Shape) -> BitcastVerdict:
    if buffer_bytes(operand) != buffer_bytes(output):
        return BitcastVerdict("refuted", "bytes")
    for shape in (operand, output):
        if any(o >= buffer_elements(shape) for o in offsets(shape).values()):
            return BitcastVerdict("refuted", "past the buffer")
    held = [{b for bits in element_bits(s).values() for b in bits} for s in (operand, output)]
    if not held[1] <= held[0]:
        return BitcastVerdict("refuted", "bits")  # an output element reads padding
    if not held[0]:
        return BitcastVerdict("vacuous", "no elements")
    return BitcastVerdict("proved", "same bits")
