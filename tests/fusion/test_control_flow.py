"""Calls, conditionals and while loops: the composed maps, in both
directions, are exactly the element reads of the computation oracle
(`tests/oracle/computations.py`), which runs the called computations element
by element and finds a loop's trip count by executing it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle import UnsupportedByOracle, arrays
from tests.oracle.computations import ComputationOracle, trip_counts
from tests.wide import wide_loop_module
from verifier.analysis import ModuleMaps
from verifier.bridges.isl import isl_points, to_isl_map
from verifier.expr import IndexingMap, Undefined
from verifier.fusion.compose import Composer
from verifier.hlo import Module, parse_module, parse_module_file
from verifier.indexing.control_flow import LOOP_DISTINCT_MAP_LIMIT, LOOP_WORK_LIMIT, UNROLL_LIMIT

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_SLOW = pytest.mark.slow
CASES = [
    *sorted((EXAMPLES / "tuples").glob("*.hlo")),
    EXAMPLES / "real_ops" / "cond_branches.hlo",
    EXAMPLES / "real_ops" / "scan_cumulative.before.hlo",
    pytest.param(EXAMPLES / "real" / "dynamic_loop.hlo", marks=_SLOW),
    pytest.param(EXAMPLES / "real_ops" / "scan_cumulative.hlo", marks=_SLOW),
]
_OPCODES = ("call", "conditional", "fusion", "while")

Pair = tuple[tuple[int, ...], tuple[int, ...]]


def _pairs(indexing_map: IndexingMap) -> set[Pair]:
    """The map's relation ``{(d, e)}``, symbols projected out by isl (a loop's
    maps carry a runtime variable per iteration: enumerating them is slow)."""
    dims = indexing_map.num_dims
    return {(p[:dims], p[dims:]) for p in isl_points(to_isl_map(indexing_map))}


def _check_module(module: Module, *, simplified: bool = False) -> int:
    """Compare every call, conditional, fusion and while of `module`, its
    maps composed as the rules give them or, `simplified`, as users get them
    (simplified and merged, which keeps a long loop's unions small); how
    many were."""
    maps = ModuleMaps(module)
    oracle = ComputationOracle(module)
    compared = 0
    for computation in module.computations:
        for instruction in computation.instructions:
            if instruction.opcode not in _OPCODES:
                continue
            outputs = len(arrays(instruction.shape))
            # (output, operand leaf) → the oracle's pairs (output index, operand index).
            want: dict[tuple[int, int], set[Pair]] = {}
            try:
                for output in range(outputs):
                    for index, elements in oracle.instruction_reads(
                        computation, instruction, output
                    ).items():
                        for leaf, at in elements:
                            want.setdefault((output, leaf), set()).add((index, at))
            except UnsupportedByOracle:
                continue
            where = f"{module.name}: {instruction.opcode} '{instruction.name}'"
            view = maps.instruction(computation, instruction)
            for output in range(outputs):
                per_leaf = [c for _, c in view.o2i(view.outputs[output], simplified=simplified)]
                for leaf, composed in enumerate(per_leaf):
                    assert not isinstance(composed.maps, Undefined), (where, composed.maps)
                    got = {p for c in composed.maps for p in _pairs(c.map)}
                    assert got == want.get((output, leaf), set()), (where, "o2i", output, leaf)
                    backward = [c for _, c in view.i2o(view.operands[leaf], simplified=simplified)][
                        output
                    ]
                    assert not isinstance(backward.maps, Undefined), (where, backward.maps)
                    reached = {(b, a) for c in backward.maps for a, b in _pairs(c.map)}
                    assert reached == want.get((output, leaf), set()), (
                        where,
                        "i2o",
                        leaf,
                        output,
                    )
            compared += 1
    return compared


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_composed_maps_are_the_oracles_reads(path: Path) -> None:
    _check_module(parse_module_file(path))


@pytest.mark.slow
def test_a_loop_whose_state_cycles_reads_what_the_oracle_reads() -> None:
    """50 trips of a carry rolled by one row of three (and two arrays
    written at the counter): its state cycles every third iteration, so it
    is composed through every trip; the oracle runs them all."""
    module = parse_module_file(EXAMPLES / "real_ops" / "while_carry_roll.hlo")
    calls = [i for c in module.computations for i in c.instructions if i.opcode in _OPCODES]
    assert "while" in {i.opcode for i in calls}
    assert _check_module(module, simplified=True) == len(calls)


def _counted_loop(start: int, bound: int, annotated: str = "") -> str:
    return f"""
HloModule counted
cond {{
  s = (s32[], f32[3], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({bound})
  ROOT lt = pred[] compare(i, n), direction=LT
}}
body {{
  s = (s32[], f32[3], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(one, i)
  acc = f32[3] get-tuple-element(s), index=1
  xs = f32[4,3] get-tuple-element(s), index=2
  zero = s32[] constant(0)
  row = f32[1,3] dynamic-slice(xs, i, zero), dynamic_slice_sizes={{1,3}}
  flat = f32[3] reshape(row)
  rev = f32[3] reverse(acc), dimensions={{0}}
  next = f32[3] add(rev, flat)
  ROOT r = (s32[], f32[3], f32[4,3]) tuple(j, next, xs)
}}
ENTRY e {{
  a = f32[3] parameter(0)
  x = f32[4,3] parameter(1)
  c = s32[] constant({start})
  t = (s32[], f32[3], f32[4,3]) tuple(c, a, x)
  ROOT w = (s32[], f32[3], f32[4,3]) while(t), condition=cond, body=body{annotated}
}}
"""


@pytest.mark.parametrize(("start", "bound"), [(0, 3), (1, 3), (0, 4), (5, 2)])
def test_a_counted_loop_is_composed_its_trip_count_times(start: int, bound: int) -> None:
    """The accumulator is reversed each iteration: an odd trip count reads it
    reversed, an even one straight (a map composed the wrong number of
    times would differ from the oracle)."""
    module = parse_module(_counted_loop(start, bound))
    assert trip_counts(module) == {"w": max(0, bound - start)}
    assert _check_module(module) == 1


def test_an_unknown_trip_count_names_the_loop() -> None:
    text = _counted_loop(0, 3).replace("direction=LT", "direction=NE")
    module = parse_module(text)
    composer = Composer(module)
    maps = composer.composed_output_to_input(module.entry, module.entry.root, 1)
    assert all(isinstance(m.maps, Undefined) for m in maps)
    reason = maps[0].maps
    assert isinstance(reason, Undefined)
    assert "while loop 'w' (condition cond, body body)" in reason.reason
    assert "trip count is not a known constant" in reason.reason


def test_known_trip_count_in_backend_config_is_used() -> None:
    """XLA's own analysis, written in backend_config, needs no counter pattern."""
    config = ', backend_config={"known_trip_count":{"n":"2"}}'
    module = parse_module(_counted_loop(0, 2, config).replace("direction=LT", "direction=NE"))
    assert _check_module(module) == 1


def test_a_trip_count_above_the_limit_is_unsupported_with_the_count() -> None:
    module = parse_module(_counted_loop(0, UNROLL_LIMIT + 1))
    composer = Composer(module)
    (undefined, *_) = composer.composed_input_to_output(module.entry, module.entry.root, 1)
    assert isinstance(undefined.maps, Undefined)
    assert f"trip count {UNROLL_LIMIT + 1} is above" in undefined.maps.reason


def test_a_body_with_unknown_maps_leaves_the_loop_unknown_with_the_bodys_reason() -> None:
    module = parse_module("""
HloModule opaque_body
cond {
  s = f32[4] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(s), custom_call_target="mystery"
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT w = f32[4] while(x), condition=cond, body=body, backend_config={"known_trip_count":{"n":"3"}}
}
""")
    composer = Composer(module)
    for composed in (
        composer.composed_output_to_input(module.entry, module.entry.root, 0)[0],
        composer.composed_input_to_output(module.entry, module.entry.root, 0)[0],
    ):
        assert isinstance(composed.maps, Undefined)
        assert "mystery" in composed.maps.reason


# Six state arrays, each the reverse of their sum: every iteration composes
# 36 maps (one per pair of arrays, none growing), flipping each from the
# identity to the reverse and back: the state cycles, making no new map
# after the second iteration, while the use paths grow sixfold.
_STATES = 6


def _reversing_loop(trips: int) -> str:
    state = "(" + ", ".join(["f32[4]"] * _STATES) + ")"
    lines = [f"  a{k} = f32[4] get-tuple-element(s), index={k}" for k in range(_STATES)]
    lines += [
        f"  s{k} = f32[4] add({'a0' if k == 1 else f's{k - 1}'}, a{k})" for k in range(1, _STATES)
    ]
    lines.append(f"  rev = f32[4] reverse(s{_STATES - 1}), dimensions={{0}}")
    lines.append(f"  ROOT r = {state} tuple({', '.join(['rev'] * _STATES)})")
    return _loop_module("reversing", state, lines, trips)


def _loop_module(name: str, state: str, body: list[str], trips: int) -> str:
    """A module running `body` (over the state tuple `s` of type `state`)
    `trips` times, from the entry's parameters."""
    arrays = state.strip("()").split(", ")
    params = [f"  x{k} = {shape} parameter({k})" for k, shape in enumerate(arrays)]
    config = '{"known_trip_count":{"n":"' + str(trips) + '"}}'
    return "\n".join(
        [
            f"HloModule {name}",
            f"cond {{\n  s = {state} parameter(0)\n  ROOT t = pred[] constant(true)\n}}",
            f"body {{\n  s = {state} parameter(0)",
            *body,
            "}",
            "ENTRY e {",
            *params,
            f"  t = {state} tuple({', '.join(f'x{k}' for k in range(len(arrays)))})",
            f"  ROOT w = {state} while(t), condition=cond, body=body, backend_config={config}",
            "}",
        ]
    )


@pytest.mark.slow
def test_a_loop_whose_state_cycles_runs_every_trip() -> None:
    """The reversing loop makes two distinct maps however long it runs: it
    is composed through all `UNROLL_LIMIT` trips, far past the work bound's
    count of maps made, and every array reads every initial array through
    the reverse composed that many times (even: the identity)."""
    trips = UNROLL_LIMIT
    assert _STATES**2 * trips > LOOP_DISTINCT_MAP_LIMIT  # counted with repeats, it would stop it
    module = parse_module(_reversing_loop(trips))
    composer = Composer(module)
    read = {(d, d if trips % 2 == 0 else 3 - d) for d in range(4)}
    for output in range(_STATES):
        for leaf in composer.composed_output_to_input(module.entry, module.entry.root, output):
            assert not isinstance(leaf.maps, Undefined), leaf.maps
            got = {(p[0], e[0]) for c in leaf.maps for p, e in _pairs(c.map)}
            assert got == read


# Forty state arrays of 3,000 elements, array j shifted by j + 1 each
# iteration: after i iterations it reads its initial value at d0 + i(j + 1),
# a map no earlier iteration made: forty new maps per iteration.
_SHIFTED = 40
_SIZE = 3000
_DISTINCT_TRIPS = LOOP_DISTINCT_MAP_LIMIT // _SHIFTED + 1


def _shifting_loop(trips: int) -> str:
    state = "(" + ", ".join([f"f32[{_SIZE}]"] * _SHIFTED) + ")"
    lines = ["  zero = f32[] constant(0)"]
    for j in range(_SHIFTED):
        kept = _SIZE - j - 1
        lines += [
            f"  a{j} = f32[{_SIZE}] get-tuple-element(s), index={j}",
            f"  k{j} = f32[{kept}] slice(a{j}), slice={{[{j + 1}:{_SIZE}]}}",
            f"  p{j} = f32[{_SIZE}] pad(k{j}, zero), padding=0_{j + 1}",
        ]
    lines.append(f"  ROOT r = {state} tuple({', '.join(f'p{j}' for j in range(_SHIFTED))})")
    return _loop_module("shifting", state, lines, trips)


@pytest.mark.slow
def test_a_loop_past_the_distinct_map_bound_is_unknown_naming_the_bound() -> None:
    """No union passes `LOOP_MAP_LIMIT` (each holds one map): the distinct
    maps the iterations make are what stops the composition, and the
    reason says so."""
    assert _DISTINCT_TRIPS <= UNROLL_LIMIT  # the trip count bound is not the one passed
    assert _SHIFTED * _DISTINCT_TRIPS > LOOP_DISTINCT_MAP_LIMIT >= _SHIFTED * (_DISTINCT_TRIPS - 1)
    module = parse_module(_shifting_loop(_DISTINCT_TRIPS))
    composed = Composer(module).composed_output_to_input(module.entry, module.entry.root, 0)
    assert len(composed) == _SHIFTED
    for leaf in composed:
        assert isinstance(leaf.maps, Undefined)
        assert f"composing its body {_DISTINCT_TRIPS} times" in leaf.maps.reason
        assert f"more than {LOOP_DISTINCT_MAP_LIMIT} distinct maps over" in leaf.maps.reason


@pytest.mark.slow
def test_a_loop_just_inside_the_distinct_map_bound_is_composed() -> None:
    """One trip fewer stays inside the bound: array j reads its initial
    value shifted by the trips times j + 1, each element once."""
    trips = _DISTINCT_TRIPS - 1
    module = parse_module(_shifting_loop(trips))
    composer = Composer(module)
    for j in range(_SHIFTED):
        composed = composer.composed_output_to_input(module.entry, module.entry.root, j)
        shift = trips * (j + 1)
        for k, leaf in enumerate(composed):
            assert not isinstance(leaf.maps, Undefined), leaf.maps
            got = {(p[0], e[0], c.multiplicity) for c in leaf.maps for p, e in _pairs(c.map)}
            expected = {(d, d + shift, 1) for d in range(_SIZE - shift)} if k == j else set()
            assert got == expected


def test_a_loop_past_the_work_bound_is_unknown_naming_the_bound() -> None:
    """A loop carrying 100 arrays, array k reading k .. k + i after i
    iterations through one map (the identity or the reverse): it makes two
    distinct maps, but its unions hold more maps every iteration, and their
    total over the iterations is what stops the composition."""
    module = parse_module(wide_loop_module(width=100, trips=UNROLL_LIMIT))
    composed = Composer(module).composed_output_to_input(module.entry, module.entry.root, 1)
    for leaf in composed:
        assert isinstance(leaf.maps, Undefined)
        assert f"more than {LOOP_WORK_LIMIT} maps over its iterations" in leaf.maps.reason


def test_a_loop_carrying_many_arrays_reads_what_the_oracle_reads() -> None:
    module = parse_module(wide_loop_module(width=12, trips=3))
    assert _check_module(module) == 1
    # Array 0 after 3 iterations reads arrays 0..3, array j along C(3, j) paths.
    entry = module.entry
    composed = Composer(module).composed_output_to_input(entry, entry.root, 1)
    paths = []
    for leaf in composed:
        assert not isinstance(leaf.maps, Undefined)
        paths.append(sum(counted.multiplicity for counted in leaf.maps))
    assert paths[1:6] == [1, 3, 3, 1, 0]
