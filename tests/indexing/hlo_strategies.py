"""Hypothesis strategies: small HLO modules whose ROOT is one op under test.

Each strategy draws a configuration (shapes, strides, paddings, permutations,
dimension numbers, windows, …), keeps every tensor tiny so brute force stays
fast, and returns the module as HLO text for the real parser.
`STRATEGIES` maps every opcode that the property tests cover to its strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import assume
from hypothesis import strategies as st

from .compound_strategies import cudnn_convolution

Draw = Callable[..., object]


def shape(element_type: str, dims: Sequence[int], layout: Sequence[int] | None = None) -> str:
    text = f"{element_type}[{','.join(str(n) for n in dims)}]"
    if layout is not None:
        text += "{" + ",".join(str(k) for k in layout) + "}"
    return text


def module(lines: Sequence[str], *, extra: str = "") -> str:
    """An HLO module whose ENTRY holds `lines`, the last one being the ROOT."""
    body = [f"  {line}" for line in lines[:-1]] + [f"  ROOT {lines[-1]}"]
    return "HloModule test\n" + extra + "ENTRY main {\n" + "\n".join(body) + "\n}\n"


def parameters(shapes: Sequence[str]) -> list[str]:
    return [f"p{i} = {s} parameter({i})" for i, s in enumerate(shapes)]


def ints(values: Sequence[int]) -> str:
    return "{" + ",".join(str(v) for v in values) + "}"


ADD_COMPUTATION = (
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
)
ADD_PAIR_COMPUTATION = (
    "add2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n"
    "  x = f32[] add(a, c)\n  y = f32[] add(b, d)\n  ROOT t = (f32[], f32[]) tuple(x, y)\n}\n"
)


def dims_strategy(
    min_rank: int = 0, max_rank: int = 3, max_size: int = 4
) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(1, max_size), min_size=min_rank, max_size=max_rank)


# ------------------------------------------------------------------ elementwise

# opcode → (operand element types, output element type, extra attributes)
_UNARY_FLOAT = [
    "abs",
    "cbrt",
    "ceil",
    "cosine",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "log",
    "log-plus-one",
    "logistic",
    "negate",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
    "copy",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atanh",
    "cosh",
    "sinh",
]
_BINARY_FLOAT = [
    "add",
    "atan2",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "power",
    "remainder",
    "subtract",
]
_BINARY_INT = [
    "and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "mulhi",
]  # fmt: skip
ELEMENTWISE_SIGNATURES: dict[str, tuple[tuple[str, ...], str, str]] = {
    **{op: (("f32",), "f32", "") for op in _UNARY_FLOAT},
    **{op: (("f32", "f32"), "f32", "") for op in _BINARY_FLOAT},
    **{op: (("s32", "s32"), "s32", "") for op in _BINARY_INT},
    "not": (("s32",), "s32", ""),
    "popcnt": (("s32",), "s32", ""),
    "count-leading-zeros": (("s32",), "s32", ""),
    "convert": (("f32",), "s32", ""),
    "is-finite": (("f32",), "pred", ""),
    "reduce-precision": (("f32",), "f32", ", exponent_bits=5, mantissa_bits=10"),
    "real": (("c64",), "f32", ""),
    "imag": (("c64",), "f32", ""),
    "compare": (("f32", "f32"), "pred", ", direction=LT"),
    "complex": (("f32", "f32"), "c64", ""),
    "stochastic-convert": (("f32", "u32"), "bf16", ""),
    "map": (("f32", "f32"), "f32", ", to_apply=add"),
    "select": (("pred", "f32", "f32"), "f32", ""),
    "clamp": (("f32", "f32", "f32"), "f32", ""),
}
# Operands that may be rank 0 while the output is not.
_SCALAR_ALLOWED = {"select": (0,), "clamp": (0, 2)}


@st.composite
def elementwise(draw: st.DrawFn, opcode: str) -> str:
    types, out_type, attrs = ELEMENTWISE_SIGNATURES[opcode]
    dims = draw(dims_strategy())
    operand_shapes = []
    for number, element_type in enumerate(types):
        scalar = number in _SCALAR_ALLOWED.get(opcode, ()) and draw(st.booleans())
        operand_shapes.append(shape(element_type, [] if scalar else dims))
    args = ", ".join(f"p{i}" for i in range(len(types)))
    root = f"r = {shape(out_type, dims)} {opcode}({args}){attrs}"
    return module(
        [*parameters(operand_shapes), root], extra=ADD_COMPUTATION if opcode == "map" else ""
    )


# ------------------------------------------------------------------ data movement


@st.composite
def broadcast(draw: st.DrawFn) -> str:
    out = draw(dims_strategy(0, 3))
    kept = sorted(draw(st.sets(st.sampled_from(range(len(out))))) if out else set())
    operand = [out[k] for k in kept]
    root = f"r = {shape('f32', out)} broadcast(p0), dimensions={ints(kept)}"
    return module([*parameters([shape("f32", operand)]), root])


@st.composite
def transpose(draw: st.DrawFn) -> str:
    operand = draw(dims_strategy(0, 4, 3))
    permutation = draw(st.permutations(range(len(operand))))
    out = [operand[k] for k in permutation]
    root = f"r = {shape('f32', out)} transpose(p0), dimensions={ints(permutation)}"
    return module([*parameters([shape("f32", operand)]), root])


@st.composite
def reverse(draw: st.DrawFn) -> str:
    dims = draw(dims_strategy(0, 3))
    reversed_dims = sorted(draw(st.sets(st.sampled_from(range(len(dims))))) if dims else set())
    root = f"r = {shape('f32', dims)} reverse(p0), dimensions={ints(reversed_dims)}"
    return module([*parameters([shape("f32", dims)]), root])


@st.composite
def slice_(draw: st.DrawFn) -> str:
    operand = draw(dims_strategy(1, 3, 7))
    configs, out = [], []
    for n in operand:
        start = draw(st.integers(0, n - 1))
        limit = draw(st.integers(start + 1, n))
        stride = draw(st.integers(1, 4))
        configs.append(f"[{start}:{limit}:{stride}]")
        out.append(-(-(limit - start) // stride))
    root = f"r = {shape('f32', out)} slice(p0), slice={{{', '.join(configs)}}}"
    return module([*parameters([shape("f32", operand)]), root])


@st.composite
def _factorisation(draw: st.DrawFn, factors: Sequence[int]) -> list[int]:
    """Group `factors` (in order) into dims, with size-1 dims sprinkled in."""
    dims: list[int] = []
    current = 1
    for factor in factors:
        current *= factor
        if draw(st.booleans()):
            dims.append(current)
            current = 1
    if current != 1 or not dims:
        dims.append(current)
    for _ in range(draw(st.integers(0, 1))):
        dims.insert(draw(st.integers(0, len(dims))), 1)
    return dims


@st.composite
def reshape(draw: st.DrawFn) -> str:
    factors = draw(st.lists(st.sampled_from([2, 3, 2, 4]), min_size=0, max_size=4))
    operand = draw(_factorisation(draw(st.permutations(factors))))
    out = draw(_factorisation(draw(st.permutations(factors))))
    root = f"r = {shape('f32', out)} reshape(p0)"
    return module([*parameters([shape("f32", operand)]), root])


@st.composite
def bitcast(draw: st.DrawFn) -> str:
    # The same physical sizes seen through two (layout, logical shape) pairs.
    factors = draw(st.lists(st.sampled_from([2, 3, 2]), min_size=0, max_size=4))
    shapes = []
    for _ in range(2):
        physical = draw(_factorisation(factors))  # major to minor
        minor_to_major = draw(st.permutations(range(len(physical))))
        logical = [0] * len(physical)
        for position, k in enumerate(reversed(minor_to_major)):
            logical[k] = physical[position]
        element_type = draw(st.sampled_from(["f32", "s32", "u32"]))
        shapes.append(shape(element_type, logical, minor_to_major))
    return module([f"p0 = {shapes[0]} parameter(0)", f"r = {shapes[1]} bitcast(p0)"])


@st.composite
def bitcast_convert(draw: st.DrawFn) -> str:
    dims = draw(dims_strategy(0, 2))
    kind = draw(st.sampled_from(["same", "narrow", "widen"]))
    if kind == "same":
        source, target = shape("f32", dims), shape("s32", dims)
    else:
        narrow_type, ratio = draw(st.sampled_from([("u8", 4), ("s16", 2)]))
        wide, narrow = shape("f32", dims), shape(narrow_type, [*dims, ratio])
        source, target = (wide, narrow) if kind == "narrow" else (narrow, wide)
    return module([f"p0 = {source} parameter(0)", f"r = {target} bitcast-convert(p0)"])


@st.composite
def concatenate(draw: st.DrawFn) -> str:
    dims = draw(dims_strategy(1, 3, 3))
    dimension = draw(st.integers(0, len(dims) - 1))
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    pieces = []
    for size in sizes:
        piece = list(dims)
        piece[dimension] = size
        pieces.append(shape("f32", piece))
    out = list(dims)
    out[dimension] = sum(sizes)
    args = ", ".join(f"p{i}" for i in range(len(sizes)))
    root = f"r = {shape('f32', out)} concatenate({args}), dimensions={{{dimension}}}"
    return module([*parameters(pieces), root])


@st.composite
def pad(draw: st.DrawFn) -> str:
    operand = draw(dims_strategy(1, 3, 4))
    configs, out = [], []
    for n in operand:
        interior = draw(st.integers(0, 2))
        dilated = n + (n - 1) * interior
        low = draw(st.integers(-dilated + 1, 3))
        high = draw(st.integers(max(-dilated - low + 1, -3), 3))
        configs.append(f"{low}_{high}_{interior}")
        out.append(low + dilated + high)
    root = f"r = {shape('f32', out)} pad(p0, p1), padding={'x'.join(configs)}"
    return module([*parameters([shape("f32", operand), "f32[]"]), root])


# ------------------------------------------------------------------ reductions


@st.composite
def reduce(draw: st.DrawFn) -> str:
    dims = draw(dims_strategy(0, 3))
    reduced = sorted(draw(st.sets(st.sampled_from(range(len(dims))))) if dims else set())
    out = [n for k, n in enumerate(dims) if k not in reduced]
    variadic = draw(st.booleans())
    if variadic:
        inputs = [shape("f32", dims)] * 2
        out_shape = f"({shape('f32', out)}, {shape('f32', out)})"
        root = f"r = {out_shape} reduce(p0, p1, p2, p3), dimensions={ints(reduced)}, to_apply=add2"
        return module([*parameters([*inputs, "f32[]", "f32[]"]), root], extra=ADD_PAIR_COMPUTATION)
    root = f"r = {shape('f32', out)} reduce(p0, p1), dimensions={ints(reduced)}, to_apply=add"
    return module([*parameters([shape("f32", dims), "f32[]"]), root], extra=ADD_COMPUTATION)


@st.composite
def reduce_window(draw: st.DrawFn) -> str:
    rank = draw(st.integers(1, 2))
    dims, out, sizes, strides, pads, base, window = [], [], [], [], [], [], []
    for _ in range(rank):
        n = draw(st.integers(1, 5))
        size = draw(st.integers(1, 3))
        stride = draw(st.integers(1, 3))
        base_dilation = draw(st.integers(1, 3))
        window_dilation = draw(st.integers(1, 2))
        dilated_base = (n - 1) * base_dilation + 1
        dilated_window = (size - 1) * window_dilation + 1
        low = draw(st.integers(0, 2))
        least = max(0, dilated_window - dilated_base - low)
        high = draw(st.integers(least, least + 2))
        dims.append(n)
        out.append((dilated_base + low + high - dilated_window) // stride + 1)
        sizes.append(size)
        strides.append(stride)
        pads.append(f"{low}_{high}")
        base.append(base_dilation)
        window.append(window_dilation)
    spec = (
        f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} "
        f"pad={'x'.join(pads)} lhs_dilate={'x'.join(map(str, base))} "
        f"rhs_dilate={'x'.join(map(str, window))}"
    )
    if draw(st.booleans()):
        out_shape = f"({shape('f32', out)}, {shape('f32', out)})"
        root = f"r = {out_shape} reduce-window(p0, p1, p2, p3), window={{{spec}}}, to_apply=add2"
        operands = [shape("f32", dims)] * 2 + ["f32[]", "f32[]"]
        return module([*parameters(operands), root], extra=ADD_PAIR_COMPUTATION)
    root = f"r = {shape('f32', out)} reduce-window(p0, p1), window={{{spec}}}, to_apply=add"
    return module([*parameters([shape("f32", dims), "f32[]"]), root], extra=ADD_COMPUTATION)


@st.composite
def _dot_configuration(
    draw: st.DrawFn,
) -> tuple[list[int], list[int], list[int], tuple[list[int], list[int], list[int], list[int]]]:
    """lhs dims, rhs dims, output dims and the dimension numbers of a dot
    (lhs batch, rhs batch, lhs contracting, rhs contracting)."""
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    contracting = draw(st.lists(st.integers(1, 3), max_size=2))
    lhs_free = draw(st.lists(st.integers(1, 3), max_size=2))
    rhs_free = draw(st.lists(st.integers(1, 3), max_size=1))

    def layout(free: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
        # Shuffle batch, contracting and free dims into one operand's dims;
        # the free dims reach the output in the operand's order.
        kinds = [("b", i) for i in range(len(batch))] + [("c", i) for i in range(len(contracting))]
        kinds += [("f", i) for i in range(len(free))]
        order = draw(st.permutations(kinds))
        sizes = {"b": batch, "c": contracting, "f": free}
        dims = [sizes[kind][i] for kind, i in order]
        return (
            dims,
            [order.index(("b", i)) for i in range(len(batch))],
            [order.index(("c", i)) for i in range(len(contracting))],
            [free[i] for kind, i in order if kind == "f"],
        )

    lhs, lhs_batch, lhs_contracting, lhs_out = layout(lhs_free)
    rhs, rhs_batch, rhs_contracting, rhs_out = layout(rhs_free)
    out = batch + lhs_out + rhs_out
    return lhs, rhs, out, (lhs_batch, rhs_batch, lhs_contracting, rhs_contracting)


def _dot_attributes(numbers: tuple[list[int], list[int], list[int], list[int]]) -> str:
    lhs_batch, rhs_batch, lhs_contracting, rhs_contracting = numbers
    return (
        f"lhs_batch_dims={ints(lhs_batch)}, rhs_batch_dims={ints(rhs_batch)}, "
        f"lhs_contracting_dims={ints(lhs_contracting)}, "
        f"rhs_contracting_dims={ints(rhs_contracting)}"
    )


@st.composite
def dot(draw: st.DrawFn) -> str:
    lhs, rhs, out, numbers = draw(_dot_configuration())
    root = f"r = {shape('f32', out)} dot(p0, p1), {_dot_attributes(numbers)}"
    return module([*parameters([shape("f32", lhs), shape("f32", rhs)]), root])


@st.composite
def triangular_solve(draw: st.DrawFn) -> str:
    """Every side, triangle, diagonal and transpose, over 0 to 1 batch dims."""
    batch = draw(st.lists(st.integers(1, 2), max_size=1))
    size, other = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    left = draw(st.booleans())
    b = [*batch, size, other] if left else [*batch, other, size]
    flags = [("left_side", left), ("lower", draw(st.booleans()))]
    flags.append(("unit_diagonal", draw(st.booleans())))
    attributes = ", ".join(f"{name}={str(value).lower()}" for name, value in flags)
    transpose = draw(st.sampled_from(["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]))
    root = f"r = {shape('f32', b)} triangular-solve(p0, p1), {attributes}, transpose_a={transpose}"
    return module([*parameters([shape("f32", [*batch, size, size]), shape("f32", b)]), root])


@st.composite
def scaled_dot(draw: st.DrawFn) -> str:
    """A dot whose operands are scaled by blocks: each scale dim divides its operand dim."""
    lhs, rhs, out, numbers = draw(_dot_configuration())

    def scale(dims: list[int]) -> list[int]:
        return [draw(st.sampled_from([m for m in range(1, n + 1) if n % m == 0])) for n in dims]

    operands = [shape("f8e4m3fn", lhs), shape("f8e4m3fn", rhs)]
    operands += [shape("f8e8m0fnu", scale(lhs)), shape("f8e8m0fnu", scale(rhs))]
    root = f"r = {shape('f32', out)} scaled-dot(p0, p1, p2, p3), {_dot_attributes(numbers)}"
    return module([*parameters(operands), root])


@st.composite
def ragged_dot(draw: st.DrawFn) -> str:
    """A ragged-dot with ragged lhs rows (a free lhs dim split into groups,
    each multiplied by its own slice of the rhs along its group dim), with
    a ragged contracting dim (one sum per group) or a ragged batch dim (the
    batched dot)."""
    lhs, rhs, out, numbers = draw(_dot_configuration())
    lhs_batch, rhs_batch, lhs_contracting, rhs_contracting = numbers
    # A ragged contracting dim: one result per group, before the dot's dims;
    # a ragged batch dim: the batched dot, group_sizes unread.
    mode: str = draw(st.sampled_from(["rows", "contracting", "batch"]))
    among = {"contracting": lhs_contracting, "batch": lhs_batch}.get(mode, [])
    if among:
        ragged, groups = draw(st.sampled_from(among)), draw(st.integers(1, 3))
        result = [groups, *out] if mode == "contracting" else out
        root = (
            f"r = {shape('f32', result)} ragged-dot(p0, p1, p2), "
            f"{_dot_attributes(numbers)}, lhs_ragged_dims={{{ragged}}}"
        )
        operands = [shape("f32", lhs), shape("f32", rhs), f"s32[{groups}]"]
        return module([*parameters(operands), root])
    free = [k for k in range(len(lhs)) if k not in lhs_batch + lhs_contracting]
    assume(free)
    ragged = draw(st.sampled_from(free))
    groups = draw(st.integers(1, 3))
    group_dim = draw(st.integers(0, len(rhs)))
    rhs = [*rhs[:group_dim], groups, *rhs[group_dim:]]

    def moved(dims: list[int]) -> list[int]:
        return [k + (k >= group_dim) for k in dims]

    attributes = _dot_attributes(
        (lhs_batch, moved(rhs_batch), lhs_contracting, moved(rhs_contracting))
    )
    root = (
        f"r = {shape('f32', out)} ragged-dot(p0, p1, p2), {attributes}, "
        f"lhs_ragged_dims={{{ragged}}}, rhs_group_dims={{{group_dim}}}"
    )
    return module([*parameters([shape("f32", lhs), shape("f32", rhs), f"s32[{groups}]"]), root])


@st.composite
def dynamic_reshape(draw: st.DrawFn) -> str:
    """A dynamic-reshape whose most major dims may be dynamic (``<=N``), the
    minor dims static on both sides."""
    minor_in = draw(dims_strategy(0, 2, 3))
    minor_out = draw(dims_strategy(0, 2, 3))
    rows_in, rows_out = draw(st.integers(1, 4)), draw(st.integers(1, 4))

    def text(rows: int, minor: list[int], dynamic: bool) -> str:
        return "f32[" + ",".join([("<=" if dynamic else "") + str(rows), *map(str, minor)]) + "]"

    source = text(rows_in, minor_in, draw(st.booleans()))
    result = text(rows_out, minor_out, draw(st.booleans()))
    sizes = [f"n{k} = s32[] parameter({k + 1})" for k in range(1 + len(minor_out))]
    arguments = ", ".join(f"n{k}" for k in range(1 + len(minor_out)))
    root = f"r = {result} dynamic-reshape(p0, {arguments})"
    return module([f"p0 = {source} parameter(0)", *sizes, root])


@st.composite
def cublas_gemm(draw: st.DrawFn) -> str:
    """A cuBLAS gemm custom-call as XLA's GPU compiler writes it: ``(D,
    s8[workspace])``, the dot's dims in the backend config (protobuf JSON,
    int64 as strings), C an operand when beta is not 0, then a bias vector
    over the columns with a BIAS* epilogue."""
    lhs, rhs, out, numbers = draw(_dot_configuration())
    names = ("lhs_batch", "rhs_batch", "lhs_contracting", "rhs_contracting")
    dimensions = ",".join(
        f'"{name}_dimensions":' + "[" + ",".join(f'"{k}"' for k in dims) + "]"
        for name, dims in zip(names, numbers, strict=True)
    )
    beta = draw(st.sampled_from([0, 1]))
    _, rhs_batch, _, rhs_contracting = numbers
    one_column = len(rhs) - len(rhs_batch) - len(rhs_contracting) == 1
    epilogues = ["DEFAULT", "RELU", "GELU"] + ["BIAS", "BIAS_RELU", "BIAS_GELU"] * one_column
    epilogue = draw(st.sampled_from(epilogues))
    target = draw(st.sampled_from(["__cublas$gemm", "__cublas$lt$matmul"]))
    config = (
        f'{{"operation_queue_id":"0","gemm_backend_config":{{"alpha_real":1,"beta":{beta},'
        f'"dot_dimension_numbers":{{{dimensions}}},"epilogue":"{epilogue}"}}}}'
    )
    operands = [shape("f32", lhs), shape("f32", rhs)] + ([shape("f32", out)] * beta)
    operands += [shape("f32", out[-1:])] * epilogue.startswith("BIAS")
    arguments = ", ".join(f"p{k}" for k in range(len(operands)))
    root = (
        f"r = ({shape('f32', out)}, s8[{draw(st.integers(0, 256))}]) custom-call({arguments}), "
        f'custom_call_target="{target}", backend_config={config}'
    )
    return module([*parameters(operands), root])


@st.composite
def scan(draw: st.DrawFn) -> str:
    """scan(inputs…, inits…) along one dimension, forward or reversed, with a
    body that returns the step's output slices, then the new carries."""
    length = draw(st.integers(1, 3))
    dimension = draw(st.integers(0, 1))

    def stacked(slice_dims: list[int]) -> list[int]:
        at = min(dimension, len(slice_dims))
        return [*slice_dims[:at], length, *slice_dims[at:]]

    inputs = draw(st.lists(dims_strategy(dimension, 2, 2), max_size=2))
    outputs = draw(st.lists(dims_strategy(dimension, 2, 2), max_size=2))
    carries = draw(st.lists(dims_strategy(0, 2, 2), max_size=2))
    if not (inputs or outputs) or not (outputs or carries):
        outputs.append([2] * dimension)
    results = [shape("f32", stacked(d)) for d in outputs] + [shape("f32", d) for d in carries]
    steps = [shape("f32", d) for d in outputs + carries]
    body_parameters = [shape("f32", d) for d in inputs + carries]
    body = "body {\n  z = f32[] constant(0)\n"
    body += "".join(f"  a{k} = {s} parameter({k})\n" for k, s in enumerate(body_parameters))
    body += "".join(f"  b{k} = {s} broadcast(z), dimensions={{}}\n" for k, s in enumerate(steps))
    names = ", ".join(f"b{k}" for k in range(len(steps)))
    root = f"({', '.join(steps)}) tuple({names})" if len(steps) > 1 else f"{steps[0]} copy(b0)"
    body += f"  ROOT t = {root}\n}}\n"
    operands = [shape("f32", stacked(d)) for d in inputs] + [shape("f32", d) for d in carries]
    result = f"({', '.join(results)})" if len(results) > 1 else results[0]
    reverse = draw(st.booleans())
    arguments = ", ".join(f"p{k}" for k in range(len(operands)))
    line = (
        f"r = {result} scan({arguments}), dimensions={{{dimension}}}, "
        f"num_carries={len(carries)}, is_reverse={str(reverse).lower()}, to_apply=body"
    )
    return module([*parameters(operands), line], extra=body)


