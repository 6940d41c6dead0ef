"""XLA's tiled HLO instructions (``SymbolicTileAnalysis`` for one tiling of
a fusion) against the tiles `verifier tile` derives, and the analysis's
constraints against verifier's condition.

A tiled instruction is reached from the tiled root through operands; its
map from the root's output to its own output is the composition of the
maps along that path, and its tile is `verifier.tiling.derive_tile` of that
map evaluated at the root's tile sizes.  XLA states its tile sizes, strides
(compared only where the tile has more than one element: a single
element's stride is no part of the tile) and its offsets indexing map: from
the program id ``pid_0`` (the root's tile positions, linearised major to
minor) and the runtime offsets to the tile's first element.  Verifier's
offset of the tile at position ``p`` is the map at ``p * t`` (symbols at
their lowest value); the two are compared at every program id (runtime
offsets at the corners of their ranges).

>>> from verifier.analysis import ModuleMaps
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... f {
...   p0 = f32[16,8] parameter(0)
...   ROOT t = f32[8,16] transpose(p0), dimensions={1,0}
... }
... ENTRY e {
...   p0 = f32[16,8] parameter(0)
...   ROOT r = f32[8,16] fusion(p0), kind=kLoop, calls=f
... }''')
>>> body = module.computation("f")
>>> root = tiled_root(ModuleMaps(module), body, body.root, (4, 8))
>>> param = operand_of(root, 0)
>>> compare_tiled(param, [8, 4], [1, 1],
...     "(pid_0) -> ((pid_0 mod 2) * 8, (pid_0 / 2) * 4), domain: pid_0 in [0, 3]").verdict.value
'equal'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from verifier.analysis import ModuleMaps
from verifier.errors import VerifierError
from verifier.expr import (
    IndexingMap,
    Undefined,
    Var,
    compose,
    dim,
    range_var,
    rt_var,
)
from verifier.hlo import Computation, Instruction
from verifier.simplify import simplify_relation
from verifier.tiling import sizes as sz
from verifier.tiling import tile_instruction
from verifier.tiling.derive import NoTile, derive_tile
from verifier.tiling.proof import tile_counts
from verifier.xla_tests.compare import Comparison, not_comparable
from verifier.xla_tests.map_text import read_map
from verifier.xla_tests.result import Agreement
from verifier.xla_tests.tile_text import XlaTile
from verifier.xla_tests.tiles import size_space
from verifier.xla_tests.transforms import symbols_to_dims

# The most program ids whose offsets are compared.
PID_LIMIT = 1 << 14


@dataclass(frozen=True)
class TiledInstruction:
    """`instruction` of `computation`, tiled for the root's tile `sizes`:
    `path` maps the root's output index to this instruction's."""

    maps: ModuleMaps
    computation: Computation
    instruction: Instruction
    path: IndexingMap
    sizes: tuple[int, ...]
    root_shape: tuple[int, ...]
    # A dot root tiled along its contraction too: the path's last
    # `contraction` dims (and, at the root, results) are the contraction's,
    # at their first tile in every program.
    contraction: int = 0
    at_root: bool = True
    # The order of the root's dims in the program id, major to minor (None:
    # in order); XLA's transposed dot schedule swaps the dot's m and n.
    schedule: tuple[int, ...] | None = None


def tiled_root(
    maps: ModuleMaps, computation: Computation, root: Instruction, sizes: Sequence[int]
) -> TiledInstruction | str:
    """The root tiled by `sizes`, or why not."""
    if root.shape.is_tuple:
        return "a tuple-shaped root"
    shape = tuple(root.shape.dimensions)
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) > len(shape) and root.opcode in ("dot", "scaled-dot"):
        extents = _contraction(maps, computation, root)
        if isinstance(extents, str):
            return extents
        count = len(sizes) - len(shape)
        if count != len(extents):
            return f"{count} contraction tile sizes for {len(extents)} contracting dims"
        full = shape + extents
        # XLA's parameters: the contraction's tile sizes, then the output's.
        return TiledInstruction(
            maps,
            computation,
            root,
            IndexingMap.identity(full),
            sizes[count:] + sizes[:count],
            full,
            count,
        )
    if len(sizes) != len(shape):
        return f"{len(sizes)} tiling parameters for an output of rank {len(shape)}"
    return TiledInstruction(maps, computation, root, IndexingMap.identity(shape), sizes, shape)


def symbolic_root(maps: ModuleMaps, computation: Computation) -> TiledInstruction | str:
    """The root of a ``SymbolicTileAnalysis`` before any tiling: its
    tiling space is the root's output, and a dot root's contraction (the
    sizes here, all 1, are not used by its maps)."""
    root = computation.root
    if root.shape.is_tuple:
        return "a tuple-shaped root"
    dots = [i for i in computation.instructions if i.opcode in ("dot", "scaled-dot")]
    rank = len(root.shape.dimensions)
    if not dots:
        return tiled_root(maps, computation, root, (1,) * rank)
    if dots != [root]:
        return "a tiling space with the contraction of a dot that is not the root"
    extents = _contraction(maps, computation, root)
    if isinstance(extents, str):
        return extents
    return tiled_root(maps, computation, root, (1,) * (rank + len(extents)))


def tiling_space_map(tiled: TiledInstruction) -> IndexingMap:
    """``indexing_map()`` of a symbolic tiled instruction: from the tiling
    space, in XLA's order (the contraction's dims first, then the root's
    output), to the instruction's output."""
    count = tiled.contraction
    rank = len(tiled.root_shape) - count
    dims = tiled.path.dims[rank:] + tiled.path.dims[:rank]
    order = IndexingMap.create(
        dims, [dim(count + j) for j in range(rank)] + [dim(j) for j in range(count)]
    )
    path = tiled.path
    if tiled.at_root and count:
        path = path.replaced(results=path.results[:rank])
    return compose(order, path)


