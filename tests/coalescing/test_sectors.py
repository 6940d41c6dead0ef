"""`period` and the translation-based count judged by brute force."""

from __future__ import annotations

import itertools

import pytest

from verifier.coalescing.sectors import RequestMap, count_sectors, period
from verifier.expr import Expr, IndexingMap, Interval, dim, parse_map, range_var

D0, S0 = dim(0), range_var(0)
EXPRESSIONS = [
    (D0 * 128 + S0) // 200 * 100 + (D0 * 128 + S0) % 200,
    ((D0 * 96 + S0 * 3) // 7) % 11 + D0 * 5,
    (D0 // 3) * 40 + D0 % 3 - S0,
    -(D0 * 6) // 4 + (D0 + S0) % 5 * 9,
]


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=str)
def test_period_is_a_translation(expr: Expr) -> None:
    found = period(expr, D0)
    assert found is not None
    p, delta = found
    probe = IndexingMap.create([Interval(-50, 300)], [expr], range_vars=[Interval(-4, 9)])
    for d, s in itertools.product(range(-50, 300 - p), range(-4, 10)):
        (here,) = probe.evaluate({D0: d, S0: s})
        (there,) = probe.evaluate({D0: d + p, S0: s})
        assert there == here + delta


def _brute(text: str, bits: int) -> tuple[int, int, int, int, int]:
    indexing = parse_map(text)
    requests: dict[tuple[int, ...], set[int]] = {}
    for point in indexing.domain_points():
        key = tuple(point[dim(k)] for k in range(indexing.num_dims))
        requests.setdefault(key, set()).add(indexing.evaluate(point)[0])
    counts = [
        (len({e * bits // 256 for e in touched}), -(-len(touched) * bits // 256))
        for touched in requests.values()
    ]
    return (
        len(counts),
        min(c for c, _ in counts),
        max(c for c, _ in counts),
        sum(c for c, _ in counts),
        sum(1 for c, i in counts if c == i),
    )


@pytest.mark.parametrize(
    ("text", "bits"),
    [
        # Rows of 100 elements read 96 at a time: 25 requests repeat.
        (
            "(d0)[s0, s1] -> ((d0 * 32 + s0) floordiv 96 * 100 + (d0 * 32 + s0) mod 96), "
            "domain: d0 in [0, 299], s0 in [0, 31], s1 in [0, 0]",
            32,
        ),
        # A boundary inside a warp, and a loop id.
        (
            "(d0, d1)[s0, s1] -> (d0 * 64 + s0 * 2 + s1 - 37 + d1 * 7), "
            "domain: d0 in [0, 199], d1 in [0, 2], s0 in [0, 31], s1 in [0, 1], "
            "d0 * 64 + s0 * 2 + s1 in [37, 9000]",
            16,
        ),
    ],
)
def test_count_matches_every_request(text: str, bits: int) -> None:
    counted = count_sectors(
        RequestMap((parse_map(text),)),
        element_bits=bits,
        sector_bytes=32,
    )
    assert counted is not None
    got = (counted.requests, counted.minimum, counted.maximum, counted.total, counted.at_ideal)
    assert got == _brute(text, bits)
    assert counted.counted < counted.requests  # the translation did the rest
