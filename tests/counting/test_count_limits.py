"""Counting past isl's budget answers "unknown (reason)" for that operand,
never a traceback (#14); counts past int64 are exact where counted in
closed form."""

from __future__ import annotations

import io
import itertools
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


def _reshape_module(operand: tuple[int, ...], result: tuple[int, ...]) -> str:
    return (
        f"HloModule reshape\nENTRY e {{\n  p0 = f32[{','.join(map(str, operand))}] parameter(0)\n"
        f"  ROOT r = f32[{','.join(map(str, result))}] reshape(p0)\n}}\n"
    )


def _enumerated_reshape(operand: tuple[int, ...], result: tuple[int, ...]) -> tuple[int, int]:
    """(distinct operand elements read, reads) of a row-major reshape, by
    enumerating every output element and the operand element of its linear
    position."""
    read: set[tuple[int, ...]] = set()
    reads = 0
    for index in itertools.product(*map(range, result)):
        linear = 0
        for i, n in zip(index, result, strict=True):
            linear = linear * n + i
        digits = []
        for n in reversed(operand):
            linear, digit = divmod(linear, n)
            digits.append(digit)
        read.add(tuple(reversed(digits)))
        reads += 1
    return len(read), reads


@pytest.mark.slow
@pytest.mark.parametrize(("a", "b"), [(2, 2), (2, 3), (3, 2), (3, 4), (5, 3)])
def test_a_reshape_merging_dim_pairs_reads_every_element_once(
    a: int, b: int, tmp_path: Path
) -> None:
    # The same kind as the 2^64 reshape below, small enough to enumerate.
    operand, result = (a, b, b, a), (a * b, b * a)
    path = tmp_path / "reshape.hlo"
    path.write_text(_reshape_module(operand, result))
    (row,) = _operands(_utilization_json(path))
    distinct, reads = _enumerated_reshape(operand, result)
    assert (row["elements"], row["distinct_read"], row["reads"]) == (a * b * b * a, distinct, reads)
    assert row["utilization"] == "1"


@pytest.mark.slow
def test_utilization_of_a_reshape_of_2_64_elements_is_exact(tmp_path: Path) -> None:
    # Counted in closed form on Python integers (no int64 anywhere): the map
    # (d0 floordiv 2^16, d0 mod 2^16, d1 floordiv 2^16, d1 mod 2^16) splits
    # each dim into its two base-2^16 digits, full blocks only, so its image
    # is the box [0, 2^16)^4 — every one of the 2^64 elements, each read once
    # (a reshape is a bijection; the enumerated cases above are the same
    # kind).  It was "unknown" while only isl counted it.
    path = tmp_path / "reshape.hlo"
    path.write_text(_MODULE_2_64)
    (operand,) = _operands(_utilization_json(path))
    for key in ("elements", "distinct_read", "reads", "may_read", "per_execution"):
        assert operand[key] == 2**64, key
    assert operand["utilization"] == "1"


@pytest.mark.slow
def test_utilization_past_isls_counting_limit_is_unknown(tmp_path: Path) -> None:
    # A reshape whose dims share no factor structure ((d0 * 3e9 + d1) floordiv
    # 4e9 keeps two variables): outside the closed form, and 1.2e19
    # candidates are past what isl is asked to scan.  The counts that need
    # no image (elements, reads) stay exact.
    path = tmp_path / "reshape.hlo"
    path.write_text(_reshape_module((3 * 10**9, 4 * 10**9), (4 * 10**9, 3 * 10**9)))
    (operand,) = _operands(_utilization_json(path))
    assert operand["elements"] == operand["reads"] == 12 * 10**18
    assert operand["distinct_read"] is None
    for key in ("may_read", "per_execution", "utilization"):
        value = operand[key]
        assert isinstance(value, str) and value.startswith("unknown (counting 1.2e+19")
        assert "past isl's counting limit" in value