def transposed(tiled: TiledInstruction) -> TiledInstruction | str:
    """`tiled` (a dot root) under XLA's ``TransposedDotTiledHloSchedule``:
    its output is ``[batch…, m, n]`` (one non-contracting dim per side)
    and the program id runs over ``[batch…, n, m]``, m minor-most."""
    dot = tiled.instruction
    if dot.opcode != "dot":
        return f"a transposed dot schedule of a root that is a {dot.opcode}"
    numbers = dot.dot_dimension_numbers()
    lhs, rhs = tiled.computation.operand_instructions(dot)[:2]
    free = (
        len(lhs.shape.dimensions) - len(numbers.lhs_contracting) - len(numbers.lhs_batch),
        len(rhs.shape.dimensions) - len(numbers.rhs_contracting) - len(numbers.rhs_batch),
    )
    if free != (1, 1):
        return f"a transposed dot schedule of {free} non-contracting dims (XLA refuses it)"
    rank = len(tiled.root_shape)
    out = rank - tiled.contraction
    order = list(range(rank))
    order[out - 2], order[out - 1] = order[out - 1], order[out - 2]
    return replace(tiled, schedule=tuple(order))


def _contraction(
    maps: ModuleMaps, computation: Computation, dot: Instruction
) -> tuple[int, ...] | str:
    """The extents of a dot's contracting dims (its lhs map's symbols)."""
    try:
        view = maps.instruction(computation, dot)
        lhs = view.o2i(view.outputs[0])[0].maps.maps
    except VerifierError as error:
        return f"verifier computes no maps for {dot.name}: {error}"
    if isinstance(lhs, Undefined) or len(lhs) != 1:
        return f"the lhs of {dot.name} is not read through one map"
    return tuple(v.bounds.upper - v.bounds.lower + 1 for v in lhs[0].map.range_vars)


