"""Quasi-affine expressions: immutable, interned nodes in canonical form.

The closed union of node kinds is `Expr = Const | Var | Add | Mul | FloorDiv |
CeilDiv | Mod | Min | Max`.  Nodes are never built directly: the functions
`const`, `dim`, `range_var`, `rt_var`, `add`, `mul`, `floordiv`, `ceildiv`,
`mod`, `min_`, `max_` (and the Python operators on nodes) canonicalise and
intern, so two equal expressions are the same object and ``==`` is identity.

Canonical form (invariants every node satisfies; rebuilding a node from its
arguments gives the same node):

* constants are folded; `Add` is flat, has at least two operands, like terms
  are combined (``d0 + d0 * 2 -> d0 * 3``), zero terms dropped, operands in a
  fixed order (products, then `mod`s, then divisions, then variables by index,
  then `min`/`max`) with the constant last;
* `Mul` multiplies a non-constant, non-sum, non-product by an integer other
  than 0 and 1 (constant factors distribute over sums);
* divisors and moduli are positive: ``x floordiv -c = (-x) floordiv c``,
  ``x ceildiv -c = (-x) ceildiv c``, ``x mod -c = -((-x) mod c)``; division
  by 1 and ``mod 1`` fold; ``(x * k) floordiv c = x * (k / c)`` and
  ``(x * k) mod c = 0`` when ``c`` divides ``k``;
* `Min`/`Max` have two different, non-constant-pair operands in order.

Semantics are Python's: ``floordiv`` is ``//`` (round toward -inf), ``mod`` is
``%`` (sign of the divisor), ``ceildiv`` is ``-((-x) // c)``.

>>> d0, d1 = dim(0), dim(1)
>>> str((d0 * 100 + d1 * 10 + 5) // 10)
'(d0 * 100 + d1 * 10 + 5) floordiv 10'
>>> str(d0 + d0 * 2 - 3)
'd0 * 3 - 3'
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Callable
from typing import Any, ClassVar, TypeAlias, cast

from verifier.errors import NotQuasiAffineError


class VarKind(enum.Enum):
    """Dimension variables, range variables (symbols), runtime variables."""

    DIM = "d"
    RANGE = "s"
    RT = "rt"

    # Members are singletons: identity hashing is exact, and much cheaper
    # than Enum's name hashing on the hot path of interning variables.
    __hash__ = object.__hash__


_KIND_ORDER = {VarKind.DIM: 0, VarKind.RANGE: 1, VarKind.RT: 2}

# Every live node, by kind and fields.  Weak: a node no one holds any more is
# freed, so a long-running process (a corpus worker) does not grow without
# end; a later equal node is built anew, and identity stays equality among
# the nodes alive together.
# (A dict of `KeyedRef`s rather than a `WeakValueDictionary`: its lookups
# stay in C, on the hot path of every node built.)
_TABLE: dict[tuple[Any, ...], weakref.KeyedRef[tuple[Any, ...], Any]] = {}


def _forget(ref: weakref.KeyedRef[tuple[Any, ...], Any]) -> None:
    """Drop a freed node's entry (unless an equal node has replaced it)."""
    if _TABLE.get(ref.key) is ref:
        del _TABLE[ref.key]


class _Node:
    """Common machinery: interning, cached hash and ordering key, operators."""

    __slots__ = ("__weakref__", "_hash", "_key")
    _RANK: ClassVar[int]
    _key: tuple[Any, ...]
    _hash: int

    @classmethod
    def _intern(cls, fields: tuple[Any, ...], key: tuple[Any, ...]) -> Any:
        table_key = (cls, *fields)
        ref = _TABLE.get(table_key)
        node = None if ref is None else ref()
        if node is None:
            node = object.__new__(cls)
            node._set_fields(*fields)
            # The class name breaks ties between kinds of equal rank
            # (floordiv/ceildiv, min/max), so the order is total.
            node._key = (cls._RANK, cls.__name__, *key)
            node._hash = hash(node._key)
            _TABLE[table_key] = weakref.KeyedRef(node, _forget, table_key)
        return node

    def _set_fields(self, *fields: Any) -> None:
        raise NotImplementedError

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self).__name__, self._fields()))

    def _fields(self) -> tuple[Any, ...]:
        raise NotImplementedError

    @property
    def sort_key(self) -> tuple[Any, ...]:
        """A total order on expressions, stable across runs."""
        return self._key

    def __lt__(self, other: _Node) -> bool:
        return self._key < other._key

    def _expr(self) -> Expr:
        # The union of node kinds is closed: every node is an `Expr`.
        return cast("Expr", self)

    # Operators build canonical nodes; ints are promoted to constants.
    def __add__(self, other: Expr | int) -> Expr:
        return add(self._expr(), other)

    def __radd__(self, other: int) -> Expr:
        return add(other, self._expr())

    def __sub__(self, other: Expr | int) -> Expr:
        return add(self._expr(), mul(other, -1))

    def __rsub__(self, other: int) -> Expr:
        return add(other, mul(self._expr(), -1))

    def __neg__(self) -> Expr:
        return mul(self._expr(), -1)

    def __mul__(self, other: Expr | int) -> Expr:
        return mul(self._expr(), other)

    def __rmul__(self, other: int) -> Expr:
        return mul(self._expr(), other)

    def __floordiv__(self, other: Expr | int) -> Expr:
        return floordiv(self._expr(), other)

    def __mod__(self, other: Expr | int) -> Expr:
        return mod(self._expr(), other)

    def __repr__(self) -> str:
        from verifier.expr.printer import print_expr

        return f"Expr({print_expr(self._expr())})"

    def __str__(self) -> str:
        from verifier.expr.printer import print_expr

        return print_expr(self._expr())


