"""XLA's expected symbolic tile against the tile `verifier tile` derives
for the same indexing map, compared by evaluating both at tile sizes.

Sizes are enumerated over the tiling space of the map's output shape (per
dim every size up to 16, beyond that the powers of two, the dim's
divisors and the dim itself; fewer where the product grows too large).
At each size vector ``t``:

* both conditions hold: the boxes must agree — sizes, and per result the
  set of values ``offset + k * stride`` (so a single element's stride, and
  which end a reverse starts from, are no part of the box), at the corners
  of the runtime offsets' ranges; else ``different`` with ``t``;
* XLA's constraints hold and verifier's not: ``different`` (verifier
  refuses a size XLA tiles);
* verifier's hold and XLA's not: verifier is more general — ``equal``
  with a note where isl proves verifier's tile exact at such a ``t``.

A ``nullopt`` expectation is equal to verifier finding no tile; a tile on
one side only is ``different``, with the reason.

>>> from verifier.expr import parse_map
>>> from verifier.xla_tests.tile_text import read_tile
>>> m = parse_map("(d0) -> (d0 floordiv 6, d0 mod 6), domain: d0 in [0, 47]")
>>> compare_tile(m, read_tile('''offset_map: (d0) -> (0, 0)
...   size_map: (d0) -> ((d0 + 5) / 6, d0 - ((d0 - 1) / 6) * 6)
...   stride_map: (d0) -> (1, 1)
...   constraints: 6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]''')).verdict.value
'equal'
>>> found = compare_tile(m, read_tile('''offset_map: (d0) -> (0, 0)
...   size_map: (d0) -> ((d0 + 5) / 6, d0)
...   stride_map: (d0) -> (1, 1)'''))
>>> found.verdict.value
'different'
>>> for clause in found.witness.split("; "):
...     print(clause)
tile sizes (4): XLA admits them, verifier does not (its condition: 6 mod d0 in [0, 0] || d0 mod 6 in [0, 0])
isl: XLA's tile is refuted there (sizes (4), tile (1): element (1, 0) is read but lies outside the tile)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from verifier.errors import VerifierError
from verifier.expr import IndexingMap, Var, dim, rt_var
from verifier.tiling import sizes as sz
from verifier.tiling.derive import NoTile, SymbolicTile, derive_tile
from verifier.tiling.proof import prove_sizes
from verifier.xla_tests.compare import Comparison, not_comparable
from verifier.xla_tests.result import Agreement
from verifier.xla_tests.tile_text import XlaTile

# The most size vectors one comparison enumerates.
SPACE_LIMIT = 20_000
# The most size vectors verifier alone admits that isl is asked about.
PROOFS = 3


def size_space(shape: Sequence[int]) -> list[tuple[int, ...]]:
    """The size vectors compared for an output of `shape`."""
    choices = [_candidates(n, full=True) for n in shape]
    for full in (False, None):
        total = 1
        for options in choices:
            total *= len(options)
        if total <= SPACE_LIMIT:
            break
        choices = [_candidates(n, full=full) for n in shape]
    return list(itertools.product(*choices))


def _candidates(n: int, *, full: bool | None) -> list[int]:
    """Every size up to 16 (`full`), else powers of two, divisors
    (unless `full` is None) and `n`."""
    n = max(n, 1)
    if full and n <= 16:
        return list(range(1, n + 1))
    found = {n} | {1 << k for k in range(n.bit_length()) if 1 << k <= n}
    if full is not None:
        found |= {k for k in range(1, min(n, 4096) + 1) if n % k == 0}
        found |= set(range(1, min(n, 4) + 1))
    return sorted(found)


def _text(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"


def compare_tile(indexing_map: IndexingMap, expected: XlaTile | None) -> Comparison:
    """XLA's tile (None: ``nullopt``) for `indexing_map` against verifier's."""
    derived = derive_tile(indexing_map)
    if expected is None:
        if isinstance(derived, NoTile):
            return Comparison(Agreement.EQUAL, note=f"neither has a tile: {derived.reason}")
        return Comparison(
            Agreement.DIFFERENT,
            witness=(
                "XLA gives no tile (nullopt), verifier derives one: "
                f"size_map {derived.size_map()}, condition {derived.condition_text() or 'always'}"
                + _proof_note(indexing_map, derived)
            ),
        )
    if isinstance(derived, NoTile):
        admitted = [
            s
            for s in size_space(tuple(v.bounds.upper + 1 for v in indexing_map.dims))
            if expected.rank == indexing_map.num_dims and expected.admits(s)
        ]
        judged = ""
        if admitted:
            sizes = max(admitted, key=lambda s: (sum(x > 1 for x in s), s))
            judged = judge_xla_tile(indexing_map, expected, sizes, None)
        return Comparison(
            Agreement.DIFFERENT,
            witness=f"XLA gives a tile, verifier none: {derived.reason}{judged}",
        )
    if expected.rank != indexing_map.num_dims:
        return not_comparable(
            f"XLA's tile has {expected.rank} tile sizes, the map {indexing_map.num_dims} dims"
        )
    if len(expected.box) != indexing_map.num_results:
        return not_comparable(
            f"XLA's tile has {len(expected.box)} results, the map {indexing_map.num_results}"
        )
    if len(expected.rt_names) != len(indexing_map.rt_vars):
        return not_comparable(
            f"XLA's tile has {len(expected.rt_names)} runtime offsets, "
            f"verifier's map {len(indexing_map.rt_vars)}"
        )
    try:
        return _compare_boxes(indexing_map, derived, expected)
    except (ZeroDivisionError, KeyError) as error:
        return not_comparable(f"XLA's tile cannot be evaluated: {error!r}")


def _compare_boxes(
    indexing_map: IndexingMap, derived: SymbolicTile, expected: XlaTile
) -> Comparison:
    shape = derived.output_shape
    corners = list(
        itertools.product(*({v.bounds.lower, v.bounds.upper} for v in indexing_map.rt_vars))
    )
    only_mine: list[tuple[int, ...]] = []
    for sizes in size_space(shape):
        theirs, mine = expected.admits(sizes), derived.holds(sizes)
        if theirs and not mine:
            return Comparison(
                Agreement.DIFFERENT,
                witness=(
                    f"tile sizes {_text(sizes)}: XLA admits them, verifier does not "
                    f"(its condition: {derived.condition_text()})"
                    + judge_xla_tile(indexing_map, expected, sizes, derived)
                ),
            )
        if mine and not theirs:
            only_mine.append(sizes)
            continue
        if not mine:
            continue
        difference = _box_difference(indexing_map, derived, expected, sizes, corners)
        if difference is not None:
            return Comparison(Agreement.DIFFERENT, witness=difference)
    if not only_mine:
        return Comparison(Agreement.EQUAL)
    chosen = sorted({only_mine[0], only_mine[len(only_mine) // 2], only_mine[-1]})[:PROOFS]
    for sizes in chosen:
        try:
            proof = prove_sizes(indexing_map, derived, sizes)
        except VerifierError as error:
            return not_comparable(f"verifier admits more sizes, not proved: {error}")
        if proof.verdict != "exact":
            return Comparison(
                Agreement.DIFFERENT,
                witness=(
                    f"tile sizes {_text(sizes)}: verifier admits them and XLA does not, and "
                    f"verifier's tile is {proof.verdict} there ({proof.witness})"
                ),
            )
    return Comparison(
        Agreement.EQUAL,
        note=(
            f"verifier admits {len(only_mine)} size vectors XLA's constraints reject "
            f"(e.g. {_text(only_mine[0])}); its tile is proved exact at "
            + ", ".join(_text(s) for s in chosen)
        ),
    )


def _box_difference(
    indexing_map: IndexingMap,
    derived: SymbolicTile,
    expected: XlaTile,
    sizes: tuple[int, ...],
    corners: list[tuple[int, ...]],
) -> str | None:
    box, strides = derived.box_sizes(sizes), derived.box_strides(sizes)
    for runtime in corners:
        their_box = expected.sizes(sizes, runtime)
        if their_box != box:
            return f"tile sizes {_text(sizes)}: XLA's size_map gives {_text(their_box)}, verifier's {_text(box)}"
        their_strides = expected.stride_values(sizes, runtime)
        values: dict[Var, int] = {dim(i): s for i, s in enumerate(sizes)}
        values.update({rt_var(k): r for k, r in enumerate(runtime)})
        offsets = derived.offset_map.evaluate(values)
        their_offsets = expected.offset_values(sizes, runtime)
        # A box is a set: per result, the progression's values (a reverse's
        # may start from either end: XLA normalised strides to be positive
        # until 2025).
        for j, n in enumerate(box):
            ours = _progression(offsets[j], strides[j], n)
            theirs = _progression(their_offsets[j], their_strides[j], n)
            if ours != theirs:
                where = "".join(f", rt{k} = {r}" for k, r in enumerate(runtime))
                return (
                    f"tile sizes {_text(sizes)}{where}: result {j} is offset "
                    f"{their_offsets[j]} stride {their_strides[j]} in XLA's tile, offset "
                    f"{offsets[j]} stride {strides[j]} in verifier's ({n} elements)"
                )
    return None


def _progression(offset: int, stride: int, count: int) -> tuple[int, int, int]:
    """The set ``{offset + k * stride : 0 <= k < count}`` as (least, step,
    count): equal sets have equal triples."""
    if count <= 0:
        return 0, 0, 0
    if count == 1 or stride == 0:
        return offset, 0, 1
    return offset + min(0, (count - 1) * stride), abs(stride), count


def judge_xla_tile(
    indexing_map: IndexingMap,
    expected: XlaTile,
    sizes: tuple[int, ...],
    derived: SymbolicTile | None,
) -> str:
    """isl's judgement of XLA's tile at `sizes` (as verifier judges its
    own: exact, covering, refuted), as a clause of a witness."""
    if expected.rt_names and derived is None:
        return ""
    runtime = [lo for lo, _ in expected.rt_ranges]
    try:
        box = expected.sizes(sizes, runtime)
        strides = expected.stride_values(sizes, runtime)
        if derived is not None and expected.rt_names:
            offset_map = derived.offset_map
        else:
            offset_map = IndexingMap.create(
                [(1, v.bounds.upper + 1) for v in indexing_map.dims],
                list(expected.offset_values(sizes, runtime)),
            )
        as_tile = SymbolicTile(
            tuple(v.bounds.upper + 1 for v in indexing_map.dims),
            offset_map,
            tuple(sz.Const(n) for n in box),
            tuple(sz.Const(n) for n in strides),
            sz.ALWAYS,
            sz.ALWAYS,
        )
        proof = prove_sizes(indexing_map, as_tile, sizes)
    except (VerifierError, ZeroDivisionError) as error:
        return f"; XLA's tile there not judged: {error}"
    return f"; isl: XLA's tile is {proof.verdict} there" + (
        f" ({proof.witness})" if proof.witness else ""
    )


def _proof_note(indexing_map: IndexingMap, derived: SymbolicTile) -> str:
    """isl's verdict on verifier's tile at up to `PROOFS` admitted size
    vectors (the first, middle and last with more than one element)."""
    admitted = [
        s for s in size_space(derived.output_shape) if derived.holds(s) and any(x > 1 for x in s)
    ]
    if not admitted:
        return "; its condition admits no size of more than one element here"
    chosen = sorted({admitted[0], admitted[len(admitted) // 2], admitted[-1]})[:PROOFS]
    for sizes in chosen:
        try:
            proof = prove_sizes(indexing_map, derived, sizes)
        except VerifierError as error:
            return f"; not proved: {error}"
        if proof.verdict != "exact":
            return f"; isl: {proof.verdict} at sizes {_text(sizes)} ({proof.witness})"
    return "; isl: exact at sizes " + ", ".join(_text(s) for s in chosen)
