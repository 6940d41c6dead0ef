"""Utilization of small generated fusions, judged by following the
reference interpreter's reads through the fused computation element by
element (one read per use path)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.analysis import ModuleMaps
from verifier.counting.utilization import instruction_utilization
from verifier.hlo import parse_module

from .judge import judge

_ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"


def _shape(dims: Sequence[int]) -> str:
    return f"f32[{','.join(map(str, dims))}]"


@st.composite
def _step(draw: st.DrawFn, name: str, source: str, dims: list[int]) -> tuple[str, list[int]]:
    """One op applied to `source` of shape `dims`: its line and shape."""
    rank = len(dims)
    kinds = ["negate", "reverse", "slice", "broadcast", "pad"]
    if rank >= 2:
        kinds += ["transpose", "reduce"]
    kind = draw(st.sampled_from(kinds))
    if kind == "negate":
        return f"{name} = {_shape(dims)} negate({source})", dims
    if kind == "reverse":
        which = sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1)))
        return (
            f"{name} = {_shape(dims)} reverse({source}), dimensions={{{','.join(map(str, which))}}}",
            dims,
        )
    if kind == "transpose":
        order = list(draw(st.permutations(range(rank))))
        out = [dims[k] for k in order]
        return (
            f"{name} = {_shape(out)} transpose({source}), dimensions={{{','.join(map(str, order))}}}",
            out,
        )
    if kind == "slice":
        parts, out = [], []
        for n in dims:
            start = draw(st.integers(0, n - 1))
            limit = draw(st.integers(start + 1, n))
            stride = draw(st.integers(1, 3))
            parts.append(f"[{start}:{limit}:{stride}]")
            out.append(-(-(limit - start) // stride))
        return f"{name} = {_shape(out)} slice({source}), slice={{{', '.join(parts)}}}", out
    if kind == "broadcast":
        position = draw(st.integers(0, rank))
        out = [*dims[:position], draw(st.integers(1, 3)), *dims[position:]]
        kept = [k for k in range(rank + 1) if k != position]
        return (
            f"{name} = {_shape(out)} broadcast({source}), dimensions={{{','.join(map(str, kept))}}}",
            out,
        )
    if kind == "pad":
        config, out = [], []
        for n in dims:
            low, high, interior = (
                draw(st.integers(-1, 2)),
                draw(st.integers(-1, 2)),
                draw(st.integers(0, 1)),
            )
            size = low + high + n + max(n - 1, 0) * interior
            if size < 1:
                low, high = 0, 0
                size = n + max(n - 1, 0) * interior
            config.append(f"{low}_{high}_{interior}")
            out.append(size)
        line = f"{name} = {_shape(out)} pad({source}, zero), padding={'x'.join(config)}"
        return line, out
    reduced = draw(st.integers(0, rank - 1))
    out = [n for k, n in enumerate(dims) if k != reduced]
    return (
        f"{name} = {_shape(out)} reduce({source}, zero), dimensions={{{reduced}}}, to_apply=add",
        out,
    )


@st.composite
def fusions(draw: st.DrawFn) -> str:
    dims = draw(st.lists(st.integers(1, 4), min_size=1, max_size=2))
    lines = [f"p0 = {_shape(dims)} parameter(0)", "zero = f32[] constant(0)"]
    source, shape = "p0", dims
    for k in range(draw(st.integers(1, 3))):
        line, shape = draw(_step(f"v{k}", source, shape))
        lines.append(line)
        source = f"v{k}"
    ending = draw(st.sampled_from(["chain", "twice", "reversed", "second parameter"]))
    if ending == "twice":  # add(y, y): one map, two use paths
        lines.append(f"ROOT r = {_shape(shape)} add({source}, {source})")
    elif ending == "reversed":  # add(y, reverse(y)): two maps
        lines.append(f"back = {_shape(shape)} reverse({source}), dimensions={{0}}")
        lines.append(f"ROOT r = {_shape(shape)} add({source}, back)")
    elif ending == "second parameter":
        lines.append(f"p1 = {_shape(shape)} parameter(1)")
        lines.append(f"ROOT r = {_shape(shape)} multiply({source}, p1)")
    else:
        lines[-1] = "ROOT " + lines[-1]
    parameters = ["x0 = " + _shape(dims) + " parameter(0)"]
    arguments = ["x0"]
    if ending == "second parameter":
        parameters.append(f"x1 = {_shape(shape)} parameter(1)")
        arguments.append("x1")
    body = "\n  ".join(lines)
    entry = "\n  ".join(parameters)
    return (
        f"HloModule m\n{_ADD}fused {{\n  {body}\n}}\n"
        f"ENTRY e {{\n  {entry}\n  ROOT f = {_shape(shape)} fusion({', '.join(arguments)}), "
        f"kind=kLoop, calls=fused\n}}\n"
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fusions())
def test_fusion_counts_match_the_interpreter(text: str) -> None:
    module = parse_module(text)
    root = module.entry.root
    judged = judge(module, root)
    result = instruction_utilization(ModuleMaps(module), module.entry, root)
    for row, distinct, pairs in zip(result.operands, judged.distinct, judged.pairs, strict=True):
        assert (row.may_read, row.per_execution, row.reads) == (distinct, distinct, pairs), text
