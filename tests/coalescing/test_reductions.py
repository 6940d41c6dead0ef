"""The reduction emitters' loads judged by brute force: each case's launch
derived by hand from XLA's rules (in the comments), every thread of it
simulated in plain Python (`brute.simulate_launch`), the exact counts
compared."""

from __future__ import annotations

from collections.abc import Iterator

from tests.coalescing import brute
from verifier.analysis import ModuleMaps
from verifier.coalescing.analysis import FusionCoalescing, fusion_coalescing
from verifier.coalescing.devices import DEVICES
from verifier.hlo import parse_module

_SUM = "sum {\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT c = {t}[] add(a, b)\n}"


def _fusion(params: list[str], body: str, root: str, element: str = "f32") -> FusionCoalescing:
    inner = "\n".join(f"  q{i} = {t} parameter({i})" for i, t in enumerate(params))
    args = ", ".join(f"q{i}" for i in range(len(params)))
    module = parse_module(
        f"HloModule t\n{_SUM.replace('{t}', element)}\nfc {{\n{inner}\n{body}\n}}\n"
        f"ENTRY main {{\n{inner}\n  ROOT fu = {root} fusion({args}), kind=kInput, calls=fc\n}}"
    )
    return fusion_coalescing(ModuleMaps(module), module.entry.root, DEVICES["rtx-a6000"])


def _compare(answer: FusionCoalescing, operand: int, expected: brute.Simulated) -> None:
    counts = answer.operands[operand].sectors
    assert counts is not None, answer.operands[operand].reason
    got = brute.Simulated(
        counts.requests, counts.minimum, counts.maximum, counts.total, counts.at_ideal
    )
    assert got == expected


def test_row_reduction_of_a_sum_with_a_column_major_operand() -> None:
    # (1, 16, 1000): 64 threads per row (ceil(1000 / 16) rounded to a warp),
    # 4 rows per block (256 threads), vectors of 2 (32-bit inputs), 8 per
    # thread; blocks: 16 / 4 = 4.
    answer = _fusion(
        ["f32[16,1000]", "f32[16,1000]{0,1}", "f32[]"],
        "  s = f32[16,1000] add(q0, q1)\n"
        "  ROOT r = f32[16] reduce(s, q2), dimensions={1}, to_apply=sum",
        "f32[16]",
    )
    assert answer.emitter.kind == "row reduction"
    assert answer.launch is not None
    assert (answer.launch.threads_per_block, answer.launch.blocks, answer.launch.unroll) == (
        256,
        4,
        2,
    )

    def loads(layout: tuple[int, int]) -> object:
        def at(block: int, thread: int) -> Iterator[tuple[tuple[int, int], int]]:
            row, lane = block * 4 + thread // 64, thread % 64
            for s in range(8):
                for v in range(2):
                    column = (s * 64 + lane) * 2 + v
                    if row < 16 and column < 1000:
                        yield (0, s), brute.offset((row, column), [16, 1000], layout)

        return at

    _compare(answer, 0, brute.simulate_launch(256, 4, loads((1, 0)), 32))  # type: ignore[arg-type]
    _compare(answer, 1, brute.simulate_launch(256, 4, loads((0, 1)), 32))  # type: ignore[arg-type]
    written = brute.writes(answer.launch.thread_to_output)
    assert set(written) == {(k,) for k in range(16)} and set(written.values()) == {1}
    assert answer.operands[2].sectors is None  # the initial value: no indexing


