"""Exact sectors per request judged by brute force (`brute.simulate`: every
thread of the launch in plain Python), on fusions where XLA's first warp is
aligned and later warps are not, and where it is all aligned."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.coalescing import brute
from tests.coalescing.xla_cases import CASES
from verifier.analysis import ModuleMaps
from verifier.coalescing.analysis import FusionCoalescing, fusion_coalescing
from verifier.coalescing.devices import DEVICES
from verifier.hlo import parse_module


def _fusion(params: list[str], body: str, root: str, extra: str = "") -> FusionCoalescing:
    inner = "\n".join(f"  q{i} = {t} parameter({i})" for i, t in enumerate(params))
    args = ", ".join(f"q{i}" for i in range(len(params)))
    module = parse_module(
        f"HloModule t\n{extra}\nfc {{\n{inner}\n{body}\n}}\n"
        f"ENTRY main {{\n{inner}\n  ROOT fu = {root} fusion({args}), kind=kLoop, calls=fc\n}}"
    )
    return fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["rtx-a6000"])


def _check(
    answer: FusionCoalescing,
    operand: int,
    output: tuple[list[int], list[int]],
    reads: Callable[[tuple[int, ...]], list[tuple[int, int]]],
    bits: int,
    unroll: int,
) -> None:
    dims, minor_to_major = output
    elements = 1
    for d in dims:
        elements *= d
    assert answer.launch is not None
    assert (answer.launch.threads_per_block, answer.launch.blocks, answer.launch.unroll) == (
        *brute.loop_launch(elements, unroll),
        unroll,
    )
    expected = brute.simulate(dims, minor_to_major, unroll, reads, bits)
    counts = answer.operands[operand].sectors
    assert counts is not None
    got = brute.Simulated(
        counts.requests, counts.minimum, counts.maximum, counts.total, counts.at_ideal
    )
    assert got == expected
    assert answer.operands[operand].coalesced == (expected.at_ideal == expected.requests)


def test_transposed_layout_operand() -> None:
    answer = _fusion(
        ["f32[100,200]{1,0}", "f32[100,200]{0,1}"],
        "  ROOT o = f32[100,200] add(q0, q1)",
        "f32[100,200]",
    )

    def lhs(i: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(0, brute.offset(i, [100, 200], [1, 0]))]

    def rhs(i: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(0, brute.offset(i, [100, 200], [0, 1]))]

    _check(answer, 0, ([100, 200], [1, 0]), lhs, 32, 1)
    _check(answer, 1, ([100, 200], [1, 0]), rhs, 32, 1)


def test_slice_whose_rows_start_off_sector() -> None:
    # Row r of the operand starts at element 100 r: aligned for r = 0 only.
    answer = _fusion(
        ["f32[640,100]"], "  ROOT o = f32[640,96] slice(q0), slice={[0:640], [0:96]}", "f32[640,96]"
    )
    (operand,) = answer.operands
    assert operand.xla_coalesced
    assert operand.coalesced is False
    _check(
        answer, 0, ([640, 96], [1, 0]), lambda i: [(0, brute.offset(i, [640, 100], [1, 0]))], 32, 1
    )


def test_concatenate_boundary_inside_a_warp() -> None:
    # Five operands (XLA's concatenate emitter takes at most four): the
    # loop emitter.  The first warp reads none of q1, so XLA's sample is
    # empty and "coalesced"; q1 starts at output 4003, inside a warp.
    answer = _fusion(
        ["f32[4003]", "f32[1000]", "f32[1000]", "f32[1000]", "f32[2997]", "f32[10000]"],
        "  c = f32[10000] concatenate(q0, q1, q2, q3, q4), dimensions={0}\n"
        "  ROOT o = f32[10000] multiply(c, q5)",
        "f32[10000]",
    )
    assert answer.emitter.kind == "loop"
    assert answer.operands[1].xla_coalesced
    assert answer.operands[1].coalesced is False
    counts = answer.operands[1].sectors
    assert counts is not None and counts.period < counts.requests  # proved, not enumerated

    def second(i: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(0, i[0] - 4003)] if 4003 <= i[0] < 5003 else []

    def first(i: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(0, i[0])] if i[0] < 4003 else []

    _check(answer, 1, ([10000], [0]), second, 32, 1)
    _check(answer, 0, ([10000], [0]), first, 32, 1)


def test_pad_low_edge_off_sector_with_unroll() -> None:
    answer = _fusion(
        ["f32[509,256]", "f32[]"],
        "  ROOT o = f32[512,259] pad(q0, q1), padding=3_0x3_0",
        "f32[512,259]",
    )

    def body(i: tuple[int, ...]) -> list[tuple[int, int]]:
        if i[0] < 3 or i[1] < 3:
            return []
        return [(0, brute.offset((i[0] - 3, i[1] - 3), [509, 256], [1, 0]))]

    _check(answer, 0, ([512, 259], [1, 0]), body, 32, 4)

    def padding(i: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(0, 0)] if i[0] < 3 or i[1] < 3 else []

    _check(answer, 1, ([512, 259], [1, 0]), padding, 32, 4)


def test_tiled_operand_layout() -> None:
    # XLA linearises without tiles: row-major rows look contiguous to it.
    answer = _fusion(["f32[32,64]{1,0:T(8,4)}"], "  ROOT o = f32[32,64] negate(q0)", "f32[32,64]")
    (operand,) = answer.operands
    assert operand.xla_coalesced
    assert operand.coalesced is False
    _check(
        answer,
        0,
        ([32, 64], [1, 0]),
        lambda i: [(0, brute.offset(i, [32, 64], [1, 0], (8, 4)))],
        32,
        1,
    )


def test_reduce_on_the_loop_emitter_loads_once_per_reduced_index() -> None:
    add = "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}"
    answer = _fusion(
        ["f32[64,10,4]", "f32[]"],
        "  ROOT o = f32[64,4] reduce(q0, q1), dimensions={1}, to_apply=sum",
        "f32[64,4]",
        add,
    )
    assert answer.emitter.kind == "loop"

    def reads(i: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(k, brute.offset((i[0], k, i[1]), [64, 10, 4], [2, 1, 0])) for k in range(10)]

    _check(answer, 0, ([64, 4], [1, 0]), reads, 32, 1)


@pytest.mark.parametrize("layout", ["{1,0}", "{0,1}"])
def test_bf16_operand(layout: str) -> None:
    answer = _fusion([f"bf16[48,40]{layout}"], "  ROOT o = f32[48,40] convert(q0)", "f32[48,40]")
    minor_to_major = [1, 0] if layout == "{1,0}" else [0, 1]
    _check(
        answer,
        0,
        ([48, 40], [1, 0]),
        lambda i: [(0, brute.offset(i, [48, 40], minor_to_major))],
        16,
        1,
    )


def test_the_readme_pad() -> None:
    # XLA's pad case: its first warp lies in the padding; every row's
    # first and last chunks are partial, and most rows start off a sector.
    text = CASES["pad"][0]
    module = parse_module(text)
    answer = fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["rtx-a6000"])

    def body(i: tuple[int, ...]) -> list[tuple[int, int]]:
        a, b = i[0] - 10, i[1] - 24
        return [(0, a * 436 + b)] if 0 <= a < 997 and 0 <= b < 436 else []

    _check(answer, 0, ([1024, 512], [1, 0]), body, 32, 4)
    assert answer.operands[0].xla_coalesced is True
