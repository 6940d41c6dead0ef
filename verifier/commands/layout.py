"""``verifier layout SHAPE``: where each element of a shape with its layout
sits in its buffer, and the buffer's size (`verifier.report.layout`)."""

from __future__ import annotations

import argparse
from typing import TextIO

from verifier.commands.common import (
    EXIT_OK,
    Commands,
    command_parser,
    emit,
)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.expr import IndexingMap
    from verifier.report.layout import layout_json, render_text
    from verifier.simplify import simplify

    def transform(m: IndexingMap) -> IndexingMap:
        return simplify(m).map

    report = layout_json(args.shape, None if args.no_simplify else transform)
    emit(report, args.format, render_text, out)
    return EXIT_OK


def add_parser(commands: Commands) -> None:
    layout = command_parser(
        commands,
        "layout",
        "where each element of a shape sits in its buffer, and the buffer's size",
    )
    layout.add_argument(
        "shape", metavar="SHAPE", help="a shape with its layout, e.g. 'f32[3,5]{1,0:T(2,2)}'"
    )
    layout.add_argument("--no-simplify", action="store_true", help="print the maps unsimplified")
    layout.set_defaults(run=run)
