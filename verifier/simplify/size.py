"""The size of expressions and maps: node counts of XLA's binary expression tree.

A sum of n operands counts n - 1 additions; a product, division or `mod` by
a constant counts the operation and its constant.  The simplifier never
returns a map larger than its input by this measure.

>>> from verifier.expr import dim
>>> expr_size(dim(0) * 4 + dim(1))
5
"""

from __future__ import annotations

from typing import assert_never

from verifier.expr import Add, CeilDiv, Const, Expr, FloorDiv, IndexingMap, Max, Min, Mod, Mul, Var


def expr_size(expr: Expr) -> int:
    """Nodes of `expr` as a binary tree (constants and variables count 1)."""
    match expr:
        case Const() | Var():
            return 1
        case Add(operands):
            return len(operands) - 1 + sum(expr_size(o) for o in operands)
        case Mul(operand) | FloorDiv(operand) | CeilDiv(operand) | Mod(operand):
            return 2 + expr_size(operand)
        case Min(lhs, rhs) | Max(lhs, rhs):
            return 1 + expr_size(lhs) + expr_size(rhs)
        case _:
            assert_never(expr)


def map_size(indexing_map: IndexingMap) -> int:
    """Nodes of every result and constraint expression, plus one per variable
    and per constraint (each carries an interval); 0 for a known-empty map,
    which prints as ``KNOWN EMPTY`` whatever it holds."""
    if indexing_map.is_known_empty:
        return 0
    return (
        sum(expr_size(r) for r in indexing_map.results)
        + sum(expr_size(e) + 1 for e, _ in indexing_map.constraints)
        + len(indexing_map.all_variables)
    )
