"""The `verifier` command line: the entry point, the parser of every
subcommand (`verifier.commands`, one module each) and the one handling of
errors and exit codes.  With `verifier.commands` it is the only code that
prints; only here does the process exit.

Exit codes (a contract):

====  ==================================================================
0     success: maps computed, all checks proved, maps equal
1     a check refuted (with a witness), maps different
2     bad input or usage (with ``--batch``: any bad line)
3     unknown: a solver budget was exhausted, nothing refuted
4     vacuous: the question was about an empty domain
70    internal error: a bug in verifier (never a verdict), with the file
      and instruction it escaped from
71    out of memory (never a verdict), with the memory limit it hit
====  ==================================================================
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from verifier.commands import COMMANDS
from verifier.commands.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    EXIT_OUT_OF_MEMORY,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    EXIT_VACUOUS,
)
from verifier.errors import SolverError, VerifierError
from verifier.memory import memory_limits
from verifier.report.printable import printable

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INTERNAL_ERROR",
    "EXIT_OK",
    "EXIT_OUT_OF_MEMORY",
    "EXIT_REFUTED",
    "EXIT_UNKNOWN",
    "EXIT_VACUOUS",
    "build_parser",
    "command",
    "main",
]


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked for
    (it lives in the gate, whose imports would otherwise be every command's
    start-up cost)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        from verifier.gate.run import DISTRIBUTION, tool_version

        print(f"verifier {tool_version()} ({DISTRIBUTION})")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command: the program's options, then each
    subcommand added by its module (`verifier.commands`)."""
    parser = argparse.ArgumentParser(
        prog="verifier",
        description=(
            "Provable indexing analysis for XLA HLO: which input elements each output "
            "element reads, with every claim about those maps proved (isl and z3)."
        ),
        epilog="exit codes: 0 ok/equal/proved, 1 refuted/different, 2 bad input, "
        "3 unknown (solver budget exhausted), 4 vacuous (empty domain), 70 a bug, 71 out of memory",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for each in COMMANDS:
        each.add_parser(commands)
    return parser


_YOUNG_GENERATION = 100_000
"""Allocations between two collections of the youngest generation (Python's
default: 700).  A run builds hundreds of thousands of long-lived values
(instructions, maps, findings) and almost no cycles: at the default, the
collector walks them again and again, a sixth of a cold check of a
13,000-instruction module."""


def _subject(args: argparse.Namespace) -> str:
    """`` while reading FILE`` (or the paths) of a run, for its last words."""
    subject = getattr(args, "file", None) or " ".join(getattr(args, "paths", []))
    return f" while reading {subject}" if subject else ""


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    gc.set_threshold(_YOUNG_GENERATION)
    stream = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_BAD_INPUT if exit_.code else EXIT_OK
    try:
        code: int = args.run(args, stream)
        return code
    except BrokenPipeError:
        # The reader went away (`verifier ... | head`): not an error of ours.
        # Point stdout at /dev/null so the interpreter's final flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except SolverError as error:  # the solvers contradict each other: a bug
        print(f"verifier: internal error: {printable(str(error))}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    except (VerifierError, OSError) as error:
        print(f"verifier: error: {printable(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:  # not a bug, not the input's fault: said below
        pass
    except Exception as error:  # a bug: say so, with what was being read
        where = _subject(args)
        message = f"internal error{where}: {type(error).__name__}: {error}"
        print(
            f"verifier: {printable(message)} (a bug in verifier; please report it with the input)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR
    # Out of memory: the error and the frames it held (the run's data) are
    # released once its handler is left, so saying which limit was hit has
    # memory to work with.
    gc.collect()
    print(
        printable(f"verifier: out of memory{_subject(args)}: {memory_limits()}"),
        "(raise the limit, or give fewer modules or --jobs)",
        file=sys.stderr,
    )
    return EXIT_OUT_OF_MEMORY


def command() -> None:
    """The ``verifier`` command (and ``python -m verifier``): `main` on the
    process's arguments, then exit with its code.  What the run kept alive
    is frozen first, so the collections the interpreter makes as it shuts
    down skip it (they would walk every map and isl object the run cached:
    a third of the CPU time of ``equiv --batch`` on 2,000 pairs in one
    process); it is still released as the interpreter tears down."""
    code = main()
    gc.freeze()
    raise SystemExit(code)
