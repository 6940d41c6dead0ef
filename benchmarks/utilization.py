"""Exact utilization counting against numpy brute force (target, docs/ARCHITECTURE.md: ≥ 1,000×
faster at 10⁷ elements; 10¹² elements in ≤ 50 ms).

The question at every size: how many elements of a ``[n, 2n]`` operand do
two overlapping reads touch — a stride-2 slice ``(d0, d1) -> (d0, d1 * 2)``
and a pooling window ``(d0, d1)[s0] -> (d0, d1 * 3 + s0)`` with s0 ∈ [0, 1]
(reading two of every three columns)?  Our answer is the closed form
(strided boxes, inclusion–exclusion).  numpy materialises every index read,
a block of rows at a time (rows of different blocks never meet), and counts
them two ways: ``np.unique`` (the brute force the target names) and, faster,
marking a boolean array of the operand's size.  All must agree; the script
prints the times and ratios, then our time (and isl's ``count_val``, for
reference) at 10¹² elements.

    python benchmarks/utilization.py [--max-elements 1e8]   # a few minutes (np.unique)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np

from verifier.bridges.isl import count_image as isl_count_image
from verifier.counting.exact import count_image
from verifier.expr.indexing_map import IndexingMap
from verifier.expr.parser import parse_map


def _maps(n: int) -> tuple[list[IndexingMap], tuple[int, int]]:
    """The two reads of a ``[n, 2n]`` operand (about ``2 n²`` elements)."""
    width = 2 * n
    slice_ = parse_map(f"(d0, d1) -> (d0, d1 * 2), domain: d0 in [0, {n - 1}], d1 in [0, {n - 1}]")
    windows = (width - 2) // 3 + 1
    pooled = parse_map(
        f"(d0, d1)[s0] -> (d0, d1 * 3 + s0), domain: d0 in [0, {n - 1}], "
        f"d1 in [0, {windows - 1}], s0 in [0, 1]"
    )
    return [slice_, pooled], (n, width)


def _index_blocks(n: int) -> Iterator[np.ndarray]:
    """The linear indices both maps read, one block of rows at a time."""
    width = 2 * n
    block = max(1, 4_000_000 // width)
    columns_slice = np.arange(n) * 2
    windows = (width - 2) // 3 + 1
    columns_pool = (np.arange(windows)[:, None] * 3 + np.arange(2)[None, :]).ravel()
    columns = np.concatenate([columns_slice, columns_pool])
    for start in range(0, n, block):
        rows = np.arange(start, min(n, start + block))[:, None] * width
        yield (rows + columns[None, :]).ravel()


def _numpy_unique(n: int) -> int:
    return sum(int(np.unique(indices).size) for indices in _index_blocks(n))


def _numpy_marks(n: int) -> int:
    marked = np.zeros(n * 2 * n, dtype=bool)
    for indices in _index_blocks(n):
        marked[indices] = True
    return int(np.count_nonzero(marked))


def _best_time(function: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-elements", type=float, default=1e8)
    args = parser.parse_args()
    print(
        f"{'elements':>14}{'ours ms':>9}{'unique ms':>11}{'ratio':>9}"
        f"{'marks ms':>10}{'ratio':>8}  count"
    )
    for exponent in (6, 7, 8):
        elements = 10**exponent
        if elements > args.max_elements:
            break
        n = int((elements / 2) ** 0.5)
        maps, dims = _maps(n)
        ours = count_image(maps, dims)
        assert ours.method == "closed form"
        expected = _numpy_unique(n)
        assert ours.value == expected == _numpy_marks(n), (ours.value, expected)
        repeat = 1 if exponent == 8 else 3
        ours_s = _best_time(lambda m=maps, d=dims: count_image(m, d), 20)
        unique_s = _best_time(lambda k=n: _numpy_unique(k), 1)  # seconds to minutes
        marks_s = _best_time(lambda k=n: _numpy_marks(k), repeat)
        print(
            f"{n * 2 * n:>14,}{ours_s * 1e3:>9.3f}{unique_s * 1e3:>11.1f}"
            f"{unique_s / ours_s:>9,.0f}{marks_s * 1e3:>10.1f}{marks_s / ours_s:>8,.0f}"
            f"  {expected:,}"
        )
    n = int((1e12 / 2) ** 0.5)
    maps, dims = _maps(n)
    ours_s = _best_time(lambda: count_image(maps, dims), 20)
    value = count_image(maps, dims).value
    start = time.perf_counter()
    isl_value = isl_count_image(maps, dims)
    isl_s = time.perf_counter() - start
    # isl scans the rows; at 10^12 elements its 10 million operations run
    # out, which is `unknown`, never a different count.
    assert isl_value in (value, None), (isl_value, value)
    isl_answer = "unknown (budget spent)" if isl_value is None else "the same count"
    print(
        f"\n{n * 2 * n:,} elements: ours {ours_s * 1e3:.3f} ms (target ≤ 50 ms), "
        f"isl count_val {isl_s * 1e3:.0f} ms ({isl_s / ours_s:,.0f}× ours, {isl_answer}); "
        f"count {value:,}"
    )


if __name__ == "__main__":
    main()
