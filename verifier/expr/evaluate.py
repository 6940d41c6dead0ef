"""Plain evaluation of expressions: at a point, and over intervals.

`evaluate` is the reference semantics every solver translation is tested
against: Python's ``//`` and ``%`` are exactly ``floordiv`` and ``mod``.

>>> from verifier.expr.nodes import dim
>>> evaluate((dim(0) - 7) // 2, {dim(0): 0})
-4
>>> interval_of(dim(0) * 10 + dim(1), lambda v: Interval(0, 9))
Interval(lower=0, upper=99)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import assert_never

from verifier.expr.interval import Interval
from verifier.expr.nodes import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    Max,
    Min,
    Mod,
    Mul,
    Var,
    add,
    ceildiv,
    max_,
    min_,
)
from verifier.expr.ranges import Ranges
from verifier.expr.translator import ExprTranslator


def evaluate(expr: Expr, values: Mapping[Var, int]) -> int:
    """The value of `expr` with each variable taken from `values`."""
    match expr:
        case Const(value):
            return value
        case Var():
            return values[expr]
        case Add(operands):
            return sum(evaluate(operand, values) for operand in operands)
        case Mul(operand, factor):
            return evaluate(operand, values) * factor
        case FloorDiv(operand, divisor):
            return evaluate(operand, values) // divisor
        case CeilDiv(operand, divisor):
            return -(-evaluate(operand, values) // divisor)
        case Mod(operand, modulus):
            return evaluate(operand, values) % modulus
        case Min(lhs, rhs):
            return min(evaluate(lhs, values), evaluate(rhs, values))
        case Max(lhs, rhs):
            return max(evaluate(lhs, values), evaluate(rhs, values))
        case _:
            assert_never(expr)


def point_predicate(
    variables: Sequence[Var],
    constraints: Sequence[tuple[Expr, Interval]],
    equations: Sequence[tuple[Expr, int]] = (),
) -> Callable[..., bool] | None:
    """Whether every ``expr in interval`` of `constraints` and every ``expr ==
    value`` of `equations` hold, as a function of `variables` (positional),
    compiled to Python: `evaluate`'s semantics, tens of times faster, for
    questions that enumerate many points.  `None` when the text would be
    too large or too deeply nested for Python to compile.

    >>> from verifier.expr.nodes import dim
    >>> holds = point_predicate([dim(0)], [(dim(0) % 3, Interval(0, 1))], [(dim(0) // 3, 2)])
    >>> [x for x in range(12) if holds(x)]
    [6, 7]
    """
    source = _PythonSource()
    try:
        tests = [f"{i.lower} <= {source.convert(e)} <= {i.upper}" for e, i in constraints]
        tests += [f"{source.convert(e)} == {value}" for e, value in equations]
        text = f"lambda {', '.join(v.name for v in variables)}: {' and '.join(tests) or 'True'}"
        if len(text) > _MAX_SOURCE:
            return None
        # Only variable names (d0, s1, rt0), integers and operators reach the text.
        predicate: Callable[..., bool] = eval(text, {"min": min, "max": max})
    except (SyntaxError, RecursionError, MemoryError):  # nested beyond Python's parser
        return None
    return predicate


def point_value(
    variables: Sequence[Var], constraints: Sequence[tuple[Expr, Interval]], expr: Expr
) -> Callable[..., int | None] | None:
    """The value of `expr` where every ``expr in interval`` of `constraints`
    holds, else `None`, as a function of `variables` (positional), compiled
    to Python as `point_predicate` is; `None` when too large to compile.

    >>> from verifier.expr.nodes import dim
    >>> value = point_value([dim(0)], [(dim(0), Interval(0, 5))], dim(0) * 2 + 1)
    >>> value(3), value(6)
    (7, None)
    """
    source = _PythonSource()
    try:
        tests = [f"{i.lower} <= {source.convert(e)} <= {i.upper}" for e, i in constraints]
        text = (
            f"lambda {', '.join(v.name for v in variables)}: "
            f"{source.convert(expr)} if ({' and '.join(tests) or 'True'}) else None"
        )
        if len(text) > _MAX_SOURCE:
            return None
        # Only variable names (d0, s1, rt0), integers and operators reach the text.
        function: Callable[..., int | None] = eval(text, {"min": min, "max": max})
    except (SyntaxError, RecursionError, MemoryError):  # nested beyond Python's parser
        return None
    return function


# Sub-expressions a map shares are repeated in the text; past this size the
# caller's other witness is cheaper than compiling.
_MAX_SOURCE = 1 << 16


class _PythonSource(ExprTranslator[str]):
    """Expression → Python expression text of the same value: Python's
    ``//`` and ``%`` are ``floordiv`` and ``mod`` (positive divisors)."""

    def map_const(self, value: int) -> str:
        return f"({value})"

    def map_var(self, variable: Var) -> str:
        return variable.name

    def map_add(self, operands: tuple[Expr, ...]) -> str:
        return "(" + " + ".join(self.convert(operand) for operand in operands) + ")"

    def map_mul(self, operand: Expr, factor: int) -> str:
        return f"({self.convert(operand)} * ({factor}))"

    def map_floordiv(self, operand: Expr, divisor: int) -> str:
        return f"({self.convert(operand)} // {divisor})"

    def map_ceildiv(self, operand: Expr, divisor: int) -> str:
        return f"(-(-{self.convert(operand)} // {divisor}))"

    def map_mod(self, operand: Expr, modulus: int) -> str:
        return f"({self.convert(operand)} % {modulus})"

    def map_min(self, lhs: Expr, rhs: Expr) -> str:
        return f"min({self.convert(lhs)}, {self.convert(rhs)})"

    def map_max(self, lhs: Expr, rhs: Expr) -> str:
        return f"max({self.convert(lhs)}, {self.convert(rhs)})"


def interval_of(expr: Expr, bounds: Callable[[Var], Interval]) -> Interval:
    """An interval containing every value of `expr` when each variable ranges
    over `bounds(variable)`: `verifier.expr.ranges.Ranges` without constraints."""
    return Ranges(bounds, {}).interval(expr)


@functools.lru_cache(maxsize=1 << 14)
def variables_of(expr: Expr) -> frozenset[Var]:
    """The variables occurring in `expr`, walked without recursion however
    deep it nests (`subterms`), and remembered for the last 16,384
    expressions: every map built checks that its expressions use only its
    variables, and simplification builds one map per rewrite."""
    return frozenset(term for term in subterms(expr) if term.__class__ is Var)


def subterms(expr: Expr) -> Iterator[Expr]:
    """`expr` and every expression below it, each once, in pre-order: a term
    shared by several parents (nodes are interned) is visited once, so a map
    whose text unfolds exponentially costs the size of its graph.

    >>> from verifier.expr.nodes import dim
    >>> [str(t) for t in subterms((dim(0) // 2) * 3 + dim(0) // 2 % 4)]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['(d0 floordiv 2) * 3 + (d0 floordiv 2) mod 4', '(d0 floordiv 2) * 3',
     'd0 floordiv 2', 'd0', '(d0 floordiv 2) mod 4']
    """
    seen: set[Expr] = set()
    pending = [expr]
    while pending:
        term = pending.pop()
        if term in seen:
            continue
        seen.add(term)
        yield term
        match term:
            case Const() | Var():
                pass
            case Add(operands):
                pending.extend(reversed(operands))
            case Mul(operand) | FloorDiv(operand) | CeilDiv(operand) | Mod(operand):
                pending.append(operand)
            case Min(lhs, rhs) | Max(lhs, rhs):
                pending += (rhs, lhs)
            case _:
                assert_never(term)


def substitute(expr: Expr, replacement: Callable[[Var], Expr]) -> Expr:
    """`expr` with every variable `v` replaced by `replacement(v)`, rebuilt canonically."""
    match expr:
        case Const():
            return expr
        case Var():
            return replacement(expr)
        case Add(operands):
            return add(*(substitute(operand, replacement) for operand in operands))
        case Mul(operand, factor):
            return substitute(operand, replacement) * factor
        case FloorDiv(operand, divisor):
            return substitute(operand, replacement) // divisor
        case CeilDiv(operand, divisor):
            return ceildiv(substitute(operand, replacement), divisor)
        case Mod(operand, modulus):
            return substitute(operand, replacement) % modulus
        case Min(lhs, rhs):
            return min_(substitute(lhs, replacement), substitute(rhs, replacement))
        case Max(lhs, rhs):
            return max_(substitute(lhs, replacement), substitute(rhs, replacement))
        case _:
            assert_never(expr)
