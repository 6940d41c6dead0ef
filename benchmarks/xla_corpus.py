"""What `verifier check` does on a directory of HLO modules nobody on this
project wrote — XLA's own test HLO above all (issue #31) — as one table.

Each module is checked as ``verifier check --jobs 1 --no-cache FILE`` does
(every check, the shipped budget, the gate's status), in a process of its
own forked from this one (so the start-up is paid once), limited to
``--timeout`` CPU seconds (60: the goal for every module) and 6 GB.  The
module's outcome is the exit code that command would give:

* clean: 0, 3 or 4 (ok, unknown, vacuous);
* refused: 2 (bad input) — *valid modules rejected* when the extractor's
  ``index.json`` says XLA's test loads the module through its verifier
  (``xla_parse`` ``verified``, or a standalone ``.hlo`` file), else
  *rightly refused* (the test parses it unverified: it may be invalid on
  purpose);
* refuted: 1 — a *false refutation* on a module XLA verifies (listed, to
  be judged by hand), else counted apart;
* exit 70: a bug in verifier (the message is listed);
* timeout: past the CPU limit (or killed by the memory limit).

Every module of ``verifier`` is imported before the first fork
(`preload`): a child that imported them itself would read them from
disk at its own start, so a checkout edited (merged, stashed) while the
run goes on — hours on a loaded machine — had its modules checked by a
mix of old and new code, and gave findings no version of the tool gives
(three ``inverse`` refutations of tuple leaves that never reproduced).
Each record carries the tool's source digest; the table says when a
resumed log mixes several.

Also the share of all findings that are ``unsupported``, and the commonest
messages of each failing class (numbers and hex folded, so one cause is one
line).  Per-module results go to ``--log`` (JSON lines; ``--resume`` keeps
the modules already there)::

    python3 /work/shared/tools/xla_test_hlo.py --git-dir XLA_GIT --out /tmp/xla-test-hlo
    nohup python -m benchmarks.xla_corpus /tmp/xla-test-hlo --log /tmp/xla.jsonl > /tmp/xla.out &
    python -m benchmarks.xla_corpus /tmp/xla-test-hlo --sample 500    # a quick estimate
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import os
import pkgutil
import random
import re
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import verifier
from verifier.checks.budget import Budget
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.gate.catalog import CHECKS, INFORMATIONAL_CHECKS
from verifier.gate.files import file_findings
from verifier.gate.run import GateRun
from verifier.gate.sqlite_cache import tool_versions
from verifier.hlo import hlo_files_under

_EXIT = {"internal-error": 70, "bad-input": 2, "refuted": 1, "unknown": 3, "vacuous": 4, "ok": 0}
_MEMORY = 6 << 30
VALID_LOADS = frozenset({"verified", "file"})
SOURCE = "not preloaded"  # the tool's version and source digest, set by `main`


def check_one(path: Path) -> dict[str, Any]:
    """The outcome of `verifier check` on `path`, as a JSON-able record."""
    findings, errors = file_findings(path, MemoryCache(), CHECKS, Budget(), None)
    run = GateRun((str(path),), findings, errors, False, INFORMATIONAL_CHECKS)
    totals = run.totals()
    refuted = [
        f"{f.span}: {f.check} {f.instruction} {f.subject}: {f.message}"
        for f in findings
        if f.outcome is Outcome.REFUTED and f.check not in INFORMATIONAL_CHECKS
    ]
    return {
        "exit": _EXIT[run.status],
        "findings": sum(totals.values()),
        "unsupported": totals[Outcome.UNSUPPORTED],
        "unsupported_reasons": Counter(
            f.message for f in findings if f.outcome is Outcome.UNSUPPORTED
        ),
        "errors": [str(e) for e in errors][:3],
        "refuted": refuted[:3],
    }


def preload() -> str:
    """Import every module of ``verifier`` (in this process, so that every
    forked child runs this code, whatever happens on disk after); return
    the tool's version with its source digest."""
    for module in pkgutil.walk_packages(verifier.__path__, "verifier."):
        if not module.name.endswith(".__main__"):  # runs the command line
            importlib.import_module(module.name)
    return dict(tool_versions())["verifier"]


def _child(path: Path, timeout: float, conn: Connection) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (int(timeout), int(timeout) + 1))
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY, _MEMORY))
    start = time.process_time()
    try:
        record = check_one(path)
    except BaseException as error:  # the gate must never raise: a bug
        record = {"exit": 70, "errors": [f"{path}: escaped: {type(error).__name__}: {error}"]}
    record["cpu"] = round(time.process_time() - start, 2)
    record["source"] = SOURCE
    conn.send(record)
    conn.close()


