"""The boxes a flattened position's digits read (`reshapes.digit_boxes`) and
domains cut by constraints their bounds imply, against points enumerated
in plain Python from the parameters (never from the maps); and a judge
that fails when a bound of the closed form is wrong."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from verifier.counting import reshapes
from verifier.counting.exact import closed_form_domain, count_image, image_boxes
from verifier.counting.reshapes import digit_boxes
from verifier.expr import StridedBox, parse_map

# (a, b, c, lower, upper, rows) of ``X = a * v + b``, ``v`` in [lower,
# upper], results ``(α * (X floordiv c) + β, …)`` or ``… mod c`` by `rows`.
_Case = tuple[int, int, int, int, int, tuple[tuple[str, int, int], ...]]


def _text(case: _Case) -> str:
    a, b, c, lower, upper, rows = case
    parts = [
        str(beta)
        if read == "C"
        else f"(({'d0' if a == 1 else f'd0 * {a}'} + {b}) {read} {c}) * {alpha} + {beta}"
        for read, alpha, beta in rows
    ]
    return f"(d0) -> ({', '.join(parts)}), domain: d0 in [{lower}, {upper}]"


def _enumerated(case: _Case) -> set[tuple[int, ...]]:
    a, b, c, lower, upper, rows = case
    read = set()
    for v in range(lower, upper + 1):
        x = a * v + b
        values = {"floordiv": x // c, "mod": x % c, "C": 0}
        read.add(tuple(alpha * values[kind] + beta for kind, alpha, beta in rows))
    return read


def _points(boxes: tuple[StridedBox, ...]) -> set[tuple[int, ...]]:
    return {
        point
        for box in boxes
        for point in itertools.product(
            *(range(s.first, s.first + s.step * s.count, s.step) for s in box.sides)
        )
    }


def _wrong(case: _Case) -> bool:
    """Whether the boxes read other elements than the enumeration (those
    of the general split when the map, once parsed and folded, is not of
    `digit_boxes`'s form: ``(d0 * 2) floordiv 2`` is ``d0``)."""
    indexing_map = parse_map(_text(case))
    boxes = digit_boxes(indexing_map) or image_boxes.__wrapped__(indexing_map)
    assert boxes is not None, _text(case)  # each of F and M read once: boxes
    return _points(boxes) != _enumerated(case)


@st.composite
def cases(draw: st.DrawFn) -> _Case:
    a, c = draw(st.integers(1, 7)), draw(st.integers(2, 12))
    b = draw(st.integers(-5, 20))
    lower = draw(st.integers(-3, 30))
    upper = draw(st.integers(lower, lower + 60))
    read = st.sampled_from(["floordiv", "mod", "C"])
    alpha = st.integers(-3, 3).filter(bool)
    rows = draw(st.lists(st.tuples(read, alpha, st.integers(-4, 9)), min_size=1, max_size=3))
    if all(kind == "C" for kind, _, _ in rows):
        rows[0] = ("mod", *rows[0][1:])
    # F (M) in two results reads a diagonal: not a box, left to isl.
    reads = [kind for kind, _, _ in rows if kind != "C"]
    assume(len(reads) == len(set(reads)))
    return a, b, c, lower, upper, tuple(rows)


@settings(max_examples=100, deadline=None)
@given(cases())
def test_digit_boxes_read_exactly_the_enumerated_elements(case: _Case) -> None:
    assert not _wrong(case), _text(case)


_FIXED: list[_Case] = [
    (1, 0, 7, 0, 40, (("floordiv", 2, 1), ("mod", 2, 0))),  # a reshape of a stride-2 slice
    (3, 0, 10, 0, 13, (("floordiv", 1, 0), ("mod", 1, 0))),  # every third of a reshape
    (3, 2, 8, 5, 50, (("mod", -1, 9), ("floordiv", 1, 0))),
    (4, 1, 6, 0, 29, (("floordiv", 1, 0), ("C", 0, 3), ("mod", 1, 0))),
]


@pytest.mark.parametrize("case", _FIXED, ids=_text)
def test_counts_of_digit_maps_are_the_enumerated_counts(case: _Case) -> None:
    read = _enumerated(case)
    dims = [max(point[k] for point in read) + 1 for k in range(len(case[5]))]
    if min(min(point) for point in read) >= 0:
        count = count_image([parse_map(_text(case))], dims)
        assert count == (len(read), "closed form")


def test_a_wrong_bound_of_a_cell_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = reshapes.cells

    def one_too_many(a: int, b: int, c: int, values: tuple[int, int]) -> object:
        found = real(a, b, c, values)
        assert found
        return [found[0]._replace(upper=found[0].upper + 1), *found[1:]]

    assert all(digit_boxes(parse_map(_text(case))) for case in _FIXED)
    assert not any(map(_wrong, _FIXED))
    monkeypatch.setattr(reshapes, "cells", one_too_many)
    assert all(map(_wrong, _FIXED))


def test_other_maps_are_left_to_the_general_split() -> None:
    for text in [
        "(d0, d1) -> (d0 floordiv 4, d1), domain: d0 in [0, 9], d1 in [0, 3]",
        "(d0) -> (d0 floordiv 4, d0 mod 3), domain: d0 in [0, 9]",
        "(d0) -> (d0 floordiv 4, d0), domain: d0 in [0, 9]",
        "(d0) -> (d0 floordiv 4, (d0 floordiv 4) * 2), domain: d0 in [0, 9]",
        "(d0) -> (d0 * 2), domain: d0 in [0, 9]",
        "(d0) -> (d0 floordiv 4), domain: d0 in [0, 9], d0 mod 2 in [0, 0]",
    ]:
        assert digit_boxes(parse_map(text)) is None, text


# A reduce-window's reads as its rule writes them: window ``(size, stride,
# dilation)`` per dimension over an operand of `extent`, with the clip of
# each result to the operand (``d1 * 3 + s1 * 2 in [0, 139]``) that the
# bounds may imply, or not (a window hanging past the edge).
_Window = tuple[tuple[int, int, int, int], ...]  # (outputs, size, stride, dilation) per dim


def _window_text(window: _Window, extent: int) -> str:
    dims = ", ".join(f"d{k}" for k in range(len(window)))
    symbols = ", ".join(f"s{k}" for k in range(len(window)))
    results = [f"d{k} * {stride} + s{k} * {dil}" for k, (_, _, stride, dil) in enumerate(window)]
    bounds = [f"d{k} in [0, {n - 1}]" for k, (n, _, _, _) in enumerate(window)]
    bounds += [f"s{k} in [0, {size - 1}]" for k, (_, size, _, _) in enumerate(window)]
    clips = [f"{r} in [0, {extent - 1}]" for r in results]
    return f"({dims})[{symbols}] -> ({', '.join(results)}), domain: {', '.join(bounds + clips)}"


def _window_points(window: _Window, extent: int) -> int:
    """Points ``(d, s)`` whose read is inside the operand, enumerated."""
    per_dim = [
        sum(1 for d in range(n) for s in range(size) if 0 <= d * stride + s * dil < extent)
        for n, size, stride, dil in window
    ]
    total = 1
    for count in per_dim:
        total *= count
    return total


_WINDOWS: list[tuple[_Window, int]] = [
    (((35, 2, 2, 1), (46, 3, 3, 2)), 140),  # the bounds imply both clips
    (((36, 2, 2, 1), (47, 3, 3, 2)), 140),  # each window's last reads hang past the edge
    (((4, 3, 1, 1),), 5),
]


@pytest.mark.parametrize(("window", "extent"), _WINDOWS)
def test_domains_cut_by_implied_constraints_count_their_points(
    window: _Window, extent: int
) -> None:
    points = closed_form_domain(parse_map(_window_text(window, extent)))
    expected = _window_points(window, extent)
    # A clip the bounds do not imply couples d and s: not a box, unknown
    # here (counted by cases or isl), never a wrong number.
    assert points in (expected, None)
    if all((n - 1) * st + (sz - 1) * dl < extent for n, sz, st, dl in window):
        assert points == expected


def test_a_constraint_never_satisfied_leaves_no_point() -> None:
    text = "(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 3], s0 in [0, 1], d0 * 2 + s0 in [9, 20]"
    assert closed_form_domain(parse_map(text)) == 0
