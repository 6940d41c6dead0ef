"""Reshape as linearise-then-delinearise, one group of dimensions at a time.

Dimensions are split into the smallest consecutive groups whose sizes have
equal products on both sides (size-1 dimensions join a neighbouring group).
Within a group, an index is linearised row-major and delinearised into the
other side's dimensions, so ``f32[32] reshape(f32[4,8])`` gives
``(d0) -> (d0 floordiv 8, d0 mod 8)`` and the opposite direction
``(d0, d1) -> (d0 * 8 + d1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from verifier.expr import Expr, const


def dimension_groups(source: Sequence[int], target: Sequence[int]) -> list[tuple[range, range]]:
    """Pairs of index ranges ``(source_dims, target_dims)`` with equal products.

    >>> dimension_groups([4, 8, 12], [32, 3, 4])
    [(range(0, 2), range(0, 1)), (range(2, 3), range(1, 3))]
    """
    if prod(source) != prod(target):
        raise ValueError(f"reshape of {list(source)} to {list(target)} changes the size")
    if prod(source) == 0:
        return [(range(len(source)), range(len(target)))]
    groups: list[tuple[range, range]] = []
    i = j = 0
    while i < len(source) or j < len(target):
        start_i, start_j = i, j
        size_i = size_j = 1
        if i < len(source):
            size_i, i = source[i], i + 1
        if j < len(target):
            size_j, j = target[j], j + 1
        while size_i != size_j:  # equal total products guarantee termination
            if size_i < size_j:
                size_i, i = size_i * source[i], i + 1
            else:
                size_j, j = size_j * target[j], j + 1
        while i < len(source) and source[i] == 1:
            i += 1
        while j < len(target) and target[j] == 1:
            j += 1
        groups.append((range(start_i, i), range(start_j, j)))
    return groups


def reshape_indices(
    indices: Sequence[Expr], source: Sequence[int], target: Sequence[int]
) -> list[Expr]:
    """The target-shape indices of the element at `indices` of the source shape.

    >>> from verifier.expr import dim
    >>> [str(e) for e in reshape_indices([dim(0)], [32], [4, 8])]
    ['d0 floordiv 8', 'd0 mod 8']
    """
    if prod(source) == 0:
        return [const(0)] * len(target)  # no elements: the map's domain is empty
    results: list[Expr] = []
    for source_dims, target_dims in dimension_groups(source, target):
        linear: Expr = const(0)
        for k in source_dims:
            if source[k] != 1:  # a size-1 dimension's index is always 0
                linear = linear * source[k] + indices[k]
        first = True
        for position, k in enumerate(target_dims):
            if target[k] == 1:
                results.append(const(0))
                continue
            stride = prod(target[m] for m in target_dims[position + 1 :])
            component = linear // stride
            results.append(component if first else component % target[k])
            first = False
    return results
