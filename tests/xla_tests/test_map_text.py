"""XLA's map text of every era reads as today's map: compared by brute
force (the pairs each relates), never by the reader's own output."""

import pytest

from verifier.errors import ParseError
from verifier.expr import IndexingMap, Undefined, parse_map
from verifier.xla_tests.map_text import read_map, read_operands

TODAY = "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3], d0 mod 2 in [0, 0]"


def pairs(
    m: IndexingMap | Undefined,
) -> set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    assert isinstance(m, IndexingMap)
    return {(tuple(p[v] for v in m.all_variables), m.evaluate(p), ()) for p in m.domain_points()}


@pytest.mark.parametrize(
    "old",
    [
        # 2024: one domain item a line, no commas
        """(d0)[s0] -> (d0 + s0)
           domain:
           d0 in [0, 9]
           s0 in [0, 3]
           d0 mod 2 in [0, 0]""",
        # early 2024: half-open intervals
        "(d0)[s0] -> (d0 + s0)\ndomain:\nd0 in [0, 10)\ns0 in [0, 4)\nd0 mod 2 in [0, 1)",
        # MLIR's affine_map around the map part
        "affine_map<(d0)[s0] -> (d0 + s0)>\ndomain:\nd0 in [0, 9]\ns0 in [0, 3]\nd0 mod 2 in [0, 0]",
        # a flag XLA printed for a while
        TODAY + ", is_simplified: false",
    ],
)
def test_older_syntaxes_read_as_todays_map(old):
    assert pairs(read_map(old)) == pairs(parse_map(TODAY))


def test_runtime_variable_sources_are_dropped():
    old = """(d0)[s0] -> (d0 + s0)
             domain:
             d0 in [0, 3]
             s0 in [0, 1]
               hlo: NULL
               () -> ()"""
    assert pairs(read_map(old)) == pairs(
        parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]")
    )


def test_a_map_without_a_domain_is_an_error_that_says_so():
    with pytest.raises(ParseError, match="no bound for variable 'd0' in the domain"):
        read_map("(d0, d1) -> (d1, d0)")


def test_operand_blocks_with_several_maps_unknown_and_runtime_sources():
    text = """operand id = 0
                (d0) -> (d0), domain: d0 in [0, 3]
                (d0) -> (3 - d0), domain: d0 in [0, 3]
              operand id = 1 unknown indexing
              operand id = 2
                (d0){rt0} -> (d0 + rt0), domain: d0 in [0, 3], rt0 in [0, 1]
                runtime variables:
                  rt0: parameter(1); (d0) -> (), domain: d0 in [0, 3]
              operand id = 3 KNOWN EMPTY"""
    blocks = read_operands(text)
    assert [operand for operand, _ in blocks] == [0, 1, 2, 3]
    assert [len(maps) for _, maps in blocks] == [2, 1, 1, 1]
    assert isinstance(blocks[1][1][0], Undefined)
    _, second = blocks[0][1]
    assert isinstance(second, IndexingMap)
    assert {second.evaluate(p) for p in second.domain_points()} == {(3,), (2,), (1,), (0,)}
    empty = blocks[3][1][0]
    assert isinstance(empty, IndexingMap) and not list(empty.domain_points())
