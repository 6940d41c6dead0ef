"""Hypothesis strategies: tiny HLO modules whose ROOT is one op of
`verifier.indexing`'s convolution, sort, scatter, collectives and tiled
bitcast rules, and tiled shapes."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from tests.oracle_layout import buffer_elements
from verifier.hlo.shape import parse_shape


def _shape(dims: Sequence[int], element_type: str = "f32") -> str:
    return f"{element_type}[{','.join(map(str, dims))}]"


def _ints(values: Sequence[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


def _module(operands: Sequence[str], root: str, extra: str = "") -> str:
    lines = [f"  p{i} = {s} parameter({i})" for i, s in enumerate(operands)]
    return (
        "HloModule test\n" + extra + "ENTRY main {\n" + "\n".join(lines) + f"\n  ROOT {root}\n}}\n"
    )


_ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
_GE = "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n"


def _labels(draw: st.DrawFn, named: str, rank: int) -> tuple[str, dict[str, int]]:
    """A random order of the role letters and spatial digits; the position of each."""
    letters = list(named) + [str(k) for k in range(rank - 2)]
    order = draw(st.permutations(letters))
    return "".join(order), {c: order.index(c) for c in letters}


@st.composite
def _convolution_configuration(
    draw: st.DrawFn,
) -> tuple[list[int], list[int], list[int], str, int]:
    """lhs, kernel and output dims of a convolution, its attributes and its
    number of output features."""
    spatial = draw(st.integers(0, 2))
    rank = spatial + 2
    feature_groups, batch_groups = draw(st.sampled_from([(1, 1), (2, 1), (1, 2)]))
    batch = draw(st.integers(1, 2))
    group_features = draw(st.integers(1, 2))
    out_features = max(feature_groups, batch_groups) * draw(st.integers(1, 2))
    sizes, windows, out_sizes = [], [], []
    for _ in range(spatial):
        n, size = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        stride, lhs_dilation, rhs_dilation = (draw(st.integers(1, 2)) for _ in range(3))
        low, high = draw(st.integers(-1, 2)), draw(st.integers(-1, 2))
        effective = (size - 1) * rhs_dilation + 1
        high = max(high, effective - ((n - 1) * lhs_dilation + 1 + low))
        padded = (n - 1) * lhs_dilation + 1 + low + high
        sizes.append((n, size))
        out_sizes.append((padded - effective) // stride + 1)
        windows.append(
            (size, stride, f"{low}_{high}", lhs_dilation, rhs_dilation, draw(st.integers(0, 1)))
        )
    lhs_labels, lhs_at = _labels(draw, "bf", rank)
    rhs_labels, rhs_at = _labels(draw, "io", rank)
    out_labels, out_at = _labels(draw, "bf", rank)
    lhs, rhs, out = [0] * rank, [0] * rank, [0] * rank
    lhs[lhs_at["b"]], lhs[lhs_at["f"]] = batch * batch_groups, group_features * feature_groups
    rhs[rhs_at["i"]], rhs[rhs_at["o"]] = group_features, out_features
    out[out_at["b"]], out[out_at["f"]] = batch, out_features
    for k in range(spatial):
        lhs[lhs_at[str(k)]] = sizes[k][0]
        rhs[rhs_at[str(k)]] = sizes[k][1]
        out[out_at[str(k)]] = out_sizes[k]
    attributes = ""
    if spatial:
        fields = zip(*windows, strict=True)
        names = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")
        attributes = (
            "window={"
            + " ".join(
                f"{name}={'x'.join(map(str, values))}"
                for name, values in zip(names, fields, strict=True)
            )
            + "}, "
        )
    attributes += (
        f"dim_labels={lhs_labels}_{rhs_labels}->{out_labels}, "
        f"feature_group_count={feature_groups}, batch_group_count={batch_groups}"
    )
    return lhs, rhs, out, attributes, out_features


@st.composite
def convolution(draw: st.DrawFn) -> str:
    lhs, rhs, out, attributes, _ = draw(_convolution_configuration())
    root = f"r = {_shape(out)} convolution(p0, p1), {attributes}"
    return _module([_shape(lhs), _shape(rhs)], root)


@st.composite
def cudnn_convolution(draw: st.DrawFn) -> str:
    """A cuDNN convolution custom-call as XLA's GPU compiler writes it:
    ``(result, u8[workspace])``, the forward convolution's window and labels."""
    x, w, y, attributes, features = draw(_convolution_configuration())
    kind = draw(
        st.sampled_from(["Forward", "BiasActivationForward", "BackwardInput", "BackwardFilter"])
    )
    operands, result = {
        "Forward": ([x, w], y),
        "BiasActivationForward": ([x, w], y),
        "BackwardInput": ([y, w], x),
        "BackwardFilter": ([x, y], w),
    }[kind]
    shapes = [_shape(dims) for dims in operands]
    if kind == "BiasActivationForward":
        shapes.append(f"f32[{features}]")
        if draw(st.booleans()):
            shapes.append(_shape(y))
    arguments = ", ".join(f"p{k}" for k in range(len(shapes)))
    root = (
        f"r = ({_shape(result)}, u8[{draw(st.integers(0, 64))}]) custom-call({arguments}), "
        f'{attributes}, custom_call_target="__cudnn$conv{kind}"'
    )
    return _module(shapes, root)


