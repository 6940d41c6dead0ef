"""XLA's text form of expressions and indexing maps (the parser's exact inverse).

Precedence, lowest first: ``+``/``-``; ``*``, ``floordiv``, ``ceildiv``,
``mod`` (left-associative, one level); unary minus (tightest).  Operands that
are themselves sums or products are parenthesised so the text reads the way
it parses:

>>> from verifier.expr.nodes import dim
>>> print_expr(-((dim(0) * -11 - dim(1) + 109) // 11) + 9)
'-((d0 * -11 - d1 + 109) floordiv 11) + 9'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, assert_never

from verifier.expr.nodes import Add, CeilDiv, Const, Expr, FloorDiv, Max, Min, Mod, Mul, Var

if TYPE_CHECKING:
    from verifier.expr.indexing_map import IndexingMap


def print_expr(expr: Expr) -> str:
    """The XLA text of `expr`."""
    match expr:
        case Const(value):
            return str(value)
        case Var():
            return expr.name
        case Add(operands):
            text = print_expr(operands[0])
            for term in operands[1:]:
                match term:
                    case Const(value) if value < 0:
                        text += f" - {-value}"
                    case Mul(operand, factor) if factor < 0:
                        text += f" - {print_expr(-term)}"
                    case _:
                        text += f" + {print_expr(term)}"
            return text
        case Mul(operand, factor):
            if factor == -1:
                return f"-{_operand(operand)}"
            return f"{_operand(operand)} * {factor}"
        case FloorDiv(operand, divisor):
            return f"{_operand(operand)} floordiv {divisor}"
        case CeilDiv(operand, divisor):
            return f"{_operand(operand)} ceildiv {divisor}"
        case Mod(operand, modulus):
            return f"{_operand(operand)} mod {modulus}"
        case Min(lhs, rhs):
            return f"min({print_expr(lhs)}, {print_expr(rhs)})"
        case Max(lhs, rhs):
            return f"max({print_expr(lhs)}, {print_expr(rhs)})"
        case _:
            assert_never(expr)


def _operand(expr: Expr) -> str:
    """An operand of a binary or unary operator: parenthesised unless atomic."""
    if isinstance(expr, Var | Const | Min | Max) and not (
        isinstance(expr, Const) and expr.value < 0
    ):
        return print_expr(expr)
    return f"({print_expr(expr)})"


def print_map(indexing_map: IndexingMap, *, one_line: bool = False) -> str:
    """The XLA text of `indexing_map`, e.g.

    ``(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 3]``
    (with a line break after each comma of the domain, as XLA prints it, or
    with `one_line` a space: the form of JSON reports and cache keys).
    """
    if indexing_map.is_known_empty:
        return "KNOWN EMPTY"
    dims = ", ".join(f"d{i}" for i in range(len(indexing_map.dims)))
    header = f"({dims})"
    if indexing_map.range_vars:
        header += "[" + ", ".join(f"s{i}" for i in range(len(indexing_map.range_vars))) + "]"
    if indexing_map.rt_vars:
        header += "{" + ", ".join(f"rt{i}" for i in range(len(indexing_map.rt_vars))) + "}"
    results = ", ".join(print_expr(result) for result in indexing_map.results)
    lines = [f"d{i} in {v.bounds}" for i, v in enumerate(indexing_map.dims)]
    lines += [f"s{i} in {v.bounds}" for i, v in enumerate(indexing_map.range_vars)]
    lines += [f"rt{i} in {v.bounds}" for i, v in enumerate(indexing_map.rt_vars)]
    lines += [f"{print_expr(expr)} in {bounds}" for expr, bounds in indexing_map.constraints]
    text = f"{header} -> ({results})"
    if lines:
        text += ",\ndomain:\n" + ",\n".join(lines)
    return text.replace("\n", " ") if one_line else text