# ------------------------------------------------------------------ dynamic offsets


@st.composite
def _offsets(draw: st.DrawFn, count: int, first_parameter: int) -> tuple[list[str], list[str]]:
    """Offset operands: a runtime parameter or a constant (possibly out of range)."""
    lines, names = [], []
    next_parameter = first_parameter
    for k in range(count):
        if draw(st.booleans()):
            lines.append(f"of{k} = s32[] parameter({next_parameter})")
            next_parameter += 1
        else:
            lines.append(f"of{k} = s32[] constant({draw(st.integers(-2, 6))})")
        names.append(f"of{k}")
    return lines, names


@st.composite
def dynamic_slice(draw: st.DrawFn) -> str:
    operand = draw(dims_strategy(1, 3, 5))
    sizes = [draw(st.integers(1, n)) for n in operand]
    lines, names = draw(_offsets(len(operand), 1))
    root = (
        f"r = {shape('f32', sizes)} dynamic-slice(p0, {', '.join(names)}), "
        f"dynamic_slice_sizes={ints(sizes)}"
    )
    return module([f"p0 = {shape('f32', operand)} parameter(0)", *lines, root])


@st.composite
def dynamic_update_slice(draw: st.DrawFn) -> str:
    operand = draw(dims_strategy(1, 2, 5))
    update = [draw(st.integers(1, n)) for n in operand]
    lines, names = draw(_offsets(len(operand), 2))
    root = f"r = {shape('f32', operand)} dynamic-update-slice(p0, p1, {', '.join(names)})"
    return module([*parameters([shape("f32", operand), shape("f32", update)]), *lines, root])


