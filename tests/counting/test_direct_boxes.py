"""Boxes built straight from a map's expressions — sums of variables
(`exact._sum_boxes`: slices, windows), a flattened position's digits
(`reshapes.digit_boxes`: reshapes of slices, slices of reshapes) — and
domains cut by constraints their bounds imply, against points enumerated
in plain Python from the parameters (never from the maps); and judges
that fail when a bound of a closed form is wrong."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from verifier.counting import digits, exact
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


@settings(max_examples=60, deadline=None)
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
    real = digits.cells

    def one_too_many(a: int, b: int, c: int, values: tuple[int, int]) -> object:
        found = real(a, b, c, values)
        assert found
        return [found[0]._replace(upper=found[0].upper + 1), *found[1:]]

    assert all(digit_boxes(parse_map(_text(case))) for case in _FIXED)
    assert not any(map(_wrong, _FIXED))
    monkeypatch.setattr(digits, "cells", one_too_many)
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


# Results ``Σ a * v + c`` over variables of their own (``d`` dims, ``s``
# range variables; a symbol in no result only has to have a value).
_Sums = tuple[tuple[tuple[tuple[int, int], ...], int], ...]  # per result: ((var, a), ...), c


def _sums_text(sums: _Sums, sizes: tuple[int, ...], lowers: tuple[int, ...]) -> str:
    names = [f"d{k}" for k in range(3)] + [f"s{k}" for k in range(2)]
    results = [" + ".join([f"{names[v]} * {a}" for v, a in terms] + [str(c)]) for terms, c in sums]
    bounds = [
        f"{n} in [{lo}, {lo + size - 1}]" for n, lo, size in zip(names, lowers, sizes, strict=True)
    ]
    return f"(d0, d1, d2)[s0, s1] -> ({', '.join(results)}), domain: {', '.join(bounds)}"


def _sums_enumerated(
    sums: _Sums, sizes: tuple[int, ...], lowers: tuple[int, ...]
) -> set[tuple[int, ...]]:
    values = [range(lo, lo + size) for lo, size in zip(lowers, sizes, strict=True)]
    return {
        tuple(sum(a * point[v] for v, a in terms) + c for terms, c in sums)
        for point in itertools.product(*values)
    }


@st.composite
def sums(draw: st.DrawFn) -> tuple[_Sums, tuple[int, ...], tuple[int, ...]]:
    order = draw(st.permutations(range(5)))
    rank = draw(st.integers(1, 3))
    cuts = sorted(draw(st.lists(st.integers(0, 5), min_size=rank - 1, max_size=rank - 1)))
    groups = [
        order[a:b]
        for a, b in zip(
            [0, *cuts], [*cuts, draw(st.integers(cuts[-1] if cuts else 0, 5))], strict=True
        )
    ]
    coefficient = st.sampled_from([-3, -2, -1, 1, 2, 3, 5])
    result = tuple(
        (tuple((v, draw(coefficient)) for v in g), draw(st.integers(-2, 6))) for g in groups
    )
    sizes = tuple(draw(st.lists(st.integers(1, 4), min_size=5, max_size=5)))
    lowers = tuple(draw(st.lists(st.integers(-2, 2), min_size=5, max_size=5)))
    return result, sizes, lowers


@settings(max_examples=60, deadline=None)
@given(sums())
def test_sum_boxes_read_exactly_the_enumerated_elements(
    case: tuple[_Sums, tuple[int, ...], tuple[int, ...]],
) -> None:
    text = _sums_text(*case)
    boxes = image_boxes.__wrapped__(parse_map(text))
    if boxes is not None:  # gaps past the piece limit: not boxes, never wrong
        assert _points(boxes) == _sums_enumerated(*case), text


_SLICE = (
    "(d0, d1)[s0] -> (d0 * 2 + 1, d1 * 3 + s0), domain: d0 in [0, 4], d1 in [0, 3], s0 in [0, 2]"
)


def test_a_wrong_count_of_a_sum_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    indexing_map = parse_map(_SLICE)
    expected = {(d0 * 2 + 1, d1 * 3 + s0) for d0 in range(5) for d1 in range(4) for s0 in range(3)}
    assert exact._sum_boxes(indexing_map) is not None
    boxes = image_boxes.__wrapped__(indexing_map)
    assert boxes is not None
    assert _points(boxes) == expected
    real = exact._sum_values

    def one_more(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        assert found
        return [found[0]._replace(count=found[0].count + 1), *found[1:]]

    monkeypatch.setattr(exact, "_sum_values", one_more)
    wrong = image_boxes.__wrapped__(indexing_map)
    assert wrong is not None
    assert _points(wrong) != expected


_ONE_COMPOSITION = """
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
fused {
  p = f32[6,10] parameter(0)
  s = f32[3,5] slice(p), slice={[1:6:2], [0:10:2]}
  ROOT r = f32[15] reshape(s)
}
ENTRY e {
  p0 = f32[6,10] parameter(0)
  z = f32[] constant(0)
  w = f32[3,2] reduce-window(p0, z), window={size=2x3 stride=2x3 rhs_dilate=1x2}, to_apply=add
  f = f32[15] fusion(p0), kind=kLoop, calls=fused
  ROOT t = (f32[3,2], f32[15]) tuple(w, f)
}
"""


@pytest.mark.parametrize("name", ["w", "f"])
def test_closed_forms_need_no_relation_simplified(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An op's own maps and a small fusion's are counted from their raw
    composition: the simplified maps are never composed, and the counts
    are the interpreter's."""
    from verifier.analysis import ModuleMaps, module_maps
    from verifier.counting.utilization import instruction_utilization
    from verifier.hlo import parse_module

    from .judge import judge

    def refuse(*_: object) -> None:
        raise AssertionError("the simplified maps were composed")

    module = parse_module(_ONE_COMPOSITION)
    instruction = module.entry.instruction(name)
    monkeypatch.setattr(module_maps, "simplify_relation", refuse)
    (row,) = instruction_utilization(ModuleMaps(module), module.entry, instruction).operands[:1]
    judged = judge(module, instruction)
    assert (row.distinct_read, row.reads) == (judged.distinct[0], judged.pairs[0])