def operand_of(tiled: TiledInstruction, index: int) -> TiledInstruction | str:
    """``tiled->operand(index)``: the path extended by the operand's map."""
    operands = tiled.computation.operand_instructions(tiled.instruction)
    if index >= len(operands):
        return f"{tiled.instruction.name} has no operand {index}"
    try:
        view = tiled.maps.instruction(tiled.computation, tiled.instruction)
        own = view.o2i(view.outputs[0])[index].maps.maps
    except VerifierError as error:
        return f"verifier computes no maps for {tiled.instruction.name}: {error}"
    if isinstance(own, Undefined):
        return f"verifier: {own}"
    if len(own) != 1:
        return f"operand {index} of {tiled.instruction.name} is read through {len(own)} maps"
    step = own[0].map
    if tiled.contraction and tiled.at_root:
        if len(step.range_vars) != tiled.contraction:
            return (
                f"operand {index} of {tiled.instruction.name} has {len(step.range_vars)} "
                f"symbols for {tiled.contraction} contracting dims"
            )
        converted = symbols_to_dims(step, list(range(tiled.contraction)))
        if converted is None:
            return "the contraction's symbols could not be made dims"
        step = converted
    try:
        path = simplify_relation(compose(tiled.path, step))
    except VerifierError as error:
        return f"composition failed: {error}"
    return replace(tiled, instruction=operands[index], path=path, at_root=False)


def runtime_variable(tiled: TiledInstruction, index: int) -> TiledInstruction | str:
    """``tiled->runtime_variables()[index]``: the instruction whose value is
    runtime variable `index` of the tile's offsets, a scalar read once per
    program (so its path from the root has no results)."""
    variables = tiled.path.rt_vars
    if index >= len(variables):
        return f"{tiled.instruction.name} has {len(variables)} runtime variables in verifier's map"
    source = variables[index].source
    if source is None or not tiled.computation.has_instruction(source.instruction):
        return f"runtime variable {index} of {tiled.instruction.name} has no instruction here"
    instruction = tiled.computation.instruction(source.instruction)
    path = IndexingMap.create(tiled.path.dims, ())
    return replace(tiled, instruction=instruction, path=path, at_root=False)


def parameter(tiled: TiledInstruction, number: int) -> TiledInstruction | str:
    """``GetParametersTiling(&computation)[number]``: the fusion's parameter
    `number`, tiled along the first path of operands from the root."""
    found = [i for i in tiled.computation.parameters if i.parameter_number == number]
    if not found:
        return f"the fusion has no parameter {number}"
    return reach(tiled, found[0])


def _programs(tiled: TiledInstruction, hidden: int) -> tuple[tuple[int, ...], int]:
    """Tiles per dim of the root's path but its last `hidden`, and their product."""
    rank = len(tiled.root_shape) - hidden
    counts = tile_counts(tiled.root_shape[:rank], tiled.sizes[:rank])
    total = 1
    for count in counts:
        total *= count
    return counts, total


def _position(
    pid: int, counts: Sequence[int], schedule: Sequence[int] | None = None
) -> tuple[int, ...]:
    """The tile position of program `pid`, its dims linearised in the
    order `schedule` (major to minor; None: in order)."""
    order = range(len(counts)) if schedule is None else [d for d in schedule if d < len(counts)]
    position = [0] * len(counts)
    for d in reversed(order):
        pid, position[d] = divmod(pid, counts[d])
    return tuple(position)


def reach(tiled: TiledInstruction, target: Instruction) -> TiledInstruction | str:
    """`target` tiled along the first path of operands from the tiled
    root (a fusion's other output, tiled by the root's tile)."""
    if tiled.instruction.name == target.name:
        return tiled
    operands = tiled.computation.operand_instructions(tiled.instruction)
    for index in range(len(operands)):
        if not _depends_on(tiled.computation, operands[index], target):
            continue
        step = operand_of(tiled, index)
        return step if isinstance(step, str) else reach(step, target)
    return f"{target.name} is not computed from the tiled root {tiled.instruction.name}"


