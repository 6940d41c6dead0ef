"""The indexing document's fusions: maps composed through the graph, merged when equal."""

from __future__ import annotations

import io
import json
from pathlib import Path

from verifier.cli import main
from verifier.expr.parser import parse_map

EXAMPLE = Path(__file__).parents[2] / "examples" / "fusion" / "spec_cases.hlo"


def fusion_maps(name: str) -> tuple[list[str], list[int]]:
    out = io.StringIO()
    assert (
        main(
            ["maps", str(EXAMPLE), "--instruction", name, "--direction", "o2i", "--format", "json"],
            out,
        )
        == 0
    )
    (row,) = json.loads(out.getvalue())["instructions"][0]["output_to_input"]
    return row["maps"], row["multiplicities"]


def relations(texts: list[str]) -> set[frozenset[tuple[tuple[int, ...], tuple[int, ...]]]]:
    return {parse_map(text).relation() for text in texts}


def test_p0_plus_transpose_p0_reads_p0_twice_through_two_maps() -> None:
    maps, multiplicities = fusion_maps("transpose_add")
    assert relations(maps) == relations(
        [
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9]",
            "(d0, d1) -> (d1, d0), domain: d0 in [0, 9], d1 in [0, 9]",
        ]
    )
    assert multiplicities == [1, 1]


def test_two_equal_chains_merge_into_one_map() -> None:
    maps, multiplicities = fusion_maps("two_chains")
    assert len(maps) == 1 and multiplicities == [2]
    # Output (d0, d1, d2) of shape [30,10,20] reads p0[10,20,30] at (d1, d2, d0).
    assert relations(maps) == relations(
        ["(d0, d1, d2) -> (d1, d2, d0), domain: d0 in [0, 29], d1 in [0, 9], d2 in [0, 19]"]
    )


def test_softmax_reads_its_parameter_through_two_maps() -> None:
    maps, _ = fusion_maps("softmax")
    expected = {
        "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124]",
        "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], "
        "d2 in [0, 124], s0 in [0, 124]",
    }
    assert {str(parse_map(m)) for m in maps} == {str(parse_map(m)) for m in expected}


def test_cancelling_reshapes_simplify_to_the_identity_text() -> None:
    maps, _ = fusion_maps("reshapes")
    assert maps == [
        "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]"
    ]


def test_to_parameters_composes_through_the_entry() -> None:
    out = io.StringIO()
    assert main(["maps", str(EXAMPLE), "--to-parameters", "--format", "json"], out) == 0
    rows = json.loads(out.getvalue())["instructions"][0]["output_to_input"]
    by_output = {(r["output"], r["operand_name"]): r["maps"] for r in rows}
    assert len(by_output[(0, "x")]) == 2
    assert by_output[(0, "y")] == []  # output 0 does not read parameter y
    assert len(by_output[(2, "z")]) == 2
