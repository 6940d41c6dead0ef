"""``verifier equiv MAP_A MAP_B``: two maps proved equal, or a
counterexample (`verifier.checks.equivalence`); ``--batch FILE`` checks one
tab-separated pair per line in worker processes and answers JSON lines in
input order."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from verifier.commands.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL_ERROR,
    VERDICT_EXIT,
    Commands,
    batch_answer,
    batch_lines,
    batch_place,
    command_parser,
    cross_check_option,
    emit,
    read_map_argument,
    solver_budget,
    worst,
)
from verifier.errors import VerifierError

if TYPE_CHECKING:
    from verifier.checks.budget import Budget
    from verifier.checks.equivalence import EquivalenceResult


def _equiv_answer(
    text_a: str, text_b: str, pointwise: bool, budget: Budget, minimal: bool
) -> dict[str, Any]:
    from verifier.checks.equivalence import check_equivalence
    from verifier.expr import parse_map

    result = check_equivalence(
        parse_map(text_a, "MAP_A"),
        parse_map(text_b, "MAP_B"),
        pointwise=pointwise,
        budget=budget,
        minimal=minimal,
    )
    answer: dict[str, Any] = result.to_json()
    return answer


def _equiv_line(result: EquivalenceResult) -> tuple[int, str]:
    """A batch answer's exit code and JSON line, made in the worker that
    checked the pair."""
    answer = result.to_json()
    return VERDICT_EXIT[str(answer["verdict"])], json.dumps(answer, sort_keys=True)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.checks.budget import EQUIV_BUDGET
    from verifier.errors import UsageError
    from verifier.report.equiv import equiv_text

    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give a positive number of worker processes")
    budget = solver_budget(args, EQUIV_BUDGET)
    if args.batch:
        from verifier.checks.equivalence import BatchFailure, check_equivalence_batch

        numbered = list(batch_lines(args.batch))
        fields = [line.split("\t") for _, line in numbered]
        # Well-formed lines go to the workers (every core) in one batch.
        answers = iter(
            check_equivalence_batch(
                [(f[0], f[1]) for f in fields if len(f) == 2],
                pointwise=args.pointwise,
                workers=args.jobs,
                budget=budget,
                minimal=args.minimal,
                render=_equiv_line,
            )
        )
        codes = []
        for (number, _), parts in zip(numbered, fields, strict=True):
            checked = (
                next(answers)
                if len(parts) == 2
                else BatchFailure(
                    f"expected two maps separated by a tab, got {len(parts)} field(s)"
                )
            )
            place = batch_place(args.batch, number)
            code, line = (
                (
                    EXIT_INTERNAL_ERROR if checked.internal else EXIT_BAD_INPUT,
                    json.dumps({"error": f"{place}: {checked.error}"}),
                )
                if isinstance(checked, BatchFailure)
                else checked
            )
            codes.append(code)
            print(batch_answer(line, args.format or "json", equiv_text), file=out)
        return worst(codes)
    if args.map_a is None or args.map_b is None:
        raise VerifierError("equiv needs MAP_A and MAP_B, or --batch FILE")
    answer = _equiv_answer(
        read_map_argument(args.map_a),
        read_map_argument(args.map_b),
        args.pointwise,
        budget,
        args.minimal,
    )
    emit(answer, args.format, equiv_text, out)
    return VERDICT_EXIT[answer["verdict"]]


def add_parser(commands: Commands) -> None:
    equiv = command_parser(
        commands, "equiv", "prove two indexing maps equal, or show a counterexample"
    )
    equiv.add_argument("map_a", nargs="?", metavar="MAP_A", help="a map (or @FILE)")
    equiv.add_argument("map_b", nargs="?", metavar="MAP_B", help="a map (or @FILE)")
    equiv.add_argument(
        "--pointwise",
        action="store_true",
        help="compare as functions of dims and symbols (same variables), "
        "not as relations with existential symbols",
    )
    equiv.add_argument(
        "--batch",
        metavar="FILE",
        help="one tab-separated pair per line ('-' for stdin); JSON lines out",
    )
    equiv.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        default=None,
        help="check a --batch in N worker processes (default: every core); "
        "the output is the same as with --jobs 1",
    )
    equiv.add_argument(
        "--minimal",
        action="store_true",
        help="a counterexample as small as a bounded search finds (sum of |dims|, then of "
        "|symbols|), not the first isl samples",
    )
    cross_check_option(equiv)
    equiv.set_defaults(run=run)
