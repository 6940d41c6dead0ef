"""``verifier simplify MAP``: a map simplified with the proven rules; with
``--prove`` the result is proved equal to the map as typed
(`verifier.checks.proven_simplification`); ``--batch FILE`` answers one map
per line as JSON lines."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from verifier.commands.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
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
    from verifier.simplify import SimplificationResult


def _simplify_answer(text: str, args: argparse.Namespace) -> dict[str, Any]:
    from verifier.expr import parse_map, print_map
    from verifier.simplify import SimplificationResult, simplify

    indexing_map = parse_map(text, "MAP")
    if args.no_simplify:
        result = SimplificationResult(indexing_map, indexing_map, (), (), 0)
    else:
        result = simplify(
            indexing_map,
            rescale_symbols=args.rescale_symbols,
            remove_unused_symbols=args.remove_unused_symbols,
        )
    answer: dict[str, Any] = {
        "input": print_map(indexing_map, one_line=True),
        "simplified": print_map(result.map, one_line=True),
        "rules": list(result.rules_applied),
    }
    if result.symbol_changes:
        answer["symbols"] = [
            {
                "symbol": change.symbol.name,
                "becomes": None if change.becomes is None else str(change.becomes),
            }
            for change in result.symbol_changes
        ]
    if args.prove:
        answer.update(_simplify_proof(text, result, solver_budget(args)))
    return answer


def _simplify_proof(text: str, result: SimplificationResult, budget: Budget) -> dict[str, Any]:
    """The verdict from the text as typed: typed = read (z3 on the parse
    tree), read = simplified (isl, with the second witness `budget` asks
    for); and what construction folded while reading."""
    from verifier.checks.proven_simplification import prove_from_typed, prove_simplification
    from verifier.expr import parse_typed_map

    typed = parse_typed_map(text, "MAP")
    if typed is None:  # nothing to read it from: the map as read
        return {"verdict": prove_simplification(result.input, result, budget).verdict.value}
    proof = prove_from_typed(typed, result, budget)
    answer: dict[str, Any] = {
        "construction": [
            {"typed": folding.typed, "read_as": folding.read_as} for folding in proof.foldings
        ]
    }
    if proof.witness:
        answer["typed_counterexample"] = dict(proof.witness)
    answer["verdict"] = proof.verdict.value
    return answer


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.report.simplify import simplify_text

    if args.batch:
        codes = []
        for number, line in batch_lines(args.batch):
            try:
                answer = _simplify_answer(line, args)
                codes.append(VERDICT_EXIT.get(answer.get("verdict", "equal"), EXIT_OK))
            except VerifierError as error:
                answer = {"error": f"{batch_place(args.batch, number)}: {error}"}
                codes.append(EXIT_BAD_INPUT)
            line = json.dumps(answer, sort_keys=True)
            print(batch_answer(line, args.format or "json", simplify_text), file=out)
        return worst(codes)
    if args.map is None:
        raise VerifierError("simplify needs MAP, or --batch FILE")
    answer = _simplify_answer(read_map_argument(args.map), args)
    emit(answer, args.format, simplify_text, out)
    return VERDICT_EXIT.get(answer.get("verdict", "equal"), EXIT_OK)


def add_parser(commands: Commands) -> None:
    simplify = command_parser(
        commands, "simplify", "simplify an indexing map with the proven rules"
    )
    simplify.add_argument("map", nargs="?", metavar="MAP", help="a map in XLA text form (or @FILE)")
    simplify.add_argument(
        "--prove",
        action="store_true",
        help="prove the result equal to the input (isl, with a second witness: --cross-check)",
    )
    simplify.add_argument(
        "--no-simplify",
        action="store_true",
        help="print the map as read (the canonical form construction gives)",
    )
    simplify.add_argument(
        "--rescale-symbols",
        action="store_true",
        help="also replace a symbol pinned to a lattice (s0 mod 4 in [2, 2]) by s0 * 4 + 2;"
        " the result is then equal as a relation, not pointwise",
    )
    simplify.add_argument(
        "--remove-unused-symbols",
        action="store_true",
        help="also remove symbols the relation does not depend on (renumbering the rest)",
    )
    simplify.add_argument(
        "--batch", metavar="FILE", help="one map per line ('-' for stdin); JSON lines out, in order"
    )
    cross_check_option(simplify)
    simplify.set_defaults(run=run)
