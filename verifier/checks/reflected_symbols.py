"""Equal relations by construction: a map's relation up to reflecting its
range symbols.

As a relation ``{ [d] -> [results] : exists s : domain }`` a map is
unchanged when a range symbol ``s`` with bounds ``[lo, hi]`` is replaced,
in every result and constraint, by ``lo + hi - s``: that maps ``[lo, hi]``
onto itself one to one, so the same pairs ``d -> results`` are related,
through other witnesses.  A symbol that occurs only as a plain term
(``k * s``, never under a ``floordiv``, ``mod``, ``min`` or ``max``) is
reflected or not so that its first coefficient (over the results, then the
constraints) is positive; `relation_form` is the map so oriented, each
expression as its linear terms (``linear_terms``: the expression is their
sum).  Maps with equal forms relate the same pairs — what a window whose
symbol runs backwards gives; unequal forms say nothing (isl decides).

>>> from verifier.expr import parse_map
>>> a = parse_map("(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 3], s0 in [0, 3]")
>>> b = parse_map("(d0)[s0] -> (d0 * 4 + 3 - s0), domain: d0 in [0, 3], s0 in [0, 3]")
>>> relation_form(a) == relation_form(b)
True
>>> c = parse_map("(d0)[s0] -> (d0 * 4 + 4 - s0), domain: d0 in [0, 3], s0 in [0, 3]")
>>> relation_form(a) == relation_form(c)
False
>>> one_relation(a, b), one_relation(a, c)
(True, False)
"""

from __future__ import annotations

import functools
from collections.abc import Hashable

from verifier.expr import Expr, IndexingMap, Var, VarKind, linear_terms, variables_of

_LinearForm = tuple[tuple[tuple[Expr, int], ...], int]


def one_relation(a: IndexingMap, b: IndexingMap) -> bool:
    """Whether `a` and `b` have equal forms, asked only where they could
    without being one map: the same variables, as many results and
    constraints, and a range symbol with a negative coefficient (one of
    them reflects it).  Most maps that a reflection cannot make one are
    then told apart without their forms (the XLA-style pairs of
    ``benchmarks/equivalence.py``: their forms cost an eighth of a batch)."""
    return (
        (a.dims, a.range_vars, a.rt_vars) == (b.dims, b.range_vars, b.rt_vars)
        and (len(a.results), len(a.constraints)) == (len(b.results), len(b.constraints))
        and (_negated_symbol(a) or _negated_symbol(b))
        and relation_form(a) == relation_form(b)
    )


def _negated_symbol(indexing_map: IndexingMap) -> bool:
    return any(map(_negates_symbol, indexing_map.results)) or any(
        _negates_symbol(expr) for expr, _ in indexing_map.constraints
    )


@functools.lru_cache(maxsize=1 << 14)
def _negates_symbol(expr: Expr) -> bool:
    """Whether a range symbol is a term of `expr` with a negative
    coefficient (maps share expressions: each is asked once)."""
    return any(
        k < 0 and isinstance(base, Var) and base.kind is VarKind.RANGE
        for base, k in linear_terms(expr)[0].items()
    )


@functools.lru_cache(maxsize=1 << 12)
def relation_form(indexing_map: IndexingMap) -> Hashable:
    """The map's variables (with their bounds), its results in order and its
    constraints, each expression as its linear terms with the plain range
    symbols oriented (see the module docstring)."""
    results = [linear_terms(expr) for expr in indexing_map.results]
    constraints = [(linear_terms(expr), interval) for expr, interval in indexing_map.constraints]
    expressions = [*results, *(terms for terms, _ in constraints)]
    nested = {
        v
        for terms, _ in expressions
        for base in terms
        if not isinstance(base, Var)
        for v in variables_of(base)
    }
    reflected: dict[Expr, int] = {}  # a reflected symbol and its lo + hi
    range_symbols = indexing_map.symbols[: len(indexing_map.range_vars)]
    for symbol, variable in zip(range_symbols, indexing_map.range_vars, strict=True):
        if symbol in nested:
            continue
        first = next((k for terms, _ in expressions if (k := terms.get(symbol, 0))), 0)
        if first < 0:
            reflected[symbol] = variable.bounds.lower + variable.bounds.upper

    def oriented(expression: tuple[dict[Expr, int], int]) -> _LinearForm:
        terms, constant = expression
        if not reflected.keys() & terms.keys():
            return tuple(terms.items()), constant
        for symbol, span in reflected.items():
            constant += terms.get(symbol, 0) * span  # k * s -> k * (span - s)
        return tuple((b, -k if b in reflected else k) for b, k in terms.items()), constant

    return (
        (indexing_map.dims, indexing_map.range_vars, indexing_map.rt_vars),
        tuple(oriented(expression) for expression in results),
        tuple((oriented(terms), interval) for terms, interval in constraints),
    )