class Const(_Node):
    """An integer constant."""

    __slots__ = ("value",)
    __match_args__ = ("value",)
    _RANK = 9
    value: int

    def _set_fields(self, value: int) -> None:
        self.value = value

    def _fields(self) -> tuple[Any, ...]:
        return (self.value,)


class Var(_Node):
    """A variable: ``d<i>`` (dimension), ``s<i>`` (range), ``rt<i>`` (runtime)."""

    __slots__ = ("index", "kind")
    __match_args__ = ("kind", "index")
    _RANK = 3
    kind: VarKind
    index: int

    def _set_fields(self, kind: VarKind, index: int) -> None:
        self.kind = kind
        self.index = index

    def _fields(self) -> tuple[Any, ...]:
        return (self.kind, self.index)

    @property
    def name(self) -> str:
        return f"{self.kind.value}{self.index}"


class Add(_Node):
    """A sum of at least two canonical terms, the constant (if any) last."""

    __slots__ = ("operands",)
    __match_args__ = ("operands",)
    _RANK = 5
    operands: tuple[Expr, ...]

    def _set_fields(self, operands: tuple[Expr, ...]) -> None:
        self.operands = operands

    def _fields(self) -> tuple[Any, ...]:
        return (self.operands,)


class Mul(_Node):
    """``operand * factor`` with an integer factor other than 0 and 1."""

    __slots__ = ("factor", "operand")
    __match_args__ = ("operand", "factor")
    _RANK = 0
    operand: Expr
    factor: int

    def _set_fields(self, operand: Expr, factor: int) -> None:
        self.operand = operand
        self.factor = factor

    def _fields(self) -> tuple[Any, ...]:
        return (self.operand, self.factor)


class FloorDiv(_Node):
    """``operand floordiv divisor`` (divisor > 1): Python's ``//``."""

    __slots__ = ("divisor", "operand")
    __match_args__ = ("operand", "divisor")
    _RANK = 2
    operand: Expr
    divisor: int

    def _set_fields(self, operand: Expr, divisor: int) -> None:
        self.operand = operand
        self.divisor = divisor

    def _fields(self) -> tuple[Any, ...]:
        return (self.operand, self.divisor)


class CeilDiv(_Node):
    """``operand ceildiv divisor`` (divisor > 1): ``-((-operand) // divisor)``."""

    __slots__ = ("divisor", "operand")
    __match_args__ = ("operand", "divisor")
    _RANK = 2
    operand: Expr
    divisor: int

    def _set_fields(self, operand: Expr, divisor: int) -> None:
        self.operand = operand
        self.divisor = divisor

    def _fields(self) -> tuple[Any, ...]:
        return (self.operand, self.divisor)


class Mod(_Node):
    """``operand mod modulus`` (modulus > 1): Python's ``%``, in ``[0, modulus)``."""

    __slots__ = ("modulus", "operand")
    __match_args__ = ("operand", "modulus")
    _RANK = 1
    operand: Expr
    modulus: int

    def _set_fields(self, operand: Expr, modulus: int) -> None:
        self.operand = operand
        self.modulus = modulus

    def _fields(self) -> tuple[Any, ...]:
        return (self.operand, self.modulus)


class Min(_Node):
    """``min(lhs, rhs)``."""

    __slots__ = ("lhs", "rhs")
    __match_args__ = ("lhs", "rhs")
    _RANK = 4
    lhs: Expr
    rhs: Expr

    def _set_fields(self, lhs: Expr, rhs: Expr) -> None:
        self.lhs = lhs
        self.rhs = rhs

    def _fields(self) -> tuple[Any, ...]:
        return (self.lhs, self.rhs)


