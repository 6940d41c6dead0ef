"""Tile propagation for one instruction of a module (XLA's
`SymbolicTileAnalysis`): each operand's symbolic tile, proved, and for a
fusion every inner instruction's tile, the fusion's condition on the sizes
(the conjunction of all), and for a size vector the cost of the tiling —
tiles, bytes each tile loads per operand, elements more than one tile loads.

Proofs run for the requested sizes, or over the *tiling space*: per output
dimension of size ``n`` the powers of two below ``n`` and ``n`` itself
(XLA's candidate sizes), only where the tile's condition holds.  Dims that
share no result, constraint or size expression are independent, so each
group of linked dims is enumerated with the others at size 1; an affine
tile is proved for every size at once (`verifier.tiling.proof`).

>>> from verifier.analysis import ModuleMaps
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[16,48] parameter(0)
...   ROOT t = f32[48,16] transpose(p0), dimensions={1,0}
... }''')
>>> view = ModuleMaps(module).instruction(module.entry, module.entry.root)
>>> result = tile_instruction(view, (8, 16))
>>> (operand,) = result.operands
>>> operand.tile.size_map(), operand.proof.verdict, operand.bytes_per_tile
('(d0, d1) -> (d1, d0)', 'exact', 512)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from verifier.analysis import InstructionMaps
from verifier.bridges.isl_counting import count_image
from verifier.bridges.isl_sets import extremum
from verifier.errors import UnsupportedError, UsageError
from verifier.expr import (
    Expr,
    IndexingMap,
    Undefined,
    Var,
    VarKind,
    compose,
    const,
    range_var,
    substitute,
    variables_of,
)
from verifier.simplify import simplify_relation
from verifier.tiling import sizes as sz
from verifier.tiling.derive import NoTile, SymbolicTile, derive_tile
from verifier.tiling.loads import tile_bytes
from verifier.tiling.proof import (
    TileProof,
    prove_all_sizes,
    prove_sizes,
    prove_union_all_sizes,
    prove_union_sizes,
    tile_counts,
)

# The most size vectors one operand's proof enumerates.
SPACE_LIMIT = 64
# The most maps' tiles tried as the tile of a union of footprints.
UNION_CANDIDATES = 4


@dataclass(frozen=True)
class CoveringBox:
    """The smallest box holding what the tile at position 0 reads."""

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class OperandTiling:
    operand: int
    name: str
    shape: tuple[int, ...]
    tile: SymbolicTile | None
    reason: str | None = None
    proof: TileProof | None = None
    proved_for: str = ""
    covering_box: CoveringBox | None = None
    bytes_per_tile: int | None = None
    shared_elements: int | None = None


@dataclass(frozen=True)
class InnerTile:
    """An instruction inside a fusion: its tile relative to the fusion's
    output tile (None, with the reason, where there is none)."""

    name: str
    opcode: str
    tile: SymbolicTile | None
    reason: str | None


@dataclass(frozen=True)
class InstructionTiling:
    instruction: str
    opcode: str
    output_shape: tuple[int, ...]
    sizes: tuple[int, ...] | None
    operands: tuple[OperandTiling, ...]
    inner: tuple[InnerTile, ...]
    condition: sz.Condition
    tiles: int | None

    @property
    def condition_holds(self) -> bool | None:
        return None if self.sizes is None else sz.holds(self.condition, self.sizes)


def tile_instruction(
    view: InstructionMaps, sizes: Sequence[int] | None = None, output: int = 0
) -> InstructionTiling:
    """The tiles of the operands of `view`'s instruction for a tile of its
    output leaf `output`, proved for `sizes` or over the tiling space."""
    instruction = view.instruction
    tiled = instruction.shape.leaves[output][1] if instruction.shape.is_tuple else instruction.shape
    shape = tuple(tiled.dimensions)
    if 0 in shape:
        raise UnsupportedError(
            f"'{instruction.name}' has an empty output {list(shape)}: there is no tile to read"
        )
    if sizes is not None:
        sizes = tuple(sizes)
        _check_sizes(shape, sizes)
    operands = []
    condition = sz.ALWAYS
    for leaf, indexing in view.o2i(view.outputs[output]):
        operand_shape = tuple(leaf.shape.dimensions)
        found = _read_maps(indexing.maps)
        if isinstance(found, str):
            operands.append(OperandTiling(leaf.number, leaf.name, operand_shape, None, found))
            continue
        derived = _operand_tile(found, sizes, shape)
        if isinstance(derived, NoTile):
            box = _covering_box(found, sizes or shape)
            operands.append(
                OperandTiling(
                    leaf.number, leaf.name, operand_shape, None, derived.reason, covering_box=box
                )
            )
            continue
        anchor, tile, proof, proved_for = derived
        condition = sz.conjoin(condition, tile.condition)
        cost: tuple[int | None, int | None] = (None, None)
        if sizes is not None:
            cost = (
                tile_bytes(leaf.shape, found[anchor], tile, sizes),
                _shared_elements(found[anchor], tile, sizes, operand_shape),
            )
        operands.append(
            OperandTiling(
                leaf.number, leaf.name, operand_shape, tile, None, proof, proved_for, None, *cost
            )
        )
    inner = _inner_tiles(view, sizes, shape, output) if instruction.opcode == "fusion" else ()
    for entry in inner:
        if entry.tile is not None:
            condition = sz.conjoin(condition, entry.tile.condition)
    tiles = None
    if sizes is not None:
        tiles = 1
        for count in tile_counts(shape, sizes):
            tiles *= count
    return InstructionTiling(
        instruction.name,
        instruction.opcode,
        shape,
        sizes,
        tuple(operands),
        inner,
        sz.restrict(condition, shape),
        tiles,
    )


def _check_sizes(shape: tuple[int, ...], sizes: tuple[int, ...]) -> None:
    if len(sizes) != len(shape):
        raise UsageError(
            f"--sizes has {len(sizes)} value(s); the output {list(shape)} has rank {len(shape)}"
        )
    for size in sizes:
        if size < 1:
            raise UsageError(f"tile size {size} is not positive")


def _read_maps(maps: object) -> tuple[IndexingMap, ...] | str:
    """The maps through which an operand is read, or why there are none."""
    if isinstance(maps, Undefined):
        return f"unknown indexing: {maps.reason or 'UNDEFINED'}"
    assert isinstance(maps, tuple)
    if not maps:
        return "not read"
    return tuple(counted.map for counted in maps)


def _operand_tile(
    found: tuple[IndexingMap, ...], sizes: tuple[int, ...] | None, shape: tuple[int, ...]
) -> tuple[int, SymbolicTile, TileProof, str] | NoTile:
    """The tile of what an output tile reads through `found`, with the
    index of the map anchoring its offsets and its proof.

    Through one map, that map's tile.  Through several (a softmax's input,
    read by the row reduction and the elementwise ops), the tile of their
    union: each map's tile, largest box first (the `UNION_CANDIDATES`
    largest), is a candidate, and the first that isl proves exact for the
    union is it; else none."""
    if len(found) == 1:
        tile = derive_tile(found[0], shape)
        if isinstance(tile, NoTile):
            return tile
        return (0, tile, *_prove(found[0], tile, sizes))
    if any(m.rt_vars for m in found):
        return NoTile(f"read through {len(found)} maps with runtime offsets")
    candidates = []
    for anchor, indexing_map in enumerate(found):
        others = found[:anchor] + found[anchor + 1 :]
        tile = derive_tile(indexing_map, shape, others)
        if isinstance(tile, SymbolicTile) and (sizes is None or tile.holds(sizes)):
            # Largest first at these sizes, then at unit sizes (the box
            # that holds the others' for more sizes).
            key = (-_volume(tile, sizes or shape), -_volume(tile, [1] * len(shape)), anchor)
            candidates.append((key, anchor, tile))
    tried = []
    for _, anchor, tile in sorted(candidates, key=lambda c: c[0])[:UNION_CANDIDATES]:
        proof, proved_for = _prove_union(found, anchor, tile, sizes)
        if proof.verdict == "exact":
            return anchor, tile, proof, proved_for
        tried.append(f"map {anchor}'s tile: {proof.witness or proof.verdict}")
    if not tried:
        return NoTile(f"read through {len(found)} maps, none with a tile for these sizes")
    more = f" (and {len(tried) - 1} more)" if len(tried) > 1 else ""
    return NoTile(
        f"read through {len(found)} maps, the {len(tried)} largest of whose tiles are not "
        f"their union's: {tried[0]}{more}"
    )


def _volume(tile: SymbolicTile, sizes: Sequence[int]) -> int:
    volume = 1
    for n in tile.box_sizes(sizes):
        volume *= n
    return volume


def _prove_union(
    found: tuple[IndexingMap, ...], anchor: int, tile: SymbolicTile, sizes: tuple[int, ...] | None
) -> tuple[TileProof, str]:
    """The union's proof for `sizes`, for all sizes at once where `tile` is
    affine, or over the whole tiling space where `tile`'s condition holds."""
    if sizes is not None:
        return prove_union_sizes(found, anchor, tile, sizes), f"sizes {list(sizes)}"
    if tile.is_affine():
        proof = prove_union_all_sizes(found, anchor, tile)
        if proof.verdict == "exact":
            return proof, "all sizes"
    # A union of products is no product: every dim is enumerated together.
    vectors = _space_vectors(tile, [set(range(len(tile.output_shape)))])
    return _over_space(vectors, lambda v: prove_union_sizes(found, anchor, tile, v))


