"""Input→output maps composed through fusions, judged by brute force: the
relation of the composed maps equals (1) the join, point by point, of every
op's own input→output relation along the graph, and (2) the inverse of the
composed output→input relation.  On the indexing document's fusions (through
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
from verifier.fusion.walks import Walks
from verifier.hlo import parse_module
from verifier.hlo.module import Computation, Module
from verifier.indexing.analysis import own_input_to_output

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
            (maps,) = own_input_to_output(computation, instruction, position)
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


def _chain_fusion(seed: int) -> str:
    """A random fusion where parameters join a chain in turn, as XLA fuses a
    recomputation through every layer: ``v_k = op(v_{k-1}, p_k)``, with
    reverses, slices-and-pads and ``add(v, v)`` (two use paths) between,
    some parameters scalars, some joins forked (the chain also goes around
    them: two values hold a parameter's maps at once)."""
    rng = random.Random(seed)
    lines = ["  p0 = f32[2,3] parameter(0)", "  zero = f32[] constant(0)"]
    chain, params = "p0", 1
    for step in range(rng.randint(3, 9)):
        joined_by = rng.choice(["same", "reversed", "scalar", "fork", "none"])
        if joined_by != "none":
            shape = "f32[]" if joined_by == "scalar" else "f32[2,3]"
            lines.append(f"  p{params} = {shape} parameter({params})")
            term = f"p{params}"
            if joined_by == "reversed":
                lines.append(f"  r{step} = f32[2,3] reverse(p{params}), dimensions={{1}}")
                term = f"r{step}"
            elif joined_by == "scalar":
                lines.append(f"  b{step} = f32[2,3] broadcast(p{params}), dimensions={{}}")
                term = f"b{step}"
            params += 1
            lines.append(f"  j{step} = f32[2,3] add({chain}, {term})")
            if joined_by == "fork":  # the chain also goes around the join
                lines.append(f"  e{step} = f32[2,3] exponential({chain})")
                lines.append(f"  k{step} = f32[2,3] add(j{step}, e{step})")
                chain = f"k{step}"
            else:
                chain = f"j{step}"
        match rng.choice(["exponential", "reverse", "shift", "twice", "none"]):
            case "exponential":
                lines.append(f"  u{step} = f32[2,3] exponential({chain})")
                chain = f"u{step}"
            case "twice":  # every element along two paths
                lines.append(f"  u{step} = f32[2,3] add({chain}, {chain})")
                chain = f"u{step}"
            case "reverse":
                lines.append(f"  u{step} = f32[2,3] reverse({chain}), dimensions={{0}}")
                chain = f"u{step}"
            case "shift":
                lines.append(f"  s{step} = f32[2,2] slice({chain}), slice={{[0:2], [1:3]}}")
                lines.append(f"  u{step} = f32[2,3] pad(s{step}, zero), padding=0_0x0_1")
                chain = f"u{step}"
    lines.append(f"  ROOT out = f32[2,3] negate({chain})")
    operands = [line.split(" = ")[1].split(" ")[0] for line in lines if "parameter(" in line]
    entry = [f"  x{k} = {shape} parameter({k})" for k, shape in enumerate(operands)]
    names = ", ".join(f"x{k}" for k in range(len(operands)))
    return (
        f"HloModule chain_{seed}\n\nfused {{\n" + "\n".join(lines) + "\n}\n\n"
        "ENTRY main {\n" + "\n".join(entry) + "\n"
        f"  ROOT f = f32[2,3] fusion({names}), kind=kLoop, calls=fused\n}}\n"
    )


@pytest.mark.parametrize("seed", range(30))
def test_parameters_joining_a_chain_share_its_walk_and_keep_their_maps(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every parameter's maps, composed by one composer (later parameters
    take the rest of the chain from earlier ones' walks), are those a
    composer of their own makes — maps, multiplicities and steps — and the
    brute-force join; the shared composer walks fewer instructions."""
    module = parse_module(_chain_fusion(seed))
    fused = module.computation("fused")
    walked = 0
    propagate = Walks._propagate_forward

    def counting(self: Walks, *arguments: object) -> None:
        nonlocal walked
        walked += 1
        propagate(self, *arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(Walks, "_propagate_forward", counting)
    shared = Composer(module)
    together = [shared.computation_input_to_output(fused, k) for k in range(len(fused.parameters))]
    walked_together, walked = walked, 0
    alone = [
        Composer(module).computation_input_to_output(fused, k) for k in range(len(fused.parameters))
    ]
    assert together == alone
    assert walked_together <= walked
    for k, (composed,) in enumerate(together):
        assert not isinstance(composed.maps, Undefined)
        assert union([c.map for c in composed.maps]) == joined(fused, k)


def test_a_chain_that_parameters_join_in_turn_is_walked_once() -> None:
    """Five parameters added to a chain of negations, one after another:
    each walk after the first stops where it meets the first one's maps."""
    lines = ["  p0 = f32[4] parameter(0)", "  v0 = f32[4] negate(p0)"]
    for k in range(1, 5):
        lines += [f"  p{k} = f32[4] parameter({k})", f"  a{k} = f32[4] add(v{k - 1}, p{k})"]
        lines.append(f"  v{k} = f32[4] negate(a{k})")
    lines[-1] = lines[-1].replace("  v4 =", "  ROOT v4 =")
    entry = "\n".join(f"  x{k} = f32[4] parameter({k})" for k in range(5))
    module = parse_module(
        "HloModule m\nfused {\n" + "\n".join(lines) + "\n}\nENTRY e {\n" + entry + "\n"
        "  ROOT f = f32[4] fusion(x0, x1, x2, x3, x4), kind=kLoop, calls=fused\n}\n"
    )
    fused = module.computation("fused")
    walked: list[str] = []
    composer = Composer(module)
    walks = composer._walks
    propagate = walks._propagate_forward

    def counting(computation: Computation, instruction: object, sets: object) -> None:
        walked.append(instruction.name)  # type: ignore[attr-defined]
        propagate(computation, instruction, sets)  # type: ignore[arg-type]

    walks._propagate_forward = counting  # type: ignore[method-assign]
    for k in range(5):
        composer.computation_input_to_output(fused, k)
    # p0 walks the whole chain (9 instructions); p1 joins at a1, where it
    # holds what p0's walk held there (the identity, counted once): the
    # rest is p0's.  So for each of the others.
    assert walked == ["v0", "a1", "v1", "a2", "v2", "a3", "v3", "a4", "v4", "a1", "a2", "a3", "a4"]
