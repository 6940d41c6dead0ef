"""``verifier prove-rules``: every simplifier rule's lemma proved by z3
(`proofs`); exit 1 if one is refuted, 3 if one is not decided."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from verifier.commands.common import (
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    Commands,
    command_parser,
)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from proofs.runner import prove_all_rules
    from verifier.report.prove_rules import prove_rules_text

    proofs = prove_all_rules()
    if args.format == "json":
        print(json.dumps([proof.to_json() for proof in proofs], indent=2), file=out)
    else:
        print(prove_rules_text(proofs), file=out)
    verdicts = {proof.verdict for proof in proofs}
    if "refuted" in verdicts:
        return EXIT_REFUTED
    return EXIT_OK if verdicts <= {"proved"} else EXIT_UNKNOWN


def add_parser(commands: Commands) -> None:
    prove = command_parser(commands, "prove-rules", "prove every simplifier rule's lemma (z3)")
    prove.set_defaults(run=run)
