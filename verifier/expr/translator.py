"""Translating expressions into another language (isl functions, z3 terms):
one method per node kind, applied bottom-up, each distinct sub-expression
translated once.

Nodes are interned, so the memo is a common-subexpression cache: XLA's maps
repeat sums like ``d0 * 100 + d1 * 10 + d2`` under several divisions.  A
subclass implements the ``map_*`` methods and calls `convert` for operands.

>>> from verifier.expr.nodes import dim
>>> class Text(ExprTranslator[str]):
...     def map_const(self, value): return str(value)
...     def map_var(self, variable): return variable.name
...     def map_add(self, operands): return "(" + " + ".join(map(self.convert, operands)) + ")"
...     def map_mul(self, operand, factor): return f"{self.convert(operand)}*{factor}"
>>> Text().convert(dim(0) * 4 + dim(1))
'(d0*4 + d1)'
"""

from __future__ import annotations

from typing import Generic, TypeVar, assert_never

from verifier.expr.nodes import Add, CeilDiv, Const, Expr, FloorDiv, Max, Min, Mod, Mul, Var

T = TypeVar("T")


class ExprTranslator(Generic[T]):
    """A memoised bottom-up translation of expressions into `T`."""

    def __init__(self) -> None:
        self._memo: dict[Expr, T] = {}

    def convert(self, expr: Expr) -> T:
        """The translation of `expr` (computed once per distinct node)."""
        result = self._memo.get(expr)
        if result is None:
            result = self._convert(expr)
            self._memo[expr] = result
        return result

    def _convert(self, expr: Expr) -> T:
        match expr:
            case Const(value):
                return self.map_const(value)
            case Var():
                return self.map_var(expr)
            case Add(operands):
                return self.map_add(operands)
            case Mul(operand, factor):
                return self.map_mul(operand, factor)
            case FloorDiv(operand, divisor):
                return self.map_floordiv(operand, divisor)
            case CeilDiv(operand, divisor):
                return self.map_ceildiv(operand, divisor)
            case Mod(operand, modulus):
                return self.map_mod(operand, modulus)
            case Min(lhs, rhs):
                return self.map_min(lhs, rhs)
            case Max(lhs, rhs):
                return self.map_max(lhs, rhs)
            case _:
                assert_never(expr)

    def map_const(self, value: int) -> T:
        raise NotImplementedError

    def map_var(self, variable: Var) -> T:
        raise NotImplementedError

    def map_add(self, operands: tuple[Expr, ...]) -> T:
        raise NotImplementedError

    def map_mul(self, operand: Expr, factor: int) -> T:
        raise NotImplementedError

    def map_floordiv(self, operand: Expr, divisor: int) -> T:
        raise NotImplementedError

    def map_ceildiv(self, operand: Expr, divisor: int) -> T:
        raise NotImplementedError

    def map_mod(self, operand: Expr, modulus: int) -> T:
        raise NotImplementedError

    def map_min(self, lhs: Expr, rhs: Expr) -> T:
        raise NotImplementedError

    def map_max(self, lhs: Expr, rhs: Expr) -> T:
        raise NotImplementedError
