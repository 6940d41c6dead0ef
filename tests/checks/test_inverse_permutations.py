"""The inverse check's proof without isl (a transpose, a copy: each map
permutes coordinates): wherever it answers, the two relations, enumerated
point by point in plain Python, are each other's inverse, and on every
pair of permutations of small boxes the check's outcome is the brute
force's."""

from __future__ import annotations

import itertools

from verifier.checks.cache import MemoryCache
from verifier.checks.inverse import _undo_each_other, check_inverse
from verifier.checks.verdict import Outcome
from verifier.expr import parse_map

Point = tuple[int, ...]


def _text(order: tuple[int, ...], box: tuple[int, ...]) -> str:
    dims = ", ".join(f"d{i}" for i in range(len(box)))
    results = ", ".join(f"d{k}" for k in order)
    domain = ", ".join(f"d{i} in [0, {size - 1}]" for i, size in enumerate(box))
    return f"({dims}) -> ({results}), domain: {domain}"


def _graph(order: tuple[int, ...], box: tuple[int, ...]) -> set[tuple[Point, Point]]:
    """{(x, y)}: y is x's coordinates in `order`, x in `box`."""
    return {
        (point, tuple(point[k] for k in order))
        for point in itertools.product(*(range(size) for size in box))
    }


def _cases() -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    cases = []
    for rank in (1, 2, 3):
        orders = list(itertools.permutations(range(rank)))
        boxes = [tuple(2 + (i + shift) % 2 for i in range(rank)) for shift in (0, 1)]
        for there, back in itertools.product(orders, orders):
            for box in boxes:
                image = tuple(box[k] for k in there)
                cases.append((there, box, back, image))
                if image != box:
                    cases.append((there, box, back, box))  # the wrong box back
    return cases


def test_inverse_of_permutations_agrees_with_brute_force() -> None:
    fast = 0
    for there, box, back, back_box in _cases():
        forward = parse_map(_text(there, box))
        backward = parse_map(_text(back, back_box))
        inverse = {(y, x) for x, y in _graph(back, back_box)}
        truth = _graph(there, box) == inverse
        if _undo_each_other((forward,), (backward,), len(box), len(back_box)):
            assert truth, (there, box, back, back_box)  # never a proof of a falsehood
            fast += 1
        else:
            assert not truth, (there, box, back, back_box)  # every permutation pair: no isl
        result = check_inverse((forward,), (backward,), len(box), len(back_box), MemoryCache())
        assert (result.outcome is Outcome.PROVED) == truth, (there, box, back, back_box)
    assert fast == 2 * (1 + 2 + 6)  # each inverse pair of permutations, on each box
