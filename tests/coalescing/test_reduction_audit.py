"""`verifier coalescing` on generated reduction and concatenate fusions
against the independent brute force (`tests.coalescing.reduction_simulator`:
XLA's four reduction emitters and its concatenate emitter, every thread of
the launch), and the cases the audit found."""

from __future__ import annotations

import random

import pytest

import verifier
from tests.coalescing.reduction_simulator import (
    judge,
    random_concatenate_fusion,
    random_reduction_fusion,
)
from tests.coalescing.simulator import DEVICES, Fusion, Node, Param


def _reduction(seed: int) -> tuple[Fusion, str]:
    rng = random.Random(seed)
    return random_reduction_fusion(rng), rng.choice(sorted(DEVICES))


def _concatenate(seed: int) -> tuple[Fusion, str]:
    rng = random.Random(seed)
    return random_concatenate_fusion(rng), rng.choice(sorted(DEVICES))


def test_a_request_map_its_translation_keeps_is_counted_without_isl() -> None:
    # A column-major pred[1024,8] converted, reshaped to f32[64,128] and
    # row-reduced: every request map is its own translation by two
    # requests, which isl's subtraction (two divisions) ran on for minutes.
    param = Param(0, (1024, 8), "pred", (0, 1))
    body = Node("reshape", (64, 128), "f32", (Node("convert", (1024, 8), "f32", (param,)),))
    fusion = Fusion(Node("reduce", (64,), "f32", (body,), ((1,),)), (param,), (0,))
    assert judge(fusion, "rtx-a6000") == ("row reduction", [])


def _pred_multi_row() -> Fusion:
    param = Param(0, (21504, 16), "pred", (1, 0))
    body = Node("convert", (21504, 16), "f16", (param,))
    return Fusion(Node("reduce", (21504,), "f16", (body,), ((1,),)), (param,), (0,))


def test_a_pred_input_is_a_byte_in_the_multi_row_vector() -> None:
    # XLA's SmallestBitWidth counts a pred as 8 bits: the multi-row vector
    # is min(16, 64 / 8) = 8 (16 bits the widest: no 16-byte cap), 2
    # threads a row, 128 rows a block, 21,504 / 128 = 168 blocks >= 84
    # SMs, so it stays 8.  (At 1 bit it was 16 and 84 blocks.)
    answer = verifier.loads(_pred_multi_row().text()).coalescing("fusion", "rtx-a6000")
    launch = answer["launch"]
    assert answer["emitter"] == "multi-row reduction"
    assert (launch["threads_per_block"], launch["blocks"], launch["unroll"]) == (256, 168, 8)


@pytest.mark.slow
def test_a_pred_input_multi_row_counts_as_brute_force() -> None:
    assert judge(_pred_multi_row(), "rtx-a6000") == ("multi-row reduction", [])


@pytest.mark.parametrize("seed", [4, 7])
def test_generated_reductions_count_as_brute_force(seed: int) -> None:
    fusion, device = _reduction(seed)
    assert judge(fusion, device)[1] == [], fusion.text()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_many_generated_reductions_count_as_brute_force(chunk: int) -> None:
    for seed in range(100 + 25 * chunk, 125 + 25 * chunk):
        fusion, device = _reduction(seed)
        assert judge(fusion, device)[1] == [], (seed, fusion.text())


@pytest.mark.parametrize("seed", [0])
def test_generated_concatenates_count_as_brute_force(seed: int) -> None:
    fusion, device = _concatenate(seed)
    assert judge(fusion, device) == ("concatenate", []), fusion.text()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_many_generated_concatenates_count_as_brute_force(chunk: int) -> None:
    for seed in range(100 + 25 * chunk, 125 + 25 * chunk):
        fusion, device = _concatenate(seed)
        assert judge(fusion, device)[1] == [], (seed, fusion.text())
