"""Errata: the wrong maps of older versions of the indexing document are
refuted, and the current version's hold.

The refutations use the judges the project offers users: the in-bounds
check (exact, with isl) and equality with the reference interpreter's
relation.
"""

from __future__ import annotations

import pytest

from tests.oracle import relation
from verifier.errors import ParseError
from verifier.expr.parser import parse_map
from verifier.hlo import parse_module_file

from .golden import SPEC_DIR, isl_in_bounds
from .relations import union_relation

DOT_OUTPUT = (4, 128, 64)


def test_seed_dot_rhs_to_output_map_leaves_the_output() -> None:
    """Both older versions print rhs→output as (d0, s0, d1) with d1∈[0,255]: out of bounds."""
    seed = parse_map(
        "(d0, d1, d2)[s0] -> (d0, s0, d1), "
        "domain: d0 in [0, 3], d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]"
    )
    assert not isl_in_bounds(seed, DOT_OUTPUT)
    right = parse_map(
        "(d0, d1, d2)[s0] -> (d0, s0, d2), "
        "domain: d0 in [0, 3], d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]"
    )
    assert isl_in_bounds(right, DOT_OUTPUT)


def _spec_relation(
    name: str, operand: int = 0
) -> frozenset[tuple[tuple[int, ...], tuple[int, ...]]]:
    module = parse_module_file(str(SPEC_DIR / f"{name}.hlo"))
    return relation(module.entry, module.entry.root, 0, operand)


def _inverse(
    pairs: frozenset[tuple[tuple[int, ...], tuple[int, ...]]],
) -> frozenset[tuple[tuple[int, ...], tuple[int, ...]]]:
    return frozenset((b, a) for a, b in pairs)


def test_seed_001_reduce_symbol_range_is_refuted() -> None:
    """001 gives s0∈[0,9] for reducing dim 0 of [256,10]; it is [0,255]."""
    want = _spec_relation("reduce")
    seed = parse_map("(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 9]")
    right = parse_map("(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]")
    assert union_relation((seed,)) != want
    assert union_relation((right,)) == want


def test_seed_001_slice_input_to_output_map_is_refuted() -> None:
    """001 drops the offsets: (d0, d1 floordiv 7, d2 floordiv 2) leaves [5,3,25]."""
    want = _inverse(_spec_relation("slice"))
    domain = "domain: d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]"
    seed = parse_map(f"(d0, d1, d2) -> (d0, d1 floordiv 7, d2 floordiv 2), {domain}")
    right = parse_map(f"(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), {domain}")
    assert not isl_in_bounds(seed, (5, 3, 25))
    assert union_relation((seed,)) != want
    assert union_relation((right,)) == want
    # 001's domain d1∈[3,19] with the stride constraint is the same relation.
    wide = parse_map(
        "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: d0 in [5, 9], "
        "d1 in [3, 19], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]"
    )
    assert union_relation((wide,)) == want


def test_seed_001_broadcast_input_to_output_map_is_refuted() -> None:
    """001 writes (d0) -> (s0, d1, s1), which names no dim d1 of a rank-1 input;
    the right map is (s0, d0, s1)."""
    want = _inverse(_spec_relation("broadcast"))
    right = parse_map(
        "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]"
    )
    assert union_relation((right,)) == want
    with pytest.raises(ParseError, match="d1"):  # the seed's map does not even exist
        parse_map(
            "(d0)[s0, s1] -> (s0, d1, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]"
        )
