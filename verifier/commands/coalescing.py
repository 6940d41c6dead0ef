"""``verifier coalescing FILE.hlo``: exact 32-byte sectors per warp request
of each fusion of the entry (`verifier.coalescing`), beside XLA's verdicts."""

from __future__ import annotations

import argparse
from typing import TextIO

from verifier.commands.common import (
    EXIT_OK,
    Commands,
    command_parser,
    emit,
)
from verifier.device_names import DEFAULT_DEVICE, DEVICE_NAMES


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.coalescing.analysis import module_coalescing
    from verifier.coalescing.devices import device
    from verifier.hlo import parse_module_file
    from verifier.report.coalescing import module_json, render_text

    module = parse_module_file(args.file)
    answers = module_coalescing(ModuleMaps(module), args.instruction, device(args.device))
    report = module_json(module.name, answers, single=args.instruction is not None)
    emit(report, args.format, render_text, out)
    return EXIT_OK


def add_parser(commands: Commands) -> None:
    coalescing = command_parser(
        commands,
        "coalescing",
        "exact 32-byte sectors per warp request of a fusion, beside XLA's verdicts",
    )
    coalescing.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    coalescing.add_argument(
        "--instruction", metavar="NAME", help="one fusion of the entry (default: every fusion)"
    )
    coalescing.add_argument(
        "--device", choices=DEVICE_NAMES, default=DEFAULT_DEVICE, help="the GPU"
    )
    coalescing.set_defaults(run=run)
