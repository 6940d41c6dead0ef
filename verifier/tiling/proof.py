"""Proofs that a derived tile is what an output tile reads, by isl.

For tile sizes ``t``, both sides are maps from the tile position ``p`` (and
the runtime variables, fixed per tile) to operand elements:

* the *footprint* ``F``: ``(p){rt}[k, s] -> e(p * t + k, s, rt)`` with
  ``0 ≤ k_i < t_i`` and ``p * t + k`` inside the output;
* the *tile* ``B``: ``(p){rt}[q] -> offset(p) + q * stride`` with
  ``0 ≤ q_j < size_j``, kept where the operation reads that element at all
  (some output index and symbols map to it for these runtime values).

``F = B`` is **exact**; ``F ⊆ B`` alone is **covering**; an element of
``F`` outside ``B`` refutes the tile, and isl gives it as the witness.
Where the tile is affine in the sizes (`SymbolicTile.is_affine`), one
question decides every size vector at once: the sizes become dims too, and
the tile's origin any output index (so no product ``p * t`` appears); a
refutation there is at an origin that may not be a tile's, so the sizes are
then enumerated.

>>> from verifier.expr import parse_map
>>> from verifier.tiling.derive import derive_tile
>>> m = parse_map("(d0, d1) -> (0, d0 floordiv 6, d0 mod 6, d1), "
...               "domain: d0 in [0, 47], d1 in [0, 3]")
>>> prove_sizes(m, derive_tile(m), (12, 4)).verdict
'exact'
>>> refuted = prove_sizes(m, derive_tile(m), (4, 4))
>>> refuted.verdict, refuted.witness
('refuted', 'sizes (4, 4), tile (1, 0): element (0, 1, 0, 0) is read but lies outside the tile')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from verifier.bridges.isl_questions import compare_relations
from verifier.bridges.isl_sets import compare_unions
from verifier.expr import (
    Expr,
    IndexingMap,
    Var,
    VarKind,
    const,
    dim,
    range_var,
    substitute,
    variables_of,
)
from verifier.tiling import sizes as sz
from verifier.tiling.derive import SymbolicTile

Verdict = Literal["exact", "covering", "refuted", "unknown"]


@dataclass(frozen=True)
class TileProof:
    """isl's answer for one size vector (or, `sizes` None, for all)."""

    verdict: Verdict
    sizes: tuple[int, ...] | None
    witness: str | None = None
    # The witness as named integers: the tile position ``p0 …``, the
    # runtime values ``rt0 …`` and the element ``e0 …``.
    point: tuple[tuple[str, int], ...] = ()