def _depends_on(computation: Computation, start: Instruction, target: Instruction) -> bool:
    seen: set[str] = set()
    pending = [start]
    while pending:
        current = pending.pop()
        if current.name == target.name:
            return True
        if current.name not in seen:
            seen.add(current.name)
            pending += computation.operand_instructions(current)
    return False


def _text(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"


def compare_tiled(
    tiled: TiledInstruction, sizes: Sequence[int], strides: Sequence[int], offsets_text: str
) -> Comparison:
    """XLA's tile sizes, strides and offsets map against verifier's tile."""
    tile = derive_tile(tiled.path)
    if isinstance(tile, NoTile):
        return Comparison(
            Agreement.DIFFERENT,
            witness=f"XLA tiles {tiled.instruction.name}, verifier has no tile: {tile.reason}",
        )
    shown = tiled.path.num_results - (tiled.contraction if tiled.at_root else 0)
    box = tile.box_sizes(tiled.sizes)[:shown]
    own_strides = tile.box_strides(tiled.sizes)[:shown]
    where = f"{tiled.instruction.name} at root tile sizes {_text(tiled.sizes)}"
    extents = (
        tuple(tiled.instruction.shape.dimensions) if not tiled.instruction.shape.is_tuple else ()
    )
    padded = [
        j
        for j, (a, b) in enumerate(zip(sizes, box, strict=False))
        if a != b and j < len(extents) and b == extents[j] and a > b
    ]
    note = None
    if padded:
        # XLA keeps a requested size past a dim's end (the rest masked):
        # the same elements.
        note = f"XLA's tile runs past the end of dims {padded} (masked): the same elements"
        sizes = [b if j in padded else a for j, (a, b) in enumerate(zip(sizes, box, strict=False))]
    if tuple(sizes) != box:
        return Comparison(
            Agreement.DIFFERENT,
            witness=f"{where}: XLA's tile sizes {_text(sizes)}, verifier's {_text(box)}",
        )
    for j, (a, b) in enumerate(zip(strides, own_strides, strict=False)):
        if box[j] > 1 and a != b:
            return Comparison(
                Agreement.DIFFERENT,
                witness=f"{where}: XLA's strides {_text(strides)}, verifier's {_text(own_strides)}",
            )
    text = re.sub(r"\b(?:pid|tid)_(\d+)", r"d\1", offsets_text)
    try:
        expected = read_map(text, "")
    except VerifierError as error:
        return not_comparable(f"XLA's offsets map is not read: {error}")
    if isinstance(expected, Undefined) or expected.num_dims != 1:
        return not_comparable("an offsets map of other than one program id")
    if len(expected.rt_vars) != len(tiled.path.rt_vars):
        return not_comparable(
            f"XLA's offsets have {len(expected.rt_vars)} runtime variables, "
            f"verifier's map {len(tiled.path.rt_vars)}"
        )
    if expected.num_results != shown:
        return not_comparable("XLA's offsets map has another rank")
    # The dot's own programs are its output tiles; below it, each output
    # tile's contraction tiles too (the contraction minor-most) — except in
    # XLA's versions whose programs there are the output tiles alone (the
    # contraction's first tile in each).
    hidden = tiled.contraction if tiled.at_root else 0
    counts, total = _programs(tiled, hidden)
    if hidden == 0 and tiled.contraction:
        outer_counts, outer_total = _programs(tiled, tiled.contraction)
        if expected.dims[0].bounds.upper + 1 == outer_total:
            hidden, counts, total = tiled.contraction, outer_counts, outer_total
    # Beyond PID_LIMIT program ids, an even sample of them (the last included).
    step = max(1, -(-total // PID_LIMIT))
    lowest = [v.bounds.lower for v in tiled.path.range_vars]
    corners = list(itertools.product(*({v.bounds.lower, v.bounds.upper} for v in expected.rt_vars)))
    first = (0,) * hidden
    for pid in [*range(0, total, step), total - 1]:
        outer = _position(pid, counts, tiled.schedule)
        position = outer + first
        values: dict[Var, int] = {dim(0): pid}
        values.update({rt_var(k): v.bounds.lower for k, v in enumerate(expected.rt_vars)})
        theirs_read = expected.contains(values)
        ours_read = _reads(tiled, position)
        if ours_read is None:
            return not_comparable("too many elements per tile to tell which tiles read it")
        if theirs_read != ours_read:
            side = "XLA's" if theirs_read else "verifier's"
            return Comparison(
                Agreement.DIFFERENT,
                witness=f"{where}, pid_0 = {pid}: only {side} tiling has this tile read "
                f"{tiled.instruction.name}",
            )
        if not ours_read:
            continue
        for runtime in corners:
            values = {dim(0): pid}
            values.update({rt_var(k): r for k, r in enumerate(runtime)})
            theirs = expected.evaluate(values)
            origin: dict[Var, int] = {
                dim(i): p * t for i, (p, t) in enumerate(zip(position, tiled.sizes, strict=True))
            }
            origin.update({range_var(k): low for k, low in enumerate(lowest)})
            origin.update({rt_var(k): r for k, r in enumerate(runtime)})
            ours = tiled.path.evaluate(origin)[:shown]
            if theirs != ours:
                rts = "".join(f", rt{k} = {r}" for k, r in enumerate(runtime))
                return Comparison(
                    Agreement.DIFFERENT,
                    witness=f"{where}, pid_0 = {pid}{rts}: XLA's offsets {_text(theirs)}, "
                    f"verifier's {_text(ours)}",
                )
    if step > 1:
        sampled = f"offsets compared at every {step}th of {total} program ids"
        note = sampled if note is None else f"{note}; {sampled}"
    return Comparison(Agreement.EQUAL, note=note)


# The most points of a tile enumerated to tell whether it reads an instruction.
_READ_LIMIT = 1 << 13


def _reads(tiled: TiledInstruction, position: Sequence[int]) -> bool | None:
    """Whether the root's tile at `position` reads `tiled`'s instruction at
    all (some output index of the tile, and symbols, in the path's domain);
    None where there are too many points to enumerate."""
    path = tiled.path
    ranges = [
        range(p * t, min((p + 1) * t, n))
        for p, t, n in zip(position, tiled.sizes, tiled.root_shape, strict=True)
    ]
    ranges += [range(v.bounds.lower, v.bounds.upper + 1) for v in path.range_vars]
    ranges += [range(v.bounds.lower, v.bounds.upper + 1) for v in path.rt_vars]
    count = 1
    for r in ranges:
        count *= len(r)
    if count > _READ_LIMIT:
        return None if path.constraints else True
    variables = path.all_variables
    return any(
        path.contains(dict(zip(variables, point, strict=True)))
        for point in itertools.product(*ranges)
    )


def compare_constraints(
    maps: ModuleMaps, computation: Computation, fusion: Instruction, expected: XlaTile
) -> Comparison:
    """The analysis's constraints (XLA's text over ``d0…``) against the
    condition of `verifier tile` for the fusion, as sets of admitted sizes."""
    if fusion.shape.is_tuple:
        return not_comparable("constraints of a fusion of several outputs")
    shape = tuple(fusion.shape.dimensions)
    if expected.rank != len(shape):
        return not_comparable(
            f"{expected.rank} tiling parameters for an output of rank {len(shape)}"
        )
    try:
        tiling = tile_instruction(maps.instruction(computation, fusion), None)
    except VerifierError as error:
        return not_comparable(f"verifier does not tile {fusion.name}: {error}")
    for sizes in size_space(shape):
        theirs, mine = expected.admits(sizes), sz.holds(tiling.condition, sizes)
        if theirs != mine:
            side = (
                "XLA's constraints admit them, verifier's"
                if theirs
                else "verifier's admits them, XLA's"
            )
            return Comparison(
                Agreement.DIFFERENT,
                witness=f"tile sizes {_text(sizes)}: {side} do not "
                f"(verifier's condition: {sz.render_condition(tiling.condition) or 'always'})",
            )
    return Comparison(Agreement.EQUAL)
