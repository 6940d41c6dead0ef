"""Valid, semantically mutated HLO: numbered single-op modules XLA accepts.

Variant ``n`` is a pure function of ``n``: the op family ``FAMILIES[n %
len(FAMILIES)]`` draws its configuration from ``random.Random(n)`` — other
dims (0, 1, primes), minor-to-major permutations and tiles, slice strides,
negative and interior padding, gather/scatter dimension numbers with
batching dims, dot and convolution dimension numbers and windows, constant
(also out-of-range) and parameter offsets.  The last family re-lays out a
real instruction of the bundled examples or of a held-out directory
(`real_instructions`): its operands and output get other layouts, which
change no semantics except a bitcast's.

Each module's ENTRY root is the op under test; its operands are parameters,
or constants and iotas where the op's semantics read their values (offsets,
gather indices).  Shapes are written out, computed here from XLA's shape
formulas (never from `verifier.hlo.inference`), so the parser's own shape
check is judged too.  Every array holds at most about 600 elements so that
the oracle can enumerate it.

>>> print(variant(3).text.splitlines()[0])
HloModule v3
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifier.errors import VerifierError
from verifier.hlo import Instruction, Module, Shape, parse_module_file

_ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
_ADD2 = (
    "add2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n"
    "  x = f32[] add(a, c)\n  y = f32[] add(b, d)\n  ROOT t = (f32[], f32[]) tuple(x, y)\n}\n"
)
_GE = (
    "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT c = pred[] compare(a, b), direction=GE\n}\n"
)
# Small sizes, the interesting ones over-represented: empty, unit, primes.
_SIZES = (0, 1, 1, 2, 2, 3, 3, 4, 5, 7)
_LIMIT = 600


@dataclass(frozen=True)
class Variant:
    """Variant `number`: a module whose ENTRY root is an `opcode` op."""

    number: int
    opcode: str
    text: str
    origin: str = "generated"


# ------------------------------------------------------------------ helpers


def _ints(values: Sequence[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


def _layout(rng: random.Random, rank: int, *, tiles: bool = False) -> str:
    """``""`` (the default), or a random minor-to-major order, sometimes tiled."""
    if rank == 0 or rng.random() < 0.4:
        return ""
    order = list(range(rank))
    rng.shuffle(order)
    tile = ""
    if rng.random() < (0.5 if tiles else 0.1):  # tiles change no semantics but a bitcast's
        tile_rank = rng.randint(1, min(rank, 2))
        tile = ":T(" + ",".join(str(rng.choice((1, 2, 3, 4))) for _ in range(tile_rank)) + ")"
    return "{" + ",".join(map(str, order)) + tile + "}"


def _shape(
    element: str, dims: Sequence[int], rng: random.Random | None = None, *, tiles: bool = False
) -> str:
    layout = _layout(rng, len(dims), tiles=tiles) if rng is not None else ""
    return f"{element}[{','.join(map(str, dims))}]{layout}"


def _dims(rng: random.Random, rank: int, budget: int = 120) -> list[int]:
    """`rank` small sizes whose product stays within `budget`."""
    for _ in range(20):
        dims = [rng.choice(_SIZES) for _ in range(rank)]
        if math.prod(dims) <= budget:
            return dims
    return [1] * rank


def _module(number: int, lines: Sequence[str], computations: str = "") -> str:
    body = "\n".join(f"  {line}" for line in lines[:-1])
    root = f"  ROOT {lines[-1]}"
    return f"HloModule v{number}\n\n{computations}\nENTRY e {{\n{body}\n{root}\n}}\n"


def _parameters(rng: random.Random, shapes: Sequence[tuple[str, Sequence[int]]]) -> list[str]:
    return [
        f"p{k} = {_shape(element, dims, rng)} parameter({k})"
        for k, (element, dims) in enumerate(shapes)
    ]


_INDEX_TYPES = ("s32", "s32", "s64", "u32", "s8", "u8")


def _offsets(rng: random.Random, dims: Sequence[int], number: int) -> tuple[list[str], str]:
    """A scalar integer offset ``i<k>`` per dim, each a constant (sometimes
    out of range) or a parameter (numbered from `number`): their lines, and
    the operand list ``i0, i1, …``."""
    lines = []
    for k, size in enumerate(dims):
        element = rng.choice(_INDEX_TYPES)
        if rng.random() < 0.5:
            value = rng.randint(0 if element.startswith("u") else -2, size + 2)
            lines.append(f"i{k} = {element}[] constant({value})")
        else:
            lines.append(f"i{k} = {element}[] parameter({number})")
            number += 1
    return lines, ", ".join(f"i{k}" for k in range(len(dims)))


# ------------------------------------------------------------------ families


def _elementwise(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(0, 4))
    opcode = rng.choice(("negate", "exponential", "copy", "add", "maximum", "select", "clamp"))
    if opcode in ("negate", "exponential", "copy"):
        lines = _parameters(rng, [("f32", dims)])
    elif opcode in ("add", "maximum"):
        lines = _parameters(rng, [("f32", dims), ("f32", dims)])
    elif opcode == "select":
        predicate: list[int] = [] if rng.random() < 0.3 else dims
        lines = _parameters(rng, [("pred", predicate), ("f32", dims), ("f32", dims)])
    else:
        bound: list[int] = [] if rng.random() < 0.5 else dims
        lines = _parameters(rng, [("f32", bound), ("f32", dims), ("f32", bound)])
    operands = ", ".join(f"p{k}" for k in range(len(lines)))
    lines.append(f"r = {_shape('f32', dims, rng)} {opcode}({operands})")
    return Variant(number, opcode, _module(number, lines))


def _broadcast(rng: random.Random, number: int) -> Variant:
    out = _dims(rng, rng.randint(0, 4))
    kept = sorted(rng.sample(range(len(out)), rng.randint(0, len(out))))
    lines = _parameters(rng, [("f32", [out[k] for k in kept])])
    lines.append(f"r = {_shape('f32', out, rng)} broadcast(p0), dimensions={_ints(kept)}")
    return Variant(number, "broadcast", _module(number, lines))


def _transpose(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(1, 4))
    permutation = list(range(len(dims)))
    rng.shuffle(permutation)
    out = [dims[k] for k in permutation]
    lines = _parameters(rng, [("f32", dims)])
    lines.append(f"r = {_shape('f32', out, rng)} transpose(p0), dimensions={_ints(permutation)}")
    return Variant(number, "transpose", _module(number, lines))


def _reverse(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(0, 4))
    reversed_dims = sorted(rng.sample(range(len(dims)), rng.randint(0, len(dims))))
    lines = _parameters(rng, [("f32", dims)])
    lines.append(f"r = {_shape('f32', dims, rng)} reverse(p0), dimensions={_ints(reversed_dims)}")
    return Variant(number, "reverse", _module(number, lines))


def _slice(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(0, 3))
    configs, out = [], []
    for n in dims:
        start = rng.randint(0, n)
        limit = rng.randint(start, n)
        stride = rng.choice((1, 1, 2, 3, 5))
        configs.append(f"[{start}:{limit}" + (f":{stride}]" if stride != 1 else "]"))
        out.append(-(-(limit - start) // stride))
    lines = _parameters(rng, [("f32", dims)])
    lines.append(f"r = {_shape('f32', out, rng)} slice(p0), slice={{{', '.join(configs)}}}")
    return Variant(number, "slice", _module(number, lines))


def _factorisation(rng: random.Random, total: int) -> list[int]:
    """Dims whose product is `total`, in random order, with 1s sprinkled in."""
    factors: list[int] = []
    remaining = max(total, 1)
    for prime in (2, 3, 5, 7, 11, 13):
        while remaining % prime == 0:
            factors.append(prime)
            remaining //= prime
    if remaining > 1:
        factors.append(remaining)
    rng.shuffle(factors)
    dims: list[int] = []
    for factor in factors:
        if dims and rng.random() < 0.5:
            dims[-1] *= factor
        else:
            dims.append(factor)
    for _ in range(rng.randint(0, 2)):
        dims.insert(rng.randint(0, len(dims)), 1)
    if total == 0:
        dims.insert(rng.randint(0, len(dims)), 0)
    return dims


# Slot bits in memory: a type's width rounded up to whole bytes; "s4p" is
# an s4 array packed two to a byte (``E(4)``).
_SLOT_BITS = {"f64": 64, "f32": 32, "bf16": 16, "s8": 8, "pred": 8, "s4": 8, "s4p": 4}


def _slotted(rng: random.Random, element: str, dims: Sequence[int]) -> str:
    """A laid-out shape of `element` (``s4p``: packed s4)."""
    if element != "s4p":
        return _shape(element, dims, rng, tiles=True)
    shape = _shape("s4", dims, rng, tiles=True)
    if shape.endswith("}"):
        return shape[:-1] + ("E(4)}" if ":" in shape else ":E(4)}")
    return shape + "{" + ",".join(map(str, reversed(range(len(dims))))) + ":E(4)}"


def _reshape(rng: random.Random, number: int) -> Variant:
    total = rng.choice((0, 1, 6, 12, 24, 30, 36, 60, 64, 105))
    if rng.random() < 0.5:
        source, target = _factorisation(rng, total), _factorisation(rng, total)
        lines = [f"p0 = {_shape('f32', source, rng)} parameter(0)"]
        lines.append(f"r = {_shape('f32', target, rng)} reshape(p0)")
        return Variant(number, "reshape", _module(number, lines))
    # A bitcast: the same bits (before tiling), perhaps of another element type.
    first, second = rng.choice(list(_SLOT_BITS)), rng.choice(list(_SLOT_BITS))
    bits = total * _SLOT_BITS[first]
    if bits % _SLOT_BITS[second] or bits // _SLOT_BITS[second] > _LIMIT:
        second = first
    source = _factorisation(rng, total)
    target = _factorisation(rng, bits // _SLOT_BITS[second])
    lines = [f"p0 = {_slotted(rng, first, source)} parameter(0)"]
    lines.append(f"r = {_slotted(rng, second, target)} bitcast(p0)")
    return Variant(number, "bitcast", _module(number, lines))


def _concatenate(rng: random.Random, number: int) -> Variant:
    rank = rng.randint(1, 3)
    dims = _dims(rng, rank, 40)
    axis = rng.randrange(rank)
    pieces = [rng.choice(_SIZES) for _ in range(rng.randint(1, 5))]
    shapes = []
    for size in pieces:
        piece = list(dims)
        piece[axis] = size
        shapes.append(("f32", piece))
    out = list(dims)
    out[axis] = sum(pieces)
    lines = _parameters(rng, shapes)
    operands = ", ".join(f"p{k}" for k in range(len(pieces)))
    lines.append(f"r = {_shape('f32', out, rng)} concatenate({operands}), dimensions={{{axis}}}")
    return Variant(number, "concatenate", _module(number, lines))


def _pad(rng: random.Random, number: int) -> Variant:
    # Rank 1 up: a rank-0 pad prints as `padding=` with nothing after it,
    # which XLA's parser cannot read back.
    dims = _dims(rng, rng.randint(1, 3), 60)
    configs, out = [], []
    for n in dims:
        interior = rng.choice((0, 0, 1, 2))
        core = n + max(n - 1, 0) * interior
        low = rng.randint(-core, 3)
        high = rng.randint(-(core + low), 3)  # low >= -core: never a negative size
        configs.append(f"{low}_{high}" + (f"_{interior}" if interior else ""))
        out.append(core + low + high)
    if math.prod(out) > _LIMIT:
        return _pad(rng, number)
    lines = _parameters(rng, [("f32", dims), ("f32", [])])
    padding = "x".join(configs)
    lines.append(f"r = {_shape('f32', out, rng)} pad(p0, p1), padding={padding}")
    return Variant(number, "pad", _module(number, lines))


def _reduce(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(0, 4))
    reduced = sorted(rng.sample(range(len(dims)), rng.randint(0, len(dims))))
    out = [n for k, n in enumerate(dims) if k not in reduced]
    if rng.random() < 0.3:
        lines = _parameters(rng, [("f32", dims), ("f32", dims), ("f32", []), ("f32", [])])
        shape = f"({_shape('f32', out, rng)}, {_shape('f32', out, rng)})"
        lines.append(
            f"r = {shape} reduce(p0, p1, p2, p3), dimensions={_ints(reduced)}, to_apply=add2"
        )
        return Variant(number, "reduce", _module(number, lines, _ADD2))
    lines = _parameters(rng, [("f32", dims), ("f32", [])])
    lines.append(
        f"r = {_shape('f32', out, rng)} reduce(p0, p1), dimensions={_ints(reduced)}, to_apply=add"
    )
    return Variant(number, "reduce", _module(number, lines, _ADD))


@dataclass(frozen=True)
class _Window:
    size: int
    stride: int
    low: int
    high: int
    base: int
    dilation: int
    reversal: bool = False

    def positions(self, n: int) -> int:
        """Output positions over an input of `n` (XLA's window shape formula)."""
        dilated = (n - 1) * self.base + 1 if n > 0 else 0
        padded = dilated + self.low + self.high
        span = (self.size - 1) * self.dilation + 1
        return 0 if padded < span else (padded - span) // self.stride + 1


def _window(rng: random.Random, n: int, *, dilations: bool = True) -> _Window:
    size = rng.choice((1, 1, 2, 3, 4))
    stride = rng.choice((1, 1, 2, 3, 5))
    low, high = rng.choice((0, 0, 1, 2, 4, -1, -2)), rng.choice((0, 0, 1, 2, 4, -1, -2))
    base = rng.choice((1, 1, 2, 3)) if dilations else 1
    dilation = rng.choice((1, 1, 2, 3)) if dilations else 1
    return _Window(size, stride, low, high, base, dilation)


def _window_text(windows: Sequence[_Window]) -> str:
    def joined(values: Sequence[int]) -> str:
        return "x".join(map(str, values))

    reversal = [int(w.reversal) for w in windows]
    return (
        f"size={joined([w.size for w in windows])} stride={joined([w.stride for w in windows])} "
        f"pad={'x'.join(f'{w.low}_{w.high}' for w in windows)} "
        f"lhs_dilate={joined([w.base for w in windows])} "
        f"rhs_dilate={joined([w.dilation for w in windows])}"
        + (f" rhs_reversal={joined(reversal)}" if any(reversal) else "")
    )


def _reduce_window(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(1, 3), 60)
    windows = [_window(rng, n) for n in dims]
    out = [w.positions(n) for w, n in zip(windows, dims, strict=True)]
    if math.prod(out) * math.prod(w.size for w in windows) > 2000:
        return _reduce_window(rng, number)
    window = f"window={{{_window_text(windows)}}}"
    if rng.random() < 0.3:  # variadic: two inputs, two inits, a tuple of results
        lines = _parameters(rng, [("f32", dims), ("f32", dims), ("f32", []), ("f32", [])])
        shape = f"({_shape('f32', out, rng)}, {_shape('f32', out, rng)})"
        lines.append(f"r = {shape} reduce-window(p0, p1, p2, p3), {window}, to_apply=add2")
        return Variant(number, "reduce-window", _module(number, lines, _ADD2))
    lines = _parameters(rng, [("f32", dims), ("f32", [])])
    lines.append(f"r = {_shape('f32', out, rng)} reduce-window(p0, p1), {window}, to_apply=add")
    return Variant(number, "reduce-window", _module(number, lines, _ADD))


def _dot(rng: random.Random, number: int) -> Variant:
    batch = _dims(rng, rng.randint(0, 2), 6)
    contracting = _dims(rng, rng.randint(0, 2), 6)
    lhs_free = _dims(rng, rng.randint(0, 2), 6)
    rhs_free = _dims(rng, rng.randint(0, 2), 6)
    lhs_kinds = [("b", k) for k in range(len(batch))] + [("c", k) for k in range(len(contracting))]
    lhs_kinds += [("f", k) for k in range(len(lhs_free))]
    rhs_kinds = [("b", k) for k in range(len(batch))] + [("c", k) for k in range(len(contracting))]
    rhs_kinds += [("f", k) for k in range(len(rhs_free))]
    rng.shuffle(lhs_kinds)
    rng.shuffle(rhs_kinds)
    sizes = {"b": batch, "c": contracting}

    def operand(kinds: list[tuple[str, int]], free: list[int]) -> list[int]:
        return [free[k] if kind == "f" else sizes[kind][k] for kind, k in kinds]

    def positions(kinds: list[tuple[str, int]], kind: str, count: int) -> list[int]:
        return [kinds.index((kind, k)) for k in range(count)]

    lhs, rhs = operand(lhs_kinds, lhs_free), operand(rhs_kinds, rhs_free)
    lhs_free_in_order = [n for kind, k in lhs_kinds if kind == "f" for n in [lhs_free[k]]]
    rhs_free_in_order = [n for kind, k in rhs_kinds if kind == "f" for n in [rhs_free[k]]]
    out = batch + lhs_free_in_order + rhs_free_in_order
    attributes = (
        f"lhs_batch_dims={_ints(positions(lhs_kinds, 'b', len(batch)))}, "
        f"lhs_contracting_dims={_ints(positions(lhs_kinds, 'c', len(contracting)))}, "
        f"rhs_batch_dims={_ints(positions(rhs_kinds, 'b', len(batch)))}, "
        f"rhs_contracting_dims={_ints(positions(rhs_kinds, 'c', len(contracting)))}"
    )
    lines = _parameters(rng, [("f32", lhs), ("f32", rhs)])
    lines.append(f"r = {_shape('f32', out, rng)} dot(p0, p1), {attributes}")
    return Variant(number, "dot", _module(number, lines))


def _labels(rng: random.Random, letters: str, spatial: int) -> str:
    symbols = list(letters) + [str(k) for k in range(spatial)]
    rng.shuffle(symbols)
    return "".join(symbols)


def _convolution(rng: random.Random, number: int) -> Variant:
    spatial = rng.randint(0, 2)
    feature_groups = rng.choice((1, 1, 2, 3))
    batch_groups = 1 if feature_groups > 1 else rng.choice((1, 1, 2))
    batch = batch_groups * rng.choice((1, 1, 2))
    in_features = feature_groups * rng.choice((1, 2))
    out_features = feature_groups * batch_groups * rng.choice((1, 2))
    inputs = _dims(rng, spatial, 16)
    windows = [_window(rng, n) for n in inputs]
    windows = [dataclasses.replace(w, reversal=rng.random() < 0.3) for w in windows]
    kernel = [w.size for w in windows]
    outputs = [w.positions(n) for w, n in zip(windows, inputs, strict=True)]
    lhs_labels = _labels(rng, "bf", spatial)
    rhs_labels = _labels(rng, "io", spatial)
    out_labels = _labels(rng, "bf", spatial)

    def laid_out(labels: str, sizes: dict[str, int], spatial_sizes: Sequence[int]) -> list[int]:
        return [sizes[c] if c in sizes else spatial_sizes[int(c)] for c in labels]

    lhs = laid_out(lhs_labels, {"b": batch, "f": in_features}, inputs)
    rhs = laid_out(rhs_labels, {"i": in_features // feature_groups, "o": out_features}, kernel)
    out = laid_out(out_labels, {"b": batch // batch_groups, "f": out_features}, outputs)
    work = math.prod(out) * math.prod(kernel) * in_features
    if math.prod(lhs) > _LIMIT or math.prod(out) > _LIMIT or work > 3000:
        return _convolution(rng, number)
    window = f"window={{{_window_text(windows)}}}, " if spatial else ""
    lines = _parameters(rng, [("f32", lhs), ("f32", rhs)])
    lines.append(
        f"r = {_shape('f32', out, rng)} convolution(p0, p1), {window}"
        f"dim_labels={lhs_labels}_{rhs_labels}->{out_labels}, "
        f"feature_group_count={feature_groups}, batch_group_count={batch_groups}"
    )
    return Variant(number, "convolution", _module(number, lines))


def _dynamic_slice(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(1, 3), 60)
    sizes = [rng.randint(0, n) for n in dims]
    lines = [f"p0 = {_shape('f32', dims, rng)} parameter(0)"]
    offset_lines, offsets = _offsets(rng, dims, 1)
    lines += offset_lines
    lines.append(
        f"r = {_shape('f32', sizes, rng)} dynamic-slice(p0, {offsets}), "
        f"dynamic_slice_sizes={_ints(sizes)}"
    )
    return Variant(number, "dynamic-slice", _module(number, lines))


def _dynamic_update_slice(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(1, 3), 60)
    update = [rng.randint(0, n) for n in dims]
    lines = [
        f"p0 = {_shape('f32', dims, rng)} parameter(0)",
        f"p1 = {_shape('f32', update, rng)} parameter(1)",
    ]
    offset_lines, offsets = _offsets(rng, dims, 2)
    lines += offset_lines
    lines.append(f"r = {_shape('f32', dims, rng)} dynamic-update-slice(p0, p1, {offsets})")
    return Variant(number, "dynamic-update-slice", _module(number, lines))


def _index_space(
    rng: random.Random, operand: Sequence[int]
) -> tuple[list[int], list[int], list[int], int, list[int]]:
    """Shared by gather and scatter: batching dims (operand dim → indices
    dim), the mapped operand dims, the indices dims and index_vector_dim."""
    batching = sorted(rng.sample(range(len(operand)), rng.randint(0, min(1, len(operand)))))
    mappable = [k for k in range(len(operand)) if k not in batching]
    mapped = rng.sample(mappable, rng.randint(0 if batching else 1, min(2, len(mappable))))
    extra = _dims(rng, rng.randint(0, 1), 4)
    batch_sizes = extra + [operand[k] for k in batching]
    order = list(range(len(batch_sizes)))
    rng.shuffle(order)
    batch_sizes = [batch_sizes[k] for k in order]
    indices_batching = [order.index(len(extra) + j) for j in range(len(batching))]
    vector_dim = rng.randint(0, len(batch_sizes))
    indices = list(batch_sizes)
    if vector_dim < len(batch_sizes) or len(mapped) != 1 or rng.random() < 0.5:
        indices.insert(vector_dim, len(mapped))
    else:
        vector_dim = len(batch_sizes)  # the implicit trailing index vector of one
    indices_batching = [k if k < vector_dim else k + 1 for k in indices_batching]
    return batching, mapped, indices, vector_dim, indices_batching


def _gather(rng: random.Random, number: int) -> Variant:
    operand = [max(n, 1) for n in _dims(rng, rng.randint(1, 3), 40)]
    batching, mapped, indices, vector_dim, indices_batching = _index_space(rng, operand)
    slice_sizes = [1 if k in batching else rng.randint(0, n) for k, n in enumerate(operand)]
    collapsible = [k for k in range(len(operand)) if k not in batching and slice_sizes[k] <= 1]
    collapsed = sorted(rng.sample(collapsible, rng.randint(0, len(collapsible))))
    window = [k for k in range(len(operand)) if k not in collapsed and k not in batching]
    batch_dims = [n for k, n in enumerate(indices) if k != vector_dim]
    rank = len(batch_dims) + len(window)
    offset_dims = sorted(rng.sample(range(rank), len(window)))
    out, batch_iter, window_iter = [], iter(batch_dims), iter(window)
    for k in range(rank):
        out.append(slice_sizes[next(window_iter)] if k in offset_dims else next(batch_iter))
    if math.prod(out) > 200:
        return _gather(rng, number)
    if rng.random() < 0.3 and indices:
        indices_line = (
            f"p1 = {_shape('s32', indices)} iota(), iota_dimension={rng.randrange(len(indices))}"
        )
    else:
        indices_line = f"p1 = {_shape(rng.choice(_INDEX_TYPES), indices, rng)} parameter(1)"
    lines = [f"p0 = {_shape('f32', operand, rng)} parameter(0)", indices_line]
    lines.append(
        f"r = {_shape('f32', out, rng)} gather(p0, p1), offset_dims={_ints(offset_dims)}, "
        f"collapsed_slice_dims={_ints(collapsed)}, start_index_map={_ints(mapped)}, "
        f"operand_batching_dims={_ints(batching)}, "
        f"start_indices_batching_dims={_ints(indices_batching)}, "
        f"index_vector_dim={vector_dim}, slice_sizes={_ints(slice_sizes)}"
    )
    return Variant(number, "gather", _module(number, lines))


def _scatter(rng: random.Random, number: int) -> Variant:
    operand = [max(n, 1) for n in _dims(rng, rng.randint(1, 3), 12)]
    batching, mapped, indices, vector_dim, indices_batching = _index_space(rng, operand)
    inserted_candidates = [k for k in range(len(operand)) if k not in batching]
    inserted = sorted(rng.sample(inserted_candidates, rng.randint(0, len(inserted_candidates))))
    window = [k for k in range(len(operand)) if k not in inserted and k not in batching]
    window_sizes = [rng.randint(0, operand[k]) for k in window]
    scatter_sizes = [n for k, n in enumerate(indices) if k != vector_dim]
    rank = len(scatter_sizes) + len(window)
    window_dims = sorted(rng.sample(range(rank), len(window)))
    updates, scatter_iter, window_iter = [], iter(scatter_sizes), iter(window_sizes)
    for k in range(rank):
        updates.append(next(window_iter) if k in window_dims else next(scatter_iter))
    if math.prod(updates) * math.prod(operand) > 400:
        return _scatter(rng, number)
    lines = _parameters(rng, [("f32", operand)])
    lines.append(f"p1 = {_shape(rng.choice(_INDEX_TYPES), indices, rng)} parameter(1)")
    lines.append(f"p2 = {_shape('f32', updates, rng)} parameter(2)")
    lines.append(
        f"r = {_shape('f32', operand, rng)} scatter(p0, p1, p2), "
        f"update_window_dims={_ints(window_dims)}, inserted_window_dims={_ints(inserted)}, "
        f"scatter_dims_to_operand_dims={_ints(mapped)}, "
        f"input_batching_dims={_ints(batching)}, "
        f"scatter_indices_batching_dims={_ints(indices_batching)}, "
        f"index_vector_dim={vector_dim}, to_apply=add"
    )
    return Variant(number, "scatter", _module(number, lines, _ADD))


def _iota(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(1, 3))
    lines = [f"r = {_shape('s32', dims, rng)} iota(), iota_dimension={rng.randrange(len(dims))}"]
    return Variant(number, "iota", _module(number, lines))


def _sort(rng: random.Random, number: int) -> Variant:
    dims = _dims(rng, rng.randint(1, 3), 40)
    count = rng.randint(1, 3)
    axis = rng.randrange(len(dims))
    lines = _parameters(rng, [("f32", dims)] * count)
    parameters = "\n".join(f"  a{k} = f32[] parameter({k})" for k in range(2 * count))
    comparator = f"cmp {{\n{parameters}\n  ROOT c = pred[] compare(a0, a1), direction=LT\n}}\n"
    shape = (
        _shape("f32", dims, rng)
        if count == 1
        else "(" + ", ".join(_shape("f32", dims, rng) for _ in range(count)) + ")"
    )
    operands = ", ".join(f"p{k}" for k in range(count))
    lines.append(f"r = {shape} sort({operands}), dimensions={{{axis}}}, to_apply=cmp")
    return Variant(number, "sort", _module(number, lines, comparator))


def _select_and_scatter(rng: random.Random, number: int) -> Variant:
    dims = [max(n, 1) for n in _dims(rng, rng.randint(1, 2), 30)]
    windows = [_window(rng, n, dilations=False) for n in dims]
    windows = [_Window(w.size, w.stride, max(w.low, 0), max(w.high, 0), 1, 1) for w in windows]
    source = [w.positions(n) for w, n in zip(windows, dims, strict=True)]
    lines = _parameters(rng, [("f32", dims), ("f32", source), ("f32", [])])
    spec = (
        f"size={'x'.join(str(w.size) for w in windows)} "
        f"stride={'x'.join(str(w.stride) for w in windows)} "
        f"pad={'x'.join(f'{w.low}_{w.high}' for w in windows)}"
    )
    lines.append(
        f"r = {_shape('f32', dims, rng)} select-and-scatter(p0, p1, p2), "
        f"window={{{spec}}}, select=ge, scatter=add"
    )
    return Variant(number, "select-and-scatter", _module(number, lines, _GE + _ADD))


# ------------------------------------------------------------------ real instructions

_RELAYOUTABLE = frozenset(
    {
        "broadcast", "transpose", "reverse", "slice", "reshape", "bitcast", "concatenate",
        "pad", "dot", "convolution", "dynamic-slice", "dynamic-update-slice", "gather",
        "iota", "copy", "add", "multiply", "subtract", "maximum", "select", "negate",
        "exponential", "convert", "compare", "divide", "reduce", "reduce-window", "scatter",
        "sort", "select-and-scatter",
    }
)  # fmt: skip
_ARRAY_SHAPE = re.compile(r"[a-z][a-z0-9]*\[[^\]]*\](\{[^}]*\})?")
REAL_SOURCES = (Path(__file__).parents[2] / "examples",)


@dataclass(frozen=True)
class RealInstruction:
    """An instruction of a real module, ready to be re-laid out: its operand
    producers (constants and iotas are kept: their values are read) and the
    text of its line from the opcode on, operands and called computations
    renamed."""

    origin: str
    shape: Shape
    opcode: str
    operands: tuple[Instruction, ...]
    call: str  # ``opcode(q0, q1), attributes…``
    computations: str


def _elements(shape: Shape) -> int:
    return sum(math.prod(leaf.dimensions) for _, leaf in shape.leaves)


def _closing(text: str, opening: int) -> int:
    depth = 0
    for position in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[position], 0)
        if depth == 0:
            return position
    raise ValueError("unbalanced parentheses")


def _scalar_computation(name: str, kind: str, types: Sequence[str]) -> str:
    """A reducer (``add`` of two scalars) or a comparator over `types`."""
    parameters = "\n".join(f"  a{k} = {t}[] parameter({k})" for k, t in enumerate(types))
    if kind == "comparator":
        root = "ROOT c = pred[] compare(a0, a1), direction=LT"
    elif kind == "select":
        root = "ROOT c = pred[] compare(a0, a1), direction=GE"
    else:
        root = f"ROOT c = {types[0]}[] add(a0, a1)"
    return f"{name} {{\n{parameters}\n  {root}\n}}\n"


def _called(instruction: Instruction, operands: Sequence[Instruction]) -> str | None:
    """Replacement computations for `instruction`'s reducer or comparator
    (None when it calls something else)."""
    types = [o.shape.element_type for o in operands]
    match instruction.opcode:
        case "reduce" | "reduce-window" if len(operands) == 2:
            return _scalar_computation("red", "reducer", [types[0]] * 2)
        case "scatter" if len(operands) == 3:
            return _scalar_computation("red", "reducer", [types[0]] * 2)
        case "sort":
            return _scalar_computation("red", "comparator", [t for t in types for _ in (0, 1)])
        case "select-and-scatter":
            return _scalar_computation("sel", "select", [types[0]] * 2) + _scalar_computation(
                "red", "reducer", [types[1]] * 2
            )
        case _:
            return None if instruction.called_computations else ""


def _real(path: Path, module: Module) -> list[RealInstruction]:
    lines = path.read_text().splitlines()
    found = []
    for computation in module.computations:
        for instruction in computation.instructions:
            if instruction.opcode not in _RELAYOUTABLE:
                continue
            operands = computation.operand_instructions(instruction)
            if any(o.shape.tuple_shapes is not None for o in operands):
                continue
            if _elements(instruction.shape) + sum(_elements(o.shape) for o in operands) > 600:
                continue
            computations = _called(instruction, operands)
            line = lines[instruction.span.line - 1] if instruction.span.line > 0 else ""
            opening = line.find(f" {instruction.opcode}(")
            if computations is None or opening < 0:
                continue
            opening += len(instruction.opcode) + 1
            tail = line[_closing(line, opening) + 1 :]
            if tail.count("{") != tail.count("}"):  # continues on the next lines
                continue
            tail = re.sub(r"(to_apply|scatter)=%?[\w.\-]+", r"\1=red", tail)
            tail = re.sub(r"select=%?[\w.\-]+", "select=sel", tail)
            renamed = ", ".join(f"q{k}" for k in range(len(operands)))
            call = f"{instruction.opcode}({renamed}){tail}"
            origin = f"{path.name}:{computation.name}/{instruction.name}"
            found.append(
                RealInstruction(
                    origin,
                    instruction.shape,
                    instruction.opcode,
                    tuple(operands),
                    call,
                    computations,
                )
            )
    return found


@functools.cache
def real_instructions(sources: tuple[Path, ...] = REAL_SOURCES) -> tuple[RealInstruction, ...]:
    """Every small instruction of the modules under `sources` (not
    `examples/checks/`, invalid on purpose) that a variant can re-lay out."""
    found: list[RealInstruction] = []
    for directory in sources:
        for path in sorted(directory.rglob("*.hlo")):
            if "checks" in path.parts:
                continue
            try:
                module = parse_module_file(path)
            except VerifierError:
                continue
            found += _real(path, module)
    return tuple(found)


def _relaid(rng: random.Random, shape: Shape, *, tiles: bool) -> str:
    if shape.tuple_shapes is not None:
        return "(" + ", ".join(_relaid(rng, s, tiles=tiles) for s in shape.tuple_shapes) + ")"
    return _shape(shape.element_type, shape.dimensions, rng, tiles=tiles)


def _operand_line(rng: random.Random, k: int, operand: Instruction, parameter: int) -> str:
    if operand.opcode == "constant" and not operand.shape.dimensions:
        return f"q{k} = {_relaid(rng, operand.shape, tiles=False)} constant({operand.literal})"
    if operand.opcode == "iota":
        dimension = operand.integer("iota_dimension")
        return (
            f"q{k} = {_relaid(rng, operand.shape, tiles=False)} iota(), iota_dimension={dimension}"
        )
    return f"q{k} = {_relaid(rng, operand.shape, tiles=False)} parameter({parameter})"


def relaid_out(real: RealInstruction, rng: random.Random, number: int) -> Variant:
    """`real` with other layouts on its operands and output (tiles on a bitcast)."""
    tiles = real.opcode == "bitcast"
    lines, parameter = [], 0
    for k, operand in enumerate(real.operands):
        line = _operand_line(rng, k, operand, parameter)
        if tiles and line.endswith(f"parameter({parameter})"):
            line = f"q{k} = {_relaid(rng, operand.shape, tiles=True)} parameter({parameter})"
        parameter += line.endswith(f"parameter({parameter})")
        lines.append(line)
    lines.append(f"r = {_relaid(rng, real.shape, tiles=tiles)} {real.call}")
    return Variant(number, real.opcode, _module(number, lines, real.computations), real.origin)


# ------------------------------------------------------------------ fused chains


def _consumer(rng: random.Random, dims: Sequence[int], r: str) -> tuple[str, list[int]]:
    """A data-movement op reading `r` of `dims`: its text and its dims."""
    rank = len(dims)
    choice = rng.choice(("transpose", "reverse", "slice", "reshape", "broadcast", "pad"))
    if choice == "transpose" and rank:
        permutation = list(range(rank))
        rng.shuffle(permutation)
        out = [dims[k] for k in permutation]
        return f"transpose({r}), dimensions={_ints(permutation)}", out
    if choice == "reverse" and rank:
        chosen = sorted(rng.sample(range(rank), rng.randint(1, rank)))
        return f"reverse({r}), dimensions={_ints(chosen)}", list(dims)
    if choice == "slice" and rank:
        configs, out = [], []
        for n in dims:
            start = rng.randint(0, n)
            limit = rng.randint(start, n)
            stride = rng.choice((1, 2, 3))
            configs.append(f"[{start}:{limit}:{stride}]")
            out.append(-(-(limit - start) // stride))
        return f"slice({r}), slice={{{', '.join(configs)}}}", out
    if choice == "pad" and rank:
        k = rng.randrange(rank)
        low, high, interior = rng.randint(-1, 2), rng.randint(0, 2), rng.choice((0, 1))
        core = dims[k] + max(dims[k] - 1, 0) * interior
        low = max(low, -core)
        config = ["0_0"] * rank
        config[k] = f"{low}_{high}_{interior}"
        out = list(dims)
        out[k] = core + low + high
        return f"pad({r}, z), padding={'x'.join(config)}", out
    if choice == "broadcast" and math.prod(dims) * 3 <= _LIMIT:
        position = rng.randint(0, rank)
        out = [*dims[:position], 3, *dims[position:]]
        kept = [k for k in range(rank + 1) if k != position]
        return f"broadcast({r}), dimensions={_ints(kept)}", out
    out = _factorisation(rng, math.prod(dims))
    return f"reshape({r})", out


def _composite(rng: random.Random, number: int) -> Variant:
    """A copy of an array of composite sizes (the reshapes of a chain after
    it split and merge them: floordiv and mod for the simplifier)."""
    dims = [rng.choice((2, 3, 4, 5, 6, 8, 9, 12)) for _ in range(rng.randint(1, 4))]
    while math.prod(dims) > _LIMIT // 2:
        dims.pop()
    lines = _parameters(rng, [("f32", dims)])
    lines.append(f"r = {_shape('f32', dims, rng)} copy(p0)")
    return Variant(number, "copy", _module(number, lines))


def _fused(rng: random.Random, number: int) -> Variant:
    """A generated op followed by a chain of data-movement ops, all in a
    loop fusion whose maps are composed through the fused computation."""
    family = rng.choice(_FUSIBLE)
    inner = family(random.Random(rng.getrandbits(32)), number)
    lines = inner.text[inner.text.index("ENTRY e {") :].splitlines()[1:-1]
    root = lines[-1].strip().removeprefix("ROOT ")
    shape = root.split(" = ", 1)[1].split(" ", 1)[0]
    if not shape.startswith("f32[") or root.split(" ", 3)[2].startswith("iota"):
        return _fused(rng, number)
    dims = [int(n) for n in shape[4 : shape.index("]")].split(",") if n]
    parameters = [line.strip() for line in lines if " parameter(" in line]
    body = [line.strip() for line in lines[:-1] if " parameter(" not in line]
    chain, source = [root, "z = f32[] constant(0)"], "r"
    for k in range(rng.randint(1, 3)):
        consumer, dims = _consumer(rng, dims, source)
        chain.append(f"c{k} = {_shape('f32', dims, rng)} {consumer}")
        source = f"c{k}"
    if rng.random() < 0.3:  # two paths to every element: a union of reads
        chain.append(
            f"m = {_shape('f32', dims)} reverse({source}), dimensions={_ints(range(len(dims)))}"
        )
        chain.append(f"t = {_shape('f32', dims, rng)} maximum({source}, m)")
    out = dims
    chain[-1] = "ROOT " + chain[-1]
    fused = "\n".join(f"  {line}" for line in [*parameters, *body, *chain])
    computations = inner.text[inner.text.index("\n\n") : inner.text.index("ENTRY e {")]
    computations += f"fused {{\n{fused}\n}}\n"
    operands = ", ".join(p.split(" = ", 1)[0] for p in parameters)
    entry = [*parameters, f"f = {_shape('f32', out)} fusion({operands}), kind=kLoop, calls=fused"]
    return Variant(number, f"fusion({inner.opcode})", _module(number, entry, computations))


FAMILIES: tuple[Callable[[random.Random, int], Variant], ...] = (
    _elementwise,
    _broadcast,
    _transpose,
    _reverse,
    _slice,
    _reshape,
    _concatenate,
    _pad,
    _reduce,
    _reduce_window,
    _dot,
    _convolution,
    _dynamic_slice,
    _dynamic_update_slice,
    _gather,
    _scatter,
    _iota,
    _sort,
    _select_and_scatter,
)


# The families whose op the per-instruction oracle reads inside a fusion.
_FUSIBLE = (
    *(f for f in FAMILIES if f not in (_convolution, _scatter, _sort, _select_and_scatter, _iota)),
    *[_composite] * 4,
)
# Every variant number in turn: a generated family, a fused chain, a real
# instruction re-laid out.
TURNS = len(FAMILIES) + 2
FUSED, REAL = len(FAMILIES), len(FAMILIES) + 1


# Attributes that change no semantics, as XLA and JAX write them, by opcode
# ("" for any): the parser must read past each.
_DECORATIONS = {
    "": (
        'metadata={op_name="jit(f)/jit(main)/x" source_file="/a/b.py" source_line=12}',
        "sharding={replicated}",
        'frontend_attributes={_xla_stream_annotation="1"}',
        'backend_config={"flag":true,"n":[1,2]}',
    ),
    "gather": ("indices_are_sorted=true",),
    "scatter": ("indices_are_sorted=true", "unique_indices=true"),
    "dot": ("operand_precision={highest,default}", "algorithm=dot_f32_f32_f32"),
    "convolution": ("operand_precision={default,highest}",),
    "sort": ("is_stable=true",),
}
_NAME = re.compile(r"(?<![\w.%])(p\d+|q\d+|i\d+|r|c\d+|z|m|t|f)(?![\w.(\[])")  # not c64[


def _decorated(rng: random.Random, v: Variant) -> Variant:
    """`v` with benign attributes on its root and, sometimes, ``%`` before
    every instruction name."""
    lines = v.text.splitlines()
    root = next(k for k in reversed(range(len(lines))) if lines[k].lstrip().startswith("ROOT "))
    choices = (*_DECORATIONS[""], *_DECORATIONS.get(v.opcode, ()))
    for attribute in rng.sample(choices, rng.randint(0, 2)):
        if f" {attribute.split('=')[0]}=" not in lines[root]:  # XLA rejects a repeated one
            lines[root] += f", {attribute}"
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.3:
        body = text.index("{\n")  # names inside computations only
        text = text[:body] + _NAME.sub(r"%\1", text[body:])
    return dataclasses.replace(v, text=text)


def variant(number: int, sources: tuple[Path, ...] = REAL_SOURCES) -> Variant:
    """Variant `number` (a pure function of it and of the modules under
    `sources`): the family of turn ``number % TURNS``, decorated."""
    rng = random.Random(number)
    turn = number % TURNS
    if turn < len(FAMILIES):
        chosen = FAMILIES[turn](rng, number)
    elif turn == FUSED:
        chosen = _fused(rng, number)
    else:
        reals = real_instructions(sources)
        chosen = relaid_out(reals[rng.randrange(len(reals))], rng, number)
    return _decorated(rng, chosen)
