"""A gather whose indices are a constant folds into exact maps, judged
against numpy: the operand is ``arange`` (each value names its element),
the gather computed by numpy slicing with XLA's clamp (each start into
``[0, dim - slice size]``), and every output element must read exactly the
element numpy put there, in both directions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from verifier.analysis import ModuleMaps
from verifier.expr import IndexingMap, dim
from verifier.hlo import parse_module

_SHAPE = (6, 5)


def _module(rows: list[list[int]], sizes: tuple[int, int], components: int) -> str:
    literal = "{ " + ", ".join("{" + ", ".join(map(str, r)) + "}" for r in rows) + " }"
    if components == 1:
        numbers = "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}"
        output = f"f32[{len(rows)},{sizes[1]}]"
    else:
        numbers = "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}"
        output = f"f32[{len(rows)},{sizes[0]},{sizes[1]}]"
    return f"""
HloModule g
ENTRY main {{
  operand = f32[6,5] parameter(0)
  indices = s32[{len(rows)},{components}] constant({literal})
  ROOT gather = {output} gather(operand, indices), {numbers}, index_vector_dim=1, slice_sizes={{{sizes[0]},{sizes[1]}}}
}}"""


def _numpy_gather(rows: list[list[int]], sizes: tuple[int, int], components: int) -> np.ndarray:
    operand = np.arange(np.prod(_SHAPE)).reshape(_SHAPE)
    slices = []
    for row in rows:
        starts = [*row, 0][:2]
        clamped = [min(max(s, 0), n - k) for s, n, k in zip(starts, _SHAPE, sizes, strict=True)]
        window = operand[clamped[0] : clamped[0] + sizes[0], clamped[1] : clamped[1] + sizes[1]]
        slices.append(window[0] if components == 1 else window)
    return np.stack(slices)


def _points(maps: tuple[IndexingMap, ...]) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    found = set()
    for m in maps:
        assert not m.rt_vars and not m.range_vars, str(m)
        for point in m.domain_points():
            found.add((tuple(point[dim(k)] for k in range(len(m.dims))), m.evaluate(point)))
    return found


@pytest.mark.parametrize(
    ("rows", "sizes", "components"),
    [
        ([[4], [0], [9], [-2]], (1, 2), 1),
        ([[1], [1], [5]], (1, 5), 1),
        ([[0, 3], [4, -1], [2, 2], [7, 9]], (2, 3), 2),
        ([[5, 0]], (1, 1), 2),
    ],
)
def test_constant_indices_read_what_numpy_gathers(
    rows: list[list[int]], sizes: tuple[int, int], components: int
) -> None:
    module = parse_module(_module(rows, sizes, components))
    expected = _numpy_gather(rows, sizes, components)
    truth = {
        (index, divmod(int(expected[index]), _SHAPE[1]))
        for index in itertools.product(*(range(n) for n in expected.shape))
    }
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    ((_, operand), _) = view.o2i(view.outputs[0], simplified=False)
    assert isinstance(operand.indexing, tuple)
    assert _points(operand.indexing) == truth
    ((_, reached),) = view.i2o(view.operands[0], simplified=False)
    assert isinstance(reached.indexing, tuple)
    assert {(o, i) for i, o in _points(reached.indexing)} == truth