def tiling_space(shape: Sequence[int]) -> list[tuple[int, ...]]:
    """Per dimension: the powers of two below its size, and its size."""
    per_dim = []
    for extent in shape:
        candidates = [1 << k for k in range(max(extent, 1).bit_length()) if 1 << k < extent]
        per_dim.append((*candidates, max(extent, 1)))
    return list(itertools.product(*per_dim))


def _linked_groups(indexing_map: IndexingMap, tile: SymbolicTile) -> list[set[int]]:
    """The dims, grouped where a result, a constraint, a size or stride
    expression or a condition's atom mentions several of them (range
    variables link the dims they appear with)."""
    mentions: list[set[tuple[str, int]]] = []
    for e in (*indexing_map.results, *(c for c, _ in indexing_map.constraints)):
        mentions.append(
            {(v.kind.value, v.index) for v in variables_of(e) if v.kind is not VarKind.RT}
        )
    sizes = [*tile.sizes, *tile.strides, *(a.expr for c in tile.condition for a in c)]
    for expr in sizes:
        mentions.append({("d", i) for i in sz.sizes_of(expr)})
    groups: list[set[tuple[str, int]]] = []
    for mention in mentions:
        joined = set(mention)
        for group in [g for g in groups if g & mention]:
            joined |= group
            groups.remove(group)
        if joined:
            groups.append(joined)
    found = [{index for kind, index in group if kind == "d"} for group in groups]
    return [group for group in found if group]


