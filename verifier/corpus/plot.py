"""`verifier plot`: the two figures of a corpus's tables, as one image
(matplotlib, the ``research`` extra) fit for a paper: vector PDF or SVG
when the output is ``.pdf`` or ``.svg`` (fonts embedded as TrueType — no
Type 3 fonts, which publishers reject — and SVG text kept as text), else
a PNG at 200 dpi; written whole or not at all (`verifier.outputs`).

* **left** — every operand of the operand table at its exact distinct
  elements read per execution (x) and XLA's cost-model estimate (y), log-log:
  on the diagonal XLA is right, above it over-estimates, below it
  under-estimates.  Operands whose count depends on run-time values are
  hollow markers at their exact maximum; the `labels` operands farthest
  from the diagonal are named (``file stem / instruction / operand``, long
  names shortened in the middle) in a column of their own beside the
  panel, one line of text apart, so that a name covers no point, no other
  name and no legend;
  operands with no exact count, or a zero one (no point on a log axis),
  are counted in the legend, not drawn;
* **right** — the CPU seconds each module's analysis took (its process's,
  not the wall time a loaded machine stretches) against its number of
  instructions, coloured by status; a timeout has no CPU time (its process
  was killed) and is a cross at its wall time, the timeout; rows of tables
  written before CPU time was recorded are hollow, at their wall time;
* **coalescing** (a third panel, when the tables have the coalescing
  columns: ``verifier corpus --coalescing DEVICE``) — every fusion operand
  with exact counts at its mean sectors per warp request over the ideal
  (x, log; a bar from the minimum to the maximum), in the row of XLA's
  first-warp verdict (y: coalesced or not, spread within the row), coloured
  by the exact verdict: a red point in XLA's "coalesced" row is a request
  XLA's sample misses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from verifier.corpus.rows import Row
from verifier.corpus.tables import read_rows
from verifier.errors import UsageError
from verifier.outputs import check_output_target, replacing

STATUS_COLOURS = {"ok": "tab:green", "error": "tab:red", "timeout": "tab:orange"}


@dataclass(frozen=True)
class _Point:
    exact: float
    heuristic: float
    name: str
    runtime_dependent: bool

    @property
    def disagreement(self) -> float:
        return abs(math.log(self.heuristic / self.exact))


_PAPER_STYLE: dict[Any, Any] = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none"}
_LABEL_POINTS = 7  # the font size of a label
_LABEL_CHARACTERS = 48  # a longer name is shortened in the middle


def plot_corpus(directory: Path, output: Path, labels: int = 6) -> None:
    """Write the figure of the tables in `directory` to `output` (its
    format from its suffix: ``.pdf`` and ``.svg`` are vector)."""
    image_format = output.suffix.lower().removeprefix(".") or "png"
    formats = Figure().canvas.get_supported_filetypes()
    if image_format not in formats:
        raise UsageError(f"{output}: no image format '{image_format}' ({', '.join(formats)})")
    check_output_target(output)  # before the work
    with plt.rc_context(_PAPER_STYLE):
        figure = corpus_figure(directory, labels)
        try:
            with replacing(output) as stream:
                figure.savefig(stream, format=image_format, dpi=200)
        finally:
            plt.close(figure)


def corpus_figure(directory: Path, labels: int = 6) -> Figure:
    """The figure of the tables in `directory` (close it with ``plt.close``)."""
    modules, operands = read_rows(directory)
    if not modules:
        raise UsageError(f"{directory}: no corpus tables here (run verifier corpus first)")
    coalescing = [r for r in operands if r.get("sectors_per_request_max") is not None]
    # Between the panels, a column of its own for the labels' names.
    ratios = [5.0, 2.6, 5.0] + ([5.0] if coalescing else [])
    figure, panels = plt.subplots(
        1,
        len(ratios),
        figsize=(16.0 + 5.5 * bool(coalescing), 6.0),
        gridspec_kw={"width_ratios": ratios},
    )
    left, names, right = panels[:3]
    names.set_axis_off()
    chosen = _utilization(left, operands, labels)
    _timing(right, modules)
    if coalescing:
        _coalescing(panels[3], coalescing)
    figure.suptitle(f"{len(modules)} modules, {len(operands)} operands: {directory}")
    figure.tight_layout()  # the axes' final places, which the labels are fitted to
    _label(left, names, chosen)
    return figure


def _name(row: Row) -> str:
    return f"{PurePath(row['file']).stem}/{row['instruction']}/{row['operand_name']}"


def _shortened(text: str) -> str:
    """`text`, its middle elided when it is longer than a label may be.

    >>> _shortened("module_0006.jit_train_step.after_optimizations/fusion.123/param_0.7")
    'module_0006.jit_train_s…ons/fusion.123/param_0.7'
    """
    if len(text) <= _LABEL_CHARACTERS:
        return text
    half = (_LABEL_CHARACTERS - 1) // 2
    return text[:half] + "…" + text[len(text) - (_LABEL_CHARACTERS - 1 - half) :]


def _points(operands: list[Row]) -> tuple[list[_Point], int, int]:
    """The drawable points, and the numbers of operands without an exact
    count and with a zero count."""
    points, no_count, zero = [], 0, 0
    for row in operands:
        exact, dependent = row["distinct_read"], False
        if exact is None and row["distinct_read_max"] is not None:
            exact, dependent = row["distinct_read_max"], True
        if exact is None:
            no_count += 1
        elif exact == 0 or row["xla_heuristic_elements"] <= 0:
            zero += 1
        else:
            points.append(_Point(exact, row["xla_heuristic_elements"], _name(row), dependent))
    return points, no_count, zero


def _largest_disagreements(points: list[_Point], count: int) -> list[tuple[_Point, int]]:
    """The `count` places off the diagonal farthest from it, each with the
    first operand there by name and how many others share the place."""
    places: dict[tuple[float, float], list[_Point]] = {}
    for point in sorted(points, key=lambda p: p.name):
        if point.disagreement > 0:
            places.setdefault((point.exact, point.heuristic), []).append(point)
    ranked = sorted(places.values(), key=lambda group: -group[0].disagreement)
    return [(group[0], len(group) - 1) for group in ranked[:count]]


def _utilization(axes: Axes, operands: list[Row], labels: int) -> list[tuple[_Point, int]]:
    """Draw the operands; the points to label (`_label`, once the figure's
    layout is final)."""
    points, no_count, zero = _points(operands)
    if not points:
        axes.text(0.5, 0.5, "no operand with an exact count", ha="center", va="center")
        return []
    values = [v for p in points for v in (p.exact, p.heuristic)]
    low, high = min(values) / 2, max(values) * 2
    axes.plot([low, high], [low, high], color="grey", linewidth=0.8, label="XLA = exact")
    exact = [p for p in points if not p.runtime_dependent]
    groups = (
        ("XLA equal", "tab:green", [p for p in exact if p.heuristic == p.exact]),
        ("XLA over", "tab:red", [p for p in exact if p.heuristic > p.exact]),
        ("XLA under", "tab:blue", [p for p in exact if p.heuristic < p.exact]),
    )
    for label, colour, chosen in groups:
        axes.scatter(
            [p.exact for p in chosen],
            [p.heuristic for p in chosen],
            color=colour,
            s=18,
            alpha=0.6,
            label=f"{label} ({len(chosen)})",
        )
    dependent = [p for p in points if p.runtime_dependent]
    if dependent:
        axes.scatter(
            [p.exact for p in dependent],
            [p.heuristic for p in dependent],
            facecolors="none",
            edgecolors="black",
            s=36,
            label=f"run-time dependent, at the exact maximum ({len(dependent)})",
        )
    if no_count or zero:
        axes.plot([], [], " ", label=f"not drawn: {no_count} without an exact count, {zero} zero")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_xlabel("exact distinct elements read per execution")
    axes.set_ylabel("XLA heuristic (elements)")
    axes.set_title("Operand utilization: exact against XLA's heuristic")
    axes.legend(loc="lower right", fontsize=8)
    axes.grid(True, which="major", linewidth=0.3)
    return _largest_disagreements(points, labels)


def _label(axes: Axes, names: Axes, chosen: list[tuple[_Point, int]]) -> None:
    """Name the `chosen` points of `axes` in the column `names` beside it,
    top down in the order of their points' heights, so the leaders do not
    cross; one line of text apart, as many as the column holds (the
    largest disagreements first)."""
    renderer = names.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    box = names.get_window_extent(renderer)
    line = 1.5 * _LABEL_POINTS * names.figure.dpi / 72 / box.height  # column fraction
    fitting = max(0, math.floor(1.0 / line))
    labelled = sorted(chosen[:fitting], key=lambda c: -c[0].heuristic)
    for number, (point, others) in enumerate(labelled):
        names.annotate(
            _shortened(point.name) + (f" (+{others} more)" if others else ""),
            (point.exact, point.heuristic),
            xycoords=axes.transData,
            xytext=(0.02, 1.0 - line * number),
            textcoords="axes fraction",
            va="top",
            fontsize=_LABEL_POINTS,
            annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.5},
        )


def _timing(axes: Axes, modules: list[Row]) -> None:
    for status, colour in STATUS_COLOURS.items():
        chosen = [m for m in modules if m["status"] == status and m["instructions"]]
        if status != "ok":
            # A failed module has no instruction count: drawn at 1.
            chosen = [m for m in modules if m["status"] == status]
        timed = [m for m in chosen if m.get("cpu_seconds") is not None]
        if timed:
            axes.scatter(
                [m["instructions"] or 1 for m in timed],
                [max(m["cpu_seconds"], 1e-3) for m in timed],
                color=colour,
                s=18,
                alpha=0.7,
                label=f"{status} ({len(timed)})",
            )
        untimed = [m for m in chosen if m.get("cpu_seconds") is None]
        if untimed:
            killed = status == "timeout"
            axes.scatter(
                [m["instructions"] or 1 for m in untimed],
                [max(m["seconds"], 1e-3) for m in untimed],
                marker="x" if killed else "o",
                facecolors=colour if killed else "none",
                edgecolors=None if killed else colour,
                s=24,
                label=f"{status}, wall seconds ({'at the limit' if killed else 'no CPU time'}) "
                f"({len(untimed)})",
            )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("instructions (every computation; 1 when not parsed)")
    axes.set_ylabel("CPU seconds of the analysis")
    axes.set_title("Time per module against its size")
    axes.legend(loc="best", fontsize=8)
    axes.grid(True, which="major", linewidth=0.3)


def _coalescing(axes: Axes, operands: list[Row]) -> None:
    """Exact sectors per request (over the ideal) against XLA's verdict."""
    rows: dict[bool | None, list[Row]] = {True: [], False: [], None: []}
    for row in operands:
        rows[row["xla_coalesced"]].append(row)
    levels = {True: 1.0, False: 0.0, None: -1.0}
    for verdict, chosen in rows.items():
        for exact, colour in ((True, "tab:green"), (False, "tab:red")):
            drawn = [r for r in chosen if r["coalesced"] is exact]
            if not drawn:
                continue
            ideal = [r["ideal_sectors"] for r in drawn]
            # Spread within the row (golden-ratio steps: no two points alike).
            ys = [levels[verdict] + ((k * 0.618) % 1.0 - 0.5) * 0.5 for k in range(len(drawn))]
            xs = [r["sectors_per_request_mean"] / i for r, i in zip(drawn, ideal, strict=True)]
            axes.hlines(
                ys,
                [r["sectors_per_request_min"] / i for r, i in zip(drawn, ideal, strict=True)],
                [r["sectors_per_request_max"] / i for r, i in zip(drawn, ideal, strict=True)],
                color=colour,
                linewidth=0.6,
                alpha=0.5,
            )
            axes.scatter(
                xs,
                ys,
                color=colour,
                s=18,
                alpha=0.7,
                label=f"XLA {_VERDICTS[verdict]}, exact {_VERDICTS[exact]} ({len(drawn)})",
            )
    axes.set_xscale("log")
    axes.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axes.xaxis.set_minor_formatter(NullFormatter())
    axes.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    axes.set_yticks([1.0, 0.0, -1.0], ["XLA coalesced", "XLA uncoalesced", "XLA: no verdict"])
    axes.set_ylim(-1.5, 1.5)
    axes.set_xlabel("exact sectors per warp request / ideal (mean; bar: min to max)")
    axes.set_title("Coalescing: XLA's first warp against every warp")
    axes.legend(loc="best", fontsize=8)
    axes.grid(True, which="major", axis="x", linewidth=0.3)


_VERDICTS = {True: "coalesced", False: "uncoalesced", None: "unknown"}