@st.composite
def gather(draw: st.DrawFn) -> str:
    operand = draw(dims_strategy(1, 3, 5))
    rank = len(operand)
    start_index_map = list(draw(st.permutations(range(rank))))[: draw(st.integers(1, rank))]
    collapsed = sorted(draw(st.sets(st.sampled_from(range(rank)))))
    free = [k for k in range(rank) if k not in start_index_map and k not in collapsed]
    batching = sorted(draw(st.sets(st.sampled_from(free), max_size=2))) if free else []
    slice_sizes = [
        1 if k in collapsed or k in batching else draw(st.integers(1, n))
        for k, n in enumerate(operand)
    ]
    extra = draw(st.lists(st.integers(1, 3), max_size=2 - len(batching)))
    # The indices' batch dims: the extra ones and one per operand batching dim
    # (of its size), in a random order.
    order = draw(
        st.permutations([("extra", n) for n in extra] + [("batching", k) for k in batching])
    )
    batch = [n if kind == "extra" else operand[n] for kind, n in order]
    index_vector_dim = draw(st.integers(0, len(batch)))
    implicit = len(start_index_map) == 1 and index_vector_dim == len(batch) and draw(st.booleans())
    indices = list(batch)
    if not implicit:
        indices.insert(index_vector_dim, len(start_index_map))
    at = {n: p for p, (kind, n) in enumerate(order) if kind == "batching"}
    indices_batching = [at[k] if at[k] < index_vector_dim else at[k] + 1 for k in batching]
    window_dims = [k for k in range(rank) if k not in collapsed and k not in batching]
    out_rank = len(batch) + len(window_dims)
    offset_dims = sorted(draw(st.permutations(range(out_rank)))[: len(window_dims)])
    out: list[int] = []
    batch_iter, window_iter = iter(batch), iter(window_dims)
    for position in range(out_rank):
        out.append(slice_sizes[next(window_iter)] if position in offset_dims else next(batch_iter))
    numbers = (
        f"offset_dims={ints(offset_dims)}, collapsed_slice_dims={ints(collapsed)}, "
        f"start_index_map={ints(start_index_map)}, index_vector_dim={index_vector_dim}, "
        f"slice_sizes={ints(slice_sizes)}"
    )
    if batching:
        numbers += (
            f", operand_batching_dims={ints(batching)}, "
            f"start_indices_batching_dims={ints(indices_batching)}"
        )
    root = f"r = {shape('f32', out)} gather(p0, p1), {numbers}"
    use_iota: bool = draw(st.booleans())
    if use_iota and indices and out:
        # iota indices have known values; the rules fold them in when no
        # clamping is needed (the other cases are xfail tests in test_corner_cases.py).
        iota_dimension = draw(st.integers(0, len(indices) - 1))
        largest = indices[iota_dimension] - 1
        if all(operand[k] - slice_sizes[k] >= largest for k in start_index_map):
            iota = f"p1 = {shape('s32', indices)} iota(), iota_dimension={iota_dimension}"
            return module([f"p0 = {shape('f32', operand)} parameter(0)", iota, root])
    return module([*parameters([shape("f32", operand), shape("s32", indices)]), root])


