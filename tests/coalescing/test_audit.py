"""`verifier coalescing` on generated loop fusions against the independent
brute force (`tests.coalescing.simulator`: chained ops, several operands,
tiled and permuted layouts, packed and byte-wide sub-byte types, partial
warps and blocks, unrolled launches, two outputs; and
`tests.coalescing.transpose_simulator` for the tiled transpose emitter),
and the cases the audit found."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.coalescing.simulator import DEVICES, Fusion, Node, Param, judge, random_fusion
from tests.coalescing.transpose_simulator import judge as judge_transpose
from tests.coalescing.transpose_simulator import random_transpose_fusion


def _case(seed: int, large: bool = False) -> tuple[Fusion, str]:
    rng = random.Random(seed)
    return random_fusion(rng, large=large), rng.choice(sorted(DEVICES))


def _many_divisions(rows: int) -> Fusion:
    """A column-major f32[rows,7]{0,1:T(8,128)} negated: 12 floordiv/mod
    terms once unrolled, whose translation proof isl's subtraction ran for
    minutes on (at any size from 18,432 rows)."""
    param = Param(0, (rows, 7), "f32", (0, 1), ((8, 128),))
    return Fusion(Node("negate", (rows, 7), "f32", (param,)), (param,), (1, 0))


def test_a_map_of_many_divisions_is_answered_in_time(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(_many_divisions(18432).text())
    done = subprocess.run(
        [sys.executable, "-m", "verifier", "coalescing", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    (operand,) = json.loads(done.stdout)[0]["operands"]
    assert operand["requests"] == 18432 * 7 // 128


@pytest.mark.slow
def test_a_map_of_many_divisions_counts_as_brute_force() -> None:
    assert judge(_many_divisions(18432), "rtx-a6000") == ("loop", [])


@pytest.mark.parametrize("seed", range(12))
def test_generated_fusions_count_as_brute_force(seed: int) -> None:
    fusion, device = _case(seed)
    assert judge(fusion, device)[1] == [], fusion.text()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_many_generated_fusions_count_as_brute_force(chunk: int) -> None:
    for seed in range(100 + 50 * chunk, 150 + 50 * chunk):
        fusion, device = _case(seed)
        assert judge(fusion, device)[1] == [], (seed, fusion.text())


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_generated_unrolled_fusions_count_as_brute_force(seed: int) -> None:
    fusion, device = _case(seed, large=True)
    assert judge(fusion, device)[1] == [], fusion.text()


def _transpose_case(seed: int) -> tuple[Fusion, Node, str]:
    rng = random.Random(seed)
    fusion, hero = random_transpose_fusion(rng)
    return fusion, hero, rng.choice(sorted(DEVICES))


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_transposes_count_as_brute_force(seed: int) -> None:
    fusion, hero, device = _transpose_case(seed)
    assert judge_transpose(fusion, hero, device) == ("transpose", []), fusion.text()


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_many_generated_transposes_count_as_brute_force(chunk: int) -> None:
    for seed in range(100 + 25 * chunk, 125 + 25 * chunk):
        fusion, hero, device = _transpose_case(seed)
        assert judge_transpose(fusion, hero, device)[1] == [], (seed, fusion.text())
