"""The emitter choice and the loop emitter's launch, against XLA's rules
worked by hand (comments)."""

from __future__ import annotations

import pytest

from verifier.analysis import ModuleMaps
from verifier.coalescing.analysis import fusion_coalescing
from verifier.coalescing.devices import DEVICES
from verifier.coalescing.emitter import choose_emitter, loop_launch, unroll_factor
from verifier.hlo import Module, parse_module, parse_shape


def _module(
    params: list[str], body: str, root: str, kind: str = "kLoop", extra: str = ""
) -> Module:
    inner = "\n".join(f"  q{i} = {t} parameter({i})" for i, t in enumerate(params))
    args = ", ".join(f"q{i}" for i in range(len(params)))
    return parse_module(
        f"HloModule t\n{extra}\nfc {{\n{inner}\n{body}\n}}\n"
        f"ENTRY main {{\n{inner}\n  ROOT fu = {root} fusion({args}), kind={kind}, calls=fc\n}}"
    )


@pytest.mark.parametrize(
    ("shape", "unroll"),
    [
        ("f32[129024]", 4),  # exactly the threads an RTX A6000 holds: gcd(129024, 4)
        ("f32[129026]", 2),  # gcd(129026, 4)
        ("f32[129023]", 1),  # odd
        ("f32[129020]", 1),  # fewer than the device holds
        ("s4[100]", 2),  # at least ceil(8 / 4): a byte per thread
        ("pred[100]", 1),  # a pred output counts as 8 bits (SmallestBitWidth)
    ],
)
def test_loop_unroll_factor(shape: str, unroll: int) -> None:
    module = _module([shape], f"  ROOT o = {shape} negate(q0)", shape)
    fusion = module.entry.root
    assert choose_emitter(module, fusion, DEVICES["rtx-a6000"]).kind == "loop"
    assert unroll_factor(module, fusion, DEVICES["rtx-a6000"]) == unroll


def test_a_fused_sort_blocks_unrolling() -> None:
    cmp = (
        "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
        "  ROOT c = pred[] compare(a, b), direction=LT\n}"
    )
    module = _module(
        ["f32[129024]"],
        "  s = f32[129024] sort(q0), dimensions={0}, to_apply=lt\n  ROOT o = f32[129024] negate(s)",
        "f32[129024]",
        extra=cmp,
    )
    assert unroll_factor(module, module.entry.root, DEVICES["rtx-a6000"]) == 1


def test_loop_launch() -> None:
    # ceil(1000 / 4) = 250 threads of work: 128 per block, 2 blocks.
    launch = loop_launch(parse_shape("f32[1000]"), 4, DEVICES["h100"])
    assert (launch.threads_per_block, launch.blocks, launch.grid) == (128, 2, (2, 1, 1))
    small = loop_launch(parse_shape("f32[40]"), 1, DEVICES["h100"])
    assert (small.threads_per_block, small.blocks) == (40, 1)
    assert loop_launch(parse_shape("f32[1]"), 1, DEVICES["h100"]).threads_per_block == 1


@pytest.mark.parametrize(
    ("kind", "body", "root", "emitter"),
    [
        ("kCustom", "  ROOT o = f32[64] negate(q0)", "f32[64]", "custom"),
        ("kLoop", "  ROOT o = f32[64] sort(q0), dimensions={0}, to_apply=lt", "f32[64]", "sort"),
        (
            "kLoop",
            "  ROOT o = f32[64,64] transpose(q1), dimensions={1,0}",
            "f32[64,64]",
            "transpose",
        ),
        # A transpose in a column-major layout is not normalised: the loop emitter.
        (
            "kLoop",
            "  ROOT o = f32[64,64]{0,1} transpose(q1), dimensions={1,0}",
            "f32[64,64]{0,1}",
            "loop",
        ),
    ],
)
def test_emitter_choice(kind: str, body: str, root: str, emitter: str) -> None:
    cmp = (
        "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
        "  ROOT c = pred[] compare(a, b), direction=LT\n}"
    )
    module = _module(["f32[64]", "f32[64,64]"], body, root, kind, cmp)
    answer = fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["a100"])
    assert answer.emitter.kind == emitter
    assert (answer.launch is None) == (emitter in ("custom", "sort"))
