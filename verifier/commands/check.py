"""``verifier check PATH...``: every check on every instruction of every
module under PATH, the CI gate (`verifier.gate`); its help text states the
exit codes and the proof cache."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from verifier.commands.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    EXIT_VACUOUS,
    Commands,
    Progress,
    cross_check_option,
    solver_budget,
)
from verifier.report.printable import printable

if TYPE_CHECKING:
    from verifier.gate.answers import FindingsPart
    from verifier.gate.replay import RunOutputs


_STATUS_EXIT = {
    "internal-error": EXIT_INTERNAL_ERROR,
    "ok": EXIT_OK,
    "refuted": EXIT_REFUTED,
    "bad-input": EXIT_BAD_INPUT,
    "unknown": EXIT_UNKNOWN,
    "vacuous": EXIT_VACUOUS,
}


_CHECK_HELP = """\
Run every check on every instruction of every HLO module under PATH (a
file, or a directory searched recursively, in sorted order, for *.hlo and for
the .txt files of an --xla_dump_to directory that hold a module; --glob
chooses other files) and print a summary: outcome counts per check, every
refuted finding with its file:line:column and witness, unknown ones,
unsupported ones grouped by reason. A file that cannot be read or parsed is
reported (file:line:column) and counted; the other modules are still
checked. An instruction that cannot be checked (invalid HLO, or a bug) is
reported at its line; the module's other instructions are still checked.

exit codes (the first that applies):
  70 internal error: a bug in verifier (reported with file and instruction)
  2  some file or instruction could not be read or parsed (or a usage error)
  1  some check was refuted; with --strict, also any unsupported finding
  3  unknown: a solver budget ran out, nothing refuted
  4  vacuous: nothing was proved and some question was about an empty domain
  0  everything else: unsupported findings (an op without an exact indexing
     rule) are warnings, counted in every report, unless --strict
Informational checks (overflow-int32: int64 indexing is correct, only slower)
are reported and never change the exit code.

