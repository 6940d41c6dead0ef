"""`verifier plot`: the two figures of a corpus's tables, as one PNG
(matplotlib, the ``research`` extra).

* **left** — every operand of the operand table at its exact distinct
  elements read per execution (x) and XLA's cost-model estimate (y), log-log:
  on the diagonal XLA is right, above it over-estimates, below it
  under-estimates.  Operands whose count depends on run-time values are
  hollow markers at their exact maximum; the `labels` operands farthest
  from the diagonal are named (``file stem / instruction / operand``);
  operands with no exact count, or a zero one (no point on a log axis),
  are counted in the legend, not drawn;
* **right** — the wall seconds each module took against its number of
  instructions, coloured by status (timeouts at the timeout).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path, PurePath

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from verifier.corpus.rows import Row
from verifier.corpus.tables import read_rows
from verifier.errors import UsageError

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


def plot_corpus(directory: Path, output: Path, labels: int = 6) -> None:
    """Write the figure of the tables in `directory` to `output`."""
    modules, operands = read_rows(directory)
    if not modules:
        raise UsageError(f"{directory}: no corpus tables here (run verifier corpus first)")
    figure, (left, right) = plt.subplots(1, 2, figsize=(13.0, 6.0))
    _utilization(left, operands, labels)
    _timing(right, modules)
    figure.suptitle(f"{len(modules)} modules, {len(operands)} operands: {directory}")
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    plt.close(figure)


def _name(row: Row) -> str:
    return f"{PurePath(row['file']).stem}/{row['instruction']}/{row['operand_name']}"


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


def _utilization(axes: Axes, operands: list[Row], labels: int) -> None:
    points, no_count, zero = _points(operands)
    if not points:
        axes.text(0.5, 0.5, "no operand with an exact count", ha="center", va="center")
        return
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
    # The labels in a column at the top left (empty: far above the diagonal),
    # in the order of their points' heights, so the leaders do not cross.
    labelled = sorted(_largest_disagreements(points, labels), key=lambda c: -c[0].heuristic)
    for number, (point, others) in enumerate(labelled):
        axes.annotate(
            point.name + (f" (+{others} more)" if others else ""),
            (point.exact, point.heuristic),
            xytext=(0.03, 0.96 - 0.05 * number),
            textcoords="axes fraction",
            va="top",
            fontsize=7,
            arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.5},
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


def _timing(axes: Axes, modules: list[Row]) -> None:
    for status, colour in STATUS_COLOURS.items():
        chosen = [m for m in modules if m["status"] == status and m["instructions"]]
        if status != "ok":
            # A failed module has no instruction count: drawn at 1.
            chosen = [m for m in modules if m["status"] == status]
        if chosen:
            axes.scatter(
                [m["instructions"] or 1 for m in chosen],
                [max(m["seconds"], 1e-3) for m in chosen],
                color=colour,
                s=18,
                alpha=0.7,
                label=f"{status} ({len(chosen)})",
            )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("instructions (every computation; 1 when not parsed)")
    axes.set_ylabel("wall seconds")
    axes.set_title("Time per module against its size")
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, which="major", linewidth=0.3)
