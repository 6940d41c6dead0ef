"""``verifier xla-tests PATH...``: the indexing expectations of XLA's own C++
tests checked against verifier's maps (`verifier.xla_tests`); ``--git DIR``
walks their history."""

from __future__ import annotations

import argparse
from typing import TextIO

from verifier.commands.common import (
    EXIT_OK,
    EXIT_REFUTED,
    Commands,
    emit,
)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.errors import UsageError
    from verifier.report import xla_tests as report

    if args.git is not None:
        from verifier.xla_tests.history import DEFAULT_PATHS, history

        if args.format in ("sarif", "junit"):
            raise UsageError("--git reports as text or json")
        found = history(args.git, args.paths or DEFAULT_PATHS, args.since)
        answer = found.to_json() if args.format == "json" else found
        emit(answer, args.format, report.render_history_text, out)
        return EXIT_REFUTED if found.wrong else EXIT_OK
    if args.since is not None:
        raise UsageError("--since needs --git DIR")
    if not args.paths:
        raise UsageError("give the XLA test files or directories to read")
    from verifier.xla_tests.files import check_files

    run = check_files(args.paths)
    match args.format:
        case "json":
            emit(run.to_json(), "json", str, out)
        case "sarif":
            emit(report.sarif_log(run), "json", str, out)
        case "junit":
            out.write(report.junit_xml(run).decode() + "\n")
        case _:
            emit(run, "text", report.render_text, out)
    return EXIT_REFUTED if run.any_different else EXIT_OK


def add_parser(commands: Commands) -> None:
    xla_tests = commands.add_parser(
        "xla-tests",
        help="check the indexing expectations of XLA's own C++ tests against verifier's maps",
        description="Reads XLA's indexing tests (indexing_map_test.cc, indexing_analysis_test.cc, "
        "their older places and syntaxes) and checks every map expectation it recognises: "
        "equal, different (with a witness re-evaluated in Python) or not-comparable (with the "
        "reason), at the expectation's C++ line. Exit 1 if any is different.",
    )
    xla_tests.add_argument(
        "paths",
        nargs="*",
        metavar="FILE_OR_DIR",
        help="test files, or directories searched for *indexing*_test.cc and *tile*_test.cc "
        "(with --git: paths inside the repository; default: the two indexing tests, old and new places)",
    )
    xla_tests.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text")
    xla_tests.add_argument(
        "--git",
        metavar="DIR",
        help="walk the history of the files in this XLA git directory and list every "
        "expectation that was ever different, with the commits where it appeared and disappeared",
    )
    xla_tests.add_argument("--since", metavar="DATE", help="with --git: only commits since DATE")
    xla_tests.set_defaults(run=run)
