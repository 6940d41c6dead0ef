"""The differential campaign (`tests.fuzz.semantic`) in the test tiers, and
the variants it found wrong, kept as written (a replay number names a
variant of the generator of its day; the text stays what failed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fuzz.semantic import Tally, judge, judge_fusions, run
from tests.fuzz.variants import REAL, REAL_SOURCES, TURNS, Variant


def _assert_clean(tally: Tally) -> None:
    assert not tally.mismatches, "\n".join(tally.report())


@pytest.mark.slow
def test_every_family_agrees_with_the_oracle() -> None:
    # Twelve rounds of every family, fused chains and re-laid-out real instructions.
    tally = run(range(12 * TURNS))
    _assert_clean(tally)
    assert tally.compared > 0 and tally.verdicts > 0


@pytest.mark.slow
def test_campaign() -> None:
    _assert_clean(run(range(10_000, 12_000)))


@pytest.mark.slow
def test_every_small_real_fusion_agrees_with_the_oracle() -> None:
    tally = Tally()
    for path in sorted(REAL_SOURCES[0].rglob("*.hlo")):
        if "checks" not in path.parts:
            for judgement in judge_fusions(path):
                tally.add(judgement)
    _assert_clean(tally)
    assert tally.compared > 1000


@pytest.mark.slow
def test_campaign_on_heldout_instructions() -> None:
    """The held-out modules (`benchmarks/heldout.py generate DIR`), when
    generated: ``VERIFIER_HELDOUT=DIR``."""
    directory = os.environ.get("VERIFIER_HELDOUT")
    if directory is None or not Path(directory).is_dir():
        pytest.skip("set VERIFIER_HELDOUT to a directory of held-out modules")
    numbers = range(REAL, REAL + 600 * TURNS, TURNS)  # real instructions only
    _assert_clean(run(numbers, (*REAL_SOURCES, Path(directory))))


def _variant(opcode: str, root: str, parameters: str, computations: str = "") -> Variant:
    text = f"HloModule regression\n{computations}\nENTRY e {{\n{parameters}\n  ROOT {root}\n}}\n"
    return Variant(-1, opcode, text)


# Found by the campaign; each was wrong before the fix its commit names.
REGRESSIONS = {
    # A collapsed slice dim of size 0 (XLA accepts bound 0 or 1): every
    # slice is empty; the rules read rt0 in [0, 4] of f32[4] (out of
    # bounds) and the oracle too.  Variant 174.
    "gather-empty-collapsed-slice": _variant(
        "gather",
        "r = f32[] gather(p0, p1), offset_dims={}, collapsed_slice_dims={0}, "
        "start_index_map={0}, index_vector_dim=0, slice_sizes={0}",
        "  p0 = f32[4] parameter(0)\n  p1 = s32[] parameter(1)",
    ),
    # The same with an offset dim beside it (variant 614).
    "gather-empty-collapsed-slice-window": _variant(
        "gather",
        "r = f32[2]{0} gather(p0, p1), offset_dims={0}, collapsed_slice_dims={0}, "
        "start_index_map={0}, index_vector_dim=0, slice_sizes={0,2}",
        "  p0 = f32[2,7] parameter(0)\n  p1 = s32[] parameter(1)",
    ),
    # A bitcast of empty arrays: the bitcast check split an offset by a
    # stride of 0 and raised NotQuasiAffineError (variant 585).
    "bitcast-empty": _variant(
        "bitcast", "r = f32[1,0] bitcast(p0)", "  p0 = f32[0]{0} parameter(0)"
    ),
    # The interpreter's bitcast matched elements by physical offset whatever
    # their widths; ``maps --to-parameters`` (judged by the computation
    # oracle, which asks the interpreter) disagreed with it (variant 7376).
    # The oracle was wrong: it now reads overlapping bits.
    "bitcast-bytes-to-words": _variant(
        "bitcast", "r = f32[1,1,16] bitcast(p0)", "  p0 = s8[4,1,2,2,4,1] parameter(0)"
    ),
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_regression(name: str) -> None:
    judgement = judge(REGRESSIONS[name])
    assert judgement.status == "judged", judgement.mismatches
    assert not judgement.mismatches, judgement.mismatches[0].detail
