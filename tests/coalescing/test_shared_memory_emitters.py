"""The transpose and concatenate emitters' loads judged by brute force:
the launch derived by hand from XLA's rules (comments), every thread of
it simulated in plain Python, the exact counts compared."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.coalescing import brute
from verifier.analysis import ModuleMaps
from verifier.coalescing.analysis import FusionCoalescing, fusion_coalescing
from verifier.coalescing.devices import DEVICES
from verifier.hlo import parse_module


def _fusion(params: list[str], body: str, root: str) -> FusionCoalescing:
    inner = "\n".join(f"  q{i} = {t} parameter({i})" for i, t in enumerate(params))
    args = ", ".join(f"q{i}" for i in range(len(params)))
    module = parse_module(
        f"HloModule t\nfc {{\n{inner}\n{body}\n}}\n"
        f"ENTRY main {{\n{inner}\n  ROOT fu = {root} fusion({args}), kind=kLoop, calls=fc\n}}"
    )
    return fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["rtx-a6000"])


def _counts(answer: FusionCoalescing, operand: int) -> brute.Simulated:
    counts = answer.operands[operand].sectors
    assert counts is not None, answer.operands[operand].reason
    return brute.Simulated(
        counts.requests, counts.minimum, counts.maximum, counts.total, counts.at_ideal
    )


def test_transpose_of_the_minor_dim() -> None:
    # (64, 96) -> (96, 64): 32 x 32 tiles, 2 x 3 blocks of 128 threads;
    # thread t reads tile element s * 128 + t (row-major), s in [0, 7].
    answer = _fusion(
        ["f32[64,96]"], "  ROOT o = f32[96,64] transpose(q0), dimensions={1,0}", "f32[96,64]"
    )
    assert answer.emitter.kind == "transpose"

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        for s in range(8):
            row = (block // 3) * 32 + (s * 128 + thread) // 32
            column = (block % 3) * 32 + (s * 128 + thread) % 32
            yield s, row * 96 + column

    assert _counts(answer, 0) == brute.simulate_launch(128, 6, at, 32)
    assert answer.operands[0].coalesced
    assert answer.launch is not None
    written = brute.writes(answer.launch.thread_to_output)
    assert set(written) == {(i, j) for i in range(96) for j in range(64)}
    assert set(written.values()) == {1}


def test_transpose_keeping_the_minor_dim() -> None:
    # (64, 32, 2) -> (32, 64, 2): the minor dim (2 x 32 bits) is the vector;
    # tiles of 32 x 32 x 2, 2 blocks; t reads s * 256 + t * 2 + v.
    answer = _fusion(
        ["f32[64,32,2]"],
        "  ROOT o = f32[32,64,2] transpose(q0), dimensions={1,0,2}",
        "f32[32,64,2]",
    )
    assert answer.emitter.kind == "transpose"

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        for s in range(8):
            for v in range(2):
                linear = s * 256 + thread * 2 + v
                index = (block * 32 + linear // 64, (linear // 2) % 32, linear % 2)
                yield s, brute.offset(index, [64, 32, 2], [2, 1, 0])

    assert _counts(answer, 0) == brute.simulate_launch(128, 2, at, 32)


def test_concatenate_emitter() -> None:
    # Three operands (at most four take the concatenate emitter): threads
    # over the longest operand (1000: 8 blocks of 128, no unrolling); each
    # operand read at the thread's index where it falls inside it.
    answer = _fusion(
        ["f32[300]", "f32[1000]", "f32[37]"],
        "  ROOT o = f32[1337] concatenate(q0, q1, q2), dimensions={0}",
        "f32[1337]",
    )
    assert answer.emitter.kind == "concatenate"
    for operand, length in enumerate((300, 1000, 37)):

        def at(block: int, thread: int, length: int = length) -> Iterator[tuple[int, int]]:
            index = block * 128 + thread
            if index < length:
                yield 0, index

        assert _counts(answer, operand) == brute.simulate_launch(128, 8, at, 32)


def _packed_reads(rows: int, columns: int, vector: int, tile: int) -> brute.Simulated:
    """XLA's packed transpose of a row-major ``[rows, columns]`` operand:
    blocks of ``tile`` columns; lane ``l`` of group ``g`` (32 lanes, 4
    groups) loads, at loop id ``s``, the ``vector`` elements of row
    ``4 s + g`` from column ``l * vector`` of its block."""
    blocks = -(-columns // tile)

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        lane, group = thread % 32, thread // 32
        for s in range(-(-rows // 4)):
            for v in range(vector):
                row, column = 4 * s + group, block * tile + lane * vector + v
                if row < rows and column < columns and lane * vector + v < tile:
                    yield s, row * columns + column

    return brute.simulate_launch(128, blocks, at, 32 // vector)


@pytest.mark.slow  # every thread of two launches simulated: 1.7 CPU-s
def test_packed_transpose_of_bf16_and_s8() -> None:
    for element, vector, rows, columns in (("bf16", 2, 64, 96), ("s8", 4, 128, 200)):
        answer = _fusion(
            [f"{element}[{rows},{columns}]"],
            f"  ROOT o = {element}[{columns},{rows}] transpose(q0), dimensions={{1,0}}",
            f"{element}[{columns},{rows}]",
        )
        assert answer.emitter.kind == "transpose" and answer.emitter.unsupported is None
        assert answer.launch is not None and answer.launch.unroll == vector
        tile = min(columns, 32 * vector)
        assert _counts(answer, 0) == _packed_reads(rows, columns, vector, tile)
        # Over the canonical output [columns, A = 1, rows, B = 1].
        written = brute.writes(answer.launch.thread_to_output)
        assert set(written) == {(i, 0, j, 0) for i in range(columns) for j in range(rows)}
        assert set(written.values()) == {1}


def test_narrow_transpose_the_packed_emitter_does_not_take_is_named() -> None:
    # 18 rows: fewer than 10 vectors (20 bf16) of shared-memory rows, so
    # not the packed emitter; 96 x 18 is still XLA's tiled transpose.
    answer = _fusion(
        ["bf16[18,96]"], "  ROOT o = bf16[96,18] transpose(q0), dimensions={1,0}", "bf16[96,18]"
    )
    assert answer.emitter.kind == "transpose"
    assert answer.emitter.unsupported == (
        "narrow elements on the tiled (not packed) transpose: not modelled"
    )


def test_the_hero_is_found_through_a_reshape_that_is_a_bitcast() -> None:
    # The transpose of test_transpose_of_the_minor_dim, its result reshaped
    # (row-major both sides: a bitcast): still XLA's transpose emitter.
    answer = _fusion(
        ["f32[64,96]"],
        "  t = f32[96,64] transpose(q0), dimensions={1,0}\n  ROOT o = f32[96,8,8] reshape(t)",
        "f32[96,8,8]",
    )
    assert answer.emitter.kind == "transpose" and answer.emitter.unsupported is None

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        for s in range(8):
            row = (block // 3) * 32 + (s * 128 + thread) // 32
            column = (block % 3) * 32 + (s * 128 + thread) % 32
            yield s, row * 96 + column

    assert _counts(answer, 0) == brute.simulate_launch(128, 6, at, 32)