# ------------------------------------------------------------------ tuples and leaves


@st.composite
def tuple_(draw: st.DrawFn) -> str:
    shapes = [shape("f32", draw(dims_strategy(0, 2))) for _ in range(draw(st.integers(1, 3)))]
    args = ", ".join(f"p{i}" for i in range(len(shapes)))
    return module([*parameters(shapes), f"r = ({', '.join(shapes)}) tuple({args})"])


@st.composite
def get_tuple_element(draw: st.DrawFn) -> str:
    shapes = [shape("f32", draw(dims_strategy(0, 2))) for _ in range(draw(st.integers(1, 3)))]
    index = draw(st.integers(0, len(shapes) - 1))
    tuple_shape = f"({', '.join(shapes)})"
    root = f"r = {shapes[index]} get-tuple-element(p0), index={index}"
    return module([f"p0 = {tuple_shape} parameter(0)", root])


def value_shape(depth: int = 2) -> st.SearchStrategy[str]:
    """An array shape, or a (possibly nested, possibly empty) tuple of them."""
    array = dims_strategy(0, 2, 3).map(lambda dims: shape("f32", dims))
    if depth == 0:
        return array
    nested = st.lists(value_shape(depth - 1), min_size=0, max_size=3)
    return st.one_of(array, nested.map(lambda shapes: f"({', '.join(shapes)})"))


