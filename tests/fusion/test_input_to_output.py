"""Input→output maps composed through fusions, judged by brute force: the
relation of the composed maps equals (1) the join, point by point, of every
op's own input→output relation along the graph, and (2) the inverse of the
composed output→input relation.  On the SPEC §3 fusions (through
``verifier maps --direction i2o``) and on small generated fusions."""

from __future__ import annotations

import io
import json
import random
from collections import defaultdict
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.parser import parse_map
from verifier.fusion.compose import Composer
from verifier.fusion.graph import users_first_order
from verifier.hlo import parse_module
from verifier.hlo.module import Computation, Module
from verifier.indexing.analysis import input_to_output

EXAMPLE = Path(__file__).parents[2] / "examples" / "fusion" / "spec_cases.hlo"
Point = tuple[int, ...]
Relation = frozenset[tuple[Point, Point]]


def union(maps: list[IndexingMap]) -> Relation:
    return frozenset().union(*(m.relation() for m in maps))


def inverse(relation: Relation) -> Relation:
    return frozenset((b, a) for a, b in relation)


def joined(computation: Computation, parameter: int) -> Relation:
    """Parameter point → root point, joining each op's own i2o relation."""
    start = computation.parameters[parameter]
    reach: dict[str, set[tuple[Point, Point]]] = defaultdict(set)
    reach[start.name] = {(p, p) for p, _ in IndexingMap.identity(start.shape.dimensions).relation()}
    for instruction in reversed(users_first_order(computation)):
        for position, operand in enumerate(instruction.operands):
            if not reach.get(operand):
                continue
            (maps,) = input_to_output(computation, instruction, position)
            assert not isinstance(maps, Undefined)
            step = union(list(maps))
            forward = defaultdict(set)
            for a, b in step:
                forward[a].add(b)
            reach[instruction.name] |= {
                (source, c) for source, b in reach[operand] for c in forward.get(b, ())
            }
    return frozenset(reach[computation.root.name])


def _maps_json(name: str) -> dict[str, list[list[str]]]:
    out = io.StringIO()
    arguments = ["maps", str(EXAMPLE), "--instruction", name, "--format", "json"]
    assert main(arguments, out) == 0
    (entry,) = json.loads(out.getvalue())["instructions"]
    return {
        "o2i": [row["maps"] for row in entry["output_to_input"]],
        "i2o": [row["maps"] for row in entry["input_to_output"]],
    }


@pytest.mark.parametrize(
    "name",
    [
        "transpose_add",
        "two_chains",
        # The brute-force join enumerates about 2M (point, point) pairs.
        pytest.param("softmax", marks=pytest.mark.slow),
        "reshapes",
    ],
)
def test_spec_fusions_input_to_output_is_the_inverse_and_the_join(name: str) -> None:
    maps = _maps_json(name)
    (o2i,), (i2o,) = maps["o2i"], maps["i2o"]
    composed = union([parse_map(text) for text in i2o])
    assert composed == inverse(union([parse_map(text) for text in o2i]))
    module = parse_module(EXAMPLE.read_text())
    assert composed == joined(module.computation(name), 0)


def test_p0_plus_transpose_p0_reaches_the_output_through_two_maps() -> None:
    maps = _maps_json("transpose_add")
    assert len(maps["i2o"][0]) == 2


# ------------------------------------------------------- generated fusions

_SUM = "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"


def _shape(dims: tuple[int, ...]) -> str:
    return "f32[" + ",".join(map(str, dims)) + "]"


def _fusion(seed: int) -> str:
    """A random small fusion of data-movement and elementwise ops on p0."""
    rng = random.Random(seed)
    values: list[tuple[str, tuple[int, ...]]] = [("p0", (2, 3))]
    lines = ["  p0 = f32[2,3] parameter(0)", "  zero = f32[] constant(0)"]
    for step in range(rng.randint(1, 4)):
        name, dims = rng.choice(values)
        out = f"v{step}"
        kind = rng.choice(
            [
                "transpose",
                "reverse",
                "slice",
                "reshape",
                "add",
                "pad",
                "concat",
                "reduce",
                "broadcast",
            ]
        )
        new: tuple[int, ...]
        if kind == "transpose" and len(dims) == 2:
            new, text = (dims[1], dims[0]), f"transpose({name}), dimensions={{1,0}}"
        elif kind == "reverse":
            new, text = dims, f"reverse({name}), dimensions={{0}}"
        elif kind == "slice" and dims[0] > 1:
            spec = ", ".join([f"[1:{dims[0]}]"] + [f"[0:{d}]" for d in dims[1:]])
            new, text = (dims[0] - 1, *dims[1:]), f"slice({name}), slice={{{spec}}}"
        elif kind == "reshape":
            size = 1
            for d in dims:
                size *= d
            new, text = (size,), f"reshape({name})"
        elif kind == "add":
            same = [v for v, d in values if d == dims]
            new, text = dims, f"add({name}, {rng.choice(same)})"
        elif kind == "pad":
            config = "x".join(["1_0_1"] + ["0_0_0"] * (len(dims) - 1))
            new = (2 * dims[0], *dims[1:])
            text = f"pad({name}, zero), padding={config}"
        elif kind == "concat":
            new, text = (2 * dims[0], *dims[1:]), f"concatenate({name}, {name}), dimensions={{0}}"
        elif kind == "reduce" and len(dims) == 2:
            new, text = (dims[0],), f"reduce({name}, zero), dimensions={{1}}, to_apply=sum"
        elif kind == "broadcast" and len(dims) == 1:
            new, text = (dims[0], 2), f"broadcast({name}), dimensions={{0}}"
        else:
            new, text = dims, f"exponential({name})"
        lines.append(f"  {out} = {_shape(new)} {text}")
        values.append((out, new))
    root, dims = values[-1]
    lines[-1] = lines[-1].replace(f"  {root} =", f"  ROOT {root} =")
    if root == "p0":
        lines.append(f"  ROOT e = {_shape(dims)} exponential(p0)")
        dims = values[0][1]
    body = "\n".join(lines)
    return (
        f"HloModule generated_{seed}\n\n{_SUM}\nfused {{\n{body}\n}}\n\n"
        f"ENTRY main {{\n  x = f32[2,3] parameter(0)\n"
        f"  ROOT f = {_shape(dims)} fusion(x), kind=kLoop, calls=fused\n}}\n"
    )


def _composed(module: Module) -> tuple[Relation, Relation]:
    composer = Composer(module)
    fused = module.computation("fused")
    (forward,) = composer.computation_input_to_output(fused, 0)
    (backward,) = composer.computation_output_to_input(fused, 0)
    assert not isinstance(forward.maps, Undefined) and not isinstance(backward.maps, Undefined)
    return (
        union([c.map for c in forward.maps]),
        union([c.map for c in backward.maps]),
    )


@pytest.mark.parametrize("seed", range(40))
def test_generated_fusions_input_to_output_by_brute_force(seed: int) -> None:
    module = parse_module(_fusion(seed))
    forward, backward = _composed(module)
    assert forward == joined(module.computation("fused"), 0)
    assert forward == inverse(backward)
