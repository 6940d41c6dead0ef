"""Exact utilization counting against numpy brute force (docs/ARCHITECTURE.md, targets: ≥ 1,000×
faster at 10⁷ elements for every common shape; 10¹² elements in ≤ 50 ms).

Every kind reads a ``[n, 2n]`` operand (about ``2 n²`` elements) through the
output→input maps XLA's ops give it (`verifier maps` prints the same ones):

* **strided box** — a slice with strides, ``(d0 * 2, d1 * 3 + 1)``;
* **union** — a stride-2 slice beside a pooling window reading two of every
  three columns, ``(d0, d1 * 2)`` ∪ ``(d0, d1 * 3 + s0)``;
* **pad** — a pad cutting the first row and putting one element between
  columns, ``(d0 + 1, d1 floordiv 2)`` where ``d1 mod 2 = 0``;
* **reshape of slice** — a stride-2 slice flattened,
  ``((d0 floordiv H) * 2 + 1, (d0 mod H) * 2)``;
* **slice of reshape** — the operand flattened, every third element,
  ``((d0 * 3) floordiv 2n, (d0 * 3) mod 2n)``;
* **strided window** — a reduce-window of stride 3 and window dilation 2,
  ``(d0 * 2 + s0, d1 * 3 + s1 * 2)``;
* **dilated window** — a window over the input dilated by 2 and padded
  (a transposed convolution's read), ``(d0, (d1 * 2 + s1 - 2) floordiv 2)``
  where ``(d1 * 2 + s1 - 2) mod 2 = 0``.

Our answer is `verifier.counting.exact.count_image` on the maps (its caches
cleared before every call, so each call does the whole work).  numpy
evaluates the same maps on every point of their domains, a block of rows at
a time, and marks a boolean array of the operand's size (the best numpy
brute force); both must agree.  CPU seconds (the machine is
shared), least of several runs, then our time and method at 10¹⁰ and 10¹²
elements, where numpy cannot go.

    python benchmarks/utilization.py [--max-elements 1e7]   # about a minute
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable

import numpy as np

from verifier.counting.exact import Count, count_image, image_boxes
from verifier.errors import VerifierError
from verifier.expr import IndexingMap, parse_map
from verifier.expr.evaluate import evaluate


def _kinds(n: int) -> dict[str, list[str]]:
    """Each kind's maps (text) reading a ``[n, 2n]`` operand."""
    w = 2 * n
    half = n // 2
    return {
        "strided box": [
            f"(d0, d1) -> (d0 * 2, d1 * 3 + 1), domain: d0 in [0, {half - 1}], "
            f"d1 in [0, {(w - 2) // 3}]"
        ],
        "union": [
            f"(d0, d1) -> (d0, d1 * 2), domain: d0 in [0, {n - 1}], d1 in [0, {n - 1}]",
            f"(d0, d1)[s0] -> (d0, d1 * 3 + s0), domain: d0 in [0, {n - 1}], "
            f"d1 in [0, {(w - 2) // 3}], s0 in [0, 1]",
        ],
        "pad": [
            f"(d0, d1) -> (d0 + 1, d1 floordiv 2), domain: d0 in [0, {n - 2}], "
            f"d1 in [0, {2 * w - 2}], d1 mod 2 in [0, 0]"
        ],
        "reshape of slice": [
            f"(d0) -> ((d0 floordiv {n}) * 2 + 1, (d0 mod {n}) * 2), "
            f"domain: d0 in [0, {half * n - 1}]"
        ],
        "slice of reshape": [
            f"(d0) -> ((d0 * 3) floordiv {w}, (d0 * 3) mod {w}), "
            f"domain: d0 in [0, {(n * w - 1) // 3}]"
        ],
        "strided window": [
            f"(d0, d1)[s0, s1] -> (d0 * 2 + s0, d1 * 3 + s1 * 2), domain: "
            f"d0 in [0, {half - 1}], d1 in [0, {(w - 5) // 3}], s0 in [0, 1], s1 in [0, 2]"
        ],
        "dilated window": [
            f"(d0, d1)[s0] -> (d0, (d1 * 2 + s0 - 2) floordiv 2), domain: "
            f"d0 in [0, {n - 1}], d1 in [0, {w}], s0 in [0, 2], "
            f"d1 * 2 + s0 - 2 in [0, {2 * w - 2}], (d1 * 2 + s0 - 2) mod 2 in [0, 0]"
        ],
    }


