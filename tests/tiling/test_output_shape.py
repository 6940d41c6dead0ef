"""Tiles over the whole output shape, judged by brute force.

An operand's map may be defined on less than the output: a pad's operand is
read only between its low and high padding, a concatenated operand only in
its own stretch.  Tiles still cover every output index, and a tile that
reads nothing is judged by its box like any other: if the box holds an
element the operation reads somewhere, the tile loads what it does not
read (``covering``).

Here the elements one output index reads come from each operation's
semantics written in plain Python (pad, slice, broadcast, concatenate);
for every size vector, every tile position over the output shape is
enumerated with the elements it reads, against the tool's box (its sizes
and strides, anchored where its map puts the tile's origin) within the
elements read at all.  The tool's verdict (`prove_sizes`) must equal that
judgement, and its condition must admit only exact sizes.  For 1-D cases
whose map anchors every tile where the operation's own formula does,
brute force also tries every box size and stride: the condition must
admit exactly the sizes some box fits.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from tests.tiling.oracle import anchor_of, entry_maps
from verifier.analysis import ModuleMaps
from verifier.hlo import parse_module
from verifier.tiling import derive
from verifier.tiling.analysis import tile_instruction
from verifier.tiling.derive import SymbolicTile, derive_tile
from verifier.tiling.proof import prove_sizes

Index = tuple[int, ...]


@dataclass(frozen=True)
class Case:
    """An HLO ROOT, its output shape, which operand, the elements of it
    one output index reads, and (1-D) where the formula anchors a tile."""

    text: str
    shape: tuple[int, ...]
    operand: int
    reads: Callable[[Index], set[Index]]
    anchor: Callable[[int], int] | None = None


def _module(params: Sequence[str], root: str) -> str:
    lines = [f"  q{k} = {p} parameter({k})" for k, p in enumerate(params)]
    return "HloModule m\nENTRY main {\n" + "\n".join(lines) + f"\n  ROOT o = {root}\n}}"


def pad(dims: Sequence[tuple[int, int, int, int]]) -> Case:
    """Each dim ``(n, lo, hi, r)``: interior padding ``r - 1``."""
    shape = tuple(lo + hi + n + (n - 1) * (r - 1) for n, lo, hi, r in dims)
    operand = ",".join(str(n) for n, _, _, _ in dims)
    padding = "x".join(f"{lo}_{hi}_{r - 1}" for _, lo, hi, r in dims)
    text = _module(
        [f"f32[{operand}]", "f32[]"],
        f"f32[{','.join(map(str, shape))}] pad(q0, q1), padding={padding}",
    )

    def reads(x: Index) -> set[Index]:
        element = []
        for xi, (n, lo, _, r) in zip(x, dims, strict=True):
            if (xi - lo) % r or not 0 <= (xi - lo) // r < n:
                return set()
            element.append((xi - lo) // r)
        return {tuple(element)}

    anchor = None
    if len(dims) == 1:
        (_, lo, _, r) = dims[0]
        anchor = lambda a: (a - lo) // r  # noqa: E731
    return Case(text, shape, 0, reads, anchor)


def slice_(n: int, start: int, limit: int, stride: int) -> Case:
    extent = -(-(limit - start) // stride)
    text = _module([f"f32[{n}]"], f"f32[{extent}] slice(q0), slice={{[{start}:{limit}:{stride}]}}")
    return Case(
        text, (extent,), 0, lambda x: {(start + x[0] * stride,)}, lambda a: start + a * stride
    )


def broadcast(operand: Sequence[int], shape: Sequence[int], dims: Sequence[int]) -> Case:
    text = _module(
        [f"f32[{','.join(map(str, operand))}]"],
        f"f32[{','.join(map(str, shape))}] broadcast(q0), dimensions={{{','.join(map(str, dims))}}}",
    )
    return Case(text, tuple(shape), 0, lambda x: {tuple(x[d] for d in dims)})


def concatenate(sizes: Sequence[int], operand: int) -> Case:
    total, offset = sum(sizes), sum(sizes[:operand])
    n = sizes[operand]
    text = _module(
        [f"f32[{s}]" for s in sizes],
        f"f32[{total}] concatenate({', '.join(f'q{k}' for k in range(len(sizes)))}), "
        "dimensions={0}",
    )
    return Case(
        text,
        (total,),
        operand,
        lambda x: {(x[0] - offset,)} if offset <= x[0] < offset + n else set(),
        lambda a: a - offset,
    )


def _tiles(case: Case, sizes: Sequence[int]) -> list[tuple[Index, set[Index]]]:
    """Every tile position's origin over the output shape, and what it reads."""
    found = []
    for origin in itertools.product(
        *(range(0, n, t) for n, t in zip(case.shape, sizes, strict=True))
    ):
        ranges = [
            range(a, min(a + t, n)) for a, t, n in zip(origin, sizes, case.shape, strict=True)
        ]
        read: set[Index] = set()
        for x in itertools.product(*ranges):
            read |= case.reads(x)
        found.append((origin, read))
    return found


