"""A kernel tap that meets only padding (or a dilation hole) for some
output: two readings, each judged by numpy with a NaN in that tap.

* XLA's evaluator skips the tap (the default maps): the NaN reaches only
  the outputs where the tap meets a real lhs element;
* "fill the padding with zeros, then multiply" (``padding_multiplied``):
  ``0 * NaN`` is NaN, so it reaches every output whose window holds the tap.
"""

from __future__ import annotations

import numpy as np
import pytest

from verifier.expr import IndexingMap, dim
from verifier.hlo import parse_module
from verifier.indexing.convolution import Convolution, kernel_to_output, output_to_input

_LHS, _TAPS = 4, 3


def _conv(window: str, out: int) -> Convolution:
    module = parse_module(f"""
HloModule c
ENTRY main {{
  lhs = f32[1,{_LHS},1] parameter(0)
  rhs = f32[{_TAPS},1,1] parameter(1)
  ROOT conv = f32[1,{out},1] convolution(lhs, rhs), window={{{window}}}, dim_labels=b0f_0io->b0f
}}""")
    root = module.entry.root
    return Convolution.of(root, (1, _LHS, 1), (_TAPS, 1, 1), (1, out, 1))


def _numpy(tap: int, stride: int, pad: tuple[int, int], lhs_d: int, rhs_d: int, zeros: bool):
    """Which outputs become NaN with a NaN at kernel `tap` (lhs all ones)."""
    padded_size = (_LHS - 1) * lhs_d + 1 + pad[0] + pad[1]
    padded = np.zeros(padded_size)
    real = np.zeros(padded_size, dtype=bool)
    padded[pad[0] : pad[0] + (_LHS - 1) * lhs_d + 1 : lhs_d] = 1.0
    real[pad[0] : pad[0] + (_LHS - 1) * lhs_d + 1 : lhs_d] = True
    kernel = np.ones(_TAPS)
    kernel[tap] = np.nan
    span = (_TAPS - 1) * rhs_d + 1
    out = (padded_size - span) // stride + 1
    result = np.zeros(out)
    with np.errstate(invalid="ignore"):
        for x in range(out):
            for s in range(_TAPS):
                p = x * stride + s * rhs_d
                if zeros or real[p]:
                    result[x] += padded[p] * kernel[s]
    return {x for x in range(out) if np.isnan(result[x])}, out


def _points(m: IndexingMap) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {
        (tuple(p[dim(k)] for k in range(len(m.dims))), m.evaluate(p)) for p in m.domain_points()
    }


@pytest.mark.parametrize(
    ("stride", "pad", "lhs_d", "rhs_d"),
    [(1, (2, 2), 1, 1), (2, (1, 3), 1, 1), (1, (1, 1), 2, 1), (1, (3, 0), 1, 2)],
)
@pytest.mark.parametrize("zeros", [False, True])
def test_a_nan_tap_reaches_what_each_map_says(
    stride: int, pad: tuple[int, int], lhs_d: int, rhs_d: int, zeros: bool
) -> None:
    _, out = _numpy(0, stride, pad, lhs_d, rhs_d, zeros)
    window = (
        f"size={_TAPS} stride={stride} pad={pad[0]}_{pad[1]} lhs_dilate={lhs_d} rhs_dilate={rhs_d}"
    )
    conv = _conv(window, out)
    (_, kernel) = output_to_input(conv, padding_multiplied=zeros)
    assert isinstance(kernel, tuple)
    read = set().union(*(_points(m) for m in kernel))
    reached = _points(kernel_to_output(conv, padding_multiplied=zeros))
    differs = False
    for tap in range(_TAPS):
        nan, _ = _numpy(tap, stride, pad, lhs_d, rhs_d, zeros)
        expected = {((0, x, 0), (tap, 0, 0)) for x in nan}
        assert {pair for pair in read if pair[1] == (tap, 0, 0)} == expected
        assert {(o, k) for k, o in reached if k == (tap, 0, 0)} == expected
        differs |= nan != _numpy(tap, stride, pad, lhs_d, rhs_d, not zeros)[0]
    assert differs  # each case has a tap meeting only padding for some output
