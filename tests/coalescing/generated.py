"""Random loop fusions for the coalescing properties: one op (elementwise,
broadcast, transpose, slice, reverse, pad, reshape) on an operand of a
random shape, element type and layout (minor-to-major permutation, zero to
two tilings, ``E(4)`` on ``s4``), converted to a random output type in a
random minor-to-major order, written as HLO text; beside it the operand
element each output element reads, from the op's semantics in plain Python.

>>> case = Case("convert", (3, 4), "f32", (1, 0), ((2, 2),), "f32", (3, 4), (0, 1), ())
>>> case.reads((2, 3))
((2, 3),)
>>> print(case.text().splitlines()[2])
  q0 = f32[3,4]{1,0:T(2,2)} parameter(0)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from hypothesis import strategies as st

Index = tuple[int, ...]

TYPES = ("pred", "s4", "s8", "u8", "bf16", "f16", "f32", "s32", "f64")
WIDTH = {"pred": 8, "s4": 4, "s8": 8, "u8": 8, "bf16": 16, "f16": 16, "f32": 32, "s32": 32}
WIDTH["f64"] = 64
"""Bits per element as XLA's ``SmallestBitWidth`` counts an output (a
``pred`` as a byte)."""


@dataclass(frozen=True)
class Case:
    """One fusion: `op` maps operand `dims` (type `element`, layout `order`
    and `tiles`, ``E(4)`` when `packed`) to `out` (type `out_type`, order
    `out_order`); `params` holds the op's attributes."""

    op: str
    dims: tuple[int, ...]
    element: str
    order: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...]
    out_type: str
    out: tuple[int, ...]
    out_order: tuple[int, ...]
    params: tuple[int, ...]
    packed: bool = False

    @property
    def slot_bits(self) -> int:
        """Bits one element takes in the operand's buffer (a byte at least,
        unless ``E(4)`` packs an ``s4``)."""
        if self.packed:
            return 4
        return max(8, WIDTH[self.element])

    def layout(self) -> str:
        tiles = "".join(f"T({','.join(map(str, t))})" for t in self.tiles)
        suffix = tiles + ("E(4)" if self.packed else "")
        order = ",".join(map(str, self.order))
        return "{" + order + (":" + suffix if suffix else "") + "}"

    def reads(self, index: Index) -> tuple[Index, ...]:
        """The operand elements output element `index` reads."""
        p = self.params
        match self.op:
            case "convert":
                return (index,)
            case "broadcast":
                return (tuple(index[d] for d in p),)
            case "transpose":
                source = [0] * len(index)
                for k, d in enumerate(p):
                    source[d] = index[k]
                return (tuple(source),)
            case "reverse":
                return (
                    tuple(
                        n - 1 - i if d in p else i
                        for d, (i, n) in enumerate(zip(index, self.dims, strict=True))
                    ),
                )
            case "slice":
                rank = len(self.dims)
                return (tuple(p[d] + i * p[rank + d] for d, i in enumerate(index)),)
            case "pad":
                source = []
                for d, i in enumerate(index):
                    low, interior = p[2 * d], p[2 * d + 1]
                    shifted = i - low
                    if shifted < 0 or shifted % (interior + 1):
                        return ()
                    source.append(shifted // (interior + 1))
                    if source[-1] >= self.dims[d]:
                        return ()
                return (tuple(source),)
            case "reshape":
                linear = 0
                for i, n in zip(index, self.out, strict=True):
                    linear = linear * n + i
                return (_row_major_index(linear, self.dims),)
        raise AssertionError(self.op)

    def entry_text(self) -> str:
        """The op alone as the entry's ROOT (no fusion), a ``convert`` as a
        ``negate``."""
        fused = self.text().split("ENTRY")[0]
        body = fused.split("{", 1)[1].rsplit("}", 1)[0].replace("convert(q0)", "negate(q0)")
        return "HloModule generated\nENTRY main {" + body + "}\n"

    def text(self) -> str:
        operand = f"{self.element}[{','.join(map(str, self.dims))}]"
        mid_type = self.element if self.op != "convert" else self.out_type
        mid = f"{mid_type}[{','.join(map(str, self.out))}]"
        out_layout = "{" + ",".join(map(str, self.out_order)) + "}"
        out = f"{self.out_type}[{','.join(map(str, self.out))}]{out_layout}"
        p = self.params
        rank = len(self.dims)
        extra_param = ""
        args = "q0"
        match self.op:
            case "convert":
                body = "convert(q0)"
            case "broadcast":
                body = f"broadcast(q0), dimensions={{{','.join(map(str, p))}}}"
            case "transpose":
                body = f"transpose(q0), dimensions={{{','.join(map(str, p))}}}"
            case "reverse":
                body = f"reverse(q0), dimensions={{{','.join(map(str, p))}}}"
            case "slice":
                ranges = ", ".join(
                    f"[{p[d]}:{p[d] + (self.out[d] - 1) * p[rank + d] + 1}:{p[rank + d]}]"
                    for d in range(rank)
                )
                body = f"slice(q0), slice={{{ranges}}}"
            case "pad":
                extra_param = f"  q1 = {self.element}[] parameter(1)\n"
                args = "q0, q1"
                config = "x".join(
                    f"{p[2 * d]}_{self.out[d] - p[2 * d] - (self.dims[d] - 1) * (p[2 * d + 1] + 1) - 1}"
                    f"_{p[2 * d + 1]}"
                    for d in range(rank)
                )
                body = f"pad(q0, q1), padding={config}"
            case "reshape":
                body = "reshape(q0)"
            case _:
                raise AssertionError(self.op)

        if mid_type == self.out_type:
            inner = f"  ROOT o = {out} {body}"
        else:
            inner = f"  x = {mid} {body}\n  ROOT o = {out} convert(x)"
        params = f"  q0 = {operand}{self.layout()} parameter(0)\n{extra_param}"
        return (
            f"HloModule generated\nfused {{\n{params}{inner}\n}}\n"
            f"ENTRY main {{\n{params}  ROOT fusion = {out} fusion({args}), kind=kLoop, calls=fused\n}}\n"
        )


def _row_major_index(linear: int, dims: Sequence[int]) -> Index:
    index = []
    for n in reversed(dims):
        index.append(linear % n)
        linear //= n
    return tuple(reversed(index))


_DIM = st.integers(1, 24)
_SMALL = st.integers(1, 5)


@st.composite
def tiles(draw: st.DrawFn, rank: int) -> tuple[tuple[int, ...], ...]:
    """Zero to two tilings, each of 1 to rank + 1 dims (XLA pads the shape
    with leading 1-dims for a tile of more dims than it has)."""
    levels = draw(st.integers(0, 2))
    return tuple(
        tuple(
            draw(st.lists(st.sampled_from((1, 2, 3, 4, 8, 16, 128)), min_size=1, max_size=rank + 1))
        )
        for _ in range(levels)
    )


@st.composite
def cases(draw: st.DrawFn, small: bool = False) -> Case:
    """A random `Case` of at most a few thousand output elements (`small`:
    dims up to 5, f32, untiled, for enumerating every tile)."""
    extent = _SMALL if small else _DIM
    op = draw(
        st.sampled_from(("convert", "broadcast", "transpose", "reverse", "slice", "pad", "reshape"))
    )
    rank = draw(st.integers(1, 3))
    dims = tuple(draw(st.lists(extent, min_size=rank, max_size=rank)))
    element = "f32" if small else draw(st.sampled_from(TYPES))
    out_type = draw(st.sampled_from(TYPES)) if op == "convert" and not small else element
    params: tuple[int, ...] = ()
    match op:
        case "convert" | "reverse":
            out = dims
            if op == "reverse":
                params = tuple(d for d in range(rank) if draw(st.booleans()))
        case "broadcast":
            out_rank = draw(st.integers(rank, 3))
            params = tuple(sorted(draw(st.permutations(range(out_rank)))[:rank]))
            sizes = [draw(extent) for _ in range(out_rank)]
            for k, d in enumerate(params):
                sizes[d] = dims[k]
            out = tuple(sizes)
        case "transpose":
            params = tuple(draw(st.permutations(range(rank))))
            out = tuple(dims[d] for d in params)
        case "slice":
            starts = [draw(st.integers(0, n - 1)) for n in dims]
            strides = [draw(st.integers(1, 3)) for _ in dims]
            out = tuple(-(-(n - s) // t) for n, s, t in zip(dims, starts, strides, strict=True))
            params = (*starts, *strides)
        case "pad":
            pads = []
            sizes = []
            for n in dims:
                low, interior, high = (draw(st.integers(0, 5 - 3 * small)) for _ in range(3))
                # Small cases leave interior padding out: the tiling oracle
                # passes over a tile that reads nothing, where isl finds its
                # anchored box holding a neighbour's element (the verdicts
                # differ off the condition).  tests/tiling/test_interior_pad
                # judges interior padding with anchored boxes.
                interior = 0 if small else min(interior, 2)
                pads += [low, interior]
                sizes.append(low + n + (n - 1) * interior + high)
            params, out = tuple(pads), tuple(sizes)
        case "reshape":
            total = prod(dims)
            factors = [f for f in range(1, total + 1) if total % f == 0]
            first = draw(st.sampled_from(factors))
            out = (first, total // first) if draw(st.booleans()) else (total,)
        case _:
            raise AssertionError(op)
    order = tuple(draw(st.permutations(range(rank))))
    packed = element == "s4" and draw(st.booleans())
    out_order = tuple(draw(st.permutations(range(len(out)))))
    tiling = () if small else draw(tiles(rank))
    return Case(op, dims, element, order, tiling, out_type, out, out_order, params, packed)


def every_index(dims: Sequence[int]) -> itertools.product[Index]:
    return itertools.product(*(range(n) for n in dims))