def _image(case: Case) -> set[Index]:
    image: set[Index] = set()
    for x in itertools.product(*(range(n) for n in case.shape)):
        image |= case.reads(x)
    return image


def _box(first: Index, sizes: Sequence[int], strides: Sequence[int]) -> set[Index]:
    return {
        tuple(o + k * s for o, k, s in zip(first, ks, strides, strict=True))
        for ks in itertools.product(*(range(n) for n in sizes))
    }


def brute_verdict(
    case: Case, tile: SymbolicTile, anchor: Callable[..., Index], sizes: Index
) -> str:
    """``exact``, ``covering`` or ``refuted`` for the tool's box at every tile."""
    image = _image(case)
    box_sizes, strides = tile.box_sizes(sizes), tile.box_strides(sizes)
    verdict = "exact"
    for origin, read in _tiles(case, sizes):
        box = _box(anchor(*origin), box_sizes, strides) & image
        if read == box:
            continue
        if not read <= box:
            return "refuted"
        verdict = "covering"
    return verdict


def some_box_fits(case: Case, size: int) -> bool:
    """1-D: some box size and stride, anchored by the formula, is what
    every tile of `size` reads."""
    assert case.anchor is not None
    image = {e for (e,) in _image(case)}
    tiles = _tiles(case, (size,))
    n = max(image, default=0) + 1
    return any(
        all(
            {e for (e,) in read} == {case.anchor(a) + k * s for k in range(box)} & image
            for (a,), read in tiles
        )
        for box in range(1, case.shape[0] + 1)
        for s in ([0] if box == 1 else range(1, n + 1))
    )


KINDS = ("exact", "covering", "refuted", "no tile", "not read", "formula")


def judge_case(case: Case) -> dict[str, int]:
    """Every size vector of `case`: the tool's verdict and condition
    against brute force.  Counts of what was judged."""
    indexing_map = entry_maps(case.text)[case.operand]
    counts = dict.fromkeys(KINDS, 0)
    if indexing_map is None:
        # Every element cut by negative padding: the operand is not read.
        assert not _image(case), case.text
        counts["not read"] += 1
        return counts
    tile = derive_tile(indexing_map, case.shape)
    if not isinstance(tile, SymbolicTile):
        counts["no tile"] += 1
        return counts
    anchor = anchor_of(indexing_map)
    same_anchor = case.anchor is not None and all(
        anchor(a) == (case.anchor(a),) for a in range(case.shape[0])
    )
    for sizes in itertools.product(*(range(1, n + 1) for n in case.shape)):
        truth = brute_verdict(case, tile, anchor, sizes)
        proof = prove_sizes(indexing_map, tile, sizes)
        assert proof.verdict == truth, (case.text, sizes, proof.verdict, proof.witness, truth)
        assert not tile.holds(sizes) or truth == "exact", (case.text, sizes, truth)
        counts[truth] += 1
        if same_anchor:
            assert tile.holds(sizes) == some_box_fits(case, sizes[0]), (case.text, sizes)
            counts["formula"] += 1
    return counts


def _pads_1d(ns: Sequence[int], pads: Sequence[int], rs: Sequence[int]) -> list[Case]:
    return [
        pad([(n, lo, hi, r)])
        for n in ns
        for r in rs
        for lo in pads
        for hi in pads
        if lo + hi + n + (n - 1) * (r - 1) >= 1
    ]