def _prove(
    indexing_map: IndexingMap, tile: SymbolicTile, sizes: tuple[int, ...] | None
) -> tuple[TileProof, str]:
    if sizes is not None:
        return prove_sizes(indexing_map, tile, sizes), f"sizes {list(sizes)}"
    if tile.is_affine():
        proof = prove_all_sizes(indexing_map, tile)
        if proof.verdict == "exact":
            return proof, "all sizes"
    vectors = _space_vectors(tile, _linked_groups(indexing_map, tile))
    return _over_space(vectors, lambda v: prove_sizes(indexing_map, tile, v))


def _space_vectors(tile: SymbolicTile, groups: list[set[int]]) -> list[tuple[int, ...]]:
    """The tiling space's vectors where `tile`'s condition holds, each group
    of linked dims enumerated with the others at size 1."""
    shape = tile.output_shape
    vectors: list[tuple[int, ...]] = []
    for group in groups:
        sub_shape = [n if i in group else 1 for i, n in enumerate(shape)]
        vectors.extend(v for v in tiling_space(sub_shape) if tile.holds(v))
    return list(dict.fromkeys(vectors)) or [tuple(1 for _ in shape)]


_RANK = {"refuted": 3, "unknown": 2, "covering": 1, "exact": 0}


def _over_space(
    vectors: list[tuple[int, ...]], prove: Callable[[tuple[int, ...]], TileProof]
) -> tuple[TileProof, str]:
    """The most telling proof over `vectors` (refuted over unknown over
    covering over exact), stopping at the first refutation."""
    if len(vectors) > SPACE_LIMIT:
        reason = (
            f"the tiling space has {len(vectors)} admitted size "
            f"vectors (more than {SPACE_LIMIT}): pass --sizes"
        )
        return TileProof("unknown", None, reason), ""
    worst: TileProof | None = None
    for vector in vectors:
        proof = prove(vector)
        if worst is None or _RANK[proof.verdict] > _RANK[worst.verdict]:
            worst = proof
        if proof.verdict == "refuted":
            break
    assert worst is not None
    return worst, f"{len(vectors)} size vectors of the tiling space"


def _covering_box(maps: Sequence[IndexingMap], sizes: Sequence[int]) -> CoveringBox | None:
    """Per result, its least and greatest value over the tile at position 0,
    through any of `maps` (within each map's dims' bounds; None where the
    tile reads nothing)."""
    lows: list[int] = []
    highs: list[int] = []
    reached = False
    for indexing_map in maps:
        dims = indexing_map.dims
        if any(v.bounds.lower > size - 1 for v, size in zip(dims, sizes, strict=True)):
            continue
        reached = True
        tile_map = indexing_map.replaced(
            dims=[
                type(v)(type(v.bounds)(v.bounds.lower, min(v.bounds.upper, size - 1)), v.source)
                for v, size in zip(dims, sizes, strict=True)
            ]
        )
        for j, result in enumerate(indexing_map.results):
            low = extremum(tile_map, result, maximum=False).value
            high = extremum(tile_map, result, maximum=True).value
            if low is None or high is None:
                return None
            if j == len(lows):
                lows.append(low)
                highs.append(high)
            lows[j], highs[j] = min(lows[j], low), max(highs[j], high)
    if not reached:
        return None
    return CoveringBox(tuple(lows), tuple(h - lo + 1 for lo, h in zip(lows, highs, strict=True)))


