"""The ``tiling`` check of `verifier check` on block-level (Triton) fusions:
XLA's chosen tile sizes pass on the bundled GPU dump, and sizes that break
the constraints are refuted with a witness that brute force confirms (the
elements a tile reads, enumerated from the ops' semantics in Python, form
no strided box); its findings reach every report format and are selected
by ``--checks``."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import pytest

from verifier.analysis import ModuleMaps
from verifier.checks.verdict import Outcome
from verifier.cli import main
from verifier.gate.tiling import tiling_answers
from verifier.hlo import parse_module

ROOT = Path(__file__).resolve().parents[2]
TRITON = ROOT / "examples" / "triton" / "softmax_matmul.hlo"
BROKEN = ROOT / "examples" / "checks" / "triton_tile_across_rows.hlo"

Index = tuple[int, ...]


def _check(path: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["check", "--no-cache", "--jobs", "1", "--checks", "tiling", *args, str(path)], out)
    return code, out.getvalue()


def _findings(path: Path) -> list[dict[str, object]]:
    _, text = _check(path, "--format", "json")
    findings: list[dict[str, object]] = json.loads(text)["findings"]
    assert {f["check"] for f in findings} <= {"tiling"}
    return findings


def _is_strided_box(elements: set[Index]) -> bool:
    """Whether `elements` is a product of arithmetic progressions."""
    rank = len(next(iter(elements)))
    axes = []
    for j in range(rank):
        values = sorted({e[j] for e in elements})
        steps = {b - a for a, b in itertools.pairwise(values)}
        if len(steps) > 1:
            return False
        axes.append(values)
    return set(itertools.product(*axes)) == elements


def _merged_reads(rows: range, columns: range) -> set[Index]:
    """What output rows × columns of ``f32[48,32] reshape(f32[8,6,32])``
    read: row ``r`` is input row ``(r // 6, r % 6)``."""
    return {(r // 6, r % 6, c) for r in rows for c in columns}


def test_xla_choices_on_the_triton_dump_pass():
    code, _ = _check(TRITON)
    assert code == 0
    found = {(f["instruction"], f["subject"]): f for f in _findings(TRITON)}
    assert set(found) == {
        ("softmax", "tile sizes"),
        ("softmax", "operand 0 (x)"),
        ("matmul", "tile sizes"),
        ("matmul", "operand 0 (a)"),
        ("matmul", "operand 1 (w)"),
        ("matmul", "operand 2 (b)"),
    }
    assert {f["outcome"] for f in found.values()} == {"proved"}
    # The softmax input, read by the row reductions and the elementwise ops
    # (brute force in tests/tiling/test_union_tiles.py): whole rows.
    assert "(d0, d1) -> (d0, 256)" in str(found[("softmax", "operand 0 (x)")]["message"])


def test_sizes_across_merged_rows_are_refuted_with_a_witness():
    code, _ = _check(BROKEN)
    assert code == 1
    by_subject = {f["subject"]: f for f in _findings(BROKEN)}
    sizes = by_subject["tile sizes"]
    assert sizes["outcome"] == "refuted" and sizes["witness"] == {"d0": 4, "d1": 32}
    operand = by_subject["operand 0 (x)"]
    assert operand["outcome"] == "refuted"
    witness = operand["witness"]
    assert isinstance(witness, dict)
    p0, p1 = witness["p0"], witness["p1"]
    element = (witness["e0"], witness["e1"], witness["e2"])
    read = _merged_reads(range(4 * p0, 4 * p0 + 4), range(32 * p1, 32 * p1 + 32))
    # Brute force: the witness tile reads the element, and what it reads is
    # no strided box; a tile of 6 or 3 rows (admitted) always reads one.
    assert element in read and not _is_strided_box(read)
    for rows in (3, 6, 12):
        for p in range(48 // rows):
            assert _is_strided_box(_merged_reads(range(rows * p, rows * p + rows), range(32)))


@pytest.mark.parametrize("rows", [3, 6, 12])
def test_admitted_sizes_pass(tmp_path, rows):
    text = BROKEN.read_text().replace('"sizes":["4","32"]', f'"sizes":["{rows}","32"]')
    path = tmp_path / "m.hlo"
    path.write_text(text)
    assert _check(path)[0] == 0
    assert {f["outcome"] for f in _findings(path)} == {"proved"}


def test_findings_reach_every_report_format():
    _, sarif = _check(BROKEN, "--format", "sarif")
    (run,) = json.loads(sarif)["runs"]
    assert {r["ruleId"] for r in run["results"]} == {"tiling"}
    assert "tiling" in {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    _, junit = _check(BROKEN, "--format", "junit")
    assert "tiling" in junit and "break the constraints" in junit
    _, text = _check(BROKEN)
    assert "tiling" in text and "witness: d0 = 4, d1 = 32" in text


def _answers(config: str) -> list[tuple[str, Outcome, str]]:
    module = parse_module(f"""HloModule m
f {{
  p = f32[8,16] parameter(0)
  ROOT n = f32[8,16] negate(p)
}}
ENTRY e {{
  x = f32[8,16] parameter(0)
  ROOT t = f32[8,16] fusion(x), kind=kCustom, calls=f, backend_config={config}
}}""")
    return [
        (subject, result.outcome, result.message)
        for subject, result in tiling_answers(
            ModuleMaps(module).instruction(module.entry, module.entry.root)
        )
    ]


def test_malformed_configs_are_findings():
    block = '{"fusion_backend_config":{"block_level_fusion_config":%s}}'
    assert _answers('{"operation_queue_id":"0"}') == []
    (only,) = _answers(block % '{"output_tiles":[{"sizes":["2"]}]}')
    assert only[:2] == ("tile sizes", Outcome.REFUTED) and "rank 2" in only[2]
    (only,) = _answers(block % '{"output_tiles":[{"sizes":["0","4"]}]}')
    assert only[1] is Outcome.REFUTED and "not positive" in only[2]
    (only,) = _answers(block % '{"num_warps":"4"}')
    assert only[:2] == ("output tiles", Outcome.UNSUPPORTED)
    (only,) = _answers(block % '{"output_tiles":[{"sizes":["two","4"]}]}')
    assert only[1] is Outcome.UNSUPPORTED and "not integers" in only[2]
    assert [a[1] for a in _answers(block % '{"output_tiles":[{"sizes":["2","16"]}]}')] == [
        Outcome.PROVED,
        Outcome.PROVED,
    ]


MULTI_OUTPUT = """HloModule m
fused {
  p = f32[12,8] parameter(0)
  n = f32[12,8] negate(p)
  r = f32[2,6,8] reshape(p)
  ROOT t = (f32[12,8], f32[2,6,8]) tuple(n, r)
}
ENTRY e {
  x = f32[12,8] parameter(0)
  ROOT f = (f32[12,8], f32[2,6,8]) fusion(x), kind=kCustom, calls=fused,
    backend_config={"fusion_backend_config":{"kind":"__triton","block_level_fusion_config":
    {"output_tiles":[{"sizes":["4","8"]},{"sizes":["1","ROWS","8"]}]}}}
}"""


@pytest.mark.parametrize("rows", [3, 4])
def test_each_output_of_a_multi_output_fusion_is_judged(rows):
    module = parse_module(MULTI_OUTPUT.replace("ROWS", str(rows)))
    answers = {
        subject: result
        for subject, result in tiling_answers(
            ModuleMaps(module).instruction(module.entry, module.entry.root)
        )
    }
    assert set(answers) == {
        "output 0 tile sizes",
        "output 0 operand 0 (x)",
        "output 1 tile sizes",
        "output 1 operand 0 (x)",
    }
    assert answers["output 0 tile sizes"].outcome is Outcome.PROVED
    assert "exact" in answers["output 0 operand 0 (x)"].message
    # Brute force: output 1's tile (p0, p1, 0) of 1 x rows x 8 reads x's
    # rows 6 p0 + rows p1 ... (clipped to the 6 of the group); the box of
    # `rows` rows from its first holds exactly those when rows divides 6.
    exact = True
    for p0, p1 in itertools.product(range(2), range(-(-6 // rows))):
        read = {6 * p0 + r for r in range(rows * p1, min(rows * p1 + rows, 6))}
        exact &= read == set(range(min(read), min(read) + rows))
    sizes, operand = answers["output 1 tile sizes"], answers["output 1 operand 0 (x)"]
    assert exact == (rows == 3)
    if exact:
        assert sizes.outcome is Outcome.PROVED and "exact" in operand.message
    else:
        assert sizes.outcome is Outcome.REFUTED
        # The box still holds every element read: it covers, with the
        # element it holds and the tile does not read (row 6, of group 1).
        assert operand.outcome is Outcome.PROVED and "covers, not exact" in operand.message
        assert "element (6, 0)" in operand.message


def test_output_tiles_must_match_the_outputs():
    (mismatch,) = _answers(
        '{"fusion_backend_config":{"block_level_fusion_config":'
        '{"output_tiles":[{"sizes":["2","16"]},{"sizes":["2","16"]}]}}}'
    )
    assert mismatch[:2] == ("output tiles", Outcome.UNSUPPORTED)


def test_a_tile_past_the_output_edge_is_not_refuted():
    """XLA accepts a tile larger than its output dimension (8 for 7: it
    masks the part past the edge), so the sizes are not judged, never
    refuted; the other output's sizes still are."""
    findings = _findings(ROOT / "examples" / "checks" / "triton_tile_past_edge.hlo")
    outcomes = {f["subject"]: f["outcome"] for f in findings}
    assert outcomes["output 1 tile sizes"] == "unsupported"
    assert outcomes["output 0 tile sizes"] == "proved"
    assert "refuted" not in outcomes.values()


ONE_ELEMENT = """HloModule m
f {
  p = f32[6] parameter(0)
  c = f32[1] constant({1})
  ROOT o = f32[7] concatenate(p, c), dimensions={0}
}
ENTRY e {
  x = f32[6] parameter(0)
  ROOT t = f32[7] fusion(x), kind=kCustom, calls=f, backend_config={"fusion_backend_config":
    {"kind":"__triton","block_level_fusion_config":{"output_tiles":[{"sizes":["2"]}]}}}
}"""


def test_a_one_element_operand_does_not_refute_the_sizes() -> None:
    # The constant's map folds to (d0) -> (0) on d0 in [6, 6], anchoring
    # every tile of 2 at its element: tiles [0, 2) … [4, 6) read nothing of
    # it yet would load it (covering, so its tile's condition asks a tile of
    # 7).  Every tile that reads it reads its box, which is what the sizes
    # are judged by (XLA's map keeps d0 - 6, anchoring those tiles outside).
    tiles = [set(range(a, min(a + 2, 7))) & {6} for a in range(0, 7, 2)]
    assert tiles == [set(), set(), set(), {6}]
    module = parse_module(ONE_ELEMENT)
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    answers = dict(tiling_answers(view))
    assert answers["tile sizes"].outcome is Outcome.PROVED, answers["tile sizes"].message
