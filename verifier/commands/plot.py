"""``verifier plot DIR --output FILE``: figures of the tables ``verifier
corpus`` wrote (`verifier.corpus.plot`; the research extra)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from verifier.commands.common import (
    EXIT_OK,
    Commands,
    needs_research_extra,
)


def run(args: argparse.Namespace, out: TextIO) -> int:

    try:
        from verifier.corpus.plot import plot_corpus
    except ImportError as error:
        raise needs_research_extra("plot", error) from None
    plot_corpus(Path(args.directory), Path(args.output), args.labels)
    print(f"wrote {args.output}", file=out)
    return EXIT_OK


def add_parser(commands: Commands) -> None:
    plot = commands.add_parser(
        "plot",
        help="figures of a corpus's tables: exact utilization against XLA's heuristic, time per module",
        description="Two panels from the tables `verifier corpus` wrote: every operand's exact "
        "distinct elements read against XLA's heuristic (log-log; the largest disagreements "
        "labelled), and the CPU seconds each module's analysis took against its size; with "
        "the coalescing columns (corpus --coalescing) a third: each fusion operand's exact "
        "sectors per warp request against XLA's first-warp verdict.",
    )
    plot.add_argument("directory", metavar="DIR", help="the output directory of verifier corpus")
    plot.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="the image to write: .pdf or .svg (vector, fonts embedded), or .png (200 dpi)",
    )
    plot.add_argument(
        "--labels", type=int, default=6, metavar="N", help="label the N largest disagreements"
    )
    plot.set_defaults(run=run)
