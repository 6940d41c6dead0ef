"""An independent brute force for `verifier coalescing` on generated loop
fusions, written from XLA's semantics and sharing no code with the tool
(nor with `tests.coalescing.brute`): a random fusion of a few ops (unary
and binary elementwise, converts, broadcast, transpose, reverse, strided
slice, pad with interior padding, concatenate, row-major reshape, bitcast,
reduce) over parameters of random element types (``pred``, ``s4``/``u4``
packed by ``E(4)`` or a byte each, 8- to 64-bit types), minor-to-major
permutations and nested tilings, is written as HLO text; every thread of
XLA's loop launch (``CalculateLaunchDimensions``, the unroll of
``ComputeLoopFusionConfig``, the linear index of
``GetDefaultWorkItemIndexingMap``) is run through the ops' semantics to the
parameter elements it reads; each element's slot follows the tiled-layout
rules (dims in physical order; each tiling splits the minor dims it covers
into a grid and an in-tile part, leading 1-dims added when it has more
dims); a warp's request for one load (one read path of the operand, one
value of a reduce's reduced index) holds every unroll lane, and its
32-byte sectors are the distinct ``bit address // 256``.

Two read paths of one operand are one load when no point of the launch
(thread, block, unroll id, reduced index) reads two different elements
through them (the tool's documented rule: a concatenate's pieces, a pad's
interior), found here by enumeration.

>>> slot((1, 2), (3, 5), (1, 0), ((2, 2),))  # T(2,2) of f32[3,5]: tile (0, 1), in-tile (1, 0)
6
>>> slot((1, 2), (3, 5), (0, 1), ())  # column-major
7
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

Index = tuple[int, ...]

BITS = {"pred": 8, "s4": 4, "u4": 4, "s8": 8, "u8": 8, "bf16": 16, "f16": 16}
BITS |= {"f32": 32, "s32": 32, "u32": 32, "f64": 64, "s64": 64}
"""Bits of an element as XLA's ``SmallestBitWidth`` counts an output (a
``pred`` as a byte)."""


def slot(index: Index, dims: Index, minor_to_major: Index, tiles: Sequence[Index]) -> int:
    """The element slot `index` takes in a buffer of `dims` laid out by
    `minor_to_major` and `tiles` (XLA's tiled layout, module docstring)."""
    physical = [d for d in reversed(minor_to_major)]
    shape = [dims[d] for d in physical]
    coord = [index[d] for d in physical]
    for tile in tiles:
        while len(shape) < len(tile):
            shape.insert(0, 1)
            coord.insert(0, 0)
        cut = len(shape) - len(tile)
        outer_shape = shape[:cut] + [-(-n // t) for n, t in zip(shape[cut:], tile, strict=False)]
        outer = coord[:cut] + [c // t for c, t in zip(coord[cut:], tile, strict=False)]
        inner = [c % t for c, t in zip(coord[cut:], tile, strict=False)]
        shape, coord = outer_shape + list(tile), outer + inner
    offset = 0
    for c, n in zip(coord, shape, strict=False):
        offset = offset * n + c
    return offset


@dataclass(frozen=True)
class Param:
    number: int
    dims: Index
    element: str
    minor_to_major: Index
    tiles: tuple[Index, ...] = ()
    packed: bool = False

    @property
    def slot_bits(self) -> int:
        return 4 if self.packed else max(8, BITS[self.element])

    def shape_text(self) -> str:
        suffix = "".join(f"T({','.join(map(str, t))})" for t in self.tiles)
        suffix += "E(4)" if self.packed else ""
        order = ",".join(map(str, self.minor_to_major))
        dims = ",".join(map(str, self.dims))
        return f"{self.element}[{dims}]{{{order}{':' + suffix if suffix else ''}}}"


@dataclass(frozen=True)
class Node:
    """One op of the fused computation: `op`, its result `dims` and element
    type, its operands and attributes."""

    op: str
    dims: Index
    element: str
    operands: tuple[Node | Param, ...] = ()
    attrs: tuple[Any, ...] = ()
    name: str = field(default="", compare=False)


Value = Node | Param
Read = tuple[int, tuple[int, ...], Index, Index]
"""(parameter, read path, reduced index, parameter index)."""


def dims_of(value: Value) -> Index:
    return value.dims


def reads(value: Value, index: Index, path: tuple[int, ...] = ()) -> list[Read]:
    """The parameter elements output element `index` of `value` reads."""
    if isinstance(value, Param):
        return [(value.number, path, (), index)]
    a = value.attrs
    match value.op:
        case "negate" | "convert":
            return reads(value.operands[0], index, (*path, 0))
        case "add":
            return [r for k, v in enumerate(value.operands) for r in reads(v, index, (*path, k))]
        case "broadcast":
            return reads(value.operands[0], tuple(index[d] for d in a[0]), (*path, 0))
        case "transpose":
            source = [0] * len(index)
            for k, d in enumerate(a[0]):
                source[d] = index[k]
            return reads(value.operands[0], tuple(source), (*path, 0))
        case "reverse":
            n = dims_of(value.operands[0])
            turned = tuple(n[d] - 1 - i if d in a[0] else i for d, i in enumerate(index))
            return reads(value.operands[0], turned, (*path, 0))
        case "slice":
            starts, strides = a
            picked = tuple(s + i * t for s, i, t in zip(starts, index, strides, strict=False))
            return reads(value.operands[0], picked, (*path, 0))
        case "pad":
            lows, interiors = a
            n = dims_of(value.operands[0])
            source = []
            for i, low, gap, size in zip(index, lows, interiors, n, strict=False):
                shifted = i - low
                if shifted < 0 or shifted % (gap + 1) or shifted // (gap + 1) >= size:
                    return []
                source.append(shifted // (gap + 1))
            return reads(value.operands[0], tuple(source), (*path, 0))
        case "concatenate":
            (axis,) = a
            start = 0
            for k, operand in enumerate(value.operands):
                length = dims_of(operand)[axis]
                if start <= index[axis] < start + length:
                    inside = list(index)
                    inside[axis] -= start
                    return reads(operand, tuple(inside), (*path, k))
                start += length
            raise AssertionError(index)
        case "reshape":
            return reads(
                value.operands[0],
                _row_major_index(_row_major_linear(index, value.dims), dims_of(value.operands[0])),
                (*path, 0),
            )
        case "bitcast":
            (operand,) = value.operands
            assert isinstance(operand, Param) and not operand.tiles
            linear = _row_major_linear(index, value.dims)
            source = [0] * len(operand.dims)
            for d in operand.minor_to_major:
                source[d] = linear % operand.dims[d]
                linear //= operand.dims[d]
            return reads(operand, tuple(source), (*path, 0))
        case "reduce":
            (reduced,) = a
            operand = value.operands[0]
            n = dims_of(operand)
            kept = [d for d in range(len(n)) if d not in reduced]
            found: list[Read] = []
            for r in itertools.product(*(range(n[d]) for d in reduced)):
                source = [0] * len(n)
                for d, i in zip(kept, index, strict=False):
                    source[d] = i
                for d, i in zip(reduced, r, strict=False):
                    source[d] = i
                for number, p, loop, element in reads(operand, tuple(source), (*path, 0)):
                    found.append((number, p, r + loop, element))
            return found
    raise AssertionError(value.op)


def _row_major_linear(index: Index, dims: Index) -> int:
    linear = 0
    for i, n in zip(index, dims, strict=False):
        linear = linear * n + i
    return linear


def _row_major_index(linear: int, dims: Index) -> Index:
    out = []
    for n in reversed(dims):
        out.append(linear % n)
        linear //= n
    return tuple(reversed(out))


@dataclass(frozen=True)
class Fusion:
    """`root` (its layout `out_order`), and a `second` root of the same
    dims (layout `second_order`) making a tuple of two outputs."""

    root: Node
    params: tuple[Param, ...]
    out_order: Index
    second: Node | None = None
    second_order: Index = ()

    @property
    def roots(self) -> tuple[tuple[Node, Index], ...]:
        first = ((self.root, self.out_order),)
        return first if self.second is None else (*first, (self.second, self.second_order))

    def text(self) -> str:
        lines: list[str] = []
        names: dict[int, str] = {}

        def emit(value: Value) -> str:
            if isinstance(value, Param):
                return f"p{value.number}"
            if id(value) in names:
                return names[id(value)]
            args = [emit(v) for v in value.operands]
            name = f"v{len(names)}"
            names[id(value)] = name
            a = value.attrs
            shape = f"{value.element}[{','.join(map(str, value.dims))}]"
            for root, order in self.roots:
                if value is root:
                    shape += "{" + ",".join(map(str, order)) + "}"
            match value.op:
                case "negate" | "convert" | "add" | "reshape" | "bitcast":
                    body = f"{value.op}({', '.join(args)})"
                case "broadcast" | "transpose" | "reverse":
                    body = f"{value.op}({args[0]}), dimensions={{{','.join(map(str, a[0]))}}}"
                case "slice":
                    ranges = ", ".join(
                        f"[{s}:{s + (n - 1) * t + 1}:{t}]"
                        for s, t, n in zip(a[0], a[1], value.dims, strict=False)
                    )
                    body = f"slice({args[0]}), slice={{{ranges}}}"
                case "pad":
                    n = dims_of(value.operands[0])
                    config = "x".join(
                        f"{lo}_{out - lo - (size - 1) * (gap + 1) - 1}_{gap}"
                        for lo, gap, size, out in zip(a[0], a[1], n, value.dims, strict=False)
                    )
                    lines.append(f"  z{name} = {value.element}[] constant(0)")
                    body = f"pad({args[0]}, z{name}), padding={config}"
                case "concatenate":
                    body = f"concatenate({', '.join(args)}), dimensions={{{a[0]}}}"
                case "reduce":
                    lines.append(f"  z{name} = {value.element}[] constant(0)")
                    dims = ",".join(map(str, a[0]))
                    body = (
                        f"reduce({args[0]}, z{name}), dimensions={{{dims}}}, "
                        f"to_apply=sum_{value.element}"
                    )
                case _:
                    raise AssertionError(value.op)
            marker = "ROOT " if value is self.root and self.second is None else ""
            lines.append(f"  {marker}{name} = {shape} {body}")
            return name

        outs = []
        for root, order in self.roots:
            outs.append(
                (
                    emit(root),
                    f"{root.element}[{','.join(map(str, root.dims))}]{{{','.join(map(str, order))}}}",
                )
            )
        out = outs[0][1]
        if self.second is not None:
            out = f"({', '.join(shape for _, shape in outs)})"
            lines.append(f"  ROOT t = {out} tuple({', '.join(name for name, _ in outs)})")
        params = [f"  p{p.number} = {p.shape_text()} parameter({p.number})" for p in self.params]
        reducers = ""
        every = [n for root, _ in self.roots for n in _nodes(root)]
        for element in sorted({n.element for n in every if n.op == "reduce"}):
            reducers += (
                f"sum_{element} {{\n  a = {element}[] parameter(0)\n  b = {element}[] parameter(1)\n"
                f"  ROOT s = {element}[] add(a, b)\n}}\n"
            )
        args = ", ".join(f"p{p.number}" for p in self.params)
        return (
            f"HloModule generated\n{reducers}fused {{\n" + "\n".join(params + lines) + "\n}\n"
            "ENTRY main {\n" + "\n".join(params) + "\n"
            f"  ROOT fusion = {out} fusion({args}), kind=kLoop, calls=fused\n}}\n"
        )


def _nodes(value: Value) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
        for operand in value.operands:
            yield from _nodes(operand)


# ---------------------------------------------------------------------------
# The launch and its requests.


@dataclass(frozen=True)
class Device:
    resident_threads: int


DEVICES = {
    "rtx-a6000": Device(1536 * 84),
    "a100": Device(2048 * 108),
    "h100": Device(2048 * 132),
}
"""Threads per SM times SMs of XLA's test device descriptions."""


@dataclass(frozen=True)
class Launch:
    threads: int
    blocks: int
    unroll: int


def launch(fusion: Fusion, device: Device) -> Launch:
    """XLA's loop launch of `fusion` (module docstring)."""
    n = math.prod(fusion.root.dims)
    unroll = 1
    if n >= device.resident_threads:
        unroll = math.gcd(n, 4)
    unroll = max(unroll, -(-8 // min(BITS[root.element] for root, _ in fusion.roots)))
    if n <= 1:
        return Launch(1, 1, unroll)
    work = -(-n // unroll)
    threads = min(128, work)
    return Launch(threads, -(-work // threads), unroll)


@dataclass(frozen=True)
class Counts:
    """Per operand: the requests (warp x load), their sectors, and each
    request's (sectors, elements) by (block, warp, reduced index)."""

    requests: int
    minimum: int
    maximum: int
    total: int
    at_ideal: int
    by_request: dict[tuple[int, int, Index], list[tuple[int, int]]]

    def row(self) -> tuple[int, int, int, int, int]:
        """(requests, min, max, total, at ideal), as `reported` reads the tool's row."""
        return (self.requests, self.minimum, self.maximum, self.total, self.at_ideal)


def reported(row: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """(requests, min, max, total, at ideal) of an operand row of the tool's JSON."""
    spr = row["sectors_per_request"]
    total = round(spr["mean"] * row["requests"]) if row["requests"] else 0
    return (row["requests"], spr["min"], spr["max"], total, row["requests_at_ideal"])


def simulate(fusion: Fusion, device: Device) -> tuple[Launch, dict[int, Counts]]:
    """Every thread of the launch; the counts per parameter."""
    go = launch(fusion, device)
    n = math.prod(fusion.root.dims)
    dims = fusion.root.dims
    # point -> reads, per parameter: {(point, path, loop): element}
    by_param: dict[int, dict[tuple[int, ...], dict[tuple[tuple[int, ...], Index], Index]]] = (
        defaultdict(lambda: defaultdict(dict))
    )
    for block in range(go.blocks):
        for thread in range(go.threads):
            for u in range(go.unroll):
                linear = (block * go.threads + thread) * go.unroll + u
                if linear >= n:
                    continue
                for k, (root, order) in enumerate(fusion.roots):
                    index = [0] * len(dims)
                    rest = linear
                    for d in order:
                        index[d] = rest % dims[d]
                        rest //= dims[d]
                    for number, path, loop, element in reads(root, tuple(index), (k,)):
                        by_param[number][(block, thread, u)][(path, loop)] = element
    result = {}
    for param in fusion.params:
        points = by_param.get(param.number, {})
        result[param.number] = _count(param, points, go)
    return go, result


def _loads(
    points: dict[tuple[int, ...], dict[tuple[tuple[int, ...], Index], Index]],
) -> dict[tuple[int, ...], int]:
    """Read paths grouped into loads: a path joins the first load whose
    every path it agrees with (no point and reduced index reading two
    different elements through them) and that has as many loop ids."""
    paths: list[tuple[int, ...]] = []
    depth: dict[tuple[int, ...], int] = {}
    for reads_at in points.values():
        for path, loop in reads_at:
            if path not in depth:
                depth[path] = len(loop)
                paths.append(path)
    paths.sort()
    disagree: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for reads_at in points.values():
        by_loop: dict[Index, dict[tuple[int, ...], Index]] = defaultdict(dict)
        for (path, loop), element in reads_at.items():
            by_loop[loop][path] = element
        for found in by_loop.values():
            for a, b in itertools.combinations(sorted(found), 2):
                if found[a] != found[b]:
                    disagree.add((a, b))
                    disagree.add((b, a))
    groups: list[list[tuple[int, ...]]] = []
    load_of: dict[tuple[int, ...], int] = {}
    for path in paths:
        for k, group in enumerate(groups):
            if all(depth[o] == depth[path] and (o, path) not in disagree for o in group):
                group.append(path)
                load_of[path] = k
                break
        else:
            load_of[path] = len(groups)
            groups.append([path])
    return load_of


def _count(
    param: Param,
    points: dict[tuple[int, ...], dict[tuple[tuple[int, ...], Index], Index]],
    go: Launch,
) -> Counts:
    load_of = _loads(points)
    requests: dict[tuple[int, int, int, Index], set[int]] = defaultdict(set)
    for (block, thread, _), reads_at in points.items():
        for (path, loop), element in reads_at.items():
            offset = slot(element, param.dims, param.minor_to_major, param.tiles)
            requests[(block, thread // 32, load_of[path], loop)].add(offset)
    by_request: dict[tuple[int, int, Index], list[tuple[int, int]]] = defaultdict(list)
    rows = []
    for (block, warp, _, loop), offsets in requests.items():
        sectors = len({o * param.slot_bits // 256 for o in offsets})
        ideal = -(-len(offsets) * param.slot_bits // 256)
        rows.append((sectors, ideal))
        by_request[(block, warp, loop)].append((sectors, len(offsets)))
    if not rows:
        return Counts(0, 0, 0, 0, 0, {})
    return Counts(
        len(rows),
        min(s for s, _ in rows),
        max(s for s, _ in rows),
        sum(s for s, _ in rows),
        sum(1 for s, i in rows if s == i),
        dict(by_request),
    )


# ---------------------------------------------------------------------------
# Random fusions.

TYPES = ("pred", "s4", "u4", "s8", "u8", "bf16", "f16", "f32", "s32", "f64")
_TILE_SIZES = (1, 2, 3, 4, 8, 16, 32, 128)


def _dim(rng: random.Random, large: bool, small: bool = False) -> int:
    if small:
        return rng.choice((1, 2, 3, 4, 5, 6))
    if large:
        return rng.choice((64, 128, 250, 256, 509, 512, 1000, 1024))
    return rng.choice((1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 33, 37, 64, 100, 129))


def _param(rng: random.Random, number: int, dims: Index, element: str | None = None) -> Param:
    element = element or rng.choice(TYPES)
    order = list(range(len(dims)))
    rng.shuffle(order)
    tiles: list[Index] = []
    if rng.random() < 0.4:
        for _ in range(rng.choice((1, 1, 2))):
            tiles.append(
                tuple(rng.choice(_TILE_SIZES) for _ in range(rng.randint(1, len(dims) + 1)))
            )
    packed = element in ("s4", "u4") and rng.random() < 0.6
    return Param(number, dims, element, tuple(order), tuple(tiles), packed)


class _Builder:
    def __init__(self, rng: random.Random, element: str, small: bool = False) -> None:
        self.rng = rng
        self.element = element
        self.small = small
        self.params: list[Param] = []

    def leaf(self, dims: Index, bitcast_ok: bool = True) -> Value:
        rng = self.rng
        param = _param(rng, len(self.params), dims, "f32" if self.small else None)
        if bitcast_ok and rng.random() < 0.15 and len(dims) >= 1:
            # A bitcast of an untiled parameter to its row-major physical shape.
            param = Param(param.number, param.dims, param.element, param.minor_to_major)
            self.params.append(param)
            physical = tuple(dims[d] for d in reversed(param.minor_to_major))
            node: Value = Node("bitcast", physical, param.element, (param,))
            return self.cast(self.reorder(node, dims))
        self.params.append(param)
        return self.cast(param)

    def reorder(self, node: Value, dims: Index) -> Value:
        """`node` (of some dims with the same element count) reshaped to `dims`."""
        if node.dims == dims:
            return node
        element = node.element
        return Node("reshape", dims, element, (node,))

    def cast(self, value: Value) -> Value:
        if value.element == self.element:
            return value
        return Node("convert", value.dims, self.element, (value,))

    def build(self, dims: Index, depth: int) -> Value:
        """A value of `dims` in the builder's element type."""
        rng = self.rng
        if depth == 0 or rng.random() < 0.2 or not dims:
            return self.leaf(dims)
        op = rng.choice(
            (
                "negate",
                "add",
                "broadcast",
                "transpose",
                "reverse",
                "slice",
                "pad",
                "concatenate",
                "reshape",
                "reduce",
                "add_same",
            )
        )
        rank = len(dims)
        e = self.element
        match op:
            case "negate":
                return Node("negate", dims, e, (self.build(dims, depth - 1),))
            case "add":
                return Node(
                    "add", dims, e, (self.build(dims, depth - 1), self.build(dims, depth - 1))
                )
            case "add_same":
                # One operand read twice: straight and through another op.
                inner = self.build(dims, depth - 1)
                other: Value = inner
                if rank and rng.random() < 0.7:
                    other = Node("reverse", dims, e, (inner,), ((rng.randrange(rank),),))
                return Node("add", dims, e, (inner, other))
            case "broadcast":
                keep = sorted(rng.sample(range(rank), rng.randint(0, rank)))
                inner = self.build(tuple(dims[d] for d in keep), depth - 1)
                return Node("broadcast", dims, e, (inner,), (tuple(keep),))
            case "transpose":
                perm = list(range(rank))
                rng.shuffle(perm)
                before = [0] * rank
                for k, d in enumerate(perm):
                    before[d] = dims[k]
                inner = self.build(tuple(before), depth - 1)
                return Node("transpose", dims, e, (inner,), (tuple(perm),))
            case "reverse":
                turned = tuple(d for d in range(rank) if rng.random() < 0.5)
                return Node("reverse", dims, e, (self.build(dims, depth - 1),), (turned,))
            case "slice":
                strides = tuple(rng.choice((1, 1, 2, 3)) for _ in dims)
                starts = tuple(rng.randint(0, 3) for _ in dims)
                source = tuple(
                    s + (n - 1) * t + 1 + rng.randint(0, 2)
                    for s, t, n in zip(starts, strides, dims, strict=False)
                )
                inner = self.build(source, depth - 1)
                return Node("slice", dims, e, (inner,), (starts, strides))
            case "pad":
                lows, gaps, unpadded = [], [], []
                for n in dims:
                    gap = rng.choice((0, 0, 1, 2))
                    size = max(1, (n + gap) // (gap + 1) - rng.randint(0, 2))
                    while size > 1 and (size - 1) * (gap + 1) + 1 > n:
                        size -= 1
                    if (size - 1) * (gap + 1) + 1 > n:
                        gap = 0
                    low = rng.randint(0, n - ((size - 1) * (gap + 1) + 1))
                    lows.append(low)
                    gaps.append(gap)
                    unpadded.append(size)
                inner = self.build(tuple(unpadded), depth - 1)
                return Node("pad", dims, e, (inner,), (tuple(lows), tuple(gaps)))
            case "concatenate":
                if not rank:
                    return self.leaf(dims)
                axis = rng.randrange(rank)
                cuts = sorted(
                    rng.sample(range(1, dims[axis]), min(dims[axis] - 1, rng.randint(0, 2)))
                )
                bounds = [0, *cuts, dims[axis]]
                parts = []
                for lo, hi in itertools.pairwise(bounds):
                    piece = list(dims)
                    piece[axis] = hi - lo
                    parts.append(self.build(tuple(piece), depth - 1))
                if len(parts) == 1:
                    return parts[0]
                return Node("concatenate", dims, e, tuple(parts), (axis,))
            case "reshape":
                total = math.prod(dims)
                if total > 1 and rng.random() < 0.5:
                    f = rng.choice([k for k in range(1, total + 1) if total % k == 0])
                    source = (f, total // f)
                else:
                    source = (total,)
                return Node("reshape", dims, e, (self.build(source, depth - 1),))
            case "reduce":
                if e == "pred":
                    return self.leaf(dims)
                extra = rng.choice((1, 2, 3, 5))
                where = rng.randint(0, rank)
                source = (*dims[:where], extra, *dims[where:])
                inner = self.build(source, 0)  # one reduce per path: its loop ids are its own
                return Node("reduce", dims, e, (inner,), ((where,),))
        raise AssertionError(op)


def random_fusion(rng: random.Random, large: bool = False, small: bool = False) -> Fusion:
    """A random loop fusion (module docstring); `large`: enough elements for
    XLA's unroll by 4 on some devices; `small`: dims up to 6, ``f32``
    (every tile enumerable)."""
    rank = rng.choice((1, 2, 2, 3))
    if small:
        dims: Index = tuple(_dim(rng, False, True) for _ in range(rank))
    elif large:
        dims = tuple(_dim(rng, True) for _ in range(rank))
        while math.prod(dims) > 300_000:
            dims = tuple(max(1, n // 2) for n in dims)
        while math.prod(dims) < 129024:
            dims = (*dims[:-1], dims[-1] * 2)
    else:
        dims = tuple(_dim(rng, False) for _ in range(rank))
        while math.prod(dims) > 6000:
            dims = tuple(max(1, n // 2) for n in dims)
    element = rng.choice(("f32", "f32", "bf16", "s8", "pred", "s4", "f64", "s32"))
    if small:
        element = "f32"
    builder = _Builder(rng, element, small)
    body = builder.build(dims, 0 if large else rng.choice((1, 2, 2, 3)))
    out_type = (
        element if small else rng.choice((element, element, "pred", "s4", "u8", "f16", "f32"))
    )
    root: Node
    if out_type != body.element:
        root = Node("convert", dims, out_type, (body,))
    elif isinstance(body, Node) and body.op != "bitcast":  # a bitcast's output is row-major
        root = body
    else:
        root = (
            Node("negate", dims, out_type, (body,))
            if out_type != "pred"
            else Node("convert", dims, out_type, (Node("convert", dims, "f32", (body,)),))
        )
    order = list(range(rank))
    rng.shuffle(order)
    if small or large or rng.random() < 0.75:
        return Fusion(root, tuple(builder.params), tuple(order))
    # A second output of the same dims, in a layout of its own.
    other = builder.build(dims, rng.choice((1, 2)))
    kind = "negate" if element == "f32" else "convert"
    second = Node(kind, dims, "f32", (other,))
    turned = list(range(rank))
    rng.shuffle(turned)
    return Fusion(root, tuple(builder.params), tuple(order), second, tuple(turned))


def only_loop_ops(fusion: Fusion) -> bool:
    """No op that may give the fusion another emitter (a transpose hero,
    a reduce hero, a concatenate hero)."""
    return not any(
        n.op in ("transpose", "reduce", "concatenate")
        for root, _ in fusion.roots
        for n in _nodes(root)
    )


# ---------------------------------------------------------------------------
# Judging the tool on its public path.


def judge(fusion: Fusion, device: str) -> tuple[str, list[str]]:
    """(`loop`, `skipped: …` or `unsupported: …`; disagreements) of the
    tool's JSON (`verifier.loads(...).coalescing`) against the brute
    force."""
    import verifier

    text = fusion.text()
    answer = verifier.loads(text).coalescing("fusion", device)
    problems: list[str] = []
    if answer["emitter"] != "loop":
        if only_loop_ops(fusion):
            problems.append(f"emitter {answer['emitter']} for a fusion of loop ops")
        return f"skipped: {answer['emitter']}", problems
    go, counts = simulate(fusion, DEVICES[device])
    got = answer["launch"]
    if (got["threads_per_block"], got["blocks"], got["unroll"]) != (
        go.threads,
        go.blocks,
        go.unroll,
    ):
        problems.append(f"launch {got['threads_per_block'], got['blocks'], got['unroll']} != {go}")
        return "loop", problems
    for row in answer["operands"]:
        number = row["operand"]
        expected = counts[number]
        param = fusion.params[number]
        if row.get("reason") is not None or row["sectors_per_request"] is None:
            if expected.requests:
                problems.append(f"operand {number}: no count ({row.get('reason')})")
            continue
        if row["element_bits"] != param.slot_bits:
            problems.append(
                f"operand {number}: element_bits {row['element_bits']} != {param.slot_bits}"
            )
        mine, theirs = expected.row(), reported(row)
        if mine != theirs:
            problems.append(
                f"operand {number}: (requests, min, max, total, at ideal) {theirs} != brute {mine}"
            )
            continue
        coalesced = expected.at_ideal == expected.requests
        if row["coalesced"] != coalesced:
            problems.append(f"operand {number}: coalesced {row['coalesced']} != {coalesced}")
        worst = row.get("worst_request")
        if worst and expected.requests:
            key = (worst["block"][0], worst["warp"], tuple(worst["loop_ids"][1:]))
            seen = [
                found
                for (block, warp, loop), found in expected.by_request.items()
                if (block, warp) == key[:2]
            ]
            pair = (worst["sectors"], worst["elements"])
            if worst["sectors"] != expected.maximum or not any(pair in f for f in seen):
                problems.append(f"operand {number}: worst request {worst} not {seen}")
    return "loop", problems
