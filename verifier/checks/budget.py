"""How hard one question is worked, and who confirms its answer.

The policy: isl decides (a decision procedure) within ``isl_operations``
simplex pivots; a second, independent witness confirms the verdicts that
`cross_check` names: enumeration where the domains are small, else z3
within ``z3_rlimit`` resource units (a point question) or isl reading the
maps as text within ``isl_operations`` (a relation question).  Every budget is a deterministic
count, never wall-clock time: the same question gets the same answer on any
machine.  isl exhausting its budget is the answer ``unknown`` for that
question only; a witness exhausting its own is a note in the answer, never
an error and never a pass on its own.

For example ``(d0)[s0] -> (d0 + s0)`` against ``(d0)[s0] -> (d0 + 1 - s0)``
on ``d0 in [0, 3], s0 in [0, 1]`` under ``Budget()``: isl answers ``equal``
(100,000 operations at most) and, the policy being ``refutations``, nothing
confirms an ``equal``; under ``Budget(cross_check=CrossCheck.ALL)`` brute
force over the 8 points confirms it too.

This module imports no solver, so the findings cache, the command line and
the gate can name a budget (it is part of every findings-cache key) without
loading islpy or z3.

>>> Budget().cross_check
<CrossCheck.REFUTATIONS: 'refutations'>
>>> Budget(isl_operations=1).isl_operations, EQUIV_BUDGET.isl_operations
(1, 40000)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from verifier.bridges.limits import ISL_OPERATIONS, Z3_WITNESS_RLIMIT


class CrossCheck(Enum):
    """Which verdicts a second, independent witness confirms: ``all``,
    ``refutations`` (a ``different`` verdict, whose counterexample is
    re-evaluated by plain Python and shown unrelated by the other map), or
    ``none`` (isl alone; a counterexample is still re-evaluated)."""

    ALL = "all"
    REFUTATIONS = "refutations"
    NONE = "none"


DEFAULT_CROSS_CHECK = CrossCheck.REFUTATIONS
"""Confirming every ``equal`` too (``all``) costs 15.6 CPU-s on the 3,000
XLA-style pairs of ``benchmarks/equivalence.py`` against 2.7 for
refutations alone (one process): most of it brute force on the small
domains, which a refutation's re-evaluation already covers where it
matters — a wrong ``equal`` has a counterexample isl's verdict missed,
and only a second encoding of the same question would see it."""


@dataclass(frozen=True)
class Budget:
    """How hard one question is worked: deterministic solver budgets (isl
    operations, z3 resource units for a witness) and which verdicts a second
    witness confirms.  isl exhausting its budget is an ``unknown`` answer;
    a witness exhausting its own is a note."""

    isl_operations: int = ISL_OPERATIONS
    z3_rlimit: int = Z3_WITNESS_RLIMIT
    cross_check: CrossCheck = DEFAULT_CROSS_CHECK


EQUIV_BUDGET = Budget(isl_operations=40_000)
"""What `verifier equiv` (and `check_equivalence` by default) spends on one
pair.  isl's cost per operation grows with the size of its numbers, and
within one question as they grow: the gate's 100,000 operations let one
4-symbol ``mod 20000`` pair run 3.6 CPU-seconds before answering
``unknown``, and fuzzed 4-symbol maps whose values reach 30-35 bits
(``benchmarks/fuzz_questions.py``) spend 1.5-2.2 s on 50,000 operations but
at most 0.9 s on 40,000 (the target: no pair over 2 s).  40,000 decide 2,999
of the 3,000 XLA-style pairs of ``benchmarks/equivalence.py``; the last one
(``unknown``) needs about 45,000, spent cheaply on small numbers."""