class Max(_Node):
    """``max(lhs, rhs)``."""

    __slots__ = ("lhs", "rhs")
    __match_args__ = ("lhs", "rhs")
    _RANK = 4
    lhs: Expr
    rhs: Expr

    def _set_fields(self, lhs: Expr, rhs: Expr) -> None:
        self.lhs = lhs
        self.rhs = rhs

    def _fields(self) -> tuple[Any, ...]:
        return (self.lhs, self.rhs)


Expr: TypeAlias = Const | Var | Add | Mul | FloorDiv | CeilDiv | Mod | Min | Max
ExprLike: TypeAlias = "Expr | int"


# ---------------------------------------------------------------- constructors


def const(value: int) -> Const:
    """The constant `value`."""
    result: Const = Const._intern((value,), (value,))
    return result


def _var(kind: VarKind, index: int) -> Var:
    if index < 0:
        raise ValueError(f"variable index must be >= 0, got {index}")
    result: Var = Var._intern((kind, index), (_KIND_ORDER[kind], index))
    return result


def dim(index: int) -> Var:
    """Dimension variable ``d<index>``."""
    return _var(VarKind.DIM, index)


def range_var(index: int) -> Var:
    """Range variable (symbol) ``s<index>``."""
    return _var(VarKind.RANGE, index)


def rt_var(index: int) -> Var:
    """Runtime variable ``rt<index>``."""
    return _var(VarKind.RT, index)


def var(kind: VarKind, index: int) -> Var:
    """The variable of `kind` with `index`."""
    return _var(kind, index)