@st.composite
def sort(draw: st.DrawFn) -> str:
    dims = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    count = draw(st.integers(1, 2))
    axis = draw(st.integers(0, len(dims) - 1))
    params = "".join(
        f"  a{k} = f32[] parameter({2 * k})\n  b{k} = f32[] parameter({2 * k + 1})\n"
        for k in range(count)
    )
    comparator = "cmp {\n" + params + "  ROOT c = pred[] compare(a0, b0), direction=LT\n}\n"
    out = _shape(dims) if count == 1 else "(" + ", ".join([_shape(dims)] * count) + ")"
    operands = ", ".join(f"p{k}" for k in range(count))
    root = f"r = {out} sort({operands}), dimensions={{{axis}}}, to_apply=cmp"
    return _module([_shape(dims)] * count, root, comparator)


@st.composite
def scatter(draw: st.DrawFn) -> str:
    operand = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    rank = len(operand)
    inserted = sorted(draw(st.sets(st.sampled_from(range(rank)))))
    mapped = draw(st.lists(st.sampled_from(range(rank)), unique=True, min_size=1, max_size=rank))
    free = [j for j in range(rank) if j not in inserted and j not in mapped]
    batching = sorted(draw(st.sets(st.sampled_from(free), max_size=2))) if free else []
    extra = draw(st.lists(st.integers(1, 2), min_size=0, max_size=2 - len(batching)))
    # The scatter dims: the extra ones and one per batching dim (of its size).
    order = draw(
        st.permutations([("extra", n) for n in extra] + [("batching", j) for j in batching])
    )
    batch = [n if kind == "extra" else operand[n] for kind, n in order]
    vector_dim = draw(st.integers(0, len(batch)))
    explicit = len(mapped) != 1 or vector_dim < len(batch) or draw(st.booleans())
    indices = list(batch)
    if explicit:
        indices.insert(vector_dim, len(mapped))
    at = {n: p for p, (kind, n) in enumerate(order) if kind == "batching"}
    indices_batching = [at[j] if at[j] < vector_dim else at[j] + 1 for j in batching]
    hidden = inserted + batching
    window = [draw(st.integers(1, operand[j])) for j in range(rank) if j not in hidden]
    update_rank = len(batch) + len(window)
    window_positions = sorted(draw(st.permutations(range(update_rank)))[: len(window)])
    updates, batch_iter, window_iter = [], iter(batch), iter(window)
    for k in range(update_rank):
        updates.append(next(window_iter) if k in window_positions else next(batch_iter))
    batching_numbers = (
        f", input_batching_dims={_ints(batching)}, "
        f"scatter_indices_batching_dims={_ints(indices_batching)}"
        if batching
        else ""
    )
    root = (
        f"r = {_shape(operand)} scatter(p0, p1, p2), update_window_dims={_ints(window_positions)}, "
        f"inserted_window_dims={_ints(inserted)}, scatter_dims_to_operand_dims={_ints(mapped)}, "
        f"index_vector_dim={vector_dim}{batching_numbers}, to_apply=add"
    )
    return _module([_shape(operand), _shape(indices, "s32"), _shape(updates)], root, _ADD)


