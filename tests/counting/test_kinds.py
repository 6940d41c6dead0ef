"""The kinds `benchmarks/utilization.py` times, at every small size: the
exact counts against the elements the ops read, enumerated in plain Python
from the ops' parameters (a set of index tuples; no maps evaluated), and
each kind in closed form at 10¹² elements too (no element counting at any
size)."""

from __future__ import annotations

import itertools

import pytest

from benchmarks.utilization import kind_maps
from verifier.counting.exact import count_domain, count_image
from verifier.expr import IndexingMap, VarKind, parse_map

Element = tuple[int, int]


def _maps(kind: str, n: int) -> list[str]:
    """The benchmark's maps of `kind` reading a ``[n, 2n]`` operand."""
    return kind_maps(n)[kind]


def _read(kind: str, n: int) -> set[Element]:
    """The elements of the ``[n, 2n]`` operand the op of `kind` reads."""
    w, half = 2 * n, n // 2
    match kind:
        case "strided box":  # slice [0:n:2], [1:w:3]
            return {(2 * i, 3 * j + 1) for i in range(half) for j in range((w - 2) // 3 + 1)}
        case "union":  # slice [:, 0:w:2] beside a 1x2 window of stride 3
            sliced = {(i, 2 * j) for i in range(n) for j in range(n)}
            pooled = {
                (i, 3 * j + s) for i in range(n) for j in range((w - 2) // 3 + 1) for s in (0, 1)
            }
            return sliced | pooled
        case "pad":  # low padding -1 on rows, one interior element between columns
            return {(o + 1, c // 2) for o in range(n - 1) for c in range(2 * w - 1) if c % 2 == 0}
        case "reshape of slice":  # slice [1:n:2], [0:w:2], flattened
            return {(2 * (f // n) + 1, 2 * (f % n)) for f in range(half * n)}
        case "slice of reshape":  # flattened, every third element
            return {(f // w, f % w) for f in range(0, n * w, 3)}
        case "strided window":  # window 2x3, strides 2x3, window dilation 1x2
            return {
                (2 * i + s, 3 * j + 2 * t)
                for i in range(half)
                for j in range((w - 5) // 3 + 1)
                for s, t in itertools.product(range(2), range(3))
            }
        case "dilated window":  # window 1x3, stride 2, input dilated by 2, padded by 2
            return {
                (i, (2 * j + s - 2) // 2)
                for i in range(n)
                for j in range(w + 1)
                for s in range(3)
                if 0 <= 2 * j + s - 2 <= 2 * w - 2 and (2 * j + s) % 2 == 0
            }
    raise AssertionError(kind)


def _domain_points(indexing_map: IndexingMap) -> int:
    """The (dims, range variables) points with some runtime value: loops."""
    return len(
        {
            tuple(v for k, v in point.items() if k.kind is not VarKind.RT)
            for point in indexing_map.domain_points()
        }
    )


KINDS = [
    "strided box",
    "union",
    "pad",
    "reshape of slice",
    "slice of reshape",
    "strided window",
    "dilated window",
]


@pytest.mark.parametrize("kind", KINDS)
def test_every_small_size_counts_what_the_op_reads(kind: str) -> None:
    for n in range(3, 11):
        maps = [parse_map(text) for text in _maps(kind, n)]
        read = _read(kind, n)
        assert all(0 <= r < n and 0 <= c < 2 * n for r, c in read)
        count = count_image(maps, (n, 2 * n))
        assert (count.value, count.method) == (len(read), "closed form"), n
        # In a larger array nothing is clipped: an element read past the
        # operand's edge would count.
        assert count_image(maps, (n + 5, 2 * n + 5)).value == len(read), n
        for indexing_map in maps:
            assert count_domain(indexing_map).value == _domain_points(indexing_map), n


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_a_closed_form_at_a_trillion_elements(kind: str) -> None:
    n = 707_106
    maps = [parse_map(text) for text in _maps(kind, n)]
    assert count_image(maps, (n, 2 * n)).method == "closed form"
    for indexing_map in maps:
        assert count_domain(indexing_map).method == "closed form"


def test_runtime_values_are_existential_in_a_closed_form_domain() -> None:
    """A point of the dims and range variables counts once however many
    runtime values make it feasible (a gather row read at an even offset)."""
    for text in (
        "(d0){rt0} -> (d0), domain: d0 in [0, 9], rt0 in [0, 7], rt0 mod 2 in [0, 0]",
        "(d0)[s0]{rt0} -> (d0 * 4 + s0), domain: d0 in [0, 5], s0 in [0, 3], rt0 in [0, 9], "
        "(rt0 + s0) mod 3 in [0, 0]",
    ):
        indexing_map = parse_map(text)
        assert count_domain(indexing_map).value == _domain_points(indexing_map), text