def as_expr(value: ExprLike) -> Expr:
    """`value` as an expression (ints become constants)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not expressions")
    if isinstance(value, int):
        return const(value)
    if isinstance(value, _Node):
        return value
    raise TypeError(f"not an expression: {value!r}")


def _constant_of(value: ExprLike, context: str) -> int:
    expr = as_expr(value)
    if isinstance(expr, Const):
        return expr.value
    raise NotQuasiAffineError(f"{context}: '{expr}' is not a constant")


def split_term(term: Expr) -> tuple[Expr, int]:
    """A canonical sum operand as ``(base, coefficient)``: ``d0 * 3 -> (d0, 3)``."""
    if isinstance(term, Mul):
        return term.operand, term.factor
    return term, 1


def linear_terms(expr: Expr) -> tuple[dict[Expr, int], int]:
    """`expr` as ``{base: coefficient}`` plus a constant.

    >>> terms, c = linear_terms(dim(0) * 2 + dim(1) - 4)
    >>> sorted((str(b), k) for b, k in terms.items()), c
    ([('d0', 2), ('d1', 1)], -4)
    """
    terms: dict[Expr, int] = {}
    constant = 0
    operands = expr.operands if isinstance(expr, Add) else (expr,)
    for operand in operands:
        if isinstance(operand, Const):
            constant += operand.value
            continue
        base, coefficient = split_term(operand)
        terms[base] = terms.get(base, 0) + coefficient
    return terms, constant


def _term_key(term: Expr) -> tuple[Any, ...]:
    """Summand order: products, `mod`s, divisions, variables, `min`/`max`.

    A negated term (coefficient -1) sorts as its base, so ``d0 - d1`` stays.
    """
    base, coefficient = split_term(term)
    rank = base.sort_key[0] if coefficient in (1, -1) else Mul._RANK
    return (rank, base.sort_key, coefficient)


def from_linear_terms(terms: dict[Expr, int], constant: int) -> Expr:
    """The canonical sum ``sum(coefficient * base) + constant``.

    Bases must themselves be canonical, non-constant, non-sum, non-product.
    """
    parts = [_scaled(base, coefficient) for base, coefficient in terms.items() if coefficient]
    parts.sort(key=_term_key)
    if constant:
        parts.append(const(constant))
    if not parts:
        return const(0)
    if len(parts) == 1:
        return parts[0]
    operands = tuple(parts)
    result: Add = Add._intern((operands,), (tuple(p.sort_key for p in operands),))
    return result


def _scaled(base: Expr, coefficient: int) -> Expr:
    """``base * coefficient`` of a linear term's base (not a constant, sum or
    product: `mul` would only take its last case) and a non-zero integer."""
    assert base.__class__ not in (Const, Add, Mul), f"not a linear term's base: {base}"
    if coefficient == 1:
        return base
    result: Mul = Mul._intern((base, coefficient), (base.sort_key, coefficient))
    return result


def add(*values: ExprLike) -> Expr:
    """The canonical sum of `values`: flattened, like terms combined, constant last."""
    terms: dict[Expr, int] = {}
    constant = 0
    for value in values:
        sub_terms, sub_constant = linear_terms(as_expr(value))
        constant += sub_constant
        for base, coefficient in sub_terms.items():
            terms[base] = terms.get(base, 0) + coefficient
    return from_linear_terms(terms, constant)


def mul(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """``lhs * rhs``; one side must be constant, else `NotQuasiAffineError`."""
    left, right = as_expr(lhs), as_expr(rhs)
    if isinstance(left, Const):
        left, right = right, left
    if not isinstance(right, Const):
        raise NotQuasiAffineError(
            f"product of two non-constant expressions in '({left}) * ({right})'"
        )
    factor = right.value
    match left:
        case Const(value):
            return const(value * factor)
        case _ if factor == 0:
            return const(0)
        case _ if factor == 1:
            return left
        case Mul(operand, inner):
            return mul(operand, inner * factor)
        case Add(operands):
            return add(*(mul(operand, factor) for operand in operands))
        case _:
            result: Mul = Mul._intern((left, factor), (left.sort_key, factor))
            return result


def _divisor(value: ExprLike, operation: str, lhs: Expr) -> int:
    # The common case first: formatting the error context prints `lhs`,
    # which would dominate the cost of building every division.
    divisor_expr = as_expr(value)
    if isinstance(divisor_expr, Const):
        divisor = divisor_expr.value
    else:
        divisor = _constant_of(
            value, f"{operation} by a non-constant in '{lhs} {operation} {value}'"
        )
    if divisor == 0:
        raise NotQuasiAffineError(f"{operation} by zero in '{lhs} {operation} 0'")
    return divisor


def floordiv(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """``lhs floordiv rhs`` (rhs a non-zero constant), rounding toward -inf."""
    operand = as_expr(lhs)
    divisor = _divisor(rhs, "floordiv", operand)
    if divisor < 0:
        return floordiv(mul(operand, -1), -divisor)
    match operand:
        case Const(value):
            return const(value // divisor)
        case _ if divisor == 1:
            return operand
        case Mul(inner, factor) if factor % divisor == 0:
            return mul(inner, factor // divisor)
        case _:
            result: FloorDiv = FloorDiv._intern((operand, divisor), (operand.sort_key, divisor))
            return result


def ceildiv(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """``lhs ceildiv rhs`` (rhs a non-zero constant), rounding toward +inf."""
    operand = as_expr(lhs)
    divisor = _divisor(rhs, "ceildiv", operand)
    if divisor < 0:
        return ceildiv(mul(operand, -1), -divisor)
    match operand:
        case Const(value):
            return const(-(-value // divisor))
        case _ if divisor == 1:
            return operand
        case Mul(inner, factor) if factor % divisor == 0:
            return mul(inner, factor // divisor)
        case _:
            result: CeilDiv = CeilDiv._intern((operand, divisor), (operand.sort_key, divisor))
            return result


def mod(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """``lhs mod rhs`` (rhs a non-zero constant), with the sign of the divisor."""
    operand = as_expr(lhs)
    modulus = _divisor(rhs, "mod", operand)
    if modulus < 0:
        return mul(mod(mul(operand, -1), -modulus), -1)
    match operand:
        case Const(value):
            return const(value % modulus)
        case _ if modulus == 1:
            return const(0)
        case Mul(_, factor) if factor % modulus == 0:
            return const(0)
        case _:
            result: Mod = Mod._intern((operand, modulus), (operand.sort_key, modulus))
            return result


def min_(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """``min(lhs, rhs)``."""
    a, b = as_expr(lhs), as_expr(rhs)
    if isinstance(a, Const) and isinstance(b, Const):
        return const(min(a.value, b.value))
    if a is b:
        return a
    if b.sort_key < a.sort_key:
        a, b = b, a
    result: Min = Min._intern((a, b), (a.sort_key, b.sort_key))
    return result


def max_(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """``max(lhs, rhs)``."""
    a, b = as_expr(lhs), as_expr(rhs)
    if isinstance(a, Const) and isinstance(b, Const):
        return const(max(a.value, b.value))
    if a is b:
        return a
    if b.sort_key < a.sort_key:
        a, b = b, a
    result: Max = Max._intern((a, b), (a.sort_key, b.sort_key))
    return result


_REBUILD: dict[str, Callable[..., Expr]] = {
    "Const": lambda value: const(value),
    "Var": lambda kind, index: var(kind, index),
    "Add": lambda operands: add(*operands),
    "Mul": lambda operand, factor: mul(operand, factor),
    "FloorDiv": lambda operand, divisor: floordiv(operand, divisor),
    "CeilDiv": lambda operand, divisor: ceildiv(operand, divisor),
    "Mod": lambda operand, modulus: mod(operand, modulus),
    "Min": lambda lhs, rhs: min_(lhs, rhs),
    "Max": lambda lhs, rhs: max_(lhs, rhs),
}


def _rebuild(kind: str, fields: tuple[Any, ...]) -> Expr:
    """Unpickling goes through the constructors, so interning survives."""
    result: Expr = _REBUILD[kind](*fields)
    return result
