"""``verifier tile FILE.hlo [--sizes N,...]``: the tile each operand reads
for a tile of the output, proved (`verifier.tiling`), rendered by
`verifier.report.tiling`."""

from __future__ import annotations

import argparse
from typing import TextIO

from verifier.commands.common import (
    EXIT_OK,
    Commands,
    command_parser,
    emit,
)
from verifier.errors import VerifierError


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.hlo import parse_module_file
    from verifier.report.tiling import render_text, tiling_json
    from verifier.tiling import parse_sizes, tile_instruction

    module = parse_module_file(args.file)
    entry = module.entry
    if args.instruction is not None and not entry.has_instruction(args.instruction):
        raise VerifierError(
            f"{args.file}: no instruction '{args.instruction}' in the entry computation"
        )
    instruction = entry.root if args.instruction is None else entry.instruction(args.instruction)
    sizes = None if args.sizes is None else parse_sizes(args.sizes)
    result = tile_instruction(ModuleMaps(module).instruction(entry, instruction), sizes)
    emit(tiling_json(module.name, result), args.format, render_text, out)
    return EXIT_OK


def add_parser(commands: Commands) -> None:
    tile = command_parser(
        commands, "tile", "the tile each operand reads for a tile of the output, proved (isl)"
    )
    tile.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    tile.add_argument(
        "--instruction", metavar="NAME", help="one instruction of the entry (default ROOT)"
    )
    tile.add_argument(
        "--sizes",
        metavar="N,N,...",
        help="output tile sizes (default: prove over the tiling space, powers of two up to each dim)",
    )
    tile.set_defaults(run=run)