def tile_counts(shape: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """Tiles per output dimension: ``ceil(shape_i / sizes_i)``."""
    return tuple(-(-n // t) for n, t in zip(shape, sizes, strict=True))


def output_extent(indexing_map: IndexingMap, shape: Sequence[int] | None) -> list[int]:
    """The tiled output's dims: `shape`, else the map's dims' upper bounds
    (a simplified map may have tightened them: a concatenate's operand)."""
    return list(shape) if shape is not None else [v.bounds.upper + 1 for v in indexing_map.dims]


def _domain(indexing_map: IndexingMap) -> list[tuple[int, int]]:
    """Each dim's bounds: the output indices the map reads from at all."""
    return [(v.bounds.lower, v.bounds.upper) for v in indexing_map.dims]


def footprint(
    indexing_map: IndexingMap, sizes: Sequence[int], shape: Sequence[int] | None = None
) -> IndexingMap:
    """``F``: tile position and runtime values → the elements read (tiles
    over `shape`, default `output_extent`)."""
    rank = indexing_map.num_dims
    shape = output_extent(indexing_map, shape)

    def at_tile(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return dim(v.index) * sizes[v.index] + range_var(v.index)
            case VarKind.RANGE:
                return range_var(rank + v.index)
            case VarKind.RT:
                return dim(rank + v.index)

    inside = [(at_tile(dim(i)), bounds) for i, bounds in enumerate(_domain(indexing_map))]
    return IndexingMap.create(
        [(0, c - 1) for c in tile_counts(shape, sizes)] + [v.bounds for v in indexing_map.rt_vars],
        [substitute(e, at_tile) for e in indexing_map.results],
        range_vars=[(0, t - 1) for t in sizes] + [v.bounds for v in indexing_map.range_vars],
        constraints=[
            (substitute(e, at_tile), (b.lower, b.upper)) for e, b in indexing_map.constraints
        ]
        + inside,
    )


def tile_box(
    indexing_map: IndexingMap,
    tile: SymbolicTile,
    sizes: Sequence[int],
    reader: IndexingMap | None = None,
    shape: Sequence[int] | None = None,
) -> IndexingMap:
    """``B``: tile position and runtime values → the tile's elements (its
    box anchored where `indexing_map` puts the tile's origin) that `reader`
    (default `indexing_map`) reads at all (tiles over `shape`)."""
    reader = indexing_map if reader is None else reader
    rank, results = indexing_map.num_dims, indexing_map.num_results
    shape = output_extent(indexing_map, shape)
    lowest = [v.bounds.lower for v in indexing_map.range_vars]

    def origin(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return dim(v.index) * sizes[v.index]
            case VarKind.RANGE:
                return const(lowest[v.index])
            case VarKind.RT:
                return dim(rank + v.index)

    def anywhere(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return range_var(results + v.index)
            case VarKind.RANGE:
                return range_var(results + rank + v.index)
            case VarKind.RT:
                return dim(rank + v.index)

    box_sizes, strides = tile.box_sizes(sizes), tile.box_strides(sizes)
    elements = [
        substitute(e, origin) + range_var(j) * strides[j]
        for j, e in enumerate(indexing_map.results)
    ]
    read = [
        (element - substitute(e, anywhere), (0, 0))
        for element, e in zip(elements, reader.results, strict=True)
    ]
    return IndexingMap.create(
        [(0, c - 1) for c in tile_counts(shape, sizes)] + [v.bounds for v in indexing_map.rt_vars],
        elements,
        range_vars=[(0, max(n, 1) - 1) for n in box_sizes]
        + _domain(reader)
        + [v.bounds for v in reader.range_vars],
        constraints=[(substitute(e, anywhere), (b.lower, b.upper)) for e, b in reader.constraints]
        + read,
    )


def prove_union_sizes(
    maps: Sequence[IndexingMap],
    anchor: int,
    tile: SymbolicTile,
    sizes: Sequence[int],
    shape: Sequence[int] | None = None,
) -> TileProof:
    """Whether, at every tile position, the tile of `sizes` (anchored by
    ``maps[anchor]``) is exactly what the output tile reads through all of
    `maps` together (within what they read at all).  No runtime variables."""
    sizes = tuple(sizes)
    assert not any(m.rt_vars for m in maps), "a union of footprints has no runtime offsets"
    if any(n == 0 for n in tile.box_sizes(sizes)):
        return TileProof("refuted", sizes, f"sizes {_tuple(sizes)}: the tile has no element")
    rank = maps[anchor].num_dims
    answer = compare_unions(
        [footprint(m, sizes, shape) for m in maps],
        [tile_box(maps[anchor], tile, sizes, reader=m, shape=shape) for m in maps],
        num_in=rank,
        num_out=maps[anchor].num_results,
    )
    if answer.differs is None:
        return TileProof("unknown", sizes)
    if not answer.differs:
        return TileProof("exact", sizes)
    where = f"sizes {_tuple(sizes)}, tile {_tuple(answer.source)}: element {_tuple(answer.target)}"
    point = _point(answer.source, rank, answer.target)
    if answer.only_in == 0:
        return TileProof("refuted", sizes, f"{where} is read but lies outside the tile", point)
    return TileProof(
        "covering", sizes, f"{where} lies in the tile but this tile does not read it", point
    )


def prove_sizes(
    indexing_map: IndexingMap,
    tile: SymbolicTile,
    sizes: Sequence[int],
    shape: Sequence[int] | None = None,
) -> TileProof:
    """Whether, at every tile position of an output of `shape` (default
    `output_extent`), the tile of `sizes` is exactly what the output tile
    reads (a witness otherwise)."""
    sizes = tuple(sizes)
    for k, variable in enumerate(indexing_map.rt_vars):
        source = variable.source
        varying = sorted(
            v.index
            for e in (() if source is None else source.index_map.results)
            for v in variables_of(e)
            if v.kind is VarKind.DIM and sizes[v.index] > 1
        )
        if varying and source is not None:
            # The footprint below fixes each runtime value per tile.
            i = varying[0]
            return TileProof(
                "refuted",
                sizes,
                f"sizes {_tuple(sizes)}: rt{k} is read from {source.instruction} per d{i}, "
                f"so a tile of {sizes[i]} along d{i} reads {sizes[i]} independent offsets",
            )
    if any(n == 0 for n in tile.box_sizes(sizes)):
        return TileProof("refuted", sizes, f"sizes {_tuple(sizes)}: the tile has no element")
    answer = compare_relations(
        footprint(indexing_map, sizes, shape), tile_box(indexing_map, tile, sizes, shape=shape)
    )
    if answer.differs is None:
        return TileProof("unknown", sizes)
    if not answer.differs:
        return TileProof("exact", sizes)
    values = dict(answer.witness)
    rank = indexing_map.num_dims
    position = _tuple(values[f"d{i}"] for i in range(rank))
    runtime = "".join(
        f", rt{k} = {values[f'd{rank + k}']}" for k in range(len(indexing_map.rt_vars))
    )
    element = _tuple(values[f"r{j}"] for j in range(indexing_map.num_results))
    where = f"sizes {_tuple(sizes)}, tile {position}{runtime}: element {element}"
    point = _point(
        [values[f"d{i}"] for i in range(rank + len(indexing_map.rt_vars))],
        rank,
        [values[f"r{j}"] for j in range(indexing_map.num_results)],
    )
    if answer.only_in == "a":
        return TileProof("refuted", sizes, f"{where} is read but lies outside the tile", point)
    return TileProof(
        "covering", sizes, f"{where} lies in the tile but this tile does not read it", point
    )


def _point(source: Sequence[int], rank: int, element: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """The named witness: tile position ``p…``, runtime values ``rt…``, element ``e…``."""
    return (
        tuple((f"p{i}", v) for i, v in enumerate(source[:rank]))
        + tuple((f"rt{k}", v) for k, v in enumerate(source[rank:]))
        + tuple((f"e{j}", v) for j, v in enumerate(element))
    )


def prove_all_sizes(
    indexing_map: IndexingMap, tile: SymbolicTile, shape: Sequence[int] | None = None
) -> TileProof:
    """For an affine tile: exact for every size vector its condition admits,
    at every origin (``unknown`` when isl cannot tell or finds a
    counterexample, which may lie at an origin no tile has)."""
    read_map, box_map = _all_sizes_relations(indexing_map, indexing_map, tile, shape)
    answer = compare_relations(read_map, box_map)
    return TileProof("exact" if answer.differs is False else "unknown", None)


def prove_union_all_sizes(
    maps: Sequence[IndexingMap],
    anchor: int,
    tile: SymbolicTile,
    shape: Sequence[int] | None = None,
) -> TileProof:
    """`prove_all_sizes` for what an output tile reads through all of
    `maps` together, against `tile` anchored by ``maps[anchor]``."""
    pairs = [_all_sizes_relations(maps[anchor], m, tile, shape) for m in maps]
    answer = compare_unions(
        [read for read, _ in pairs],
        [box for _, box in pairs],
        num_in=pairs[0][0].num_dims,
        num_out=maps[anchor].num_results,
    )
    return TileProof("exact" if answer.differs is False else "unknown", None)


def _all_sizes_relations(
    indexing_map: IndexingMap,
    reader: IndexingMap,
    tile: SymbolicTile,
    shape: Sequence[int] | None = None,
) -> tuple[IndexingMap, IndexingMap]:
    """With the sizes and the tile's origin as dims (then runtime values):
    what `reader` reads from the tile at that origin, and the tile's box
    anchored where `indexing_map` puts the origin, within what `reader`
    reads at all."""
    rank, results = indexing_map.num_dims, indexing_map.num_results
    shape = output_extent(indexing_map, shape)
    lowest = [v.bounds.lower for v in indexing_map.range_vars]
    largest = max(shape, default=1)

    def size_expr(expr: sz.SizeExpr) -> Expr:
        coefficients, constant = sz.affine_terms(expr)
        total: Expr = const(constant)
        for index, k in coefficients.items():
            total = total + dim(index) * k
        return total

    def runtime(v: Var) -> Expr:
        return dim(2 * rank + v.index)

    def at_origin(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return dim(rank + v.index) + range_var(v.index)
            case VarKind.RANGE:
                return range_var(rank + v.index)
            case VarKind.RT:
                return runtime(v)

    def origin(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return dim(rank + v.index)
            case VarKind.RANGE:
                return const(lowest[v.index])
            case VarKind.RT:
                return runtime(v)

    def anywhere(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return range_var(results + v.index)
            case VarKind.RANGE:
                return range_var(results + rank + v.index)
            case VarKind.RT:
                return runtime(v)

    dims = [(1, n) for n in shape] + [(0, n - 1) for n in shape]
    dims += [(v.bounds.lower, v.bounds.upper) for v in indexing_map.rt_vars]
    admitted = [(size_expr(a.expr), (a.lower, a.upper)) for a in tile.condition[0]]
    span = largest * (1 + sum(abs(_stride(s)) for s in tile.strides)) + 1
    inside = [(at_origin(dim(i)), bounds) for i, bounds in enumerate(_domain(reader))]
    within = [(dim(i) - range_var(i) - 1, (0, n)) for i, n in enumerate(shape)]
    read_map = IndexingMap.create(
        dims,
        [substitute(e, at_origin) for e in reader.results],
        range_vars=[(0, n - 1) for n in shape] + [v.bounds for v in reader.range_vars],
        constraints=[(substitute(e, at_origin), (b.lower, b.upper)) for e, b in reader.constraints]
        + inside
        + within
        + admitted,
    )
    elements = [
        substitute(e, origin) + range_var(j) * _stride(tile.strides[j])
        for j, e in enumerate(indexing_map.results)
    ]
    in_box = [(size_expr(s) - range_var(j) - 1, (0, span)) for j, s in enumerate(tile.sizes)]
    read = [
        (element - substitute(e, anywhere), (0, 0))
        for element, e in zip(elements, reader.results, strict=True)
    ]
    box_map = IndexingMap.create(
        dims,
        elements,
        range_vars=[(0, span) for _ in tile.sizes]
        + _domain(reader)
        + [v.bounds for v in reader.range_vars],
        constraints=[(substitute(e, anywhere), (b.lower, b.upper)) for e, b in reader.constraints]
        + in_box
        + read
        + admitted,
    )
    return read_map, box_map


def _stride(expr: sz.SizeExpr) -> int:
    assert isinstance(expr, sz.Const)
    return expr.value


def _tuple(values: Iterable[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"