@st.composite
def get_nested_tuple_element(draw: st.DrawFn) -> str:
    """A get-tuple-element whose operand, and maybe result, nest tuples."""
    shapes = draw(st.lists(value_shape(1), min_size=1, max_size=3))
    index = draw(st.integers(0, len(shapes) - 1))
    root = f"r = {shapes[index]} get-tuple-element(p0), index={index}"
    return module([f"p0 = ({', '.join(shapes)}) parameter(0)", root])


@st.composite
def passed_through(draw: st.DrawFn, opcode: str) -> str:
    """``r = S op(p0)`` whose output is its operand, leaf by leaf."""
    value = draw(value_shape())
    if opcode == "add-dependency":
        return module(
            [
                f"p0 = {value} parameter(0)",
                "t = token[] after-all()",
                f"r = {value} {opcode}(p0, t)",
            ]
        )
    if opcode == "async-update":
        return draw(async_update())
    return module([f"p0 = {value} parameter(0)", f"r = {value} {opcode}(p0)"])


@st.composite
def async_update(draw: st.DrawFn) -> str:
    """``async-update(state, new…)`` of an async state ``((bound…), result,
    s32[])``, binding 0 to 2 more operands (late binding)."""
    bound = draw(st.lists(value_shape(1), min_size=0, max_size=2))
    new = draw(st.lists(value_shape(0), min_size=0, max_size=2))
    result = draw(value_shape(1))
    state = f"(({', '.join(bound)}), {result}, s32[])"
    after = f"(({', '.join([*bound, *new])}), {result}, s32[])"
    lines = [f"p0 = {state} parameter(0)"]
    lines += [f"n{k} = {shape} parameter({k + 1})" for k, shape in enumerate(new)]
    operands = ", ".join(["p0", *(f"n{k}" for k in range(len(new)))])
    return module([*lines, f"r = {after} async-update({operands})"])


