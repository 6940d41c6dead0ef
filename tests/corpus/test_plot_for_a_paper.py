"""`verifier plot` fit for a paper: labels that do not collide (with each
other, the points, the legend or the other panel), CPU seconds — not wall time — in the
timing panel, and vector PDF and SVG (no raster image, no Type 3 font) for
``.pdf`` and ``.svg``; the image written whole or not at all."""

from __future__ import annotations

import io
import itertools
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("pyarrow")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.text import Annotation, Text

from verifier.cli import EXIT_BAD_INPUT, EXIT_OK, main
from verifier.corpus.plot import corpus_figure
from verifier.corpus.rows import MODULE_COLUMNS, OPERAND_COLUMNS
from verifier.corpus.tables import write_tables

# Each test draws and writes whole figures (about 1 CPU-s each): the slow tier.
pytestmark = pytest.mark.slow

# (status, instructions, wall seconds, CPU seconds): wall and CPU far apart,
# as on a loaded machine.
MODULES = [
    ("ok", 10, 30.0, 0.5),
    ("ok", 1000, 60.0, 4.0),
    ("error", None, 2.0, 0.25),
    ("timeout", None, 300.0, None),
]


def module_row(
    number: int, status: str, instructions: int | None, wall: float, cpu: float | None
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(MODULE_COLUMNS)
    row |= {"file": f"m{number}.hlo", "sha256": "-", "verifier_version": "-", "status": status}
    return row | {"seconds": wall, "cpu_seconds": cpu, "instructions": instructions}


def operand_row(number: int, exact: int, heuristic: float) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(OPERAND_COLUMNS)
    long_name = f"module_{number:04d}.jit_train_step_with_a_long_name.after_optimizations"
    return row | {
        "file": f"{long_name}.txt",
        "instruction": f"fusion.{number}",
        "opcode": "fusion",
        "operand": 0,
        "operand_name": f"param_0.{number}",
        "elements": exact * 4,
        "distinct_read": exact,
        "xla_heuristic_elements": heuristic,
    }


@pytest.fixture
def tables(tmp_path: Path) -> Path:
    modules = [module_row(k, *m) for k, m in enumerate(MODULES)]
    # 60 operands, each XLA over-estimating by its own factor: every one
    # is a candidate for a label.
    operands = [operand_row(k, 2 + k % 7, (2 + k % 7) * (3 + k)) for k in range(60)]
    write_tables(tmp_path, modules, operands)
    return tmp_path


def test_labels_collide_with_nothing(tables: Path) -> None:
    figure = corpus_figure(tables, labels=60)
    try:
        left, names, right = figure.axes
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        labels = [child for child in names.get_children() if isinstance(child, Annotation)]
        assert len(labels) >= 20  # as many as fit, not none
        # The text of each (an annotation's own extent takes in its leader,
        # and places the text first).
        for label in labels:
            label.get_window_extent(renderer)
        boxes = [Text.get_window_extent(label) for label in labels]
        for a, b in itertools.combinations(boxes, 2):
            assert not a.overlaps(b)
        # Nor a point, the legend, the other panel or the title.
        others = [
            left.get_tightbbox(renderer),
            right.get_tightbbox(renderer),
            figure.texts[0].get_window_extent(renderer),
        ]
        for box, other in itertools.product(boxes, others):
            assert other is not None and not box.overlaps(other)
        # Each leader ends at its point (not drawn where the name is).
        for label in labels:
            x, y = left.transData.transform(label.xy)
            assert left.get_window_extent(renderer).contains(x, y)
        assert all(label.get_text().count("…") == 1 for label in labels)  # long names shortened
    finally:
        plt.close(figure)


def test_the_timing_panel_shows_cpu_seconds(tables: Path) -> None:
    figure = corpus_figure(tables)
    try:
        _, _, right = figure.axes
        assert right.get_ylabel() == "CPU seconds of the analysis"
        drawn = {
            collection.get_label(): np.asarray(collection.get_offsets()).tolist()
            for collection in right.collections
        }
        assert drawn["ok (2)"] == [[10, 0.5], [1000, 4.0]]
        assert drawn["error (1)"] == [[1, 0.25]]
        # A timeout has no CPU time: a cross at its wall time, said so.
        assert drawn["timeout, wall seconds (at the limit) (1)"] == [[1, 300.0]]
    finally:
        plt.close(figure)


def test_svg_is_vector_with_its_text_as_text(tables: Path) -> None:
    svg = tables / "figure.svg"
    assert main(["plot", str(tables), "--output", str(svg)], io.StringIO()) == EXIT_OK
    text = svg.read_text()
    assert "<image" not in text and "<text" in text and "CPU seconds of the analysis" in text


@pytest.mark.slow  # embedding the fonts: about 1 CPU-s
def test_pdf_is_vector_with_truetype_fonts(tables: Path) -> None:
    pdf = tables / "figure.pdf"
    assert main(["plot", str(tables), "--output", str(pdf)], io.StringIO()) == EXIT_OK
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and b"/Subtype /Image" not in data and b"/Type3" not in data
    assert b"/TrueType" in data or b"/CIDFontType2" in data


def test_a_png_is_still_a_png_and_an_unknown_format_is_refused(
    tables: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tables / "figure.png"
    assert main(["plot", str(tables), "--output", str(png)], io.StringIO()) == EXIT_OK
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = tables / "figure.docx"
    assert main(["plot", str(tables), "--output", str(bad)], io.StringIO()) == EXIT_BAD_INPUT
    assert "no image format 'docx'" in capsys.readouterr().err
    assert not bad.exists()


def test_a_symlink_at_the_image_path_is_refused(tables: Path) -> None:
    target = tables / "precious"
    target.write_text("keep")
    link = tables / "figure.pdf"
    link.symlink_to(target)
    assert main(["plot", str(tables), "--output", str(link)], io.StringIO()) == EXIT_BAD_INPUT
    assert target.read_text() == "keep" and os.path.islink(link)


def test_the_coalescing_panel_draws_every_counted_operand_in_its_verdicts_row(
    tmp_path: Path,
) -> None:
    modules = [module_row(k, *m) for k, m in enumerate(MODULES)]
    # (xla_coalesced, coalesced, min, mean, max): XLA's sample misses two.
    verdicts = [(True, True, 4, 4.0, 4)] * 3 + [(True, False, 4, 4.5, 5)] * 2
    verdicts += [(False, False, 32, 32.0, 32)]
    operands = [operand_row(k, 10, 10.0) for k in range(len(verdicts) + 1)]
    for row, (xla, exact, low, mean, high) in zip(operands, verdicts, strict=False):
        row |= {"xla_coalesced": xla, "coalesced": exact, "ideal_sectors": 4}
        row |= {
            "sectors_per_request_min": low,
            "sectors_per_request_mean": mean,
            "sectors_per_request_max": high,
        }
    write_tables(tmp_path, modules, operands)  # the last operand has no counts
    figure = corpus_figure(tmp_path)
    try:
        panel = figure.axes[3]
        legend = panel.get_legend()
        assert legend is not None
        assert [t.get_text() for t in legend.get_texts()] == [
            "XLA coalesced, exact coalesced (3)",
            "XLA coalesced, exact uncoalesced (2)",
            "XLA uncoalesced, exact uncoalesced (1)",
        ]
        scattered = [c for c in panel.collections if isinstance(c, PathCollection)]
        points = np.concatenate([c.get_offsets() for c in scattered])
        assert sorted(round(x, 3) for x in points[:, 0]) == [1.0] * 3 + [1.125] * 2 + [8.0]
        # Each point in its verdict's row: XLA coalesced at y near 1, not near 0.
        assert sorted(round(y) for y in points[:, 1]) == [0, 1, 1, 1, 1, 1]
    finally:
        plt.close(figure)
    # Tables without the columns keep the two panels.
    write_tables(tmp_path, modules, [operand_row(0, 10, 10.0)])
    figure = corpus_figure(tmp_path)
    assert len(figure.axes) == 3
    plt.close(figure)
