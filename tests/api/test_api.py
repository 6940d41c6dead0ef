"""The notebook API: `verifier.load` and plain data out."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import verifier
from verifier.checks.verdict import Outcome
from verifier.expr.indexing_map import Undefined

REAL = Path(__file__).parents[2] / "examples" / "real"


def test_load_gives_maps_utilization_and_checks_as_plain_data() -> None:
    m = verifier.load(REAL / "softmax.hlo")
    assert "ynn_fusion.1" in m.fusions()
    (row,) = m.maps("broadcast_divide_fusion")
    assert row.operand_name == "ynn_fusion" and not isinstance(row.maps, Undefined)
    assert [str(x).splitlines()[0] for x in row.maps] == ["(d0, d1) -> (d0, d1),"]
    rows = {(r["instruction"], r["operand_name"]): r for r in m.utilization_rows()}
    x = rows[("ynn_fusion.1", "x.1")]
    assert (x["distinct_read"], x["utilization"], x["xla_heuristic"]) == (16250, 1, Fraction(2))
    findings = m.checks(only=["in-bounds"])
    assert findings and all(f.outcome is Outcome.PROVED for f in findings)


def test_a_fusion_graph_is_its_computation_dataflow() -> None:
    m = verifier.load(REAL / "softmax.hlo")
    graph = m.fusion_graph("fused_computation")
    assert sorted(graph.nodes) == sorted(m.instructions("fused_computation"))
    entry = m.fusion_graph()
    assert entry.has_edge("x.1", "ynn_fusion.1")
    assert entry.nodes["ynn_fusion.1"]["opcode"] == "fusion"


def test_unknown_names_are_errors() -> None:
    with pytest.raises(AttributeError):
        _ = verifier.no_such_thing
    m = verifier.loads("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n")
    assert m.utilization_rows() == []
