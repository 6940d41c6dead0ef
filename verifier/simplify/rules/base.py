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
from typing import Any, Generic, TypeAlias, TypeVar

from verifier.expr.indexing_map import Constraint, IndexingMap
from verifier.expr.nodes import Expr
from verifier.simplify.ranges import Ranges

M = TypeVar("M")


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

    `changes_variables` says whether the rewrite renames, removes or rescales
    symbols; such a result is compared with its input as a relation, not
    pointwise.
    """

    name: str
    family: str
    description: str
    lemma: str
    matches: Callable[[IndexingMap], M | None]
    side_condition: Callable[[M, Ranges], bool]
    rewrite: Callable[[M, Ranges], IndexingMap]
    changes_variables: bool = False


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
