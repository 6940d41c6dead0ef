"""What a rewrite rule is: a named object the driver applies and `proofs/` proves.

Every rule has a `name` (unique, snake_case, also the name of its lemma in
`proofs/`), a `family` (the `proofs/` module that proves it), a one-line
`description` with a worked example in map syntax, and `lemma`, the
statement its proof establishes, in the form "side condition ⇒ lhs = rhs"
(or "⇒ same solutions" for constraint and map rules).

Applying a rule is three steps, kept apart so the side condition is explicit:

1. ``matches(subject)`` recognises the shape and returns the bindings (or
   None); it never looks at ranges;
2. ``side_condition(bindings, ranges)`` is the question to the range
   evaluator (or on constants) that the lemma assumes;
3. ``rewrite(bindings, ranges)`` builds the replacement.

The subject is an expression (`ExprRule`), one constraint (`ConstraintRule`)
or the whole map (`MapRule`).  `ConstructionRule`s are the canonicalisations
the core constructors in `verifier.expr.nodes` apply on every build; they have
lemmas like the others but the driver never calls them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from verifier.expr import Constraint, Expr, IndexingMap, Ranges, Var

M = TypeVar("M")

# The symbol-changing map rewrites, each behind its own option.
SymbolRewrite: TypeAlias = Literal["rescale", "remove_unused"]
# An input symbol's value in terms of the output's symbols; None: removed.
SymbolSubstitution: TypeAlias = dict[Var, Expr | None]


@dataclass(frozen=True)
class Infeasible:
    """A constraint rewrite's verdict that no point satisfies the constraint."""


INFEASIBLE = Infeasible()

# What a constraint becomes: zero (dropped), one or several constraints, or
# the verdict that the domain is empty.
ConstraintRewrite: TypeAlias = tuple[Constraint, ...] | Infeasible


@dataclass(frozen=True)
class ExprRule(Generic[M]):
    """A rewrite of one expression node into an equal one on the domain."""

    name: str
    family: str
    description: str
    lemma: str
    matches: Callable[[Expr], M | None]
    side_condition: Callable[[M, Ranges], bool]
    rewrite: Callable[[M, Ranges], Expr]


@dataclass(frozen=True)
class ConstraintRule(Generic[M]):
    """A rewrite of one constraint into constraints with the same solutions."""

    name: str
    family: str
    description: str
    lemma: str
    matches: Callable[[Constraint], M | None]
    side_condition: Callable[[M, Ranges], bool]
    rewrite: Callable[[M, Ranges], ConstraintRewrite]


@dataclass(frozen=True)
class MapRule(Generic[M]):
    """A rewrite of a whole map into one with the same relation.

    A rule with a `symbol_rewrite` renames, removes or rescales symbols: its
    result equals its input as a relation, not pointwise, so the driver runs
    it only when asked to (``simplify(..., rescale_symbols=True)``).  Its
    `substitution` says what each changed symbol of the input is in the
    output: ``{s0: s0 * 4 + 2}`` for a rescaling, ``{s1: None}`` for a
    removal, ``{s2: s1}`` for the renumbering that follows one.
    """

    name: str
    family: str
    description: str
    lemma: str
    matches: Callable[[IndexingMap], M | None]
    side_condition: Callable[[M, Ranges], bool]
    rewrite: Callable[[M, Ranges], IndexingMap]
    symbol_rewrite: SymbolRewrite | None = None
    substitution: Callable[[M], SymbolSubstitution] | None = None


@dataclass(frozen=True)
class ConstructionRule:
    """A canonicalisation the core constructors apply on every build.

    `applied_by` names the constructor in `verifier.expr.nodes` (or
    `IndexingMap.create`) that performs it.
    """

    name: str
    family: str
    description: str
    lemma: str
    applied_by: str


AnyRule: TypeAlias = "ExprRule[Any] | ConstraintRule[Any] | MapRule[Any] | ConstructionRule"
