"""Every simplification proven: the simplified map checked equal to its input.

Pointwise (same variables, equal domains, equal results at every point) when
the simplification kept the variables; as relations (symbols existential)
when a symbol was removed or rescaled.  The verdict comes from
`verifier.checks.equivalence` (isl, with the second witness its `Budget` asks for).

>>> from verifier.expr import parse_map
>>> proven = simplify_and_prove(parse_map(
...     "(d0) -> (d0 floordiv 4 * 4 + d0 mod 4), domain: d0 in [0, 15]"))
>>> str(proven.map).splitlines()[0], proven.verdict.value
('(d0) -> (d0),', 'equal')
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.bridges import z3 as z3_bridge
from verifier.checks.budget import Budget
from verifier.checks.equivalence import (
    EquivalenceResult,
    PointwiseCounterexample,
    check_equivalence,
)
from verifier.checks.result import DEFAULT_BUDGET
from verifier.checks.verdict import Verdict
from verifier.expr import IndexingMap, TypedMap, canonical, print_syntax
from verifier.simplify.driver import SimplificationResult, simplify


@dataclass(frozen=True)
class ProvenSimplification:
    """A simplification and the verdict on "simplified = input"."""

    simplification: SimplificationResult
    equivalence: EquivalenceResult
    pointwise: bool

    @property
    def map(self) -> IndexingMap:
        return self.simplification.map

    @property
    def rules_applied(self) -> tuple[str, ...]:
        return self.simplification.rules_applied

    @property
    def verdict(self) -> Verdict:
        return self.equivalence.verdict


def prove_simplification(
    original: IndexingMap, result: SimplificationResult, budget: Budget = DEFAULT_BUDGET
) -> ProvenSimplification:
    """The verdict on ``result.map == original`` (pointwise when the variables
    are unchanged, as relations otherwise)."""
    pointwise = not result.changes_variables and _same_variables(original, result.map)
    equivalence = check_equivalence(original, result.map, pointwise=pointwise, budget=budget)
    return ProvenSimplification(result, equivalence, pointwise)


def simplify_and_prove(indexing_map: IndexingMap) -> ProvenSimplification:
    """`indexing_map` simplified, with the proof that nothing changed."""
    return prove_simplification(indexing_map, simplify(indexing_map))


def _same_variables(a: IndexingMap, b: IndexingMap) -> bool:
    return (len(a.dims), len(a.range_vars), len(a.rt_vars)) == (
        len(b.dims),
        len(b.range_vars),
        len(b.rt_vars),
    )


@dataclass(frozen=True)
class Folding:
    """An expression construction already rewrote while reading the text:
    ``(d0 + 3) * 2 - d0 * 2`` is read as ``6``."""

    typed: str
    read_as: str


@dataclass(frozen=True)
class TypedProof:
    """The verdict on "simplified = the map as typed", proved by z3 from the
    parse tree of the text (before construction folded anything), and what
    construction had folded.  `witness` names a point where they differ."""

    verdict: Verdict
    foldings: tuple[Folding, ...]
    witness: tuple[tuple[str, int], ...] = ()


def prove_from_typed(
    typed: TypedMap, result: SimplificationResult, budget: Budget = DEFAULT_BUDGET
) -> TypedProof:
    """The verdict on ``result.map`` equal, point by point, to `typed` — the
    text `result.input` was read from — in two links: typed = read (z3, from
    the typed tree: what construction folded while reading), then read =
    simplified (`prove_simplification`: isl, with the second witness
    `budget` asks for).

    The first link differs from a syntactic identity only where
    construction folded something, which z3 settles in milliseconds; the
    second is isl's (a decision procedure).  z3 deciding typed = simplified
    in one question spent seconds on floordiv chains that isl proves in
    milliseconds (``benchmarks/fuzz_questions.py``).  A witness is a point
    of the typed text's variables.

    >>> from verifier.expr import parse_map, parse_typed_map
    >>> from verifier.simplify import simplify
    >>> text = "(d0) -> ((d0 + 3) * 2 - d0 * 2), domain: d0 in [0, 9]"
    >>> typed = parse_typed_map(text)
    >>> proof = prove_from_typed(typed, simplify(parse_map(text)))
    >>> proof.verdict.value, [(f.typed, f.read_as) for f in proof.foldings]
    ('equal', [('(d0 + 3) * 2 - d0 * 2', '6')])
    """
    foldings = _foldings(typed)
    answer = z3_bridge.compare_typed(typed, result.input)
    if answer.differs is None:
        return TypedProof(Verdict.UNKNOWN, foldings)
    if answer.differs:
        return TypedProof(Verdict.DIFFERENT, foldings, answer.witness)
    proven = prove_simplification(result.input, result, budget)
    witness = proven.equivalence.counterexample
    if isinstance(witness, PointwiseCounterexample):
        return TypedProof(proven.verdict, foldings, witness.point)
    return TypedProof(proven.verdict, foldings)


def _foldings(typed: TypedMap) -> tuple[Folding, ...]:
    expressions = [*typed.results, *(syntax for syntax, _ in typed.constraints)]
    found = []
    for syntax in expressions:
        written, read = print_syntax(syntax), str(canonical(syntax))
        if written != read:
            found.append(Folding(written, read))
    return tuple(found)