@st.composite
def element_of_pair(draw: st.DrawFn, opcode: str) -> str:
    """The ``*-done`` of an asynchronous pair: one element of the start's tuple."""
    first, second = draw(value_shape(1)), draw(value_shape(1))
    state = {
        "copy-done": (f"({first}, {first}, u32[])", first),
        "async-done": (f"(({first}), {second}, s32[])", second),
        "all-gather-done": (f"({first}, {second})", second),
        "collective-permute-done": (f"({first}, {first}, u32[], u32[])", first),
    }[opcode]
    return module([f"p0 = {state[0]} parameter(0)", f"r = {state[1]} {opcode}(p0)"])


@st.composite
def copy_start(draw: st.DrawFn) -> str:
    value = draw(value_shape(1))
    return module([f"p0 = {value} parameter(0)", f"r = ({value}, {value}, u32[]) copy-start(p0)"])


@st.composite
def channel(draw: st.DrawFn, opcode: str) -> str:
    """send, send-done, recv-done of a value of any shape (tuples included)."""
    value = draw(value_shape(1))
    state = f"({value}, u32[], token[])"
    channel_id = draw(st.integers(1, 9))
    if opcode == "send":
        lines = [
            f"p0 = {value} parameter(0)",
            "t = token[] after-all()",
            f"r = {state} send(p0, t), channel_id={channel_id}",
        ]
    elif opcode == "send-done":
        lines = [
            f"p0 = {state} parameter(0)",
            f"r = token[] send-done(p0), channel_id={channel_id}",
        ]
    else:
        lines = [
            f"p0 = {state} parameter(0)",
            f"r = ({value}, token[]) recv-done(p0), channel_id={channel_id}",
        ]
    return module(lines)


