"""XLA's tiles of maps whose domain already carries a constraint
(``SymbolicTile`` cases "pre-existing constraints"): the row of a merged
``(d0, d1)`` pair limited by a redundant bound, by right padding, by left
padding, and a dilation ``d1 mod 5`` that constrains no result — on a small
shape of the same kind (``2048`` rows become ``8``, the ``s0`` range ``3``).

XLA derives a tile for the first two and bails out on the last two.  Here
each gets a tile, and brute force (`tests.tiling.oracle`, from the map's
semantics written in Python) shows that every size vector its condition
admits reads exactly the box within what the map reads at all; isl's
verdict equals brute force's on every size vector."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.tiling.oracle import check_condition, judge, space
from verifier.expr import parse_map
from verifier.tiling.derive import SymbolicTile, derive_tile
from verifier.tiling.proof import prove_sizes

SHAPE = (4, 8, 3)
MAP = "(d0, d1, d2)[s0] -> (d0 * 8 + d1, s0), domain: d0 in [0, 3], d1 in [0, 7], d2 in [0, 2], s0 in [0, 2]"

# Each case: the constraint in XLA's text, and the same in Python.
CASES: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "redundant bound": ("d0 * 8 + d1 in [0, 31]", lambda d0, d1: 0 <= d0 * 8 + d1 <= 31),
    "right padding": ("d0 * 8 + d1 in [0, 16]", lambda d0, d1: 0 <= d0 * 8 + d1 <= 16),
    "left padding": ("d0 * 8 + d1 in [2, 16]", lambda d0, d1: 2 <= d0 * 8 + d1 <= 16),
    "dilation": ("d1 mod 5 in [0, 0]", lambda d0, d1: d1 % 5 == 0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_tile_with_preexisting_constraint_by_brute_force(case: str) -> None:
    constraint, admitted = CASES[case]
    indexing_map = parse_map(f"{MAP}, {constraint}")
    tile = derive_tile(indexing_map)
    assert isinstance(tile, SymbolicTile)

    def reads(index: tuple[int, ...]) -> set[tuple[int, ...]]:
        d0, d1, _ = index
        return {(d0 * 8 + d1, s0) for s0 in range(3)} if admitted(d0, d1) else set()

    verdicts = check_condition(tile, reads, SHAPE)
    # A row block of one d0 and a whole d1 are admitted, as XLA's
    # "d0 in [1, 1] || d1 in [1, 1] || d1 in [2048, 2048]" admits them.
    admitted_sizes: list[tuple[int, ...]] = [(1, 4, 3), (4, 1, 1), (3, 8, 2)]
    for sizes in admitted_sizes:
        assert tile.holds(sizes) and verdicts[sizes] == "exact", sizes
    # Two rows of a partial d1 leave a gap: not admitted, and no box.
    assert not tile.holds((2, 4, 1)) and verdicts[(2, 4, 1)] != "exact"
    # isl's verdict is brute force's where the condition admits the sizes
    # (elsewhere the oracle passes over a tile that reads nothing, whose
    # box isl still finds holding an element read by another).
    for sizes in [s for s in space(SHAPE) if tile.holds(s)][::4]:
        assert prove_sizes(indexing_map, tile, sizes).verdict == judge(tile, reads, SHAPE, sizes), (
            sizes
        )
