"""`verifier.from_jax` (through its committed witness when jax is absent),
the API's parity with `verifier maps`, and the DataFrames of `to_pandas` /
`read_corpus`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import verifier
from tests.api.jax_witness import WITNESS, strided_double
from verifier.cli import main
from verifier.errors import UsageError
from verifier.expr.indexing_map import Undefined
from verifier.expr.printer import print_map

REAL = Path(__file__).parents[2] / "examples" / "real"


def _parameter_read(m: verifier.Analysis) -> tuple[int, int | None]:
    (row,) = [
        r for r in m.utilization_rows() if r["operand_name"] == m.module.entry.parameters[0].name
    ]
    return row["elements"], row["distinct_read"]


def test_the_committed_jax_witness_reads_8_of_16_elements() -> None:
    assert _parameter_read(verifier.load(WITNESS)) == (16, 8)


def test_from_jax_compiles_and_reads_8_of_16_elements() -> None:
    pytest.importorskip("jax")
    fn, args = strided_double()
    m = verifier.from_jax(fn, *args)
    assert _parameter_read(m) == (16, 8)
    assert m.utilization_rows() == verifier.load(WITNESS).utilization_rows()


def test_from_jax_without_jax_says_how_to_install_it() -> None:
    try:
        import jax  # noqa: F401
    except ImportError:
        with pytest.raises(UsageError, match=r"hlo-verifier\[jax\]"):
            verifier.from_jax(lambda x: x, 1.0)
    else:
        pytest.skip("jax is installed")


def _cli_maps(*argv: str) -> dict[str, Any]:
    out = io.StringIO()
    assert main(["maps", *argv, "--format", "json"], out) == 0
    answer: dict[str, object] = json.loads(out.getvalue())
    return answer


def test_maps_in_both_directions_and_to_parameters_match_the_command_line() -> None:
    path = REAL / "softmax.hlo"
    m = verifier.load(path)
    name = "broadcast_divide_fusion"
    (entry,) = _cli_maps(str(path), "--instruction", name)["instructions"]
    for direction, key in (("o2i", "output_to_input"), ("i2o", "input_to_output")):
        api = m.maps(name, direction=direction)
        cli = entry[key]
        assert [(r.output, r.operand) for r in api] == [(r["output"], r["operand"]) for r in cli]
        for row, want in zip(api, cli, strict=True):
            assert not isinstance(row.maps, Undefined)
            assert [print_map(x, one_line=True) for x in row.maps] == want["maps"]
    (root,) = _cli_maps(str(path), "--to-parameters")["instructions"]
    to_parameters = m.to_parameters()
    assert [(r.operand, r.operand_name) for r in to_parameters] == [
        (r["operand"], r["operand_name"]) for r in root["output_to_input"]
    ]
    for row, want in zip(to_parameters, root["output_to_input"], strict=True):
        assert not isinstance(row.maps, Undefined)
        assert [print_map(x, one_line=True) for x in row.maps] == want["maps"]


def test_instructions_of_every_computation() -> None:
    m = verifier.load(WITNESS)
    assert m.computations()[-1] == m.module.entry.name
    fused = m.computations()[0]
    assert m.instructions(fused) == [i.name for i in m.module.computations[0].instructions]
    (row,) = m.maps(m.module.computations[0].root.name, computation=fused)[:1]
    assert row.output == 0
    with pytest.raises(UsageError, match="no computation 'nope'"):
        m.instructions("nope")


def test_to_pandas_is_the_operand_table_with_nullable_numbers() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = verifier.load(REAL / "dynamic_loop.hlo").to_pandas()
    assert str(frame["distinct_read"].dtype) == "Int64"
    assert str(frame["utilization"].dtype) == "Float64"
    assert str(frame["elements"].dtype) == "Int64"
    rows = verifier.load(REAL / "dynamic_loop.hlo").utilization_rows()
    assert len(frame) == len(rows)
    assert frame["distinct_read"].isna().sum() == sum(r["distinct_read"] is None for r in rows)
    assert set(frame["file"]) == {str(REAL / "dynamic_loop.hlo")}


def test_read_corpus_gives_both_tables_as_frames(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from verifier.corpus.rows import analyse_text
    from verifier.corpus.tables import write_tables

    answer = analyse_text(WITNESS.read_text(), "w.hlo")
    module = {
        "file": "w.hlo",
        "sha256": "0",
        "verifier_version": "v",
        "status": "ok",
        "seconds": 0.5,
        "error": None,
        **answer.module,
    }
    write_tables(tmp_path, [module], list(answer.operands))
    modules, operands = verifier.read_corpus(tmp_path)
    assert list(modules["file"]) == ["w.hlo"] and str(modules["proved"].dtype) == "Int64"
    assert list(operands["distinct_read"]) == [8]
    with pytest.raises(UsageError, match="no such table"):
        verifier.read_corpus(tmp_path / "nothing")
