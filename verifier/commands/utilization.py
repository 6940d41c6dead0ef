"""``verifier utilization FILE.hlo``: exact elements read per operand
(`verifier.counting.utilization`) beside XLA's heuristic; with
``--coalescing`` each fusion operand's sectors per warp request."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from verifier.commands.common import (
    Commands,
    command_parser,
    emit,
    instructions_exit,
)
from verifier.device_names import DEFAULT_DEVICE, DEVICE_NAMES
from verifier.errors import VerifierError

if TYPE_CHECKING:
    from verifier.gate.run import InputError


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.counting.utilization import module_utilization
    from verifier.hlo import parse_module_file
    from verifier.report.instruction_errors import errors_json
    from verifier.report.utilization import module_json, render_text

    module = parse_module_file(args.file)
    instructions = None
    if args.instruction is not None:
        if not module.entry.has_instruction(args.instruction):
            raise VerifierError(
                f"{args.file}: no instruction '{args.instruction}' in the entry computation"
            )
        instructions = [module.entry.instruction(args.instruction)]
    from verifier.gate.files import collecting

    failed: list[InputError] = []
    maps = ModuleMaps(module)
    results = module_utilization(maps, instructions, on_error=collecting(failed))
    report = module_json(module.name, results) | errors_json(failed)
    if args.coalescing is not None:
        from verifier.coalescing.analysis import module_coalescing
        from verifier.coalescing.devices import device
        from verifier.report.coalescing import with_coalescing

        report = with_coalescing(report, module_coalescing(maps, None, device(args.coalescing)))
    emit(report, args.format, render_text, out)
    return instructions_exit(failed)


def add_parser(commands: Commands) -> None:
    utilization = command_parser(
        commands, "utilization", "exact elements read per operand, beside XLA's heuristic"
    )
    utilization.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    utilization.add_argument(
        "--instruction", metavar="NAME", help="one instruction of the entry (default: all)"
    )
    utilization.add_argument(
        "--coalescing",
        nargs="?",
        const=DEFAULT_DEVICE,
        choices=DEVICE_NAMES,
        help='add each fusion operand\'s exact sectors per warp request (JSON: "coalescing")',
    )
    utilization.set_defaults(run=run)