def _other_cases() -> list[Case]:
    cases = [
        slice_(n, s, lim, st)
        for n in (1, 3, 5)
        for s in range(n)
        for lim in range(s + 1, n + 1)
        for st in (1, 2, 3)
    ]
    cases += [
        concatenate(sizes, k)
        for sizes in [(1, 3), (2, 1, 2), (3, 2), (1, 1)]
        for k in range(len(sizes))
    ]
    cases += [
        broadcast((3,), (2, 3), (1,)),
        broadcast((2,), (2, 3), (0,)),
        broadcast((1,), (1, 3), (0,)),
        broadcast((1,), (3, 1), (1,)),
        broadcast((), (2, 2), ()),
    ]
    cases += [pad([(1, 1, 1, 1), (2, 0, 1, 2)]), pad([(2, -1, 2, 2), (1, 0, 2, 1)])]
    return cases


QUICK = [
    pad([(2, 0, 1, 2)]),
    pad([(1, 1, 0, 1)]),
    pad([(3, -2, 2, 1)]),
    pad([(2, 2, -1, 3)]),
    slice_(5, 1, 5, 2),
    broadcast((1,), (1, 3), (0,)),
    concatenate((1, 3), 0),
    concatenate((2, 1, 2), 1),
]


def _sweep(cases: Sequence[Case]) -> dict[str, int]:
    total = dict.fromkeys(KINDS, 0)
    for case in cases:
        for key, value in judge_case(case).items():
            total[key] += value
    vectors = total["exact"] + total["covering"] + total["refuted"]
    print(f"{len(cases)} cases, {vectors} size vectors judged: {total}")
    return total


def test_the_tile_command_judges_every_tile_of_a_padded_output() -> None:
    """Through `tile_instruction` (what `verifier tile` runs): ``f32[2]``
    padded ``0_1_1`` to ``f32[4]``.  The operand's verdict is brute force's
    at every size; the padding value (read at indices 1 and 3 only) has an
    exact tile only where every tile reads some padding."""
    case = pad([(2, 0, 1, 2)])
    module = parse_module(case.text)
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    anchor = anchor_of(entry_maps(case.text)[0])
    verdicts = []
    for t in range(1, 5):
        first, value = tile_instruction(view, (t,)).operands
        assert first.tile is not None and first.proof is not None
        verdicts.append(first.proof.verdict)
        assert first.proof.verdict == brute_verdict(case, first.tile, anchor, (t,)), t
        every = all(
            any(not case.reads((x,)) for x in range(a, min(a + t, 4))) for a in range(0, 4, t)
        )
        assert value.tile is None or (value.proof is not None and value.proof.verdict == "exact")
        assert value.tile is None or every, t
    # A tile of 3 (the map's domain's extent) is covering: [3, 4) reads
    # nothing, yet its box holds element 1.
    assert verdicts == ["covering", "exact", "covering", "exact"]


def padding_value_judged(case: Case) -> int:
    """Through `tile_instruction`, a pad's padding value (read through one
    map per stretch of padding) at every tile size: a tile proved exact
    exactly where every tile reads some padding.  The sizes judged."""
    module = parse_module(case.text)
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    (extent,) = case.shape
    judged = 0
    for t in range(1, extent + 1):
        every = all(
            any(not case.reads((x,)) for x in range(a, min(a + t, extent)))
            for a in range(0, extent, t)
        )
        _, value = tile_instruction(view, (t,)).operands
        if value.reason == "not read":
            assert not any(not case.reads((x,)) for x in range(extent)), case.text
            continue
        # Through one map, its tile and the proof's verdict; through
        # several, a tile only where isl proves it their union's.
        exact = value.proof is not None and value.proof.verdict == "exact"
        assert exact == every, (case.text, t, value.reason)
        judged += 1
    return judged


def test_tiles_over_the_output_shape_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    total = _sweep(QUICK)
    # Both verdicts occur: reading-nothing tiles whose boxes hold elements.
    assert total["exact"] > 0 and total["covering"] > 0
    assert padding_value_judged(pad([(2, 1, 3, 2)])) == 7
    # Past the enumerated extent, the condition's closed form.
    monkeypatch.setattr(derive, "_ENUMERATED", 0)
    assert _sweep(QUICK) == total


@pytest.mark.slow
def test_tiles_over_the_output_shape_sweep() -> None:
    cases = _pads_1d(range(1, 5), range(-3, 4), range(1, 4)) + _other_cases()
    total = _sweep(cases)
    assert total["exact"] > 0 and total["covering"] > 0 and total["formula"] > 0
    padded = _pads_1d(range(1, 3), range(-2, 3), range(1, 3))
    judged = sum(padding_value_judged(case) for case in padded)
    print(f"padding value: {len(padded)} pads, {judged} sizes judged")
