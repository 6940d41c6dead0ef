"""The fixpoint driver: apply the registered rules until nothing changes.

One round (at most `max_rounds`, default 16):

1. map rules that decide emptiness or merge/tighten `mod` constraints;
2. each constraint in turn: its expression is simplified with ranges that
   leave *it* out (but include every other current constraint), then the
   constraint rules run on it until none fires;
3. every result is simplified with the ranges of the new domain;
4. the symbol rules (rescaling, removal of unused symbols) — only those the
   caller asked for.

By default the result is **pointwise equal** to the input: the same dims,
range and runtime variables, each with the same meaning, and the same
results at every point of the same domain.  Rescaling a symbol
(``rescale_symbols=True``) or removing unused ones
(``remove_unused_symbols=True``) keeps only the *relation* (symbols
existential), which is what fusion composition needs; the result then says
in `symbol_changes` what each changed input symbol is in the output.

Constraints are processed one at a time against the *current* others, so
each step replaces one constraint by an equivalent one on the rest of the
domain — two constraints never justify each other's rewrites.

Expressions are rewritten bottom-up: children first, then the rules at the
node until none fires.  A rewrite that would make a term larger is not
taken, so the result is never larger than the input (`verifier.simplify.size`).

>>> from verifier.expr import parse_map
>>> result = simplify(parse_map(
...     "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]"))
>>> str(result.map).splitlines()[0]
'(d0, d1) -> (d0, d1),'
>>> result.rules_applied
('const_from_range', 'mod_drop_when_no_wrap')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, assert_never

from verifier.expr import (
    Add,
    CeilDiv,
    Const,
    Constraint,
    Expr,
    FloorDiv,
    IndexingMap,
    Max,
    Min,
    Mod,
    Mul,
    Ranges,
    Var,
    add,
    ceildiv,
    floordiv,
    max_,
    min_,
    mod,
    mul,
    substitute,
    variables_of,
)
from verifier.simplify.rules import (
    CONSTRAINT_RULES,
    EXPR_RULES,
    MAP_RULES,
    PRE_ORDER_RULES,
    ExprRule,
    Infeasible,
    MapRule,
    SymbolRewrite,
    SymbolSubstitution,
)
from verifier.simplify.rules.symbols import known_empty_like
from verifier.simplify.size import expr_size

# Rewrites at one node before the driver gives up on it (rules are designed
# not to cycle; the bound makes a mistake a missed simplification, not a hang).
_NODE_REWRITE_LIMIT = 64
_CONSTRAINT_REWRITE_LIMIT = 64
_EMPTINESS_RULES = (
    "domain_empty_bounds",
    "constraint_mod_merge_lcm",
    "constraint_mod_tighten_bounds",
)


@dataclass(frozen=True)
class SymbolChange:
    """What one symbol of the input is in the output of a simplification.

    ``SymbolChange(s0, s0 * 4 + 2)`` says the input's ``s0`` is the output's
    ``s0 * 4 + 2`` (a rescaling); ``SymbolChange(s1, None)`` that the input's
    ``s1`` was removed (the output does not depend on it).
    """

    symbol: Var
    becomes: Expr | None

    def __str__(self) -> str:
        if self.becomes is None:
            return f"{self.symbol.name} removed"
        return f"{self.symbol.name} is now {self.becomes}"


@dataclass(frozen=True)
class SimplificationResult:
    """A simplified map and how it was obtained.

    `rules_applied` lists each fired rule once, in the order it first fired;
    `rule_counts` says how often each fired.  `symbol_changes` is empty
    unless a symbol-changing rewrite was asked for and fired: the result then
    equals the input as a relation but not variable for variable.
    """

    input: IndexingMap
    map: IndexingMap
    rules_applied: tuple[str, ...]
    rule_counts: tuple[tuple[str, int], ...]
    rounds: int
    symbol_changes: tuple[SymbolChange, ...] = ()

    @property
    def changed(self) -> bool:
        return self.map != self.input

    @property
    def changes_variables(self) -> bool:
        return bool(self.symbol_changes)


@dataclass
class _Log:
    fired: Counter[str] = field(default_factory=Counter)
    order: list[str] = field(default_factory=list)
    # Each input symbol's value over the current map's symbols (None: removed).
    symbols: SymbolSubstitution = field(default_factory=dict)

    def record(self, name: str) -> None:
        if name not in self.fired:
            self.order.append(name)
        self.fired[name] += 1

    def substitute_symbols(self, substitution: SymbolSubstitution) -> None:
        def replacement(v: Var) -> Expr:
            value = substitution.get(v, v)
            assert value is not None
            return value

        for symbol, value in self.symbols.items():
            if value is None or not variables_of(value) & substitution.keys():
                continue
            if any(v in substitution and substitution[v] is None for v in variables_of(value)):
                self.symbols[symbol] = None
            else:
                self.symbols[symbol] = substitute(value, replacement)

    def symbol_changes(self) -> tuple[SymbolChange, ...]:
        return tuple(
            SymbolChange(symbol, value)
            for symbol, value in self.symbols.items()
            if value is not symbol
        )


def simplify(
    indexing_map: IndexingMap,
    *,
    rescale_symbols: bool = False,
    remove_unused_symbols: bool = False,
    max_rounds: int = 16,
) -> SimplificationResult:
    """`indexing_map` simplified by every registered rule, to a fixpoint;
    pointwise equal to it unless a symbol-changing rewrite is asked for.

    >>> from verifier.expr import parse_map
    >>> m = parse_map("(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8,"
    ...               " (d0 * 16 + d1 * 4 + d2) mod 8), domain: d0 in [0, 9],"
    ...               " d1 in [0, 9], d2 in [0, 9]")
    >>> str(simplify(m).map).splitlines()[0]
    '(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8),'

    With ``rescale_symbols=True`` a symbol on a lattice is replaced:

    >>> m = parse_map("(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 40],"
    ...               " s0 mod 4 in [2, 2]")
    >>> str(simplify(m).map).splitlines()[0]
    '(d0)[s0] -> (d0, s0),'
    >>> result = simplify(m, rescale_symbols=True)
    >>> str(result.map).splitlines()[0], [str(c) for c in result.symbol_changes]
    ('(d0)[s0] -> (d0, s0 * 4 + 2),', ['s0 is now s0 * 4 + 2'])
    """
    requested: set[SymbolRewrite] = set()
    if rescale_symbols:
        requested.add("rescale")
    if remove_unused_symbols:
        requested.add("remove_unused")
    log = _Log(symbols={s: s for s in indexing_map.symbols})
    current = indexing_map
    rounds = 0
    while rounds < max_rounds:
        rounds += 1
        following = _round(current, log, frozenset(requested))
        if following == current:
            break
        current = following
    return SimplificationResult(
        input=indexing_map,
        map=current,
        rules_applied=tuple(log.order),
        rule_counts=tuple((name, log.fired[name]) for name in log.order),
        rounds=rounds,
        symbol_changes=log.symbol_changes(),
    )


def simplify_relation(indexing_map: IndexingMap) -> IndexingMap:
    """`indexing_map` simplified as a relation (symbols existential): every
    rule, the symbol-changing ones included.  What fusion composition and the
    analyses built on it use, where only the relation counts.

    >>> from verifier.expr import parse_map
    >>> str(simplify_relation(parse_map(
    ...     "(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 3], s0 in [0, 3], s1 in [0, 3]"
    ... ))).splitlines()[0]
    '(d0)[s0] -> (d0 + s0),'
    """
    return simplify(indexing_map, rescale_symbols=True, remove_unused_symbols=True).map


def simplify_expr(expr: Expr, ranges: Ranges) -> tuple[Expr, tuple[str, ...]]:
    """`expr` simplified with `ranges`, and the rules that fired.

    >>> from verifier.expr import dim
    >>> from verifier.expr import Interval
    >>> e, rules = simplify_expr((dim(0) * 4) % 8, Ranges({dim(0): Interval(0, 9)}.__getitem__, {}))
    >>> str(e), rules
    ('(d0 mod 2) * 4', ('mod_gcd_factor',))
    """
    log = _Log()
    return _ExprSimplifier(ranges, log).run(expr), tuple(log.order)


# ---------------------------------------------------------------- one round


def _round(
    indexing_map: IndexingMap, log: _Log, requested: frozenset[SymbolRewrite]
) -> IndexingMap:
    current = _apply_map_rules(indexing_map, log, only=_EMPTINESS_RULES)
    if current.is_known_empty:
        return _emptied(current, log)
    current = _simplify_constraints(current, log)
    if current.is_known_empty:
        return _emptied(current, log)
    ranges = Ranges.of_map(current)
    simplifier = _ExprSimplifier(ranges, log)
    current = current.replaced(results=[simplifier.run(r) for r in current.results])
    return _apply_map_rules(
        current,
        log,
        only=tuple(
            r.name for r in MAP_RULES if r.symbol_rewrite is None or r.symbol_rewrite in requested
        ),
    )


def _emptied(indexing_map: IndexingMap, log: _Log) -> IndexingMap:
    """The canonical KNOWN EMPTY form of a map whose constraint cannot hold."""
    empty = known_empty_like(indexing_map)
    if empty != indexing_map:
        log.record("constraint_infeasible")
    return empty


def _apply_map_rules(indexing_map: IndexingMap, log: _Log, *, only: tuple[str, ...]) -> IndexingMap:
    current = indexing_map
    for rule in MAP_RULES:
        if rule.name not in only:
            continue
        current = _apply_map_rule(rule, current, log)
        if current.is_known_empty:
            break
    return current


def _apply_map_rule(rule: MapRule[Any], indexing_map: IndexingMap, log: _Log) -> IndexingMap:
    current = indexing_map
    for _ in range(_CONSTRAINT_REWRITE_LIMIT):
        match = rule.matches(current)
        if match is None:
            break
        ranges = Ranges.of_map(current)
        if not rule.side_condition(match, ranges):
            break
        rewritten = rule.rewrite(match, ranges)
        if rewritten == current:
            break
        log.record(rule.name)
        if rule.substitution is not None:
            log.substitute_symbols(rule.substitution(match))
        current = rewritten
        if current.is_known_empty:
            break
    return current


def _simplify_constraints(indexing_map: IndexingMap, log: _Log) -> IndexingMap:
    """Each constraint, in turn, against the current others."""
    pending: list[Constraint] = list(indexing_map.constraints)
    done: list[Constraint] = []
    while pending:
        constraint = pending.pop(0)
        others = indexing_map.replaced(constraints=done + pending)
        if others.is_known_empty:
            return known_empty_like(indexing_map)
        ranges = Ranges.of_map(others)
        expr = _ExprSimplifier(ranges, log).run(constraint[0])
        outcome = _rewrite_constraint((expr, constraint[1]), ranges, log)
        if isinstance(outcome, Infeasible):
            return known_empty_like(indexing_map)
        done.extend(outcome)
    return indexing_map.replaced(constraints=done)


def _rewrite_constraint(
    constraint: Constraint, ranges: Ranges, log: _Log
) -> list[Constraint] | Infeasible:
    """The constraint rules on one constraint until none fires (or the step bound)."""
    worklist = [constraint]
    finished: list[Constraint] = []
    steps = 0
    while worklist and steps < _CONSTRAINT_REWRITE_LIMIT:
        current = worklist.pop()
        for rule in CONSTRAINT_RULES:
            match = rule.matches(current)
            if match is None or not rule.side_condition(match, ranges):
                continue
            outcome = rule.rewrite(match, ranges)
            steps += 1
            log.record(rule.name)
            if isinstance(outcome, Infeasible):
                return outcome
            worklist.extend(outcome)
            break
        else:
            finished.append(current)
    return finished + worklist


# ---------------------------------------------------------------- expressions


class _ExprSimplifier:
    """Bottom-up rewriting of expressions with one `Ranges`, memoised.

    The memo keeps, with each result, the rules that produced it, so a shared
    sub-expression reports its rules wherever it occurs.
    """

    def __init__(self, ranges: Ranges, log: _Log) -> None:
        self.ranges = ranges
        self.log = log
        self.memo: dict[Expr, tuple[Expr, tuple[str, ...]]] = {}

    def run(self, expr: Expr) -> Expr:
        result, fired = self._run(expr)
        for name in fired:
            self.log.record(name)
        return result

    def _run(self, expr: Expr) -> tuple[Expr, tuple[str, ...]]:
        cached = self.memo.get(expr)
        if cached is not None:
            return cached
        fired: list[str] = []
        node = expr
        # Rules that need the children as written (the common dividend of a
        # sum of digits is gone once each digit is simplified on its own).
        for _ in range(_NODE_REWRITE_LIMIT):
            step = self._rewrite_once(node, PRE_ORDER_RULES, simplify_children=False)
            if step is None:
                break
            node, names = step
            fired += names
        node = self._with_simplified_children(node, fired)
        for _ in range(_NODE_REWRITE_LIMIT):
            step = self._rewrite_once(node, EXPR_RULES, simplify_children=True)
            if step is None:
                break
            node, names = step
            fired += names
        result = (node, tuple(fired))
        self.memo[expr] = result
        return result

    def _rewrite_once(
        self, node: Expr, rules: tuple[ExprRule[Any], ...], *, simplify_children: bool
    ) -> tuple[Expr, list[str]] | None:
        for rule in rules:
            match = rule.matches(node)
            if match is None or not rule.side_condition(match, self.ranges):
                continue
            fired = [rule.name]
            candidate = rule.rewrite(match, self.ranges)
            if simplify_children:
                candidate = self._with_simplified_children(candidate, fired)
            # Never grow a term: a larger equal term is not a simplification.
            # (Measured after the new children are simplified, so a rewrite
            # that only pays off one level down is still taken.)
            if candidate is node or expr_size(candidate) > expr_size(node):
                continue
            return candidate, fired
        return None

    def _with_simplified_children(self, expr: Expr, fired: list[str]) -> Expr:
        def run(child: Expr) -> Expr:
            result, names = self._run(child)
            fired.extend(names)
            return result

        match expr:
            case Const() | Var():
                return expr
            case Add(operands):
                return add(*(run(o) for o in operands))
            case Mul(operand, factor):
                return mul(run(operand), factor)
            case FloorDiv(operand, divisor):
                return floordiv(run(operand), divisor)
            case CeilDiv(operand, divisor):
                return ceildiv(run(operand), divisor)
            case Mod(operand, modulus):
                return mod(run(operand), modulus)
            case Min(lhs, rhs):
                return min_(run(lhs), run(rhs))
            case Max(lhs, rhs):
                return max_(run(lhs), run(rhs))
            case _:
                assert_never(expr)


__all__ = [
    "SimplificationResult",
    "SymbolChange",
    "simplify",
    "simplify_expr",
    "simplify_relation",
]
