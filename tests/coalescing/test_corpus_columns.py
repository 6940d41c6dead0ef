"""The coalescing columns of the corpus's operand table (`rows.analyse_text`
with a device), judged by a brute-force simulation of every warp."""

from __future__ import annotations

from tests.coalescing import brute
from verifier.corpus.rows import COALESCING_COLUMNS, OPERAND_COLUMNS, analyse_text

# Row r of q0 starts at element 100 r: only every eighth row on a sector.
MODULE = """
HloModule m
fc {
  q0 = f32[640,100] parameter(0)
  ROOT o = f32[640,96] slice(q0), slice={[0:640], [0:96]}
}
ENTRY main {
  p0 = f32[640,100] parameter(0)
  n = f32[640,100] negate(p0)
  ROOT fu = f32[640,96] fusion(n), kind=kLoop, calls=fc
}
"""


def test_a_fusion_operand_has_the_simulated_sectors_and_other_operands_none() -> None:
    expected = brute.simulate(
        [640, 96], [1, 0], 1, lambda i: [(0, brute.offset(i, [640, 100], [1, 0]))], 32
    )
    rows = {row["instruction"]: row for row in analyse_text(MODULE, "m.hlo", "a100").operands}
    fusion, negate = rows["fu"], rows["n"]
    assert set(fusion) == set(OPERAND_COLUMNS)
    assert (fusion["sectors_per_request_min"], fusion["sectors_per_request_max"]) == (
        expected.minimum,
        expected.maximum,
    )
    assert fusion["sectors_per_request_mean"] == expected.total / expected.requests
    assert fusion["ideal_sectors"] == 4 and fusion["coalescing_emitter"] == "loop"
    assert fusion["coalesced"] is (expected.at_ideal == expected.requests) is False
    assert fusion["xla_coalesced"] is True and fusion["coalescing_reason"] is None
    assert all(negate[column] is None for column in COALESCING_COLUMNS)


def test_without_a_device_every_coalescing_cell_is_null() -> None:
    (row, *_) = analyse_text(MODULE, "m.hlo").operands
    assert all(row[column] is None for column in COALESCING_COLUMNS)


def test_an_emitter_not_modelled_is_a_reason_not_a_failed_module() -> None:
    text = MODULE.replace("kind=kLoop", "kind=kCustom")
    row = {r["instruction"]: r for r in analyse_text(text, "m.hlo", "a100").operands}["fu"]
    assert row["sectors_per_request_max"] is None and row["coalesced"] is None
    assert row["coalescing_emitter"] == "custom" and "Triton" in row["coalescing_reason"]
