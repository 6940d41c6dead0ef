"""Lemmas about rewrite rules, and the z3 machinery that proves or refutes them.

A `Lemma` states, for *all* integer values of its variables and symbolic
constants, "hypotheses ⇒ claim".  Its `build` function receives an `Encoding`
of the division operators and returns a `Goal`; the prover asks z3 whether
``hypotheses ∧ definitions ∧ ¬claim`` is satisfiable:

* ``unsat`` — **proved** (no integers violate the claim);
* ``sat`` — **refuted**, with a counterexample (the model's values of the
  goal's named variables; every encoding is exact, so the model is a real
  counterexample, not an artefact);
* ``unknown`` (resource limit reached) — the next strategy is tried; when all
  fail the verdict is **unknown**, which counts as failure.

Divisors are symbolic, so the queries are nonlinear.  Strategies differ in
how floor division is encoded (z3's native ``div``/``mod``, which agree with
floor semantics for a positive divisor and are wrapped for a negative one;
or explicit quotient and remainder variables with their defining
inequalities) and in whether equalities are substituted first (the
``solve-eqs`` tactic).  Each attempt runs under a deterministic ``rlimit``,
so verdicts do not depend on the machine's speed.

Example: ``c > 0 ∧ 0 <= x < c ⇒ x mod c = x``::

    Lemma("mod_drop_when_no_wrap", "c > 0 ∧ 0 <= x < c ⇒ x mod c = x",
          lambda enc: Goal.of([c > 0, 0 <= x, x < c], enc.mod(x, c) == x, [x, c]))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import z3

Verdict = Literal["proved", "refuted", "unknown"]

# Resource units per attempt (deterministic, unlike wall-clock timeouts).
# About a quarter of a second of z3 work on a 2-core machine.
DEFAULT_RLIMIT = 2_000_000


class Encoding:
    """How `floordiv`, `ceildiv` and `mod` by a (symbolic) constant become z3 terms.

    Subclasses implement `floor`; `definitions` collects the side formulas a
    term needs (explicit quotient/remainder variables and their bounds).
    """

    name = "abstract"

    def __init__(self, context: Any) -> None:
        # Every attempt gets its own z3 context: z3's heuristics depend on
        # the terms created before, so a shared context would make one
        # lemma's verdict depend on which lemmas ran earlier.
        self.context = context
        self.definitions: list[Any] = []
        self._fresh = 0

    def ints(self, names: str) -> list[Any]:
        """Integer variables named by the space-separated `names`."""
        return list(z3.Ints(names, ctx=self.context))

    def fresh(self, prefix: str) -> Any:
        self._fresh += 1
        return z3.Int(f"{prefix}!{self._fresh}", ctx=self.context)

    def floor(self, x: Any, c: Any, *, positive: bool) -> tuple[Any, Any]:
        """``(x floordiv c, x mod c)``; `positive` says the hypotheses give ``c > 0``."""
        raise NotImplementedError

    def floordiv(self, x: Any, c: Any, *, positive: bool = True) -> Any:
        return self.floor(x, c, positive=positive)[0]

    def mod(self, x: Any, c: Any, *, positive: bool = True) -> Any:
        return self.floor(x, c, positive=positive)[1]

    def ceildiv(self, x: Any, c: Any, *, positive: bool = True) -> Any:
        return -self.floordiv(-x, c, positive=positive)


class NativeEncoding(Encoding):
    """z3's ``div``/``mod`` (Euclidean): floor semantics for ``c > 0``; for a
    divisor of unknown sign, ``x floordiv c = (-x) div (-c)`` when ``c < 0``."""

    name = "native"

    def floor(self, x: Any, c: Any, *, positive: bool) -> tuple[Any, Any]:
        if positive:
            return x / c, x % c
        quotient = z3.If(c > 0, x / c, (-x) / (-c))
        return quotient, x - c * quotient


class ExplicitEncoding(Encoding):
    """Fresh ``q, r`` with ``x = c * q + r`` and ``0 <= r < c`` (``c < r <= 0``
    for a negative divisor): the definition of floor division itself."""

    name = "explicit"

    def floor(self, x: Any, c: Any, *, positive: bool) -> tuple[Any, Any]:
        q, r = self.fresh("q"), self.fresh("r")
        self.definitions.append(x == c * q + r)
        if positive:
            self.definitions += [r >= 0, r < c]
        else:
            self.definitions += [
                z3.Implies(c > 0, z3.And(r >= 0, r < c)),
                z3.Implies(c < 0, z3.And(r <= 0, r > c)),
            ]
        return q, r


@dataclass(frozen=True)
class Goal:
    """``hypotheses ⇒ claim``; `variables` are reported in a counterexample."""

    hypotheses: tuple[Any, ...]
    claim: Any
    variables: tuple[Any, ...]

    @staticmethod
    def of(hypotheses: Iterable[Any], claim: Any, variables: Iterable[Any]) -> Goal:
        return Goal(tuple(hypotheses), claim, tuple(variables))


@dataclass(frozen=True)
class Strategy:
    """One attempt: an encoding, optionally with equalities substituted first."""

    encoding: type[Encoding]
    substitute_equalities: bool = False

    @property
    def name(self) -> str:
        return self.encoding.name + ("+solve-eqs" if self.substitute_equalities else "")


STRATEGIES: tuple[Strategy, ...] = (
    Strategy(NativeEncoding),
    Strategy(ExplicitEncoding),
    Strategy(ExplicitEncoding, substitute_equalities=True),
    Strategy(NativeEncoding, substitute_equalities=True),
)
# Only the definition of floor division itself.
EXPLICIT_ONLY: tuple[Strategy, ...] = (
    Strategy(ExplicitEncoding),
    Strategy(ExplicitEncoding, substitute_equalities=True),
)


@dataclass(frozen=True)
class Lemma:
    """A statement about a rule (named after it), and how to build its goal.

    `expected` is ``"refuted"`` for the known-wrong rules kept as lemmas so
    the machinery shows it catches them.  `strategies` restricts the
    attempts: a lemma *about* negative divisors must not use the native
    encoding, whose negative case is that very identity.
    """

    name: str
    statement: str
    build: Callable[[Encoding], Goal]
    expected: Verdict = "proved"
    strategies: tuple[Strategy, ...] | None = None


@dataclass(frozen=True)
class LemmaResult:
    """The verdict on one lemma, how long it took, the strategy that decided it,
    and for a refutation the counterexample (variable name → value)."""

    lemma: str
    verdict: Verdict
    seconds: float
    strategy: str | None = None
    counterexample: tuple[tuple[str, int], ...] = ()
    attempts: tuple[str, ...] = field(default_factory=tuple)


def prove(
    lemma: Lemma,
    *,
    rlimit: int = DEFAULT_RLIMIT,
    strategies: Sequence[Strategy] | None = None,
) -> LemmaResult:
    """Try each strategy in turn (the lemma's own, else `STRATEGIES`) until one
    decides the lemma."""
    start = time.perf_counter()
    attempts: list[str] = []
    for strategy in strategies or lemma.strategies or STRATEGIES:
        context = z3.Context()
        encoding = strategy.encoding(context)
        goal = lemma.build(encoding)
        solver = _solver(strategy, context)
        solver.set("rlimit", rlimit)
        solver.add(*goal.hypotheses, *encoding.definitions, z3.Not(goal.claim))
        answer = solver.check()
        attempts.append(f"{strategy.name}: {answer}")
        if answer == z3.unsat:
            return LemmaResult(
                lemma.name,
                "proved",
                time.perf_counter() - start,
                strategy.name,
                (),
                tuple(attempts),
            )
        if answer == z3.sat:
            model = solver.model()
            values = tuple(
                (str(v), model.eval(v, model_completion=True).as_long()) for v in goal.variables
            )
            return LemmaResult(
                lemma.name,
                "refuted",
                time.perf_counter() - start,
                strategy.name,
                values,
                tuple(attempts),
            )
    return LemmaResult(
        lemma.name, "unknown", time.perf_counter() - start, None, (), tuple(attempts)
    )


def _solver(strategy: Strategy, context: Any) -> Any:
    if strategy.substitute_equalities:
        tactic = z3.Then("simplify", "propagate-values", "solve-eqs", "smt", ctx=context)
        return tactic.solver()
    return z3.Solver(ctx=context)


def between(lo: Any, x: Any, hi: Any) -> Any:
    """``lo <= x <= hi``."""
    return z3.And(lo <= x, x <= hi)


def zmin(a: Any, b: Any) -> Any:
    return z3.If(a <= b, a, b)


def zmax(a: Any, b: Any) -> Any:
    return z3.If(a >= b, a, b)
