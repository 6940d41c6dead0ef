"""The `verifier` command line: the only module that prints or exits.

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
import dataclasses
import gc
import io
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias

from verifier.errors import SolverError, VerifierError
from verifier.report.printable import printable

if TYPE_CHECKING:
    from verifier.checks.budget import Budget
    from verifier.checks.equivalence import EquivalenceResult
    from verifier.gate.finding import Finding
    from verifier.gate.replay import RunOutputs
    from verifier.gate.run import InputError
    from verifier.simplify import SimplificationResult

EXIT_OK, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_VACUOUS = 0, 1, 2, 3, 4
EXIT_INTERNAL_ERROR = 70
EXIT_OUT_OF_MEMORY = 71  # sysexits' EX_OSERR: the system could not give what the run needed

_VERDICT_EXIT = {
    "equal": EXIT_OK,
    "proved": EXIT_OK,
    "different": EXIT_REFUTED,
    "refuted": EXIT_REFUTED,
    "unknown": EXIT_UNKNOWN,
    "vacuous": EXIT_VACUOUS,
}


def _worst(codes: Sequence[int]) -> int:
    """The exit code of several answers: bad input, then refuted, unknown, vacuous."""
    for code in (EXIT_INTERNAL_ERROR, EXIT_BAD_INPUT, EXIT_REFUTED, EXIT_UNKNOWN, EXIT_VACUOUS):
        if code in codes:
            return code
    return EXIT_OK


def _read_map_argument(value: str) -> str:
    """A map given inline, or ``@path`` to read it from a file (bytes that
    are not UTF-8 are kept as surrogate escapes: the parser points at them)."""
    if value.startswith("@"):
        from verifier.inputs import read_regular_file

        return read_regular_file(value[1:]).decode("utf-8", errors="surrogateescape")
    return value


def _batch_lines(path: str) -> Iterator[tuple[int, str]]:
    # Decoded line by line with surrogate escapes, so that a line that is not
    # UTF-8 is that line's parse error and the other lines still get answers.
    from verifier.inputs import open_regular_file  # a FIFO is refused: '-' reads a pipe

    binary = sys.stdin.buffer if path == "-" else open_regular_file(path)
    stream = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape")
    with stream:
        for number, line in enumerate(stream, start=1):
            if line.strip() and not line.lstrip().startswith("#"):
                yield number, line.rstrip("\n")


# ---------------------------------------------------------------- equiv


def _budget(args: argparse.Namespace, base: Budget | None = None) -> Budget:
    """The solver budgets (`base`, default the gate's) with the
    ``--cross-check`` policy of the command line."""
    from verifier.checks.budget import Budget, CrossCheck

    budget = base or Budget()
    if args.cross_check is None:
        return budget
    return dataclasses.replace(budget, cross_check=CrossCheck(args.cross_check))


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


def _batch_place(path: str, number: int) -> str:
    """Where a batch line is: ``pairs.tsv:3`` (``<stdin>:3``)."""
    return f"{'<stdin>' if path == '-' else path}:{number}"


def _batch_answer(line: str, fmt: str, as_text: Callable[[Any], str]) -> str:
    """A batch's answer (a JSON line) as `fmt` asks for it."""
    if fmt == "json":
        return line
    answer = json.loads(line)
    return printable(f"error: {answer['error']}" if "error" in answer else as_text(answer))


def _equiv_line(result: EquivalenceResult) -> tuple[int, str]:
    """A batch answer's exit code and JSON line, made in the worker that
    checked the pair."""
    answer = result.to_json()
    return _VERDICT_EXIT[str(answer["verdict"])], json.dumps(answer, sort_keys=True)


def _run_equiv(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.checks.budget import EQUIV_BUDGET
    from verifier.errors import UsageError
    from verifier.report.equiv import equiv_text

    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give a positive number of worker processes")
    budget = _budget(args, EQUIV_BUDGET)
    if args.batch:
        from verifier.checks.equivalence import BatchFailure, check_equivalence_batch

        numbered = list(_batch_lines(args.batch))
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
            place = _batch_place(args.batch, number)
            code, line = (
                (
                    EXIT_INTERNAL_ERROR if checked.internal else EXIT_BAD_INPUT,
                    json.dumps({"error": f"{place}: {checked.error}"}),
                )
                if isinstance(checked, BatchFailure)
                else checked
            )
            codes.append(code)
            print(_batch_answer(line, args.format or "json", equiv_text), file=out)
        return _worst(codes)
    if args.map_a is None or args.map_b is None:
        raise VerifierError("equiv needs MAP_A and MAP_B, or --batch FILE")
    answer = _equiv_answer(
        _read_map_argument(args.map_a),
        _read_map_argument(args.map_b),
        args.pointwise,
        budget,
        args.minimal,
    )
    _emit(answer, args.format, equiv_text, out)
    return _VERDICT_EXIT[answer["verdict"]]


# ---------------------------------------------------------------- simplify


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
        answer.update(_simplify_proof(text, result, _budget(args)))
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


def _run_simplify(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.report.simplify import simplify_text

    if args.batch:
        codes = []
        for number, line in _batch_lines(args.batch):
            try:
                answer = _simplify_answer(line, args)
                codes.append(_VERDICT_EXIT.get(answer.get("verdict", "equal"), EXIT_OK))
            except VerifierError as error:
                answer = {"error": f"{_batch_place(args.batch, number)}: {error}"}
                codes.append(EXIT_BAD_INPUT)
            line = json.dumps(answer, sort_keys=True)
            print(_batch_answer(line, args.format or "json", simplify_text), file=out)
        return _worst(codes)
    if args.map is None:
        raise VerifierError("simplify needs MAP, or --batch FILE")
    answer = _simplify_answer(_read_map_argument(args.map), args)
    _emit(answer, args.format, simplify_text, out)
    return _VERDICT_EXIT.get(answer.get("verdict", "equal"), EXIT_OK)


# ---------------------------------------------------------------- maps


def _instructions_exit(errors: Sequence[InputError]) -> int:
    """The exit code of `maps` or `utilization` (every other instruction
    answered): internal error when a bug escaped at some instruction, bad
    input when some instruction is not valid HLO, else success."""
    if any(error.internal for error in errors):
        return EXIT_INTERNAL_ERROR
    return EXIT_BAD_INPUT if errors else EXIT_OK


def _run_maps(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.hlo import parse_module_file
    from verifier.report.instruction_errors import errors_json
    from verifier.report.maps import MapsOptions, module_json, render_text, to_parameters_json

    show = args.to_parameters and (sys.stderr.isatty() if args.progress is None else args.progress)
    progress = _Progress(sys.stderr, 1) if show else None
    if progress is not None:  # a module of 100,000 instructions composes for minutes
        progress.start(1, Path(args.file))
    module = parse_module_file(args.file)
    entry = module.entry
    maps = ModuleMaps(module)
    options = MapsOptions(args.direction, simplified=not args.no_simplify)
    if args.to_parameters:
        if args.instruction is not None or args.all or args.direction == "i2o":
            raise VerifierError(
                "--to-parameters composes output→input maps of the entry ROOT; "
                "it does not combine with --instruction, --all or i2o"
            )
        report = to_parameters_json(maps, options, progress.instructions if progress else None)
        if progress is not None:
            progress.finish("composed")
        _emit(report, args.format, render_text, out)
        return EXIT_OK
    if args.instruction is not None:
        if not entry.has_instruction(args.instruction):
            names = ", ".join(i.name for i in entry.instructions[:20])
            raise VerifierError(
                f"{args.file}: no instruction '{args.instruction}' in the entry computation "
                f"(it has: {names}{', …' if len(entry.instructions) > 20 else ''})"
            )
        instructions = [entry.instruction(args.instruction)]
    elif args.all:
        instructions = [i for i in entry.instructions if i.opcode != "parameter"]
    else:
        instructions = [entry.root]
    from verifier.gate.files import collecting

    failed: list[InputError] = []
    report = module_json(maps, instructions, options, on_error=collecting(failed))
    report |= errors_json(failed)
    _emit(report, args.format, render_text, out)
    return _instructions_exit(failed)


# ---------------------------------------------------------------- tile


def _run_tile(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.hlo import parse_module_file
    from verifier.report.tiling import render_text, tiling_json
    from verifier.tiling import parse_sizes, tile_instruction

    module = parse_module_file(args.file)
    entry = module.entry
    if args.instruction is not None and not entry.has_instruction(args.instruction):
        raise VerifierError(
            f"{args.file}: no instruction '{args.instruction}' in the entry computation"
        )
    instruction = entry.root if args.instruction is None else entry.instruction(args.instruction)
    sizes = None if args.sizes is None else parse_sizes(args.sizes)
    result = tile_instruction(ModuleMaps(module).instruction(entry, instruction), sizes)
    _emit(tiling_json(module.name, result), args.format, render_text, out)
    return EXIT_OK


# ---------------------------------------------------------------- layout


def _run_layout(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.expr import IndexingMap
    from verifier.report.layout import layout_json, render_text
    from verifier.simplify import simplify

    def transform(m: IndexingMap) -> IndexingMap:
        return simplify(m).map

    report = layout_json(args.shape, None if args.no_simplify else transform)
    _emit(report, args.format, render_text, out)
    return EXIT_OK


# ---------------------------------------------------------------- prove-rules


def _run_prove_rules(args: argparse.Namespace, out: TextIO) -> int:
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


# ---------------------------------------------------------------- check

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


class _Progress:
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


def _run_check(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.errors import UsageError
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
    progress = _Progress(sys.stderr, len(files)) if show_progress else None
    jobs = default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise UsageError(f"--jobs {jobs}: give a positive number of worker processes")
    setting = CacheSetting(
        CacheMode(args.cache_mode), Path(args.cache_dir) if args.cache_dir else None
    )
    cache = setting.open()
    budget = _budget(args)
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
        findings: list[Finding] = []
        counts: list[int] = []
        parts = [shares_for(path, jobs) for path in files] if jobs > 1 else [1] * len(files)
        parallel = jobs > 1 and sum(parts) > 1
        if parallel:
            for (found, failed), worker_problems in parallel_findings(
                files, setting, budget, checks, jobs, parts, progress, cache
            ):
                problems.update(dict.fromkeys(worker_problems))
                findings += found
                errors += failed
                counts.append(len(found))
        else:
            for number, path in enumerate(files, start=1):
                if progress is not None:
                    progress.start(number, path)
                found, failed = file_findings(path, cache, checks, budget, progress)
                findings += found
                errors += failed
                counts.append(len(found))
        run = GateRun(
            tuple(str(f) for f in files),
            tuple(findings),
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


def _replay_check(outputs: RunOutputs, output: str | None, out: TextIO) -> None:
    """Print, and write to `output`, what the remembered run did."""
    out.write(outputs.stdout)
    if output is not None and outputs.report is not None:
        from verifier.outputs import write_text

        write_text(output, [outputs.report])


# ---------------------------------------------------------------- utilization


def _run_utilization(args: argparse.Namespace, out: TextIO) -> int:
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
    _emit(report, args.format, render_text, out)
    return _instructions_exit(failed)


# ---------------------------------------------------------------- coalescing


def _run_coalescing(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.analysis import ModuleMaps
    from verifier.coalescing.analysis import module_coalescing
    from verifier.coalescing.devices import device
    from verifier.hlo import parse_module_file
    from verifier.report.coalescing import module_json, render_text

    module = parse_module_file(args.file)
    answers = module_coalescing(ModuleMaps(module), args.instruction, device(args.device))
    report = module_json(module.name, answers, single=args.instruction is not None)
    _emit(report, args.format, render_text, out)
    return EXIT_OK


# ---------------------------------------------------------------- corpus


def _needs_research_extra(command: str, error: ImportError) -> VerifierError:
    """The usage error of a command whose optional dependencies are missing."""
    from verifier.errors import UsageError

    return UsageError(
        f"verifier {command} needs the research extra ({error.name} is missing): "
        "pip install 'hlo-verifier[research]'"
    )


def _run_corpus(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.errors import UsageError

    try:
        from tqdm import tqdm

        from verifier.corpus.run import CorpusOptions, run_corpus
    except ImportError as error:
        raise _needs_research_extra("corpus", error) from None
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


def _run_plot(args: argparse.Namespace, out: TextIO) -> int:

    try:
        from verifier.corpus.plot import plot_corpus
    except ImportError as error:
        raise _needs_research_extra("plot", error) from None
    plot_corpus(Path(args.directory), Path(args.output), args.labels)
    print(f"wrote {args.output}", file=out)
    return EXIT_OK


# ---------------------------------------------------------------- xla-tests


def _run_xla_tests(args: argparse.Namespace, out: TextIO) -> int:
    from verifier.errors import UsageError
    from verifier.report import xla_tests as report

    if args.git is not None:
        from verifier.xla_tests.history import DEFAULT_PATHS, history

        if args.format in ("sarif", "junit"):
            raise UsageError("--git reports as text or json")
        found = history(args.git, args.paths or DEFAULT_PATHS, args.since)
        answer = found.to_json() if args.format == "json" else found
        _emit(answer, args.format, report.render_history_text, out)
        return EXIT_REFUTED if found.wrong else EXIT_OK
    if args.since is not None:
        raise UsageError("--since needs --git DIR")
    if not args.paths:
        raise UsageError("give the XLA test files or directories to read")
    from verifier.xla_tests.files import check_files

    run = check_files(args.paths)
    match args.format:
        case "json":
            _emit(run.to_json(), "json", str, out)
        case "sarif":
            _emit(report.sarif_log(run), "json", str, out)
        case "junit":
            out.write(report.junit_xml(run).decode() + "\n")
        case _:
            _emit(run, "text", report.render_text, out)
    return EXIT_REFUTED if run.any_different else EXIT_OK


# ---------------------------------------------------------------- plumbing


def _emit(answer: Any, fmt: str, as_text: Callable[[Any], str], out: TextIO) -> None:
    if fmt == "json":  # names exact (JSON's escapes); text is escaped for a terminal
        print(json.dumps(answer, indent=2, sort_keys=False), file=out)
    else:
        print(printable(as_text(answer)), file=out)


def _cross_check_option(command: argparse.ArgumentParser) -> None:
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


_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What `add_subparsers` gives: each `_add_COMMAND` adds its subcommand to it."""


def _command(commands: _Commands, name: str, help_text: str) -> argparse.ArgumentParser:
    """A subcommand whose answer is text or JSON (``--format``)."""
    sub = commands.add_parser(name, help=help_text, description=help_text)
    sub.add_argument(
        "--format",
        choices=("text", "json"),
        default=None,  # text; a --batch writes JSON lines unless told text
        help="output format (json is the canonical form; default: text, JSON lines for a --batch)",
    )
    return sub


def _add_maps(commands: _Commands) -> None:
    maps = _command(commands, "maps", "indexing maps of HLO instructions (entry ROOT by default)")
    maps.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    which = maps.add_mutually_exclusive_group()
    which.add_argument("--instruction", metavar="NAME", help="one instruction of the entry")
    which.add_argument("--all", action="store_true", help="every non-parameter instruction")
    maps.add_argument(
        "--direction",
        choices=("o2i", "i2o", "both"),
        default="both",
        help="output→input, input→output, or both (default)",
    )
    maps.add_argument("--no-simplify", action="store_true", help="print maps unsimplified")
    maps.add_argument(
        "--to-parameters",
        action="store_true",
        help="compose from the entry ROOT through the whole entry computation "
        "(fusions included) to each entry parameter",
    )
    maps.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --to-parameters, instructions composed so far on stderr "
        "(default: when stderr is a terminal)",
    )
    maps.set_defaults(run=_run_maps)


def _add_tile(commands: _Commands) -> None:
    tile = _command(
        commands, "tile", "the tile each operand reads for a tile of the output, proved (isl)"
    )
    tile.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    tile.add_argument(
        "--instruction", metavar="NAME", help="one instruction of the entry (default ROOT)"
    )
    tile.add_argument(
        "--sizes",
        metavar="N,N,...",
        help="output tile sizes (default: prove over the tiling space, powers of two up to each dim)",
    )
    tile.set_defaults(run=_run_tile)


def _add_simplify(commands: _Commands) -> None:
    simplify = _command(commands, "simplify", "simplify an indexing map with the proven rules")
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
    _cross_check_option(simplify)
    simplify.set_defaults(run=_run_simplify)


def _add_equiv(commands: _Commands) -> None:
    equiv = _command(commands, "equiv", "prove two indexing maps equal, or show a counterexample")
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
    _cross_check_option(equiv)
    equiv.set_defaults(run=_run_equiv)


def _add_layout(commands: _Commands) -> None:
    layout = _command(
        commands,
        "layout",
        "where each element of a shape sits in its buffer, and the buffer's size",
    )
    layout.add_argument(
        "shape", metavar="SHAPE", help="a shape with its layout, e.g. 'f32[3,5]{1,0:T(2,2)}'"
    )
    layout.add_argument("--no-simplify", action="store_true", help="print the maps unsimplified")
    layout.set_defaults(run=_run_layout)


def _add_prove_rules(commands: _Commands) -> None:
    prove = _command(commands, "prove-rules", "prove every simplifier rule's lemma (z3)")
    prove.set_defaults(run=_run_prove_rules)


def _add_utilization(commands: _Commands) -> None:
    utilization = _command(
        commands, "utilization", "exact elements read per operand, beside XLA's heuristic"
    )
    utilization.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    utilization.add_argument(
        "--instruction", metavar="NAME", help="one instruction of the entry (default: all)"
    )
    utilization.add_argument(
        "--coalescing",
        nargs="?",
        const="rtx-a6000",
        choices=("rtx-a6000", "a100", "h100"),
        help='add each fusion operand\'s exact sectors per warp request (JSON: "coalescing")',
    )
    utilization.set_defaults(run=_run_utilization)


def _add_coalescing(commands: _Commands) -> None:
    coalescing = _command(
        commands,
        "coalescing",
        "exact 32-byte sectors per warp request of a fusion, beside XLA's verdicts",
    )
    coalescing.add_argument("file", metavar="FILE.hlo", help="an HLO module in text form")
    coalescing.add_argument(
        "--instruction", metavar="NAME", help="one fusion of the entry (default: every fusion)"
    )
    coalescing.add_argument(
        "--device", choices=("rtx-a6000", "a100", "h100"), default="rtx-a6000", help="the GPU"
    )
    coalescing.set_defaults(run=_run_coalescing)


def _add_check(commands: _Commands) -> None:
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
    _cross_check_option(check)
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
    check.set_defaults(run=_run_check)


def _add_corpus(commands: _Commands) -> None:
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
        "on DEVICE (rtx-a6000, a100, h100) as columns of operands.parquet",
    )
    corpus.set_defaults(run=_run_corpus)


def _add_plot(commands: _Commands) -> None:
    plot = commands.add_parser(
        "plot",
        help="figures of a corpus's tables: exact utilization against XLA's heuristic, time per module",
        description="Two panels from the tables `verifier corpus` wrote: every operand's exact "
        "distinct elements read against XLA's heuristic (log-log; the largest disagreements "
        "labelled), and the CPU seconds each module's analysis took against its size; with "
        "the coalescing columns (corpus --coalescing) a third: each fusion operand's exact "
        "sectors per warp request against XLA's first-warp verdict.",
    )
    plot.add_argument("directory", metavar="DIR", help="the output directory of verifier corpus")
    plot.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="the image to write: .pdf or .svg (vector, fonts embedded), or .png (200 dpi)",
    )
    plot.add_argument(
        "--labels", type=int, default=6, metavar="N", help="label the N largest disagreements"
    )
    plot.set_defaults(run=_run_plot)


def _add_xla_tests(commands: _Commands) -> None:
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
    xla_tests.set_defaults(run=_run_xla_tests)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command: the program's options, then each
    subcommand added by its own `_add_COMMAND`."""
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
    _add_maps(commands)
    _add_tile(commands)
    _add_simplify(commands)
    _add_equiv(commands)
    _add_layout(commands)
    _add_prove_rules(commands)
    _add_utilization(commands)
    _add_coalescing(commands)
    _add_check(commands)
    _add_corpus(commands)
    _add_plot(commands)
    _add_xla_tests(commands)
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
    except MemoryError:  # not a bug, not the input's fault: say which limit
        from verifier.memory import memory_limits

        where = _subject(args)
        print(
            printable(f"verifier: out of memory{where}: {memory_limits()}"),
            "(raise the limit, or give fewer modules or --jobs)",
            file=sys.stderr,
        )
        return EXIT_OUT_OF_MEMORY
    except Exception as error:  # a bug: say so, with what was being read
        where = _subject(args)
        message = f"internal error{where}: {type(error).__name__}: {error}"
        print(
            f"verifier: {printable(message)} (a bug in verifier; please report it with the input)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR


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
