"""Exact utilization against XLA's heuristic over every committed real dump.

For every operand of every instruction of every ``examples/real/*.hlo``: the
exact number of distinct elements one execution reads (x) and the number
XLA's cost model assumes (y), on log-log axes; points off the diagonal are
where the heuristic is wrong.  Operands whose exact count depends on runtime
values are drawn at their exact maximum (hollow markers); unknown ones are
counted, not drawn.  Prints a summary and writes the PNG.

    pip install -e '.[plot]'          # matplotlib
    python examples/utilization_plot.py [--output utilization.png]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import verifier
from verifier.counting.utilization import Span

REAL = Path(__file__).parent / "real"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="utilization.png", help="where the PNG goes")
    args = parser.parse_args()
    exact: list[tuple[float, float, str]] = []
    spans: list[tuple[float, float, str]] = []
    unknown: Counter[str] = Counter()
    for path in sorted(REAL.glob("*.hlo")):
        for row in verifier.load(path).utilization_rows():
            name = f"{path.stem}/{row['instruction']}/{row['operand_name']}"
            heuristic = float(row["xla_heuristic_elements"])
            if row["distinct_read"] is not None:
                exact.append((row["distinct_read"], heuristic, name))
            elif isinstance(row["per_execution"], Span):
                spans.append((row["per_execution"].maximum, heuristic, name))
            else:
                unknown[str(getattr(row["per_execution"], "reason", "?"))] += 1
    _summary(exact, spans, unknown)
    _plot(exact, spans, Path(args.output))


def _summary(
    exact: list[tuple[float, float, str]],
    spans: list[tuple[float, float, str]],
    unknown: Counter[str],
) -> None:
    agree = sum(1 for x, y, _ in exact if x == y)
    over = sorted(((y / x, n) for x, y, n in exact if x and y > x), reverse=True)
    under = sorted((y / x, n) for x, y, n in exact if x and y < x)
    print(f"operands with one exact count: {len(exact)}; XLA agrees on {agree}")
    print(f"XLA over-estimates {len(over)}, under-estimates {len(under)}")
    for ratio, name in over[:5]:
        print(f"  over  {ratio:8.3g}×  {name}")
    for ratio, name in under[:5]:
        print(f"  under {ratio:8.3g}×  {name}")
    print(f"runtime-dependent with an exact span: {len(spans)}")
    for reason, count in unknown.most_common():
        print(f"no exact count ({reason}): {count}")


def _plot(
    exact: list[tuple[float, float, str]], spans: list[tuple[float, float, str]], output: Path
) -> None:
    figure, axes = plt.subplots(figsize=(6.4, 6.0))
    values = [v for x, y, _ in exact + spans for v in (x, y) if v > 0]
    low, high = min(values) / 2, max(values) * 2
    axes.plot([low, high], [low, high], color="grey", linewidth=0.8, label="XLA = exact")
    groups = (
        ("XLA equal", "tab:green", lambda x, y: x == y),
        ("XLA over", "tab:red", lambda x, y: y > x),
        ("XLA under", "tab:blue", lambda x, y: y < x),
    )
    for label, colour, chosen in groups:
        points = [(x, y) for x, y, _ in exact if chosen(x, y)]
        axes.scatter(
            [x for x, _ in points],
            [y for _, y in points],
            color=colour,
            s=22,
            alpha=0.7,
            label=f"{label} ({len(points)} operands)",
        )
    if spans:
        axes.scatter(
            [x for x, _, _ in spans],
            [y for _, y, _ in spans],
            facecolors="none",
            edgecolors="black",
            s=40,
            label=f"runtime-dependent, at the exact maximum ({len(spans)})",
        )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_xlabel("exact distinct elements read per execution")
    axes.set_ylabel("XLA heuristic (elements)")
    axes.set_title("Operand utilization over examples/real/*.hlo")
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, which="major", linewidth=0.3)
    figure.tight_layout()
    figure.savefig(output, dpi=120)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
