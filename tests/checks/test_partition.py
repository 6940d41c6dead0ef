"""partition: proved on every concatenate, pad and dynamic-update-slice of
the examples, refuted on hand-broken cases, every answer held to a
brute-force count of how often each output point (per offset) is written."""

import itertools
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from verifier.checks.cache import CachedRecord, MemoryCache
from verifier.checks.partition import check_partition, partition_answer
from verifier.checks.verdict import Outcome
from verifier.expr.indexing_map import IndexingMap
from verifier.expr.nodes import VarKind, var
from verifier.expr.parser import parse_map
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MODULES = sorted(
    [*EXAMPLES.glob("spec/*.hlo"), *EXAMPLES.glob("fusion/*.hlo"), *EXAMPLES.glob("real/*.hlo")]
)
PARTITIONED = {"concatenate", "pad", "dynamic-update-slice"}


def _writes(
    pieces: Sequence[Sequence[IndexingMap]], box: tuple[int, ...], offsets: tuple[int, ...]
) -> Counter[tuple[tuple[int, ...], int]]:
    """(output point, piece) → how many maps of the piece write it, at `offsets`."""
    counts: Counter[tuple[tuple[int, ...], int]] = Counter()
    for number, group in enumerate(pieces):
        seen: set[tuple[int, ...]] = set()
        for m in group:
            for point in m.domain_points():
                if all(point[var(VarKind.RT, i)] == v for i, v in enumerate(offsets)):
                    seen.add(m.evaluate(point))
        for written in seen:
            counts[(written, number)] += 1
    return counts


def _partitions_by_brute_force(
    pieces: Sequence[Sequence[IndexingMap]], box: tuple[int, ...], offset_ranges: list[range]
) -> bool:
    for offsets in itertools.product(*offset_ranges):
        writers: Counter[tuple[int, ...]] = Counter()
        for point, _ in _writes(pieces, box, offsets):
            writers[point] += 1
        every = set(itertools.product(*(range(n) for n in box)))
        if set(writers) != every or any(count != 1 for count in writers.values()):
            return False
    return True


def _relevant(path: Path) -> bool:
    text = path.read_text()
    return any(f" {op}(" in text for op in PARTITIONED)


@pytest.mark.parametrize("path", [p for p in MODULES if _relevant(p)], ids=lambda p: p.name)
def test_partition_is_proved_on_every_example(path: Path) -> None:
    module = parse_module_file(path)
    findings = list(run_checks(module, MemoryCache(), only=["partition"]))
    expected = sum(
        1 for c in module.computations for i in c.instructions if i.opcode in PARTITIONED
    )
    assert len(findings) == expected > 0
    assert all(f.outcome is Outcome.PROVED for f in findings), findings


PAD_P0 = "(d0, d1) -> (d0 * 2 + 1, d1 + 4), domain: d0 in [0, 3], d1 in [0, 3]"
# XLA (and the seed) read the padding value on all 192 points.
PAD_VALUE_EVERYWHERE = "()[s0, s1] -> (s0, s1), domain: s0 in [0, 11], s1 in [0, 15]"
DUS_UPDATE = (
    "(d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: d0 in [0, 4], d1 in [0, 9], "
    "rt0 in [0, 15], rt1 in [0, 20]"
)
# XLA keeps the whole operand, for every offset (no window excluded).
DUS_OPERAND_EVERYWHERE = (
    "(d0, d1){rt0, rt1} -> (d0, d1), domain: d0 in [0, 19], d1 in [0, 29], "
    "rt0 in [0, 15], rt1 in [0, 20]"
)


def test_xlas_pad_value_on_every_point_overlaps_the_operand() -> None:
    pieces = [(parse_map(PAD_P0),), (parse_map(PAD_VALUE_EVERYWHERE),)]
    result = check_partition(
        [("operand 0", pieces[0]), ("operand 1", pieces[1])], (12, 16), MemoryCache()
    )
    assert result.outcome is Outcome.REFUTED
    assert "written by operand 0 and by operand 1" in result.message
    point = (result.witness[0][1], result.witness[1][1])
    assert _writes(pieces, (12, 16), ())[(point, 0)] == 1
    assert _writes(pieces, (12, 16), ())[(point, 1)] == 1


def test_xlas_dus_operand_everywhere_overlaps_the_update_window() -> None:
    pieces = [(parse_map(DUS_OPERAND_EVERYWHERE),), (parse_map(DUS_UPDATE),)]
    result = check_partition([("src", pieces[0]), ("upd", pieces[1])], (20, 30), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    point, offsets = (witness["o0"], witness["o1"]), (witness["rt0"], witness["rt1"])
    writes = _writes(pieces, (20, 30), offsets)
    assert writes[(point, 0)] == writes[(point, 1)] == 1


def test_concat_with_an_off_by_one_offset_leaves_a_hole_and_overlaps() -> None:
    first = parse_map("(d0) -> (d0), domain: d0 in [0, 4]")
    second = parse_map("(d0) -> (d0 + 6), domain: d0 in [0, 9]")
    result = check_partition([("a", (first,)), ("b", (second,))], (16,), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    assert result.message == "output point o0 = 5 is written by no operand"
    shifted = parse_map("(d0) -> (d0 + 4), domain: d0 in [0, 11]")
    result = check_partition([("a", (first,)), ("b", (shifted,))], (16,), MemoryCache())
    assert result.message == "output point o0 = 4 is written by a and by b"


def test_one_answer_serves_every_naming_of_its_pieces() -> None:
    """The isl question is asked once, not per place: each place names its
    own pieces in the answer, whose witness brute force confirms."""
    first = parse_map("(d0) -> (d0), domain: d0 in [0, 4]")
    shifted = parse_map("(d0) -> (d0 + 4), domain: d0 in [0, 11]")
    stored: list[str] = []

    class Recording(MemoryCache):
        def store(self, key: str, answer: CachedRecord) -> None:
            stored.append(key)
            super().store(key, answer)

    cache = Recording()
    answer = partition_answer([(first,), (shifted,)], (16,), cache)
    assert partition_answer([(first,), (shifted,)], (16,), cache) == answer
    assert len(stored) == 1 and "(x)" not in stored[0]
    for labels in (["a", "b"], ["operand 0 (x)", "operand 1 (y)"]):
        result = answer.result(labels)
        assert result == check_partition(
            [(labels[0], (first,)), (labels[1], (shifted,))], (16,), MemoryCache()
        )
        assert result.message == f"output point o0 = 4 is written by {labels[0]} and by {labels[1]}"
        point = (dict(result.witness)["o0"],)
        writes = _writes([(first,), (shifted,)], (16,), ())
        assert writes[(point, 0)] == writes[(point, 1)] == 1


def test_small_partitions_agree_with_brute_force() -> None:
    """Every split of [0, 6) into two intervals (with gaps and overlaps)."""
    for low_end, high_start, high_end in itertools.product(range(-1, 6), range(0, 7), range(0, 7)):
        low = parse_map(f"(d0) -> (d0), domain: d0 in [0, {low_end}]")
        high = parse_map(f"(d0) -> (d0 + {high_start}), domain: d0 in [0, {high_end - high_start}]")
        pieces = [(low,), (high,)]
        result = check_partition([("a", pieces[0]), ("b", pieces[1])], (6,), MemoryCache())
        expected = _partitions_by_brute_force(pieces, (6,), [])
        assert (result.outcome is Outcome.PROVED) == expected, (low_end, high_start, high_end)
