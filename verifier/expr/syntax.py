"""Expressions as typed: the parse tree of a map's text before construction
canonicalises it.

The constructors of `verifier.expr.nodes` fold and reorder on every build:
``(d0 + 3) * 2 - d0 * 2`` is read as ``6``.  That is the map's meaning, but a
proof that a simplification is right should start from what the user typed,
not from what construction already made of it.  `parse_typed_map` keeps the
tree as written (a run of sums and differences one n-ary node, so a long
sum is a shallow tree; unary minus, products, divisions, min and max as
they stand), so the proof encodes it
directly (`verifier.bridges.z3.compare_typed`), and `canonical` folds it with
the constructors, exactly as `verifier.expr.parser.parse_map` does.  The
parser (`verifier.expr.parser.parse_typed_map`) builds both from one grammar.

>>> from verifier.expr.parser import parse_typed_map
>>> typed = parse_typed_map("(d0) -> ((d0 + 3) * 2 - d0 * 2), domain: d0 in [0, 9]")
>>> print_syntax(typed.results[0]), str(canonical(typed.results[0]))
('(d0 + 3) * 2 - d0 * 2', '6')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, assert_never

from verifier.expr.interval import Interval
from verifier.expr.nodes import Const, Expr, Var, add, ceildiv, const, floordiv, max_, min_, mod

BinaryOp = Literal["*", "floordiv", "ceildiv", "mod", "min", "max"]


@dataclass(frozen=True)
class SyntaxInt:
    """An integer literal: ``3``."""

    value: int


@dataclass(frozen=True)
class SyntaxVar:
    """A variable: ``d0``, ``s1``, ``rt0``."""

    variable: Var


@dataclass(frozen=True)
class SyntaxNeg:
    """Unary minus: ``-d0`` (binds tighter than any binary operator)."""

    operand: Syntax


@dataclass(frozen=True)
class SyntaxSum:
    """``first + a - b …``: each later term with whether it is subtracted."""

    first: Syntax
    rest: tuple[tuple[bool, Syntax], ...]


@dataclass(frozen=True)
class SyntaxBinary:
    """``lhs op rhs``; ``min(a, b)`` and ``max(a, b)`` too."""

    op: BinaryOp
    lhs: Syntax
    rhs: Syntax


Syntax = SyntaxInt | SyntaxVar | SyntaxNeg | SyntaxSum | SyntaxBinary


@dataclass(frozen=True)
class TypedMap:
    """A map's text as typed: each variable with its bound (in header order),
    the results and the constraints as parse trees."""

    variables: tuple[tuple[Var, Interval], ...]
    results: tuple[Syntax, ...]
    constraints: tuple[tuple[Syntax, Interval], ...]


def canonical(syntax: Syntax) -> Expr:
    """The expression construction makes of `syntax` (what `parse_map` reads)."""
    match syntax:
        case SyntaxInt(value):
            return const(value)
        case SyntaxVar(variable):
            return variable
        case SyntaxNeg(operand):
            return -canonical(operand)
        case SyntaxSum(first, rest):
            terms = [-canonical(term) if minus else canonical(term) for minus, term in rest]
            return add(canonical(first), *terms)
        case SyntaxBinary(op, lhs, rhs):
            return apply_operator(op, canonical(lhs), canonical(rhs))
        case _:
            assert_never(syntax)


def apply_operator(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr:
    """``lhs op rhs`` built by the canonicalising constructors."""
    match op:
        case "*":
            return lhs * rhs
        case "floordiv":
            return floordiv(lhs, rhs)
        case "ceildiv":
            return ceildiv(lhs, rhs)
        case "mod":
            return mod(lhs, rhs)
        case "min":
            return min_(lhs, rhs)
        case "max":
            return max_(lhs, rhs)
        case _:
            assert_never(op)


def constant_value(syntax: Syntax) -> int | None:
    """The value of a subtree without variables (None when it has one).

    >>> constant_value(SyntaxBinary("mod", SyntaxInt(-7), SyntaxInt(2)))
    1
    """
    match syntax:
        case SyntaxInt(value):
            return value
        case SyntaxVar():
            return None
        case SyntaxNeg(operand):
            negated = constant_value(operand)
            return None if negated is None else -negated
        case SyntaxSum(first, rest):
            total = constant_value(first)
            for minus, term in rest:
                term_value = constant_value(term)
                if total is None or term_value is None:
                    return None
                total += -term_value if minus else term_value
            return total
        case SyntaxBinary(op, lhs, rhs):
            a, b = constant_value(lhs), constant_value(rhs)
            if a is None or b is None:
                return None
            folded = apply_operator(op, const(a), const(b))
            assert isinstance(folded, Const)
            return folded.value
        case _:
            assert_never(syntax)


_SUM_LEVEL = 1
_PRECEDENCE: dict[BinaryOp, int] = {
    "*": 2,
    "floordiv": 2,
    "ceildiv": 2,
    "mod": 2,
    "min": 3,
    "max": 3,
}


def print_syntax(syntax: Syntax) -> str:
    """`syntax` in map syntax, parenthesised only where the grammar needs it."""
    match syntax:
        case SyntaxInt(value):
            return str(value)
        case SyntaxVar(variable):
            return variable.name
        case SyntaxNeg(operand):
            inner = print_syntax(operand)
            atomic = isinstance(operand, SyntaxInt | SyntaxVar | SyntaxNeg) or (
                isinstance(operand, SyntaxBinary) and operand.op in ("min", "max")
            )
            return f"-{inner}" if atomic else f"-({inner})"
        case SyntaxSum(first, rest):
            parts = [_operand(first, _SUM_LEVEL, right=False)]
            for minus, term in rest:
                parts.append(f"{'-' if minus else '+'} {_operand(term, _SUM_LEVEL, right=True)}")
            return " ".join(parts)
        case SyntaxBinary(op, lhs, rhs):
            if op in ("min", "max"):
                return f"{op}({print_syntax(lhs)}, {print_syntax(rhs)})"
            level = _PRECEDENCE[op]
            left = _operand(lhs, level, right=False)
            right = _operand(rhs, level, right=True)
            return f"{left} {op} {right}"
        case _:
            assert_never(syntax)


def _operand(syntax: Syntax, level: int, *, right: bool) -> str:
    text = print_syntax(syntax)
    inner = None
    if isinstance(syntax, SyntaxSum):
        inner = _SUM_LEVEL
    elif isinstance(syntax, SyntaxBinary) and syntax.op not in ("min", "max"):
        inner = _PRECEDENCE[syntax.op]
    # Binary operators associate to the left: a right operand of the same
    # level needs parentheses (``a - (b - c)``).
    if inner is not None and (inner < level or (right and inner == level)):
        return f"({text})"
    return text
