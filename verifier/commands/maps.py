"""``verifier maps FILE.hlo``: the indexing maps of the entry ROOT (or
``--instruction NAME``, ``--all``; ``--to-parameters`` composes through the
whole entry computation), rendered by `verifier.report.maps`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from verifier.commands.common import (
    EXIT_OK,
    Commands,
    Progress,
    command_parser,
    emit,
    instructions_exit,
)
from verifier.errors import VerifierError

if TYPE_CHECKING:
    from verifier.gate.run import InputError


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.hlo import parse_module_file
    from verifier.report.instruction_errors import errors_json
    from verifier.report.maps import MapsOptions, module_json, render_text, to_parameters_json

    show = args.to_parameters and (sys.stderr.isatty() if args.progress is None else args.progress)
    progress = Progress(sys.stderr, 1) if show else None
    if progress is not None:  # a module of 100,000 instructions composes for minutes
        progress.start(1, Path(args.file))
    module = parse_module_file(args.file)
    entry = module.entry
    maps = ModuleMaps(module)
    options = MapsOptions(args.direction, simplified=not args.no_simplify)
    if args.to_parameters:
        if args.instruction is not None or args.all or args.direction == "i2o":
            raise VerifierError(
                "--to-parameters composes output→input maps of the entry ROOT; "
                "it does not combine with --instruction, --all or i2o"
            )
        report = to_parameters_json(maps, options, progress.instructions if progress else None)
        if progress is not None:
            progress.finish("composed")
        emit(report, args.format, render_text, out)
        return EXIT_OK
    if args.instruction is not None:
        if not entry.has_instruction(args.instruction):
            names = ", ".join(i.name for i in entry.instructions[:20])
            raise VerifierError(
                f"{args.file}: no instruction '{args.instruction}' in the entry computation "
                f"(it has: {names}{', …' if len(entry.instructions) > 20 else ''})"
            )
        instructions = [entry.instruction(args.instruction)]
    elif args.all:
        instructions = [i for i in entry.instructions if i.opcode != "parameter"]
    else:
        instructions = [entry.root]
    from verifier.gate.files import collecting

    failed: list[InputError] = []
    report = module_json(maps, instructions, options, on_error=collecting(failed))
    report |= errors_json(failed)
    emit(report, args.format, render_text, out)
    return instructions_exit(failed)


def add_parser(commands: Commands) -> None:
    maps = command_parser(
        commands, "maps", "indexing maps of HLO instructions (entry ROOT by default)"
    )
    maps.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    which = maps.add_mutually_exclusive_group()
    which.add_argument("--instruction", metavar="NAME", help="one instruction of the entry")
    which.add_argument("--all", action="store_true", help="every non-parameter instruction")
    maps.add_argument(
        "--direction",
        choices=("o2i", "i2o", "both"),
        default="both",
        help="output→input, input→output, or both (default)",
    )
    maps.add_argument("--no-simplify", action="store_true", help="print maps unsimplified")
    maps.add_argument(
        "--to-parameters",
        action="store_true",
        help="compose from the entry ROOT through the whole entry computation "
        "(fusions included) to each entry parameter",
    )
    maps.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --to-parameters, instructions composed so far on stderr "
        "(default: when stderr is a terminal)",
    )
    maps.set_defaults(run=run)
