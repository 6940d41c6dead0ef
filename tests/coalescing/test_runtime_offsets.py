"""Operands read at runtime offsets, and reads of one operand by two ops,
judged by simulating every warp (`brute.simulate`) for every runtime value:
the reported counts are those of the worst alignment, the best one's beside
them, and "coalesced" holds only when every value leaves every request at
its ideal."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

from tests.coalescing import brute
from tests.coalescing.test_exact import _fusion
from verifier.coalescing.analysis import OperandCoalescing
from verifier.coalescing.sectors import SectorCounts

Reads = Callable[[tuple[int, ...]], list[tuple[int, int]]]


def _simulated(counts: SectorCounts) -> brute.Simulated:
    return brute.Simulated(
        counts.requests, counts.minimum, counts.maximum, counts.total, counts.at_ideal
    )


def _badness(simulated: brute.Simulated) -> tuple[Fraction, int]:
    return (Fraction(simulated.total, simulated.requests), simulated.maximum)


def _check_every_alignment(
    operand: OperandCoalescing,
    output: list[int],
    values: list[range],
    reads: Callable[..., Reads],
) -> None:
    """`reads(*runtime values)` gives the loads of one execution."""
    by_values = {
        chosen: brute.simulate(output, list(reversed(range(len(output)))), 1, reads(*chosen), 32)
        for chosen in itertools.product(*values)
    }
    runtime, counts = operand.runtime, operand.sectors
    assert runtime is not None and counts is not None
    worst = max(_badness(s) for s in by_values.values())
    best = min(_badness(s) for s in by_values.values())
    assert _simulated(counts) == by_values[runtime.worst]
    assert _badness(by_values[runtime.worst]) == worst
    assert _simulated(runtime.best_sectors) == by_values[runtime.best]
    assert _badness(by_values[runtime.best]) == best
    assert operand.coalesced == all(s.at_ideal == s.requests for s in by_values.values())


def test_dynamic_slice_at_every_offset() -> None:
    # f32[5,50] sliced [3,40] at (i, j): rows start at 50 (i + a) + j.
    answer = _fusion(
        ["f32[5,50]", "s32[]", "s32[]"],
        "  ROOT o = f32[3,40] dynamic-slice(q0, q1, q2), dynamic_slice_sizes={3,40}",
        "f32[3,40]",
    )
    operand = answer.operands[0]
    assert operand.runtime is not None and operand.runtime.values == ("q1", "q2")

    def reads(i: int, j: int) -> Reads:
        return lambda x: [(0, brute.offset((i + x[0], j + x[1]), [5, 50], [1, 0]))]

    _check_every_alignment(operand, [3, 40], [range(3), range(11)], reads)
    assert operand.coalesced is False  # no offset puts both rows on sectors


def test_dynamic_slice_whose_every_offset_is_aligned_is_coalesced() -> None:
    # Rows of 64 elements, an offset in the outer dimension only.
    answer = _fusion(
        ["f32[6,64]", "s32[]", "s32[]"],
        "  ROOT o = f32[2,64] dynamic-slice(q0, q1, q2), dynamic_slice_sizes={2,64}",
        "f32[2,64]",
    )
    operand = answer.operands[0]

    def reads(i: int, j: int) -> Reads:
        return lambda x: [(0, brute.offset((i + x[0], j + x[1]), [6, 64], [1, 0]))]

    _check_every_alignment(operand, [2, 64], [range(5), range(1)], reads)
    assert operand.coalesced is True


def test_dynamic_update_slice_reads_at_every_offset() -> None:
    # Inside the window the update, elsewhere the operand: the offsets are
    # in the constraints, so every value is counted.
    answer = _fusion(
        ["f32[3,24]", "f32[2,16]", "s32[]", "s32[]", "f32[3,24]"],
        "  u = f32[3,24] dynamic-update-slice(q0, q1, q2, q3)\n  ROOT o = f32[3,24] add(u, q4)",
        "f32[3,24]",
    )
    assert answer.emitter.kind == "loop"

    def inside(i: int, j: int, x: tuple[int, ...]) -> bool:
        return i <= x[0] < i + 2 and j <= x[1] < j + 16

    def update(i: int, j: int) -> Reads:
        return lambda x: (
            [(0, brute.offset((x[0] - i, x[1] - j), [2, 16], [1, 0]))] if inside(i, j, x) else []
        )

    def operand(i: int, j: int) -> Reads:
        return lambda x: [] if inside(i, j, x) else [(0, brute.offset(x, [3, 24], [1, 0]))]

    _check_every_alignment(answer.operands[1], [3, 24], [range(2), range(9)], update)
    _check_every_alignment(answer.operands[0], [3, 24], [range(2), range(9)], operand)


def test_a_gather_is_not_counted_and_says_why() -> None:
    answer = _fusion(
        ["f32[40,32]", "s32[8,1]"],
        "  ROOT o = f32[8,32] gather(q0, q1), offset_dims={1}, collapsed_slice_dims={0}, "
        "start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}",
        "f32[8,32]",
    )
    operand = answer.operands[0]
    assert operand.sectors is None and operand.reason is not None
    assert "differ between threads" in operand.reason


def test_two_ops_reading_one_operand_are_two_loads() -> None:
    # Each thread reads q0 at (a, b) and at (a, b + 1): two instructions,
    # two requests per warp, never their union as one.
    answer = _fusion(
        ["f32[64,33]"],
        "  l = f32[64,32] slice(q0), slice={[0:64], [0:32]}\n"
        "  r = f32[64,32] slice(q0), slice={[0:64], [1:33]}\n"
        "  ROOT o = f32[64,32] add(l, r)",
        "f32[64,32]",
    )

    def reads(x: tuple[int, ...]) -> list[tuple[int, int]]:
        a, b = x
        return [
            (0, brute.offset((a, b), [64, 33], [1, 0])),
            (1, brute.offset((a, b + 1), [64, 33], [1, 0])),
        ]

    expected = brute.simulate([64, 32], [1, 0], 1, reads, 32)
    counts = answer.operands[0].sectors
    assert counts is not None and _simulated(counts) == expected
    assert expected.requests == 2 * 64  # one per warp and load
