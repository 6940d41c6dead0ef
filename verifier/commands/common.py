"""What every subcommand of `verifier` shares: the exit codes (the contract
in `verifier.cli`), the verdict each answer exits with, how an answer is
written (``--format`` text or JSON), the ``--cross-check`` option, batch
input, and progress lines on stderr.

>>> worst([EXIT_OK, EXIT_UNKNOWN, EXIT_REFUTED])
1
>>> batch_place("-", 3), batch_place("pairs.tsv", 3)
('<stdin>:3', 'pairs.tsv:3')
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias

from verifier.errors import VerifierError
from verifier.report.printable import printable

if TYPE_CHECKING:
    from verifier.checks.budget import Budget
    from verifier.gate.run import InputError


EXIT_OK, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_VACUOUS = 0, 1, 2, 3, 4
EXIT_INTERNAL_ERROR = 70
EXIT_OUT_OF_MEMORY = 71  # sysexits' EX_OSERR: the system could not give what the run needed

VERDICT_EXIT = {
    "equal": EXIT_OK,
    "proved": EXIT_OK,
    "different": EXIT_REFUTED,
    "refuted": EXIT_REFUTED,
    "unknown": EXIT_UNKNOWN,
    "vacuous": EXIT_VACUOUS,
}


def worst(codes: Sequence[int]) -> int:
    """The exit code of several answers: bad input, then refuted, unknown, vacuous."""
    for code in (EXIT_INTERNAL_ERROR, EXIT_BAD_INPUT, EXIT_REFUTED, EXIT_UNKNOWN, EXIT_VACUOUS):
        if code in codes:
            return code
    return EXIT_OK


def read_map_argument(value: str) -> str:
    """A map given inline, or ``@path`` to read it from a file (bytes that
    are not UTF-8 are kept as surrogate escapes: the parser points at them)."""
    if value.startswith("@"):
        from verifier.inputs import read_regular_file

        return read_regular_file(value[1:]).decode("utf-8", errors="surrogateescape")
    return value


def batch_lines(path: str) -> Iterator[tuple[int, str]]:
    # Decoded line by line with surrogate escapes, so that a line that is not
    # UTF-8 is that line's parse error and the other lines still get answers.
    from verifier.inputs import open_regular_file  # a FIFO is refused: '-' reads a pipe

    binary = sys.stdin.buffer if path == "-" else open_regular_file(path)
    stream = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape")
    with stream:
        for number, line in enumerate(stream, start=1):
            if line.strip() and not line.lstrip().startswith("#"):
                yield number, line.rstrip("\n")


def batch_place(path: str, number: int) -> str:
    """Where a batch line is: ``pairs.tsv:3`` (``<stdin>:3``)."""
    return f"{'<stdin>' if path == '-' else path}:{number}"


def batch_answer(line: str, fmt: str, as_text: Callable[[Any], str]) -> str:
    """A batch's answer (a JSON line) as `fmt` asks for it."""
    if fmt == "json":
        return line
    answer = json.loads(line)
    return printable(f"error: {answer['error']}" if "error" in answer else as_text(answer))


def solver_budget(args: argparse.Namespace, base: Budget | None = None) -> Budget:
    """The solver budgets (`base`, default the gate's) with the
    ``--cross-check`` policy of the command line."""
    from verifier.checks.budget import Budget, CrossCheck

    budget = base or Budget()
    if args.cross_check is None:
        return budget
    return dataclasses.replace(budget, cross_check=CrossCheck(args.cross_check))


def emit(answer: Any, fmt: str, as_text: Callable[[Any], str], out: TextIO) -> None:
    if fmt == "json":  # names exact (JSON's escapes); text is escaped for a terminal
        print(json.dumps(answer, indent=2, sort_keys=False), file=out)
    else:
        print(printable(as_text(answer)), file=out)


def cross_check_option(command: argparse.ArgumentParser) -> None:
    """``--cross-check``: the same option on every command that proves."""
    command.add_argument(
        "--cross-check",
        choices=("all", "refutations", "none"),
        default=None,
        help="which isl verdicts a second, independent witness confirms under a small "
        "budget: every one (z3 or enumeration; slow), refutations (default: each "
        "counterexample re-evaluated and the other map shown not to relate it), or none "
        "(isl alone; counterexamples are still re-evaluated in Python)",
    )


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What `add_subparsers` gives: each `_add_COMMAND` adds its subcommand to it."""


def command_parser(commands: Commands, name: str, help_text: str) -> argparse.ArgumentParser:
    """A subcommand whose answer is text or JSON (``--format``)."""
    sub = commands.add_parser(name, help=help_text, description=help_text)
    sub.add_argument(
        "--format",
        choices=("text", "json"),
        default=None,  # text; a --batch writes JSON lines unless told text
        help="output format (json is the canonical form; default: text, JSON lines for a --batch)",
    )
    return sub


def instructions_exit(errors: Sequence[InputError]) -> int:
    """The exit code of `maps` or `utilization` (every other instruction
    answered): internal error when a bug escaped at some instruction, bad
    input when some instruction is not valid HLO, else success."""
    if any(error.internal for error in errors):
        return EXIT_INTERNAL_ERROR
    return EXIT_BAD_INPUT if errors else EXIT_OK


class Progress:
    """Progress lines on a stream: per module, and per instruction — rewritten
    in place on a terminal (about every 1%), every 10% (at least 100
    instructions apart) in a log."""

    def __init__(self, stream: TextIO, files: int) -> None:
        self.stream = stream
        self.files = files
        self.in_place = stream.isatty()
        self.label = ""
        self.next_report = 0

    def start(self, number: int, path: Path) -> None:

        self.label = printable(f"[{number}/{self.files}] {path}")
        self.next_report = 0
        self._write(f"{self.label}: parsing")

    def instructions(self, done: int, total: int) -> None:
        if done >= self.next_report and done < total:
            step = max(1, total // 100) if self.in_place else max(100, total // 10)
            self.next_report = done + step
            self._write(f"{self.label}: {done}/{total} instructions")

    def finish(self, outcome: str) -> None:
        self._write(f"{self.label}: {outcome}")
        if self.in_place:
            print(file=self.stream, flush=True)

    def _write(self, text: str) -> None:
        if self.in_place:
            print(f"\r\033[K{text}", end="", file=self.stream, flush=True)
        else:
            print(text, file=self.stream, flush=True)


def needs_research_extra(command: str, error: ImportError) -> VerifierError:
    """The usage error of a command whose optional dependencies are missing."""
    from verifier.errors import UsageError

    return UsageError(
        f"verifier {command} needs the research extra ({error.name} is missing): "
        "pip install 'hlo-verifier[research]'"
    )
