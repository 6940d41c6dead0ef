"""Counting past isl's budget or past int64 answers "unknown (reason)" for
that operand, never a traceback (#14)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from verifier.bridges import isl_counting
from verifier.cli import EXIT_OK, main
from verifier.expr.parser import parse_map

# The output→input map of f32[4294967296,4294967296] reshape(f32[65536,65536,65536,65536]):
# 2⁶⁴ elements.
_RESHAPE_2_64 = parse_map(
    "(d0, d1) -> (d0 floordiv 65536, d0 mod 65536, d1 floordiv 65536, d1 mod 65536), "
    "domain: d0 in [0, 4294967295], d1 in [0, 4294967295]"
)

_MODULE_2_64 = """HloModule reshape_2_64
ENTRY e {
  p0 = f32[65536,65536,65536,65536] parameter(0)
  ROOT r = f32[4294967296,4294967296] reshape(p0)
}
"""


def test_a_count_that_runs_out_of_operations_is_none() -> None:
    # isl spends its quota inside count_val and hands back a value it can no
    # longer print; that used to surface as int(None) raising TypeError.
    counted = isl_counting.count_image([_RESHAPE_2_64], [65536] * 4, max_operations=10_000)
    assert counted is None


def _utilization_json(path: Path) -> dict[str, object]:
    out = io.StringIO()
    assert main(["utilization", "--format", "json", str(path)], out) == EXIT_OK
    report: dict[str, object] = json.loads(out.getvalue())
    return report


def _operands(report: dict[str, object]) -> list[dict[str, object]]:
    instructions = report["instructions"]
    assert isinstance(instructions, list)
    return [operand for row in instructions for operand in row["operands"]]


@pytest.mark.slow
def test_utilization_of_a_reshape_of_2_64_elements_is_unknown(tmp_path: Path) -> None:
    path = tmp_path / "reshape.hlo"
    path.write_text(_MODULE_2_64)
    (operand,) = _operands(_utilization_json(path))
    assert operand["elements"] == 2**64
    assert operand["distinct_read"] is None
    for key in ("may_read", "per_execution", "utilization"):
        value = operand[key]
        assert isinstance(value, str) and value.startswith("unknown (counting 1.8e+19")
        assert "past isl's counting limit" in value
    # One read per output element, counted in closed form: each answer is
    # unknown alone, not with the distinct count.
    assert operand["reads"] == 2**64