_PASSED_THROUGH = (
    "copy", "opt-barrier", "domain", "add-dependency", "async-update", "all-reduce-done",
)  # fmt: skip
_DONE = ("copy-done", "async-done", "all-gather-done", "collective-permute-done")


# ------------------------------------------------------------------ whole slices


@st.composite
def fft(draw: st.DrawFn) -> str:
    batch = draw(dims_strategy(0, 2, 3))
    lengths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=min(3, 3 - len(batch) + 1)))
    kind = draw(st.sampled_from(["FFT", "IFFT", "RFFT", "IRFFT"]))
    half = [*lengths[:-1], lengths[-1] // 2 + 1]
    operand, result = {
        "FFT": (lengths, lengths),
        "IFFT": (lengths, lengths),
        "RFFT": (lengths, half),
        "IRFFT": (half, lengths),
    }[kind]
    types = {"RFFT": ("f32", "c64"), "IRFFT": ("c64", "f32")}.get(kind, ("c64", "c64"))
    root = (
        f"r = {shape(types[1], [*batch, *result])} fft(p0), fft_type={kind}, "
        f"fft_length={ints(lengths)}"
    )
    return module([f"p0 = {shape(types[0], [*batch, *operand])} parameter(0)", root])


@st.composite
def topk(draw: st.DrawFn) -> str:
    dims = draw(dims_strategy(1, 2, 4))
    k = draw(st.integers(1, dims[-1]))
    out = [*dims[:-1], k]
    result = f"({shape('f32', out)}, {shape('s32', out)})"
    if draw(st.booleans()):
        root = f"r = {result} topk(p0), k={k}, largest=true"
    else:
        root = f'r = {result} custom-call(p0), custom_call_target="TopK"'
    return module([f"p0 = {shape('f32', dims)} parameter(0)", root])


@st.composite
def annotation(draw: st.DrawFn) -> str:
    value = draw(value_shape(1))
    target = draw(
        st.sampled_from(
            [
                "Sharding",
                "MoveToHost",
                "MoveToDevice",
                "xla.sdy.Sharding",
                "annotate_device_placement",
            ]
        )
    )
    root = f'r = {value} custom-call(p0), custom_call_target="{target}"'
    return module([f"p0 = {value} parameter(0)", root])


@st.composite
def batch_norm(draw: st.DrawFn, opcode: str) -> str:
    dims = draw(dims_strategy(1, 3, 3))
    feature = draw(st.integers(0, len(dims) - 1))
    full, per_feature = shape("f32", dims), shape("f32", [dims[feature]])
    operands, result = {
        "batch-norm-training": (
            [full, per_feature, per_feature],
            f"({full}, {per_feature}, {per_feature})",
        ),
        "batch-norm-inference": ([full, *[per_feature] * 4], full),
        "batch-norm-grad": (
            [full, per_feature, per_feature, per_feature, full],
            f"({full}, {per_feature}, {per_feature})",
        ),
    }[opcode]
    args = ", ".join(f"p{i}" for i in range(len(operands)))
    root = f"r = {result} {opcode}({args}), epsilon=0.001, feature_index={feature}"
    return module([*parameters(operands), root])


@st.composite
def rng(draw: st.DrawFn) -> str:
    out = shape("f32", draw(dims_strategy(0, 2, 3)))
    root = f"r = {out} rng(p0, p1), distribution=rng_uniform"
    return module([*parameters(["f32[]", "f32[]"]), root])


@st.composite
def rng_bit_generator(draw: st.DrawFn) -> str:
    state = shape("u64", [draw(st.integers(1, 3))])
    bits = shape("u32", draw(dims_strategy(0, 2, 3)))
    root = f"r = ({state}, {bits}) rng-bit-generator(p0), algorithm=rng_default"
    return module([f"p0 = {state} parameter(0)", root])


@st.composite
def dimension_size(draw: st.DrawFn, opcode: str) -> str:
    dims = draw(dims_strategy(1, 2, 3))
    axis = draw(st.integers(0, len(dims) - 1))
    if opcode == "get-dimension-size":
        root = f"r = s32[] get-dimension-size(p0), dimensions={{{axis}}}"
        return module([f"p0 = {shape('f32', dims)} parameter(0)", root])
    root = f"r = {shape('f32', dims)} set-dimension-size(p0, p1), dimensions={{{axis}}}"
    return module([*parameters([shape("f32", dims), "s32[]"]), root])


_LEAVES = {
    "constant": "r = f32[2] constant({1, 2})",
    "iota": "r = s32[3,2] iota(), iota_dimension=0",
    "parameter": "r = f32[2,2] parameter(0)",
    "partition-id": "r = u32[] partition-id()",
    "replica-id": "r = u32[] replica-id()",
    "rng-get-and-update-state": "r = u64[2] rng-get-and-update-state(), delta=4",
}


def leaf(opcode: str) -> st.SearchStrategy[str]:
    return st.just(module([_LEAVES[opcode]]))


STRATEGIES: dict[str, st.SearchStrategy[str]] = {
    **{opcode: elementwise(opcode) for opcode in ELEMENTWISE_SIGNATURES},
    **{opcode: leaf(opcode) for opcode in _LEAVES},
    "broadcast": broadcast(),
    "transpose": transpose(),
    "reverse": reverse(),
    "slice": slice_(),
    "reshape": reshape(),
    "bitcast": bitcast(),
    "bitcast-convert": bitcast_convert(),
    "concatenate": concatenate(),
    "pad": pad(),
    "reduce": reduce(),
    "reduce-window": reduce_window(),
    "dot": dot(),
    "triangular-solve": triangular_solve(),
    "scaled-dot": scaled_dot(),
    "scan": scan(),
    "ragged-dot": ragged_dot(),
    "dynamic-reshape": dynamic_reshape(),
    "dynamic-slice": dynamic_slice(),
    "dynamic-update-slice": dynamic_update_slice(),
    "gather": gather(),
    "tuple": tuple_(),
    "get-tuple-element": st.one_of(get_tuple_element(), get_nested_tuple_element()),
    **{opcode: passed_through(opcode) for opcode in _PASSED_THROUGH},
    **{opcode: element_of_pair(opcode) for opcode in _DONE},
    "copy-start": copy_start(),
    **{opcode: channel(opcode) for opcode in ("send", "send-done", "recv-done")},
    "fft": fft(),
    "topk": topk(),
    "custom-call": st.one_of(topk(), annotation(), cublas_gemm(), cudnn_convolution()),
    **{
        opcode: batch_norm(opcode)
        for opcode in ("batch-norm-training", "batch-norm-inference", "batch-norm-grad")
    },
    "rng": rng(),
    "rng-bit-generator": rng_bit_generator(),
    **{opcode: dimension_size(opcode) for opcode in ("get-dimension-size", "set-dimension-size")},
}