def run_all(paths: list[Path], jobs: int, timeout: float) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each module's path and record, `jobs` forked processes at a time, in
    the order they finish."""
    context = multiprocessing.get_context("fork")
    pending = list(reversed(paths))
    running: dict[Connection, tuple[Path, Any, float]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            path = pending.pop()
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_child, args=(path, timeout, send), daemon=True)
            process.start()
            send.close()
            running[receive] = (path, process, time.monotonic())
        for conn in wait(list(running)):
            assert isinstance(conn, Connection)
            path, process, started = running.pop(conn)
            try:
                record = conn.recv()
            except EOFError:  # killed: CPU or memory limit
                record = {
                    "exit": "timeout",
                    "cpu": round(time.monotonic() - started, 1),
                    "source": SOURCE,
                }
            conn.close()
            process.join()
            yield str(path), record


def _folded(message: str) -> str:
    """A message with its place, names and numbers folded: one cause, one line."""
    message = re.sub(r"^\S+?:\d+:\d+: ", "", message)
    message = re.sub(r"^/\S+: ", "", message)
    message = re.sub(r"'[^']*'", "'_'", message)
    message = re.sub(r"\b0x[0-9a-f]+\b|\d+", "N", message)
    return message[:150]


def table(records: dict[str, dict[str, Any]], loads: dict[str, str]) -> str:
    """The summary table and the commonest causes of each failing class."""
    classes: dict[str, list[str]] = {
        k: [] for k in ("clean", "rejected", "refused", "false", "refuted", "70", "timeout")
    }
    for path, record in records.items():
        valid = loads.get(Path(path).stem, "file") in VALID_LOADS
        match record["exit"]:
            case 0 | 3 | 4:
                classes["clean"].append(path)
            case 2:
                classes["rejected" if valid else "refused"].append(path)
            case 1:
                classes["false" if valid else "refuted"].append(path)
            case 70:
                classes["70"].append(path)
            case _:
                classes["timeout"].append(path)
    total = len(records)
    good = len(classes["clean"]) + len(classes["refused"]) + len(classes["refuted"])
    findings = sum(r.get("findings", 0) for r in records.values())
    unsupported = sum(r.get("unsupported", 0) for r in records.values())
    lines = [
        "| modules | clean or rightly refused | valid modules rejected | exit 70 "
        "| false refutations | timeouts | unsupported share of findings |",
        "|---|---|---|---|---|---|---|",
        f"| {total:,} | {100 * good / max(total, 1):.1f} % | {len(classes['rejected'])} "
        f"| {len(classes['70'])} | {len(classes['false'])} | {len(classes['timeout'])} "
        f"| {100 * unsupported / max(findings, 1):.2f} % ({unsupported:,} of {findings:,}) |",
        "",
        f"clean {len(classes['clean'])}, refused (loaded unverified) {len(classes['refused'])}, "
        f"refuted (loaded unverified) {len(classes['refuted'])}; "
        f"CPU {sum(r.get('cpu', 0) for r in records.values()):.0f} s",
    ]
    for name, title in (
        ("70", "exit 70"),
        ("rejected", "valid modules rejected"),
        ("refused", "refused, loaded unverified"),
    ):
        causes = Counter(_folded(records[p]["errors"][-1]) for p in classes[name])
        lines += ["", f"{title}, by cause:"]
        lines += [f"  {n:5} {cause}" for cause, n in causes.most_common(40)]
    for name, title in (("false", "false refutations"), ("refuted", "refuted, loaded unverified")):
        lines += ["", f"{title}:"]
        lines += [f"  {p}: {records[p]['refuted'][0]}" for p in classes[name]]
    sources = Counter(r.get("source", "unrecorded") for r in records.values())
    if len(sources) > 1:
        lines += ["", f"records from {len(sources)} versions of the tool (a resumed log):"]
        lines += [f"  {n:5} {source}" for source, n in sources.most_common()]
    lines += ["", "timeouts:"] + [f"  {p} ({records[p]['cpu']} s)" for p in classes["timeout"]]
    reasons: Counter[str] = Counter()
    for record in records.values():
        reasons.update(record.get("unsupported_reasons", {}))
    lines += ["", "unsupported findings by reason:"]
    lines += [f"  {n:6} {_folded(reason)}" for reason, n in reasons.most_common(25)]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--sample", type=int, help="check a random sample of this many modules")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="CPU seconds per module")
    parser.add_argument("--log", type=Path, help="per-module records (JSON lines)")
    parser.add_argument("--resume", action="store_true", help="keep the records in --log")
    args = parser.parse_args(argv)
    paths = hlo_files_under(args.directory)
    if args.sample is not None:
        paths = sorted(random.Random(args.seed).sample(paths, min(args.sample, len(paths))))
    index = args.directory / "index.json"
    loads = (
        {m["id"]: m["xla_parse"] for m in json.loads(index.read_text())["modules"]}
        if index.exists()
        else {}
    )
    records: dict[str, dict[str, Any]] = {}
    if args.resume and args.log and args.log.exists():
        for line in args.log.read_text().splitlines():
            path, record = json.loads(line)
            records[path] = record
    todo = [p for p in paths if str(p) not in records]
    global SOURCE
    SOURCE = preload()
    with open(args.log, "a") if args.log else open(os.devnull, "w") as log:
        for done, (path, record) in enumerate(run_all(todo, args.jobs, args.timeout), 1):
            records[path] = record
            log.write(json.dumps([path, record]) + "\n")
            log.flush()
            if done % 200 == 0:
                print(f"{done}/{len(todo)}", file=sys.stderr, flush=True)
    wanted = {str(p) for p in paths}
    print(table({p: r for p, r in records.items() if p in wanted}, loads))


if __name__ == "__main__":
    main(sys.argv[1:])
