"""A module's findings remembered under the digest of its text, so that the
gate answers an unchanged module without parsing it, composing its maps or
asking a solver.

The findings of `run_checks` are a function of the module's text, the
selected checks and the budget — and of the tool and solver versions, which
the persistent store adds to every key (`SqliteCache`).  Spans are stored
without the file name, which the caller gives back, so a module that moved
keeps its answers.  A module whose text changed in any byte misses here;
its questions still hit the per-question proof cache.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.checks.verdict import Outcome
>>> from verifier.errors import SourceSpan
>>> refuted = Finding("in-bounds", Outcome.REFUTED, "m", "main", "dot", "operand 1 (p1)",
...                   "result 1 reaches 255", witness=(("d1", 255), ("d0", 0)),
...                   span=SourceSpan("old/m.hlo", 7, 3))
>>> cache, key = MemoryCache(), module_key("HloModule m ...", ("in-bounds",))
>>> remember(cache, key, [refuted])
>>> (again,) = recall(cache, key, "new/m.hlo")
>>> again == refuted, again.witness, str(again.span)
(True, (('d1', 255), ('d0', 0)), 'new/m.hlo:7:3')
>>> recall(cache, module_key("HloModule m2 ...", ("in-bounds",)), "m2.hlo") is None
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from verifier.checks.budget import Budget
from verifier.checks.cache import CachedRecord, ProofCache
from verifier.checks.verdict import Outcome
from verifier.errors import SourceSpan
from verifier.gate.finding import NO_SOURCE, Finding


def module_key(text: str, checks: Sequence[str], budget: Budget | None = None) -> str:
    """The question "what are the findings of `checks` on this module text"."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"module-findings|{digest}|{','.join(checks)}|{budget or Budget()!r}"


def _encoded(finding: Finding) -> tuple[object, ...]:
    """One finding as a JSON array; a tuple sharing the finding's strings and
    witness (the stored JSON is the same as lists'), so that a module's
    encoded findings cost a tuple each beside the findings, not four lists."""
    span = None if finding.span is NO_SOURCE else (finding.span.line, finding.span.column)
    return (
        finding.check,
        finding.outcome.value,
        finding.module,
        finding.computation,
        finding.instruction,
        finding.subject,
        finding.message,
        finding.witness,
        span,
    )


def _decoded(row: Sequence[object], filename: str) -> Finding:
    check, outcome, module, computation, instruction, subject, message, witness, span = row
    if not isinstance(witness, list | tuple):
        raise TypeError(f"witness {witness!r} is not a list")
    return Finding(
        str(check),
        Outcome(str(outcome)),
        str(module),
        str(computation),
        str(instruction),
        str(subject),
        str(message),
        tuple((str(name), int(value)) for name, value in witness),
        NO_SOURCE
        if not isinstance(span, list | tuple)
        else SourceSpan(filename, int(span[0]), int(span[1])),
    )


def remember(cache: ProofCache, key: str, findings: Sequence[Finding]) -> None:
    """Store the findings of one module under `key`."""
    answer: CachedRecord = {"findings": [_encoded(f) for f in findings]}
    cache.store(key, answer)


def recall(cache: ProofCache, key: str, filename: str) -> tuple[Finding, ...] | None:
    """The findings stored under `key`, their spans in `filename`; None if
    absent or not in the shape `remember` writes (a miss and a warning,
    never an error)."""
    answer = cache.lookup(key)
    if answer is None:
        return None
    try:
        return tuple(_decoded(row, filename) for row in answer["findings"])
    except (KeyError, TypeError, ValueError, IndexError):
        from verifier.gate.sqlite_cache import distrusted

        distrusted(cache)
        return None