def _shared_elements(
    indexing_map: IndexingMap,
    tile: SymbolicTile,
    sizes: Sequence[int],
    operand_shape: Sequence[int],
) -> int | None:
    """How many operand elements (inside the operand) more than one tile
    loads, each tile loading its whole box; None with runtime offsets."""
    if indexing_map.rt_vars:
        return None
    rank, results = indexing_map.num_dims, indexing_map.num_results
    shape = tile.output_shape
    counts = tile_counts(shape, sizes)
    box_sizes, strides = tile.box_sizes(sizes), tile.box_strides(sizes)
    lowest = [v.bounds.lower for v in indexing_map.range_vars]

    def offset(first: int) -> list[Expr]:
        def at(v: Var) -> Expr:
            if v.kind is VarKind.DIM:
                return range_var(first + v.index) * sizes[v.index]
            return const(lowest[v.index])

        return [substitute(e, at) for e in indexing_map.results]

    first, second = offset(0), offset(rank)
    q1, q2 = 2 * rank, 2 * rank + results
    symbols = [(0, c - 1) for c in counts] * 2 + [(0, max(n, 1) - 1) for n in box_sizes] * 2
    elements = [first[j] + range_var(q1 + j) * strides[j] for j in range(results)]
    same = [
        (second[j] + range_var(q2 + j) * strides[j] - elements[j], (0, 0)) for j in range(results)
    ]
    maps = []
    for differing in range(rank):
        order = [(range_var(i) - range_var(rank + i), (0, 0)) for i in range(differing)]
        order.append((range_var(rank + differing) - range_var(differing), (1, counts[differing])))
        maps.append(IndexingMap.create([], elements, range_vars=symbols, constraints=same + order))
    if not maps:
        return 0
    return count_image(maps, operand_shape)


def _inner_tiles(
    view: InstructionMaps,
    sizes: tuple[int, ...] | None,
    shape: tuple[int, ...],
    output: int,
) -> tuple[InnerTile, ...]:
    """Each instruction of the fused computation, tiled for the fusion's
    output tile: its maps from the fusion's output composed along every
    use (several: the tile of their union, as for operands)."""
    maps = view.module_maps
    (called,) = view.instruction.called_computations[:1] or (None,)
    computation = next((c for c in maps.module.computations if c.name == called), None)
    if computation is None:
        return ()
    # The instruction computing output leaf `output`: the root, or the
    # element of a flat tuple root.
    start = computation.root
    if start.opcode == "tuple" and not any(
        computation.instruction(name).shape.is_tuple for name in start.operands
    ):
        start = computation.instruction(start.operands[output])
    if start.shape.is_tuple:
        return ()
    reach: dict[str, list[IndexingMap] | str] = {
        start.name: [IndexingMap.identity(start.shape.dimensions)]
    }
    tiles = []
    for instruction in reversed(computation.instructions):
        found = reach.get(instruction.name)
        if not found:  # not reached, or reached by no element (a pad's value, unpadded)
            continue
        if isinstance(found, str):
            tiles.append(InnerTile(instruction.name, instruction.opcode, None, found))
        elif len(found) > 1:
            union = _operand_tile(tuple(found), sizes, shape)
            if isinstance(union, NoTile):
                tiles.append(InnerTile(instruction.name, instruction.opcode, None, union.reason))
            else:
                tiles.append(InnerTile(instruction.name, instruction.opcode, union[1], None))
        else:
            tile = derive_tile(found[0], shape)
            if isinstance(tile, NoTile):
                tiles.append(InnerTile(instruction.name, instruction.opcode, None, tile.reason))
            else:
                tiles.append(InnerTile(instruction.name, instruction.opcode, tile, None))
        if instruction.opcode == "parameter" or not instruction.operands:
            continue
        own = maps.instruction(computation, instruction)
        for leaf, composed in own.o2i(own.outputs[0]):
            name = leaf.name
            known = reach.get(name, [])
            if (
                isinstance(found, str)
                or isinstance(composed.maps, Undefined)
                or isinstance(known, str)
            ):
                reach[name] = found if isinstance(found, str) else "unknown indexing"
                continue
            for consumer in found:
                for counted in composed.maps:
                    combined = simplify_relation(compose(consumer, counted.map))
                    if combined not in known:
                        known.append(combined)
            reach[name] = known
    return tuple(reversed(tiles))