def _numpy_marks(maps: list[IndexingMap], dims: tuple[int, int]) -> int:
    """Every point of every map's domain evaluated (numpy, open grids,
    blocks of the first variable), its element marked."""
    marked = np.zeros(dims[0] * dims[1], dtype=bool)
    for indexing_map in maps:
        variables = [*indexing_map.dims, *indexing_map.range_vars]
        names = indexing_map.all_variables
        per_point = max(1, int(np.prod([v.bounds.size for v in variables[1:]])))
        block = max(1, 4_000_000 // per_point)
        first = variables[0].bounds
        for start in range(first.lower, first.upper + 1, block):
            stop = min(first.upper + 1, start + block)
            grids = np.ix_(
                np.arange(start, stop),
                *(np.arange(v.bounds.lower, v.bounds.upper + 1) for v in variables[1:]),
            )
            values = dict(zip(names, grids, strict=True))
            keep = np.ones(np.broadcast_shapes(*(g.shape for g in grids)), dtype=bool)
            for expr, interval in indexing_map.constraints:
                value = evaluate(expr, values)  # type: ignore[arg-type]
                keep &= (value >= interval.lower) & (value <= interval.upper)
            rows, columns = (
                np.broadcast_to(evaluate(r, values), keep.shape)  # type: ignore[arg-type]
                for r in indexing_map.results
            )
            keep &= (rows >= 0) & (rows < dims[0]) & (columns >= 0) & (columns < dims[1])
            marked[(rows * dims[1] + columns)[keep]] = True
    return int(np.count_nonzero(marked))


def _ours(maps: list[IndexingMap], dims: tuple[int, int]) -> Count:
    image_boxes.cache_clear()
    return count_image(maps, dims)


def _cpu_seconds(function: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def _per_call(function: Callable[[], object], calls: int = 200) -> float:
    """CPU seconds of one call, from `calls` in a row (least of 3)."""
    return _cpu_seconds(lambda: [function() for _ in range(calls)], 3) / calls


def _setup(kind: str, elements: float) -> tuple[list[IndexingMap], tuple[int, int]]:
    n = int((elements / 2) ** 0.5)
    return [parse_map(text) for text in _kinds(n)[kind]], (n, 2 * n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-elements", type=float, default=1e7)
    args = parser.parse_args()
    print(
        f"{'kind':<18}{'elements':>13}{'ours µs':>10}{'numpy ms':>10}{'ratio':>9}"
        f"  {'method':<12}count"
    )
    for kind in _kinds(4):
        for elements in (1e6, 1e7):
            if elements > args.max_elements:
                break
            maps, dims = _setup(kind, elements)
            ours = _ours(maps, dims)
            expected = _numpy_marks(maps, dims)
            assert ours.value == expected, (kind, ours.value, expected)
            ours_s = _per_call(
                functools.partial(_ours, maps, dims), 2 if ours.method == "isl" else 200
            )
            numpy_s = _cpu_seconds(functools.partial(_numpy_marks, maps, dims), 3)
            print(
                f"{kind:<18}{dims[0] * dims[1]:>13,}{ours_s * 1e6:>10.0f}{numpy_s * 1e3:>10.1f}"
                f"{numpy_s / ours_s:>9,.0f}  {ours.method:<12}{expected:,}"
            )
    print(f"\n{'kind':<18}{'elements':>20}{'ours ms':>10}  {'method':<12}count")
    for kind in _kinds(4):
        for elements in (1e10, 1e12):
            maps, dims = _setup(kind, elements)
            try:
                ours = _ours(maps, dims)
            except VerifierError as error:  # counting's unknown, with its reason
                print(f"{kind:<18}{dims[0] * dims[1]:>20,}{'':>10}  unknown ({error})")
                continue
            ours_s = _per_call(functools.partial(_ours, maps, dims), 20)
            print(
                f"{kind:<18}{dims[0] * dims[1]:>20,}{ours_s * 1e3:>10.3f}  "
                f"{ours.method:<12}{ours.value:,}"
            )


if __name__ == "__main__":
    main()