--format json|junit|sarif writes the report in that form (JSON is canonical);
with --output FILE the report goes to FILE and the text summary to stdout.
Proofs are cached in an SQLite file (default $XDG_CACHE_HOME/verifier or
~/.cache/verifier), keyed by the question and the verifier, islpy and z3
versions, so a second run over unchanged modules skips the solvers. The cache
never decides: one that cannot be read or written is a warning on stderr and
the run goes on without it, with the same verdicts and exit code. Whoever can
write the cache decides verdicts (see the README): --cache-mode read uses a
cache written by a trusted run without writing to it.
Progress goes to stderr when it is a terminal (or with --progress).
"""


def _replay_check(outputs: RunOutputs, output: str | None, out: TextIO) -> None:
    """Print, and write to `output`, what the remembered run did."""
    out.write(outputs.stdout)
    if output is not None and outputs.report is not None:
        from verifier.outputs import write_text

        write_text(output, [outputs.report])


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.errors import UsageError
    from verifier.gate.answers import Findings
    from verifier.gate.catalog import INFORMATIONAL_CHECKS, select_checks
    from verifier.gate.files import (
        CacheSetting,
        default_jobs,
        file_findings,
        hlo_files,
        parallel_findings,
        shares_for,
    )
    from verifier.gate.replay import Recording, RunOutputs, run_key
    from verifier.gate.replay import recall as recall_run
    from verifier.gate.replay import remember as remember_run
    from verifier.gate.run import GateRun
    from verifier.gate.sqlite_cache import CacheMode, SqliteCache
    from verifier.report.gate_formats import report_chunks
    from verifier.report.gate_text import gate_text

    named = (
        None if args.checks is None else [n.strip() for n in args.checks.split(",") if n.strip()]
    )
    try:
        checks = select_checks(named)
    except UsageError as error:
        raise UsageError(f"--checks: {error}") from None
    if args.summary and args.format != "text" and not args.output:
        raise UsageError(
            f"--summary prints the text summary: write the --format {args.format} "
            "report with --output FILE"
        )
    if args.output:
        from verifier.outputs import check_output_target

        check_output_target(args.output)  # a report that cannot be written: before the work
    files, errors = hlo_files(args.paths, args.glob)
    show_progress = sys.stderr.isatty() if args.progress is None else args.progress
    progress = Progress(sys.stderr, len(files)) if show_progress else None
    jobs = default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise UsageError(f"--jobs {jobs}: give a positive number of worker processes")
    setting = CacheSetting(
        CacheMode(args.cache_mode), Path(args.cache_dir) if args.cache_dir else None
    )
    cache = setting.open()
    budget = solver_budget(args)
    problems: dict[str, None] = {}
    parallel = False
    try:
        # A run over unchanged modules with the same options prints what it
        # printed, without parsing a module (`verifier.gate.replay`).
        options = (args.format, args.summary, bool(args.output), args.strict, budget, *checks)
        key = None
        if not errors and setting.mode is not CacheMode.OFF:
            key = run_key(files, [repr(option) for option in options])
        outputs = None if key is None else recall_run(cache, key, len(files))
        if outputs is not None:
            for number, (path, count) in enumerate(zip(files, outputs.findings, strict=True), 1):
                if progress is not None:
                    progress.start(number, path)
                    progress.finish(f"{count} findings from the cache (unchanged)")
            _replay_check(outputs, args.output, out)
            return outputs.exit_code
        findings: list[FindingsPart] = []
        counts: list[int] = []
        parts = [shares_for(path, jobs) for path in files] if jobs > 1 else [1] * len(files)
        parallel = jobs > 1 and sum(parts) > 1
        if parallel:
            for (found, failed), worker_problems in parallel_findings(
                files, setting, budget, checks, jobs, parts, progress, cache
            ):
                problems.update(dict.fromkeys(worker_problems))
                findings.append(found)
                errors += failed
                counts.append(len(found))
        else:
            for number, path in enumerate(files, start=1):
                if progress is not None:
                    progress.start(number, path)
                last = number == len(files)
                found, failed = file_findings(path, cache, checks, budget, progress, last=last)
                findings.append(found)
                errors += failed
                counts.append(len(found))
        run = GateRun(
            tuple(str(f) for f in files),
            Findings(tuple(findings)),
            tuple(errors),
            args.strict,
            INFORMATIONAL_CHECKS,
        )
        printed, written = Recording(), Recording()
        if args.output or args.summary:
            # What is printed is the summary; the report, if any, goes to the file.
            out.writelines(printed.through([gate_text(run, listed=not args.summary), "\n"]))
        if args.output or not args.summary:
            report = itertools.chain(report_chunks(run, args.format), ["\n"])
            if args.output:
                from verifier.outputs import write_text  # whole or not at all, never through a link

                write_text(args.output, written.through(report))
            else:
                out.writelines(printed.through(report))
        report_text = written.text if args.output else None
        if (
            key is not None
            and run.status not in ("bad-input", "internal-error")
            and printed.text is not None
            and (report_text is not None or not args.output)
            # Not if a file changed while it was checked.
            and run_key(files, [repr(option) for option in options]) == key
        ):
            exit_code = _STATUS_EXIT[run.status]
            remember_run(
                cache, key, RunOutputs(exit_code, printed.text, report_text, tuple(counts))
            )
    finally:
        if isinstance(cache, SqliteCache):
            cache.close()
            problems.update(dict.fromkeys(cache.problems))
        # The cache never decides: what failed in it is a warning.
        for problem in problems:
            print(f"verifier: warning: {printable(problem)}", file=sys.stderr)
        if progress is not None and not parallel and isinstance(cache, SqliteCache):
            print(
                printable(f"proof cache: {cache.hits} hits, {cache.misses} misses ({cache.path})"),
                file=sys.stderr,
            )
    return _STATUS_EXIT[run.status]


def add_parser(commands: Commands) -> None:
    check = commands.add_parser(
        "check",
        help="every check on every module under PATH: the CI gate",
        description=_CHECK_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="an HLO module file or a directory")
    check.add_argument(
        "--glob",
        metavar="PATTERN",
        help="in directories, check the files matching PATTERN (e.g. '*after_optimizations.txt'); "
        "default: *.hlo and the .txt files that hold an HLO module",
    )
    check.add_argument(
        "--format",
        choices=("text", "json", "junit", "sarif"),
        default="text",
        help="report format (json is the canonical form; junit and sarif for CI services)",
    )
    check.add_argument("--output", metavar="FILE", help="write the report to FILE")
    check.add_argument(
        "--summary",
        action="store_true",
        help="print only the counts per check and the gate's line (for CI logs); "
        "the full report in --format goes to --output FILE",
    )
    check.add_argument(
        "--strict", action="store_true", help="unsupported findings fail the gate (exit 1)"
    )
    check.add_argument(
        "--checks",
        metavar="NAME,...",
        help="run only these checks (default: every check; "
        "an unknown name is an error that lists them)",
    )
    check.add_argument(
        "--cache-mode",
        choices=("read", "write", "off"),
        default="write",
        help="read: answer from the cache, never write it (an untrusted run); "
        "write: also add new answers (default); off: keep proofs in memory for this run only",
    )
    check.add_argument(
        "--no-cache",
        dest="cache_mode",
        action="store_const",
        const="off",
        help="the same as --cache-mode off",
    )
    check.add_argument("--cache-dir", metavar="DIR", help="where the proof cache lives (see above)")
    cross_check_option(check)
    check.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        default=None,
        help="check N modules at a time in worker processes (default: the cores "
        "no other process keeps busy), a large module in up to N shares; "
        "the report is the same as with --jobs 1",
    )
    check.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr (default: when stderr is a terminal)",
    )
    check.set_defaults(run=run)
