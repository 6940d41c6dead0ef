"""`MapReader` reads every map as `parse_map` does — the same map, the same
located error — while it reuses the results and constraints it has read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import indexing_maps
from verifier.errors import ParseError
from verifier.expr import IndexingMap, MapReader, parse_map


def _read_as_parse_map(reader: MapReader, text: str) -> IndexingMap:
    try:
        expected = parse_map(text)
    except ParseError as error:
        with pytest.raises(ParseError) as caught:
            reader.read(text)
        assert (caught.value.message, caught.value.span) == (error.message, error.span)
        raise
    read = reader.read(text)
    assert read == expected
    return read


# Few variables, so that most maps share a header and the reader reuses
# what it read under it, across maps and within one.
@pytest.mark.slow
@given(st.lists(indexing_maps(max_dims=2, max_results=3, max_constraints=3), max_size=8))
def test_a_reader_reads_every_map_as_parse_map(maps: list[IndexingMap]) -> None:
    reader = MapReader()
    for m in [*maps, *maps]:
        _read_as_parse_map(reader, str(m))


@pytest.mark.parametrize(
    "texts",
    [
        # the same tokens under other headers: other variables
        [
            "(d0, d1) -> (d0 - d1), domain: d0 in [0, 3], d1 in [0, 3]",
            "(d1, d0) -> (d0 - d1), domain: d1 in [0, 3], d0 in [0, 3]",
            "(d0)[d1] -> (d0 - d1), domain: d0 in [0, 3], d1 in [0, 3]",
        ],
        # an expression read before, continued: a longer one
        [
            "(d0) -> (d0 * 2), domain: d0 in [0, 9], d0 * 2 in [0, 9]",
            "(d0) -> (d0 * 2 + 1), domain: d0 in [0, 9], d0 * 2 mod 3 in [0, 1]",
            "(d0) -> ((d0 * 2) floordiv 3, d0 * 2), domain: d0 in [0, 9]",
            "(d0) -> (min(d0 * 2, 7)), domain: d0 in [0, 9], d0 * 2 - 1 in [0, 9]",
        ],
        # a constraint on a bare variable is a bound the first time only
        [
            "(d0) -> (d0), domain: d0 in [0, 9], d0 in [2, 5]",
            "(d0) -> (d0), domain: d0 in [2, 5]",
        ],
    ],
)
def test_what_was_read_is_reused_only_where_it_reads_the_same(texts: list[str]) -> None:
    reader = MapReader()
    for text in [*texts, *reversed(texts)]:
        _read_as_parse_map(reader, text)


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        (
            "(d0) -> (d1), domain: d0 in [0, 3]",
            "(d0, d1) -> (d1), domain: d0 in [0, 3], d1 in [0, 3]",
        ),
        ("(d0) -> (d0 + ), domain: d0 in [0, 3]", "(d0) -> (d0 + 1), domain: d0 in [0, 3]"),
        ("(d0) -> ((d0 + 1), domain: d0 in [0, 3]", "(d0) -> ((d0 + 1)), domain: d0 in [0, 3]"),
        ("(d0) -> (d0 * d0), domain: d0 in [0, 3]", "(d0) -> (d0 * 3), domain: d0 in [0, 3]"),
        (
            "(d0, d0) -> (d0), domain: d0 in [0, 3]",
            "(d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 3]",
        ),
        (
            "(d0)[s0 -> (d0), domain: d0 in [0, 3]",
            "(d0)[s0] -> (d0), domain: d0 in [0, 3], s0 in [0, 3]",
        ),
        # an expression followed by a token that cannot continue it nor end it
        ("(d0) -> (d0 d0), domain: d0 in [0, 3]", "(d0) -> (d0), domain: d0 in [0, 3]"),
        (
            "(d0) -> (d0), domain: d0 in [0, 3], d0 + 1 2 in [0, 3]",
            "(d0) -> (d0), domain: d0 in [0, 3], d0 + 1 in [0, 3]",
        ),
        # a domain whose items end before the map does: not kept as a domain
        ("(d0) -> (d0), domain: d0 in [0, 3] d0", "(d0) -> (d0), domain: d0 in [0, 3]"),
    ],
)
def test_a_bad_map_is_the_same_located_error_before_and_after_a_good_one(
    bad: str, good: str
) -> None:
    reader = MapReader()
    for text in (bad, good, bad, good):
        try:
            _read_as_parse_map(reader, text)
        except ParseError:
            assert text == bad


def test_a_full_reader_forgets_and_still_reads_every_map() -> None:
    reader = MapReader(capacity=2)
    texts = [
        f"(d0) -> (d0 * {k}, d0 + {k}), domain: d0 in [0, 9], d0 mod {k + 1} in [0, 0]"
        for k in range(2, 12)
    ]
    for text in texts + texts:
        _read_as_parse_map(reader, text)