def test_multi_row_reduction() -> None:
    # (1, 4096, 8): vectors of 2 would leave 64 blocks < 84 SMs, so 1;
    # 8 threads per row, 32 rows per block, 128 blocks.
    answer = _fusion(
        ["f32[4096,8]", "f32[]"],
        "  ROOT r = f32[4096] reduce(q0, q1), dimensions={1}, to_apply=sum",
        "f32[4096]",
    )
    assert answer.emitter.kind == "multi-row reduction"

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        yield 0, (block * 32 + thread // 8) * 8 + thread % 8

    _compare(answer, 0, brute.simulate_launch(256, 128, at, 32))
    assert answer.launch is not None
    written = brute.writes(answer.launch.thread_to_output)
    assert set(written) == {(k,) for k in range(4096)} and set(written.values()) == {1}


def test_column_reduction() -> None:
    # (64, 100, 48): 32 x 32 threads; thread (w, l) reads rows w, w + 32, …
    # of the reduced dim at kept column l (48 is not a divisor of 32, no
    # vectors: 2 * 32 > 48); blocks: 64 x ceil(48 / 32).
    answer = _fusion(
        ["f32[64,100,48]", "f32[]"],
        "  ROOT r = f32[64,48] reduce(q0, q1), dimensions={1}, to_apply=sum",
        "f32[64,48]",
    )
    assert answer.emitter.kind == "column reduction"

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        major, minor = block // 2, (block % 2) * 32 + thread % 32
        for s in range(4):
            reduced = thread // 32 + s * 32
            if reduced < 100 and minor < 48:
                yield s, (major * 100 + reduced) * 48 + minor

    _compare(answer, 0, brute.simulate_launch(1024, 128, at, 32))


def test_small_column_reduction() -> None:
    # (32, 64, 16): 16 divides the warp; 128 threads sweep the 64 x 16 slab
    # in vectors of 2, 4 times; one block per major index.
    answer = _fusion(
        ["f32[32,64,16]", "f32[]"],
        "  ROOT r = f32[32,16] reduce(q0, q1), dimensions={1}, to_apply=sum",
        "f32[32,16]",
    )
    assert answer.emitter.kind == "small column reduction"

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        for s in range(4):
            for v in range(2):
                yield s, block * 1024 + thread * 2 + v + s * 256

    _compare(answer, 0, brute.simulate_launch(128, 32, at, 32))
    assert answer.launch is not None
    written = brute.writes(answer.launch.thread_to_output)
    assert set(written) == {(m, k) for m in range(32) for k in range(16)}
    assert set(written.values()) == {1}


def test_bf16_row_reduction_with_vectors_of_four() -> None:
    # (1, 8, 2048), 16-bit: 128 threads per row, 2 rows per block, vectors
    # of 4, 4 per thread; blocks: 8 / 2 = 4.
    answer = _fusion(
        ["bf16[8,2048]", "bf16[]"],
        "  ROOT r = bf16[8] reduce(q0, q1), dimensions={1}, to_apply=sum",
        "bf16[8]",
        "bf16",
    )
    assert answer.emitter.kind == "row reduction"
    assert answer.launch is not None and answer.launch.unroll == 4

    def at(block: int, thread: int) -> Iterator[tuple[int, int]]:
        row, lane = block * 2 + thread // 128, thread % 128
        for s in range(4):
            for v in range(4):
                yield s, row * 2048 + (s * 128 + lane) * 4 + v

    _compare(answer, 0, brute.simulate_launch(256, 4, at, 16))


def test_a_transpose_that_is_a_bitcast_is_an_intermediate_not_a_hero() -> None:
    # [8,8]{1,0} -> [8,8]{0,1} with dimensions={1,0}: the same bytes, as is
    # the row-major reshape before it; the reduce behind both is the hero
    # (a row reduction; an epilogue after it is not modelled).
    answer = _fusion(
        ["f32[64,4096]", "f32[]"],
        "  r = f32[64] reduce(q0, q1), dimensions={1}, to_apply=sum\n"
        "  b = f32[8,8] reshape(r)\n"
        "  ROOT o = f32[8,8]{0,1} transpose(b), dimensions={1,0}",
        "f32[8,8]{0,1}",
    )
    assert answer.emitter.kind == "row reduction"
    assert answer.emitter.unsupported is not None
    # Not a bitcast (the layout does not follow the permutation): the loop.
    answer = _fusion(
        ["f32[64,4096]", "f32[]"],
        "  r = f32[64] reduce(q0, q1), dimensions={1}, to_apply=sum\n"
        "  b = f32[8,8] reshape(r)\n"
        "  ROOT o = f32[8,8] transpose(b), dimensions={1,0}",
        "f32[8,8]",
    )
    assert answer.emitter.kind == "loop"
