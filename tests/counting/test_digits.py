"""Closed forms of the images XLA's reshapes of slices, pads and strided or
dilated windows read, against the elements those ops read, enumerated in
plain Python from the ops' parameters (not from the maps)."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.counting.digits import piece_of, without_divisions
from verifier.counting.exact import Count, count_image
from verifier.expr import IndexingMap, parse_map

_EXAMPLES = settings(max_examples=150, deadline=None)


def _check(
    maps: list[IndexingMap], dims: tuple[int, ...], expected: AbstractSet[tuple[int, ...]]
) -> None:
    count = count_image(maps, dims)
    assert count.method == "closed form", [str(m) for m in maps]
    assert count.value == len(expected), [str(m) for m in maps]


@st.composite
def reshaped_slices(draw: st.DrawFn) -> tuple[str, tuple[int, int], set[tuple[int, int]]]:
    """A strided slice ``[r, c]`` of a ``[R, C]`` operand, flattened, then
    every ``k``-th element from ``f`` (``count`` of them)."""
    rows, columns = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    o0, o1 = draw(st.integers(0, rows - 1)), draw(st.integers(0, columns - 1))
    s0, s1 = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    r, c = (rows - 1 - o0) // s0 + 1, (columns - 1 - o1) // s1 + 1
    k = draw(st.integers(1, 4))
    f = draw(st.integers(0, r * c - 1))
    count = draw(st.integers(1, (r * c - 1 - f) // k + 1))
    text = (
        f"(d0) -> (((d0 * {k} + {f}) floordiv {c}) * {s0} + {o0}, "
        f"((d0 * {k} + {f}) mod {c}) * {s1} + {o1}), domain: d0 in [0, {count - 1}]"
    )
    read = set()
    for d0 in range(count):
        flat = d0 * k + f
        read.add((flat // c * s0 + o0, flat % c * s1 + o1))
    return text, (rows, columns), read


@_EXAMPLES
@given(reshaped_slices(), reshaped_slices())
def test_reshapes_of_slices_alone_and_together(
    first: tuple[str, tuple[int, int], set[tuple[int, int]]],
    second: tuple[str, tuple[int, int], set[tuple[int, int]]],
) -> None:
    text, dims, read = first
    _check([parse_map(text)], dims, read)
    other, other_dims, other_read = second
    if other_dims == dims:
        _check([parse_map(text), parse_map(other)], dims, read | other_read)


@_EXAMPLES
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 30))
def test_three_digit_reshape(a: int, b: int, c: int, count: int) -> None:
    """``[a, b, c]`` read through its flat position, ``count`` elements."""
    count = min(count, a * b * c)
    text = (
        f"(d0) -> (d0 floordiv {b * c}, (d0 floordiv {c}) mod {b}, d0 mod {c}), "
        f"domain: d0 in [0, {count - 1}]"
    )
    read = {(x // (b * c), x // c % b, x % c) for x in range(count)}
    _check([parse_map(text)], (a, b, c), read)


@st.composite
def windows(draw: st.DrawFn) -> tuple[str, tuple[int], set[tuple[int]]]:
    """A 1-D window: output ``d0``, tap ``s0`` reads position ``d0 * stride
    + s0 * dilation - low`` of the input dilated by ``base`` (interior
    padding ``base - 1``), where it is an input element."""
    size = draw(st.integers(1, 12))
    stride, dilation = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    base, low = draw(st.integers(1, 3)), draw(st.integers(0, 3))
    taps, outputs = draw(st.integers(1, 4)), draw(st.integers(1, 10))
    position = f"d0 * {stride} + s0 * {dilation} - {low}"
    dilated = (size - 1) * base + 1
    if base == 1:
        text = (
            f"(d0)[s0] -> ({position}), domain: d0 in [0, {outputs - 1}], "
            f"s0 in [0, {taps - 1}], {position} in [0, {dilated - 1}]"
        )
    else:
        text = (
            f"(d0)[s0] -> (({position}) floordiv {base}), domain: d0 in [0, {outputs - 1}], "
            f"s0 in [0, {taps - 1}], {position} in [0, {dilated - 1}], "
            f"({position}) mod {base} in [0, 0]"
        )
    read = set()
    for d0 in range(outputs):
        for s0 in range(taps):
            x = d0 * stride + s0 * dilation - low
            if 0 <= x < dilated and x % base == 0:
                read.add((x // base,))
    return text, (size,), read


@_EXAMPLES
@given(windows(), windows())
def test_strided_and_dilated_windows(
    first: tuple[str, tuple[int], set[tuple[int]]],
    second: tuple[str, tuple[int], set[tuple[int]]],
) -> None:
    text, dims, read = first
    _check([parse_map(text)], dims, read)
    other, _, other_read = second
    # The second window over the first's input size (its own may be another).
    other_read = {x for x in other_read if x[0] < dims[0]}
    _check([parse_map(text), parse_map(other)], dims, read | other_read)


def test_two_variables_left_in_a_division() -> None:
    """A 2-D to 2-D reshape's ``(d0 * 15 + d1) floordiv 10`` keeps two
    variables the divisor does not divide: one is enumerated when it has
    few values; past `PIECE_LIMIT` values of both, no split (isl counts)."""
    reshape = parse_map(
        "(d0, d1) -> ((d0 * 15 + d1) floordiv 10, (d0 * 15 + d1) mod 10), "
        "domain: d0 in [0, 3], d1 in [0, 14]"
    )
    assert count_image([reshape], (6, 10)) == Count(60, "closed form")
    wide = parse_map(
        "(d0, d1) -> ((d0 * 101 + d1) floordiv 10, (d0 * 101 + d1) mod 10), "
        "domain: d0 in [0, 99], d1 in [0, 100]"
    )
    wide_piece = piece_of(wide)
    assert wide_piece is not None and without_divisions(wide_piece) is None
    assert count_image([wide], (1011, 10)) == Count(100 * 101, "isl")


def test_pieces_keep_the_divisions_a_split_left() -> None:
    """A split removes one division; a piece with another one (of a second
    operand, or around the first) is split again, so the counts are those of
    the map evaluated at every point (plain Python ``//`` and ``%``)."""
    cases = {
        "(d0, d1) -> (d0 floordiv 3, d1 mod 4), domain: d0 in [0, 10], d1 in [0, 9]": (
            lambda d0, d1: (d0 // 3, d1 % 4)
        ),
        "(d0, d1) -> ((d0 * 2) floordiv 5, (d1 * 3) mod 7), domain: d0 in [0, 12], d1 in [0, 5]": (
            lambda d0, d1: (d0 * 2 // 5, d1 * 3 % 7)
        ),
        "(d0, d1) -> ((d0 floordiv 4) mod 3, d1), domain: d0 in [0, 30], d1 in [0, 2]": (
            lambda d0, d1: (d0 // 4 % 3, d1)
        ),
    }
    for text, at in cases.items():
        indexing_map = parse_map(text)
        d0, d1 = (v.bounds for v in indexing_map.dims)
        expected = {
            at(x, y) for x in range(d0.lower, d0.upper + 1) for y in range(d1.lower, d1.upper + 1)
        }
        _check([indexing_map], (20, 20), expected)
