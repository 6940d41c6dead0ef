"""``verifier corpus PATH... --output DIR``: maps, checks and utilization of
every module into Parquet tables on Dask (`verifier.corpus`; the research
extra)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from verifier.commands.common import (
    EXIT_OK,
    Commands,
    needs_research_extra,
)
from verifier.device_names import DEVICE_NAMES

_CORPUS_HELP = """\
Analyse every HLO module under PATH (the files `check` reads) — its maps,
every check and the exact utilization of every operand — into two Parquet
tables in DIR:

  modules.parquet   one row per module file: file, sha256, verifier_version,
                    module, status (ok|error|timeout), seconds (wall),
                    cpu_seconds (null for a timeout), coalescing_device,
                    instructions, findings per outcome (proved ... vacuous),
                    error
  operands.parquet  one row per (file, instruction, operand): opcode, operand,
                    operand_name, elements, distinct_read (null when it
                    depends on run-time values; distinct_read_min/_max then
                    give the exact span), reads, utilization (float),
                    utilization_exact ("p/q"), xla_heuristic_elements,
                    undefined_reason; with --coalescing DEVICE, per fusion
                    operand: coalescing_emitter, sectors_per_request_min/
                    _mean/_max (exact, every warp request), ideal_sectors,
                    coalesced, xla_coalesced, xla_heuristic_coalesced,
                    coalescing_reason (why the counts are null)

The modules run on Dask: a local cluster of --jobs threads, each driving its
own analysis process, or the cluster of --scheduler tcp://host:8786 (the
workers need this package installed; the module texts are sent to them).
Each module has its own process and --timeout: a module that hangs or
crashes is a row with status timeout or error, never a stop. --resume keeps
the rows of modules whose file, content hash, verifier version and
--coalescing device already have rows in DIR. Rows are sorted: runs over the same files — local, on a
cluster, resumed — give the same tables except the `seconds` and
`cpu_seconds` columns, the only timings (leave them out when comparing).
Needs the research extra: pip install 'hlo-verifier[research]'.
"""


def run(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.errors import UsageError

    try:
        from tqdm import tqdm

        from verifier.corpus.run import CorpusOptions, run_corpus
    except ImportError as error:
        raise needs_research_extra("corpus", error) from None
    from verifier.gate.files import hlo_files

    files, errors = hlo_files(args.paths)
    if errors:
        raise UsageError("; ".join(str(e) for e in errors))
    if args.jobs < 1 or args.timeout <= 0:
        raise UsageError("--jobs must be at least 1 and --timeout positive")
    if args.coalescing is not None:
        from verifier.coalescing.devices import device

        device(args.coalescing)  # an unknown device is refused before any work
    options = CorpusOptions(
        Path(args.output), args.scheduler, args.jobs, args.resume, args.timeout, args.coalescing
    )
    show_progress = sys.stderr.isatty() if args.progress is None else args.progress
    bar = None

    def progress(total: int, row: dict[str, Any]) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="module", file=sys.stderr, disable=not show_progress)
        if row:
            bar.set_postfix_str(row["status"], refresh=False)
            bar.update()

    try:
        summary = run_corpus(files, options, progress)
    finally:
        if bar is not None:
            bar.close()
    statuses = ", ".join(f"{count} {status}" for status, count in summary.statuses.items())
    print(
        f"{len(files)} modules ({statuses or 'none'}): {summary.analysed} analysed, "
        f"{summary.resumed} kept from an earlier run; tables in {args.output}",
        file=out,
    )
    return EXIT_OK


def add_parser(commands: Commands) -> None:
    corpus = commands.add_parser(
        "corpus",
        help="maps, checks and utilization of every module under PATH into Parquet tables (Dask)",
        description=_CORPUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    corpus.add_argument("paths", nargs="+", metavar="PATH", help="an .hlo file or a directory")
    corpus.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="where modules.parquet and operands.parquet go",
    )
    corpus.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="an existing Dask scheduler (tcp://host:8786); default: a local cluster",
    )
    corpus.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="modules analysed at once on the local cluster (default: the number of CPUs)",
    )
    corpus.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows of modules whose content and verifier version are unchanged",
    )
    corpus.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="seconds one module may take before it is a 'timeout' row (default: 300)",
    )
    corpus.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )
    corpus.add_argument(
        "--coalescing",
        metavar="DEVICE",
        help="add each fusion operand's exact sectors per warp request and XLA's verdicts "
        f"on DEVICE ({', '.join(DEVICE_NAMES)}) as columns of operands.parquet",
    )
    corpus.set_defaults(run=run)
