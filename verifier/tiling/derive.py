"""The symbolic tile of an operand: what an output tile reads, as a strided
box whose offsets, sizes and strides are functions of the tile sizes.

An output tile of sizes ``t = (t_0, …)`` at tile position ``p`` covers the
output indices ``p_i * t_i ≤ d_i < (p_i + 1) * t_i`` (clipped to the shape).
Through an output→input map ``(d)[s]{rt} -> (e_0, …)`` it reads the operand
elements ``e(d, s, rt)``; the derived tile claims that these are the strided
box ``offset_j + k_j * stride_j``, ``0 ≤ k_j < size_j(t)``, with
``offset_j = e_j(d = p * t, s = lowest)``, intersected with the elements the
operation reads at all (`verifier.tiling.proof` proves the claim).

Each result is a constant plus runtime variables (in the offset) plus either

* a sum of *strided terms* ``c * d_i`` (``t_i`` values) and ``c * s_k``
  (its range's values), one sign: sorted by ``|c|``, the values form one
  progression of stride ``g`` (the least ``|c|`` of a term with more than
  one value) when every ``|c|`` is a multiple of ``g`` and each term starts
  no further than one stride past the reach of the smaller ones — a
  condition on the sizes, one conjunction per choice of which dims have
  ``t_i > 1`` — and a dim below the largest term is tiled by a divisor of
  its size (else its last tile runs into the next value of a larger
  term); or
* one *digit* ``(d_i floordiv c) mod m`` of a merged dimension (a reshape):
  ``ceil(t_i / c)`` values, at most ``m``, a box when the tile is aligned
  with the digit's blocks (``c mod t_i = 0`` or ``t_i mod c = 0``) and its
  count divides or is divided by ``m``.  Where a constraint leaves out
  residues of ``d_i mod c`` (a pad's interior padding: output ``i * c``
  holds element ``i``, the indices between read nothing), only whole blocks
  (``t_i mod c = 0``), or a first tile reaching ``c`` past the last index
  read (or the whole dim), whose later tiles read nothing and lie past
  every element: a shorter tile reads nothing, or an element past the one
  its origin maps to, while its box is anchored there.

A dim read by two results (a diagonal), or one that a runtime variable's
source depends on (gather indices), must have size 1.  Anything else has no
tile (`NoTile`, with the reason).

>>> from verifier.expr import parse_map
>>> tile = derive_tile(parse_map("(d0, d1) -> (0, d0 floordiv 6, d0 mod 6, d1), "
...                              "domain: d0 in [0, 47], d1 in [0, 3]"))
>>> print(tile.size_map())
(d0, d1) -> (1, (d0 + 5) floordiv 6, (d0 - 1) mod 6 + 1, d1)
>>> print(tile.condition_text())
6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]

A pad of 4 elements with interior padding 1: tiles of 2, 4, 6 or all 7
output indices.

>>> pad = derive_tile(parse_map("(d0) -> (d0 floordiv 2), "
...                             "domain: d0 in [0, 6], d0 mod 2 in [0, 0]"))
>>> print(pad.condition_text())
d0 mod 2 in [0, 0] || d0 in [7, 7]

Here this differs from XLA, which derives no tile from a map with
interior padding (its constraint bounds no result, so
`SymbolicTile::FromIndexingMap` bails out).  Brute force over pads of 2 to
4 elements, low padding -3 to 3 and interior padding 0 to 3
(tests/tiling/test_interior_pad.py) finds the condition above true exactly
where every tile reads the box anchored at its origin.  A low padding that
is no multiple of the stride leaves ``(d0 - lo) floordiv c``, no digit of
a dim: no tile.  With a low padding of 4 or more the condition is
sufficient, not necessary (``4_0_1`` of ``f32[2]``: tiles of 3 read boxes,
but 3 is no multiple of 2).

The tiles cover the instruction's output shape, which a dim's bounds in
the map may not reach: the map's format folds the indices a dim is read
at into its bounds (a pad's high padding ends the domain at the last
element; a concatenated operand's starts at its stretch).  Tiles past the
bounds read nothing, and their boxes must hold nothing read either.  A dim
read there through one monotone term (``c * d_i`` or ``d_i floordiv c``)
leaves such boxes past the elements read; any other (a dim with one
element read, whose map is a constant, anchoring every tile at it) needs
every tile to meet an index it is read at (through any of the maps, for
an operand read through several: a pad's value, read by each stretch of
padding).  ``f32[2]`` padded ``0_3_1`` to ``f32[6]``, then ``f32[1]``
padded ``1_0_0`` to ``f32[2]``:

>>> print(derive_tile(parse_map("(d0) -> (d0 floordiv 2), domain: d0 in [0, 2], "
...                             "d0 mod 2 in [0, 0]"), (6,)).condition_text())
d0 mod 2 in [0, 0] || d0 in [4, 6]
>>> print(derive_tile(parse_map("(d0) -> (0), domain: d0 in [1, 1]"), (2,)).condition_text())
d0 in [2, 2]

XLA tiles over the output shape too, but for a pad it rebuilds the map
over the output's dims from its expression alone (``d0 - 1``, which it
does not fold to ``0``: it keeps one-index dims where a pad is fused), so
its offset extrapolates past the operand and a tile reading nothing loads
(masked) indices outside it: there ``f32[1]`` padded ``1_0_0`` is exact
for tiles of 1, which our constant map, anchoring both tiles at element
0, makes covering.  XLA also reads a pad's value at every output index;
here only the padding reads it, so its tile admits sizes whose every
tile reads padding.  Brute force over 557 pads (low and high padding -3
to 3, interior padding 0 to 2, 1 to 4 elements), slices, broadcasts and
concatenations (tests/tiling/test_output_shape.py) finds the proof's
verdict equal to the judgement of every tile position over the output
shape at all 1,718 size vectors, and the condition true only where exact.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from verifier.expr import (
    Expr,
    FloorDiv,
    IndexingMap,
    Mod,
    Var,
    Variable,
    VarKind,
    const,
    dim,
    linear_terms,
    point_value,
    substitute,
    variables_of,
)
from verifier.tiling import sizes as sz
from verifier.tiling.sizes import Atom, Condition, SizeExpr

# A result with more strided dims than this is not tiled (each subset of them
# is one conjunction of the condition).
_MAX_DIM_TERMS = 6


@dataclass(frozen=True)
class SymbolicTile:
    """Offsets (a map of the tile sizes and runtime variables), sizes and
    strides (expressions of the sizes) and the condition on the sizes under
    which the footprint is this box at every tile position.
    `box_condition` leaves out what tiles reading nothing need (that their
    boxes, anchored by a map folded to a constant along a dim, hold nothing
    read): the condition under which every tile reading something reads
    its box, which is what XLA's constraints say (its maps keep the dim,
    anchoring such tiles outside the operand)."""

    output_shape: tuple[int, ...]
    offset_map: IndexingMap
    sizes: tuple[SizeExpr, ...]
    strides: tuple[SizeExpr, ...]
    condition: Condition
    box_condition: Condition

    def size_map(self) -> str:
        return sz.render_map(len(self.output_shape), self.sizes)

    def stride_map(self) -> str:
        return sz.render_map(len(self.output_shape), self.strides)

    def offset_text(self) -> str:
        return " ".join(line.strip() for line in str(self.offset_map).splitlines())

    def condition_text(self) -> str:
        return sz.render_condition(self.condition)

    def holds(self, sizes: Sequence[int]) -> bool:
        return sz.holds(self.condition, sizes)

    def box_sizes(self, sizes: Sequence[int]) -> tuple[int, ...]:
        return tuple(sz.evaluate(e, sizes) for e in self.sizes)

    def box_strides(self, sizes: Sequence[int]) -> tuple[int, ...]:
        return tuple(sz.evaluate(e, sizes) for e in self.strides)

    def is_affine(self) -> bool:
        """Sizes affine and strides constant in the tile sizes, under one
        conjunction of affine atoms: a question isl answers for all sizes."""
        return (
            len(self.condition) == 1
            and all(sz.is_affine(e) for e in self.sizes)
            and all(isinstance(e, sz.Const) for e in self.strides)
            and all(sz.is_affine(a.expr) for a in self.condition[0])
        )


@dataclass(frozen=True)
class NoTile:
    """No strided box describes the footprint (XLA's ``nullopt``)."""

    reason: str


@dataclass(frozen=True)
class _Term:
    """``coefficient * variable`` over `extent` values (a dim's tile size,
    or a symbol's range)."""

    coefficient: int
    extent: SizeExpr
    dim: int | None


@dataclass(frozen=True)
class _Axis:
    size: SizeExpr
    stride: SizeExpr
    condition: Condition


def derive_tile(
    indexing_map: IndexingMap,
    shape: Sequence[int] | None = None,
    union: Sequence[IndexingMap] = (),
) -> SymbolicTile | NoTile:
    """The symbolic tile of an output→input map whose dims are the indices
    of an output of `shape` (default: up to each dim's upper bound).  A dim
    whose bounds are narrower than the shape is read only there; the tiles
    still cover the whole shape.  `union`: the other maps through which the
    operand is read, when the tile is to stand for what all of them read (a
    tile reading nothing through this map may read through another)."""
    shape = tuple(v.bounds.upper + 1 for v in indexing_map.dims) if shape is None else tuple(shape)
    assert all(
        v.bounds.lower >= 0 and v.bounds.upper < n
        for v, n in zip(indexing_map.dims, shape, strict=True)
    ), (indexing_map, shape)
    bounds = [v.bounds for v in indexing_map.range_vars]
    condition: Condition = sz.ALWAYS
    axes = []
    uses: Counter[int] = Counter()
    digit_dims: set[int] = set()
    sparse = _sparse_residues(indexing_map)
    for j, result in enumerate(indexing_map.results):
        axis = _axis(result, indexing_map, shape, uses, digit_dims, sparse)
        if isinstance(axis, str):
            return NoTile(f"result {j} ({result}): {axis}")
        axes.append(axis)
        condition = sz.conjoin(condition, axis.condition)
    single = {i for i, n in uses.items() if n > 1 or (i in digit_dims and n > 0)}
    single |= _overlapping_digits(indexing_map)
    for variable in indexing_map.rt_vars:
        if variable.source is not None:
            single |= {
                v.index
                for e in variable.source.index_map.results
                for v in variables_of(e)
                if v.kind is VarKind.DIM
            }
    for index in sorted(single):
        condition = sz.conjoin(condition, ((Atom(sz.Size(index), 1, 1),),))
    box_condition = sz.restrict(condition, shape)
    for index in _folding_dims(indexing_map, shape):
        reads = _every_tile_reads(index, indexing_map, union, shape[index])
        condition = sz.conjoin(condition, reads)
    condition = sz.restrict(condition, shape)
    if condition == sz.NEVER:
        return NoTile("no tile sizes make the footprint a strided box")

    def lowest(v: Var) -> Expr:
        match v.kind:
            case VarKind.DIM:
                return const(0)
            case VarKind.RANGE:
                return const(bounds[v.index].lower)
            case VarKind.RT:
                return v

    offsets = [substitute(e, lowest) for e in indexing_map.results]
    offset_map = IndexingMap.create(
        [(1, n) for n in shape],
        offsets,
        rt_vars=[Variable(v.bounds) for v in indexing_map.rt_vars],
    )
    return SymbolicTile(
        shape,
        offset_map,
        tuple(a.size for a in axes),
        tuple(a.stride for a in axes),
        condition,
        box_condition,
    )


def _axis(
    result: Expr,
    indexing_map: IndexingMap,
    shape: tuple[int, ...],
    uses: Counter[int],
    digit_dims: set[int],
    sparse: frozenset[tuple[int, int]],
) -> _Axis | str:
    """One result's size, stride and condition, or why it has none."""
    terms, _ = linear_terms(result)
    strided: list[_Term] = []
    digits: list[tuple[int, int, int | None, int]] = []
    for base, coefficient in terms.items():
        match base:
            case Var(VarKind.DIM, index):
                uses[index] += 1
                strided.append(_Term(coefficient, sz.Size(index), index))
            case Var(VarKind.RANGE, index):
                interval = indexing_map.range_vars[index].bounds
                if interval.upper > interval.lower:
                    extent = sz.Const(interval.upper - interval.lower + 1)
                    strided.append(_Term(coefficient, extent, None))
            case Var(VarKind.RT):
                pass
            case _:
                digit = _digit(base)
                if digit is None:
                    return f"'{base}' is neither a strided term nor a digit of one dim"
                digits.append((*digit, coefficient))
    if digits:
        if len(digits) > 1 or strided:
            return "a digit of a merged dimension is not alone in its result"
        index, divisor, modulus, coefficient = digits[0]
        digit_dims.add(index)
        alone = None
        if (index, divisor) in sparse:
            # One tile reaches past the last index read by a block (the
            # second then starts past it), or spans the dim.
            last = indexing_map.dims[index].bounds.upper
            alone = min(shape[index], last + divisor)
        return _digit_axis(index, divisor, modulus, coefficient, alone)
    return _strided_axis(strided, shape)


def _folding_dims(indexing_map: IndexingMap, shape: tuple[int, ...]) -> list[int]:
    """The dims read over less than the shape whose tiles reading nothing
    may still hold elements in their boxes: all but those that every
    result mentioning them reads through one monotone term alone
    (``c * d_i`` or ``d_i floordiv c``, plus constants), whose box then
    lies past the elements read wherever the tile does."""
    found = []
    for index, variable in enumerate(indexing_map.dims):
        if variable.bounds.lower == 0 and variable.bounds.upper == shape[index] - 1:
            continue
        mentioning = [r for r in indexing_map.results if dim(index) in variables_of(r)]
        if not mentioning or not all(_monotone_in(r, index) for r in mentioning):
            found.append(index)
    return found


def _monotone_in(result: Expr, index: int) -> bool:
    terms, _ = linear_terms(result)
    bases = [b for b in terms if not (isinstance(b, Var) and b.kind is VarKind.RT)]
    match bases:
        case [Var(VarKind.DIM, i)] | [FloorDiv(Var(VarKind.DIM, i), _)]:
            return i == index
        case _:
            return False


def _every_tile_reads(
    index: int, indexing_map: IndexingMap, union: Sequence[IndexingMap], extent: int
) -> Condition:
    """Every tile along dim `index` (of `extent` indices) meets an index it
    is read at (within a map's bounds and its constraints on this dim alone),
    through this map or (a `union`) another: the admitted sizes enumerated
    as runs, up to `_ENUMERATED` indices; past that, within this map's
    bounds ``[lo, hi]`` alone: the first tile reaches ``lo`` (``t > lo``)
    and the last starts by ``hi`` (``(extent - 1) mod t ≥ extent - 1 - hi``).
    A constraint tying the dim to other variables leaves only the whole
    dim."""
    variable = dim(index)
    maps = (indexing_map, *union)
    size = sz.Size(index)
    if any(
        variable in variables_of(e) and variables_of(e) != {variable}
        for m in maps
        for e, _ in m.constraints
    ):
        return sz.atom_condition(Atom(size, extent, _LARGE))
    if extent <= _ENUMERATED:
        read = [False] * extent
        for m in maps:
            bounds = m.dims[index].bounds
            alone = [(e, b) for e, b in m.constraints if variables_of(e) == {variable}]
            test = point_value([variable], [*alone, (variable, bounds)], const(0))
            assert test is not None
            for x in range(bounds.lower, bounds.upper + 1):
                read[x] = read[x] or test(x) is not None
        runs: list[list[int]] = []
        for t in range(1, extent + 1):
            if all(any(read[a : a + t]) for a in range(0, extent, t)):
                if runs and runs[-1][1] == t - 1:
                    runs[-1][1] = t
                else:
                    runs.append([t, t])
        return sz.either(*(Atom(size, lo, hi) for lo, hi in runs)) if runs else sz.NEVER
    bounds = indexing_map.dims[index].bounds
    first = sz.atom_condition(Atom(size, bounds.lower + 1, _LARGE))
    last = Atom(sz.mod(sz.Const(extent - 1), size), extent - 1 - bounds.upper, extent - 1)
    return sz.conjoin(first, sz.atom_condition(last))


# The most indices of a dim whose admitted sizes are enumerated.
_ENUMERATED = 1 << 12


def _sparse_residues(indexing_map: IndexingMap) -> frozenset[tuple[int, int]]:
    """The pairs ``(i, c)`` of a constraint ``d_i mod c in [lo, hi]`` that
    leaves out some residues (a pad's interior padding): the output indices
    it leaves out read nothing, though ``d_i floordiv c`` maps them onto
    elements their neighbours read."""
    found = set()
    for expr, interval in indexing_map.constraints:
        match expr:
            case Mod(Var(VarKind.DIM, index), modulus) if (
                interval.lower > 0 or interval.upper < modulus - 1
            ):
                found.add((index, modulus))
    return frozenset(found)


def _overlapping_digits(indexing_map: IndexingMap) -> set[int]:
    """The dims two results read through digits that share values — a
    diagonal like ``(d0 mod 6, d0 mod 6)``: no box unless the tile is one
    element along the dim.  Digits ``(d floordiv c) mod m`` of one dim are
    independent when one's divisor is at least the other's ``c * m``."""
    found: dict[int, list[tuple[int, int | None]]] = {}
    for result in indexing_map.results:
        terms, _ = linear_terms(result)
        for base in terms:
            digit = _digit(base)
            if digit is not None:
                index, divisor, modulus = digit
                found.setdefault(index, []).append((divisor, modulus))
    overlapping = set()
    for index, digits in found.items():
        for (c1, m1), (c2, m2) in itertools.combinations(digits, 2):
            apart = (m1 is not None and c2 >= c1 * m1) or (m2 is not None and c1 >= c2 * m2)
            if not apart:
                overlapping.add(index)
    return overlapping


def _digit(base: Expr) -> tuple[int, int, int | None] | None:
    """``(d_i floordiv c) mod m`` as ``(i, c, m)`` (``c`` 1 or ``m`` None
    where absent)."""
    match base:
        case Mod(Var(VarKind.DIM, index), modulus):
            return index, 1, modulus
        case Mod(FloorDiv(Var(VarKind.DIM, index), divisor), modulus):
            return index, divisor, modulus
        case FloorDiv(Var(VarKind.DIM, index), divisor):
            return index, divisor, None
        case _:
            return None


def _divides_either_way(a: SizeExpr, b: SizeExpr) -> Condition:
    """``a mod b = 0 || b mod a = 0``."""
    return sz.either(Atom(sz.mod(a, b), 0, 0), Atom(sz.mod(b, a), 0, 0))


def _digit_axis(
    index: int, divisor: int, modulus: int | None, coefficient: int, alone: int | None
) -> _Axis:
    """`alone` when a constraint leaves out some residues
    ``d_i mod divisor``: a tile of fewer than `divisor` indices then may
    read nothing, or an element past its origin's, so only whole blocks of
    `divisor` indices are boxes, or tiles of at least `alone` indices (the
    first reads every element, the others none)."""
    size = sz.Size(index)
    count = sz.floordiv(sz.add(size, divisor - 1), divisor)
    condition = sz.ALWAYS
    if alone is not None:
        condition = sz.either(
            Atom(sz.mod(size, sz.Const(divisor)), 0, 0), Atom(size, alone, _LARGE)
        )
    elif divisor > 1:
        condition = _divides_either_way(sz.Const(divisor), size)
    if modulus is not None:
        condition = sz.conjoin(condition, _divides_either_way(sz.Const(modulus), count))
        count = sz.add(sz.mod(sz.add(count, -1), modulus), 1)
    return _Axis(count, sz.Const(coefficient), condition)


def _strided_axis(terms: list[_Term], shape: tuple[int, ...]) -> _Axis | str:
    if not terms:
        return _Axis(sz.Const(1), sz.Const(0), sz.ALWAYS)
    if len({t.coefficient > 0 for t in terms}) > 1:
        return "strided terms of both signs"
    dim_terms = [t for t in terms if t.dim is not None]
    if len(dim_terms) > _MAX_DIM_TERMS:
        return f"more than {_MAX_DIM_TERMS} dims in one result"
    sign = 1 if terms[0].coefficient > 0 else -1
    # Ties: symbols (always more than one value) first.
    ordered = sorted(terms, key=lambda t: (abs(t.coefficient), t.dim is not None))
    condition: Condition = sz.NEVER
    for count in range(len(dim_terms) + 1):
        for active_dims in itertools.combinations(dim_terms, count):
            condition = sz.disjoin(condition, _chain_condition(ordered, set(active_dims)))
    if condition == sz.NEVER:
        return "the strided terms never form one progression"
    # A tile of a dim below the largest term must not run past the dim's
    # end, into elements of the next value of a larger term.
    for term in ordered[:-1]:
        if term.dim is not None:
            whole = Atom(sz.mod(sz.Const(shape[term.dim]), term.extent), 0, 0)
            condition = sz.conjoin(condition, sz.atom_condition(whole))
    stride = _least_stride(ordered)
    reach = sz.add(*(sz.mul(abs(t.coefficient), sz.add(t.extent, -1)) for t in ordered))
    if isinstance(stride, sz.Const):
        step = stride.value
        size = sz.add(
            *(sz.mul(abs(t.coefficient) // step, sz.add(t.extent, -1)) for t in ordered), 1
        )
        if any(abs(t.coefficient) % step for t in ordered):
            size = sz.add(sz.floordiv(reach, stride), 1)
    else:
        size = sz.add(sz.floordiv(reach, stride), 1)
    return _Axis(size, sz.mul(stride, sign), condition)


def _chain_condition(ordered: list[_Term], active_dims: set[_Term]) -> Condition:
    """The sizes under which exactly `active_dims` (of the dim terms) have
    more than one value and the terms form one progression."""
    atoms = [Atom(t.extent, 1, 1) for t in ordered if t.dim is not None and t not in active_dims]
    active = [t for t in ordered if t.dim is None or t in active_dims]
    if active:
        step = abs(active[0].coefficient)
        if any(abs(t.coefficient) % step for t in active):
            return sz.NEVER
        reach: SizeExpr = sz.Const(step)
        for term in active:
            gap = sz.add(reach, -abs(term.coefficient))
            if not isinstance(gap, sz.Const) or gap.value < 0:
                atoms.append(Atom(gap, 0, _LARGE))
            reach = sz.add(reach, sz.mul(abs(term.coefficient), sz.add(term.extent, -1)))
    conjunction: Condition = sz.ALWAYS
    for atom in atoms:
        conjunction = sz.conjoin(conjunction, sz.atom_condition(atom))
    return conjunction


# The upper end of "at least" atoms (``gap in [0, _LARGE]``); `restrict`
# narrows the ones of one size to that size's bounds.
_LARGE = 1 << 62


def _least_stride(ordered: list[_Term]) -> SizeExpr:
    """The least ``|c|`` among the terms with more than one value: a
    constant when the least term is a symbol, else chosen by indicators
    ``min(t - 1, 1)`` (1 when ``t > 1``)."""
    stride: SizeExpr = sz.Const(abs(ordered[-1].coefficient))
    for term in reversed(ordered[:-1]):
        if term.dim is None:
            stride = sz.Const(abs(term.coefficient))
            continue
        more = sz.minimum(sz.add(term.extent, -1), 1)
        stride = sz.add(
            sz.mul(abs(term.coefficient), more), sz.mul(sz.add(1, sz.mul(more, -1)), stride)
        )
    return stride
