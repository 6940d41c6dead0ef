"""The readable summary of a `verifier check` run: a table of outcome counts
per check, then every refuted and unknown finding with its place
(``file:line:column``) and witness, those of informational checks apart
(they do not fail the gate), the unsupported and vacuous ones grouped
by reason (each reason with its count and the first few distinct places), the files that could not be read, and the gate's status.

>>> from verifier.checks.verdict import Outcome
>>> from verifier.errors import SourceSpan
>>> refuted = Finding("in-bounds", Outcome.REFUTED, "m", "main", "dot", "operand 1 (p1)",
...                   "result 1 reaches 255, outside [0, 63]", witness=(("d0", 0), ("d1", 255)),
...                   span=SourceSpan("m.hlo", 7, 3))
>>> print(gate_text(GateRun(("m.hlo",), (refuted,))))
verifier check: 1 file, 1 finding
<BLANKLINE>
check      proved  refuted  unknown  unsupported  vacuous
in-bounds       0        1        0            0        0
<BLANKLINE>
refuted (1):
  m.hlo:7:3: in-bounds: main/dot operand 1 (p1): result 1 reaches 255, outside [0, 63]
    witness: d0 = 0, d1 = 255
<BLANKLINE>
gate: FAIL (refuted)

The summary only (``verifier check --summary``, for CI logs):

>>> print(gate_text(GateRun(("m.hlo",), (refuted,)), listed=False))
verifier check: 1 file, 1 finding
<BLANKLINE>
check      proved  refuted  unknown  unsupported  vacuous
in-bounds       0        1        0            0        0
<BLANKLINE>
gate: FAIL (refuted)
"""

from __future__ import annotations

from collections.abc import Iterator

from verifier.checks.verdict import Outcome
from verifier.gate.finding import NO_SOURCE, Finding
from verifier.gate.run import OUTCOMES, GateRun
from verifier.report.printable import printable

# Places listed under one unsupported/vacuous reason before "and N more".
PLACES_PER_REASON = 5

_GATE_LINES = {
    "internal-error": "gate: FAIL (internal error: a bug in verifier, please report it)",
    "bad-input": "gate: FAIL (some files could not be read)",
    "refuted": "gate: FAIL (refuted)",
    "unknown": "gate: FAIL (unknown: a solver budget ran out, nothing refuted)",
    "vacuous": "gate: VACUOUS (nothing proved: every question was about an empty domain)",
    "ok": "gate: PASS",
}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _where(finding: Finding) -> str:
    return str(finding.span) if finding.span is not NO_SOURCE else finding.module


def _line(finding: Finding) -> str:
    return (
        f"{_where(finding)}: {finding.check}: {finding.computation}/{finding.instruction} "
        f"{finding.subject}: {finding.message}"
    )


def _table(run: GateRun) -> Iterator[str]:
    counts = run.counts()
    rows = [
        (
            f"{check} (informational)" if check in run.informational else check,
            [c[o] for o in OUTCOMES],
        )
        for check, c in counts.items()
    ]
    if len(rows) > 1:
        totals = run.totals()
        rows.append(("total", [totals[o] for o in OUTCOMES]))
    width = max([len("check")] + [len(name) for name, _ in rows])
    header = [o.value for o in OUTCOMES]
    yield "  ".join([f"{'check':<{width}}", *header])
    for name, values in rows:
        cells = [f"{v:>{len(h)}}" for v, h in zip(values, header, strict=True)]
        yield "  ".join([f"{name:<{width}}", *cells])


def _listed(run: GateRun, outcome: Outcome) -> Iterator[str]:
    informational = run.informational
    findings = list(
        run.findings_where(lambda check, o: o is outcome and check not in informational)
    )
    yield from _lines(f"{outcome.value} ({len(findings)}):", findings)


def _informational(run: GateRun) -> Iterator[str]:
    informational = run.informational
    findings = list(
        run.findings_where(
            lambda check, o: check in informational and o in (Outcome.REFUTED, Outcome.UNKNOWN)
        )
    )
    yield from _lines(f"informational ({len(findings)}; they do not fail the gate):", findings)


def _lines(title: str, findings: list[Finding]) -> Iterator[str]:
    if not findings:
        return
    yield ""
    yield title
    for finding in findings:
        yield f"  {_line(finding)}"
        if finding.witness:
            yield "    witness: " + ", ".join(f"{k} = {v}" for k, v in finding.witness)


def _grouped(run: GateRun, outcome: Outcome, note: str) -> Iterator[str]:
    # Per reason, how many findings and their distinct places in order.
    by_reason: dict[str, tuple[list[int], dict[str, None]]] = {}
    for finding in run.findings_where(lambda check, o: o is outcome):
        tally, seen = by_reason.setdefault(finding.message, ([0], {}))
        tally[0] += 1
        seen[f"{_where(finding)} {finding.computation}/{finding.instruction}"] = None
    if not by_reason:
        return
    total = sum(count for (count,), _ in by_reason.values())
    yield ""
    yield f"{outcome.value} ({total}{note}), by reason:"
    for reason, ((count,), places) in sorted(
        by_reason.items(), key=lambda item: (-item[1][0][0], item[0])
    ):
        yield f"  {count}× {reason}"
        more = len(places) - PLACES_PER_REASON
        listed = ", ".join(list(places)[:PLACES_PER_REASON])
        yield f"    at {listed}" + (f", and {more} more places" if more > 0 else "")


def gate_text(run: GateRun, *, listed: bool = True) -> str:
    """The summary of `run` as text (no trailing newline), `printable`: a
    name's control characters (an ANSI escape) are shown, not obeyed.

    Without `listed`, only the head line, the counts table and the gate's
    line (for CI logs; the places are in the full report).
    """
    head = f"verifier check: {_plural(len(run.files), 'file')}"
    if run.errors:
        head += f" ({len(run.errors)} could not be read)"
    lines = [f"{head}, {_plural(run.finding_count, 'finding')}"]
    if run.finding_count:
        lines += ["", *_table(run)]
    if not listed:
        return printable("\n".join([*lines, "", _GATE_LINES[run.status]]))
    lines += _listed(run, Outcome.REFUTED)
    lines += _listed(run, Outcome.UNKNOWN)
    lines += _informational(run)
    unsupported_note = "; they fail the gate under --strict" if run.strict else " warnings"
    lines += _grouped(run, Outcome.UNSUPPORTED, unsupported_note)
    lines += _grouped(run, Outcome.VACUOUS, "")
    if run.errors:
        lines += ["", f"could not be read ({len(run.errors)}):"]
        lines += [f"  {error}" for error in run.errors]
    lines += ["", _GATE_LINES[run.status]]
    return printable("\n".join(lines))