@st.composite
def select_and_scatter(draw: st.DrawFn) -> str:
    rank = draw(st.integers(1, 2))
    operand, source, fields = [], [], []
    for _ in range(rank):
        n, size, stride = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
        low, high = draw(st.integers(0, 1)), draw(st.integers(0, 1))
        high = max(high, size - n - low)
        operand.append(n)
        source.append((n + low + high - size) // stride + 1)
        fields.append((size, stride, f"{low}_{high}"))
    sizes, strides, pads = ("x".join(map(str, f)) for f in zip(*fields, strict=True))
    root = (
        f"r = {_shape(operand)} select-and-scatter(p0, p1, p2), "
        f"window={{size={sizes} stride={strides} pad={pads}}}, select=ge, scatter=add"
    )
    return _module([_shape(operand), _shape(source), "f32[]"], root, _ADD + _GE)


@st.composite
def collective(draw: st.DrawFn) -> str:
    opcode = draw(
        st.sampled_from(
            [
                "all-reduce",
                "all-reduce-start",
                "collective-permute",
                "collective-permute-start",
                "collective-broadcast",
                "all-gather",
                "all-gather-start",
                "reduce-scatter",
                "all-to-all",
            ]
        )
    )
    dims = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    groups = draw(st.integers(1, 3))
    axis = draw(st.integers(0, len(dims) - 1))
    replicas = "replica_groups={" + _ints(range(groups)) + "}"
    operand, out = list(dims), list(dims)
    attributes = replicas
    result = _shape(out)
    if opcode in ("all-reduce", "all-reduce-start"):
        attributes += ", to_apply=add"
    elif opcode in ("collective-permute", "collective-permute-start"):
        attributes = "source_target_pairs={{0,1},{1,0}}"
        if opcode == "collective-permute-start" and draw(st.booleans()):  # else the array form
            result = f"({_shape(operand)}, {_shape(out)}, u32[], u32[])"
    elif opcode == "collective-broadcast":
        attributes += ", channel_id=1"
    elif opcode in ("all-gather", "all-gather-start"):
        out[axis] *= groups
        attributes += f", dimensions={{{axis}}}"
        result = _shape(out)
        if opcode == "all-gather-start" and draw(st.booleans()):  # else the array form
            result = f"({_shape(operand)}, {result})"
    elif opcode == "reduce-scatter":
        operand[axis] *= groups
        attributes += f", dimensions={{{axis}}}, to_apply=add"
    else:
        operand[axis] *= groups
        out[axis] *= groups
        attributes += f", dimensions={{{axis}}}"
    if opcode in ("reduce-scatter", "all-to-all"):
        result = _shape(out)
    root = f"r = {result} {opcode}(p0), {attributes}"
    return _module([_shape(operand)], root, _ADD)


@st.composite
def tuple_all_to_all(draw: st.DrawFn) -> str:
    """The tuple form: one operand per replica of the group, one shape; the
    groups written out, as several groups, or left to the operand count."""
    dims = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    count = draw(st.integers(1, 3))
    shape = _shape(dims)
    groups = draw(st.sampled_from(["", ", replica_groups={}", "one", "two"]))
    if groups == "one":
        groups = ", replica_groups={" + _ints(range(count)) + "}"
    elif groups == "two":
        groups = ", replica_groups={" + _ints(range(0, 2 * count, 2))
        groups += "," + _ints(range(1, 2 * count, 2)) + "}"
    operands = ", ".join(f"p{k}" for k in range(count))
    root = f"r = ({', '.join([shape] * count)}) all-to-all({operands}){groups}"
    return _module([shape] * count, root)


@st.composite
def tiled_shape(draw: st.DrawFn, element_type: str = "f32", min_tilings: int = 0) -> str:
    """A small shape with a random layout and up to two tilings, whose tile
    sizes may be ``*`` or ``-1`` (folded into the next minor dim)."""
    dims = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    order = draw(st.permutations(range(len(dims))))
    tiles = ""
    rank = len(dims)
    for _ in range(draw(st.integers(min_tilings, 2))):
        tile_rank = draw(st.integers(1, rank))
        sizes = [
            draw(st.sampled_from(["1", "2", "3", "2", "3", "*", "-1"])) for _ in range(tile_rank)
        ]
        sizes[-1] = str(draw(st.integers(1, 3)))  # the most minor tile dim folds into nothing
        tiles += "(" + ",".join(sizes) + ")"
        folds = sum(1 for size in sizes if size in ("*", "-1"))
        rank += tile_rank - 2 * folds  # the folded dims go; each other gets a grid dim
    layout = ",".join(map(str, order)) + (f":T{tiles}" if tiles else "")
    return f"{element_type}[{','.join(map(str, dims))}]{{{layout}}}"


@st.composite
def _untiled_of_size(draw: st.DrawFn, size: int, element_type: str) -> str:
    """An untiled shape of `size` elements, random factorisation and layout."""
    dims: list[int] = []
    rest = size
    while rest > 1 and len(dims) < 3:
        factor = draw(st.sampled_from([d for d in range(1, rest + 1) if rest % d == 0]))
        dims.append(factor)
        rest //= factor
    dims.append(rest)
    order = draw(st.permutations(range(len(dims))))
    return f"{element_type}[{','.join(map(str, dims))}]{{{','.join(map(str, order))}}}"


@st.composite
def bitcast_tiled(draw: st.DrawFn) -> str:
    """A bitcast with a tiled operand or output (or both): the other side is
    an untiled shape of the same buffer size, or another tiled shape (whose
    buffer may be larger or smaller: the maps then cover the overlap)."""
    element_type = draw(st.sampled_from(["f32", "s32", "u32"]))
    tiled = draw(tiled_shape(element_type, min_tilings=1))
    if draw(st.booleans()):
        other = draw(_untiled_of_size(buffer_elements(parse_shape(tiled)), element_type))
    else:
        other = draw(tiled_shape(element_type))
    operand, output = (tiled, other) if draw(st.booleans()) else (other, tiled)
    return _module([operand], f"r = {output} bitcast(p0)")
