"""`verifier plot` on tables written from real modules (no Dask: the rows
come straight from the analysis), and its labels."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("pyarrow")

from verifier.cli import main
from verifier.corpus.plot import _largest_disagreements, _Point
from verifier.corpus.rows import analyse_text
from verifier.corpus.tables import write_tables

REAL = Path(__file__).parents[2] / "examples" / "real"


def _tables(directory: Path, names: list[str]) -> None:
    modules: list[dict[str, object]] = []
    operands: list[dict[str, object]] = []
    for name in names:
        answer = analyse_text((REAL / name).read_text(), name)
        modules.append(
            {
                "file": name,
                "sha256": "-",
                "verifier_version": "-",
                "status": "ok",
                "seconds": 0.25,
                "error": None,
                **answer.module,
            }
        )
        operands += answer.operands
    modules.append(
        {
            "file": "broken.hlo",
            "sha256": "-",
            "verifier_version": "-",
            "status": "error",
            "seconds": 0.01,
            "error": "bad",
            "module": None,
            "instructions": None,
            "proved": None,
            "refuted": None,
            "unknown": None,
            "unsupported": None,
            "vacuous": None,
        }
    )
    write_tables(directory, modules, operands)


@pytest.mark.slow  # analyses three modules, imports matplotlib
def test_plot_writes_a_png_of_the_corpus(tmp_path: Path) -> None:
    _tables(tmp_path, ["softmax.hlo", "concat_pad.hlo", "embedding_step.hlo"])
    out = io.StringIO()
    figure = tmp_path / "figure.png"
    assert main(["plot", str(tmp_path), "--output", str(figure)], out) == 0
    assert out.getvalue() == f"wrote {figure}\n"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_tables_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["plot", str(tmp_path), "--output", str(tmp_path / "x.png")]) == 2


def test_the_largest_disagreements_are_labelled_once_per_place() -> None:
    points = [
        _Point(10, 10, "a/equal/p", False),
        _Point(10, 40, "b/over/p", False),
        _Point(10, 40, "a/over/p", False),
        _Point(100, 50, "c/under/p", False),
    ]
    assert _largest_disagreements(points, 5) == [(points[2], 1), (points[3], 0)]
    assert _largest_disagreements(points, 1) == [(points[2], 1)]
