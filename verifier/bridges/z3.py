"""IndexingMap → z3: integer terms with floor semantics, domain formulas, and
the comparison questions the checks ask (z3 is the second witness to isl).

Floor semantics.  z3's integer ``div``/``mod`` are *Euclidean*: the remainder
is always in ``[0, |c|)``.  For a positive divisor ``c`` that is exactly
floor division (``x = c * q + r, 0 <= r < c`` has one solution, and it is
``q = x // c``, ``r = x % c`` in Python).  Expression nodes keep every
divisor positive (``x floordiv -c`` is built as ``(-x) floordiv c``), so the
encoding below is ``x div c`` for ``floordiv``, ``x mod c`` for ``mod`` and
``-((-x) div c)`` for ``ceildiv`` — each guarded by an assertion that the
divisor is positive, where the Euclidean and floor definitions coincide.

For example ``(d0) -> ((d0 - 7) floordiv 2)`` on ``d0 in [0, 9]`` becomes
the term ``(d0 - 7) div 2`` with domain ``0 <= d0 <= 9``; at ``d0 = 0`` z3
and Python both give ``-4``.

Budget: every solver gets a deterministic ``rlimit``; an exhausted limit is
the answer `None` ("can't tell"), never a wall-clock timeout.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from verifier.bridges.limits import Z3_RLIMIT
from verifier.expr import (
    Expr,
    ExprTranslator,
    IndexingMap,
    Syntax,
    SyntaxBinary,
    SyntaxInt,
    SyntaxNeg,
    SyntaxSum,
    SyntaxVar,
    TypedMap,
    Var,
    constant_value,
)

# z3 terms are immutable: one per constant value and per variable name
# serves every formula (building them is most of a question's cost).
_int_val = functools.lru_cache(maxsize=1 << 14)(z3.IntVal)
_int_const = functools.lru_cache(maxsize=1 << 12)(z3.Int)


class Z3ExprConverter(ExprTranslator[Any]):
    """Expression → z3 integer term over the given variables (one method per
    node kind; a memo shares repeated sub-terms)."""

    def __init__(self, variables: Mapping[Var, Any]) -> None:
        super().__init__()
        self._variables = variables

    def map_const(self, value: int) -> Any:
        return _int_val(value)

    def map_var(self, variable: Var) -> Any:
        return self._variables[variable]

    def map_add(self, operands: tuple[Expr, ...]) -> Any:
        return z3.Sum([self.convert(operand) for operand in operands])

    def map_mul(self, operand: Expr, factor: int) -> Any:
        return self.convert(operand) * _int_val(factor)

    def map_floordiv(self, operand: Expr, divisor: int) -> Any:
        assert divisor > 0, "Euclidean div equals floordiv only for a positive divisor"
        return self.convert(operand) / _int_val(divisor)

    def map_ceildiv(self, operand: Expr, divisor: int) -> Any:
        assert divisor > 0, "Euclidean div equals floordiv only for a positive divisor"
        return -((-self.convert(operand)) / _int_val(divisor))

    def map_mod(self, operand: Expr, modulus: int) -> Any:
        assert modulus > 0, "Euclidean mod equals Python's % only for a positive modulus"
        return self.convert(operand) % _int_val(modulus)

    def map_min(self, lhs: Expr, rhs: Expr) -> Any:
        a, b = self.convert(lhs), self.convert(rhs)
        return z3.If(a <= b, a, b)

    def map_max(self, lhs: Expr, rhs: Expr) -> Any:
        a, b = self.convert(lhs), self.convert(rhs)
        return z3.If(a >= b, a, b)


@dataclass(frozen=True)
class Z3Map:
    """An indexing map in z3: one integer constant per variable, the domain
    as a formula (bounds and constraints), the results as terms."""

    variables: Mapping[Var, Any]
    domain: Any
    results: tuple[Any, ...]


def to_z3(indexing_map: IndexingMap, *, names: Mapping[Var, str] | None = None) -> Z3Map:
    """The map's z3 translation; variable ``v`` becomes the integer constant
    ``names[v]`` (default ``v.name``, so maps with the same variables share
    them — z3 identifies constants by name)."""
    variables = {
        v: _int_const(v.name if names is None else names[v]) for v in indexing_map.all_variables
    }
    converter = Z3ExprConverter(variables)
    conditions = []
    for v, term in variables.items():
        bounds = indexing_map.bounds(v)
        conditions += [term >= _int_val(bounds.lower), term <= _int_val(bounds.upper)]
    for expr, interval in indexing_map.constraints:
        term = converter.convert(expr)
        conditions += [term >= _int_val(interval.lower), term <= _int_val(interval.upper)]
    return Z3Map(
        variables=variables,
        domain=z3.And(conditions),
        results=tuple(converter.convert(r) for r in indexing_map.results),
    )


def _typed_floor(x: Any, divisor: int) -> tuple[Any, Any]:
    """``(x floordiv c, x mod c)`` with floor semantics for either sign of c
    (the typed text may divide by a negative constant)."""
    if divisor > 0:
        return x / _int_val(divisor), x % _int_val(divisor)
    quotient = (-x) / _int_val(-divisor)
    return quotient, x - _int_val(divisor) * quotient


def typed_term(syntax: Syntax, variables: Mapping[Var, Any]) -> Any:
    """`syntax`, as typed, as a z3 term (a subtree without variables is its
    value, so products and divisors stay linear)."""
    value = constant_value(syntax)
    if value is not None:
        return _int_val(value)
    match syntax:
        case SyntaxInt(number):
            return _int_val(number)
        case SyntaxVar(variable):
            return variables[variable]
        case SyntaxNeg(operand):
            return -typed_term(operand, variables)
        case SyntaxSum(first, rest):
            terms = [typed_term(first, variables)]
            terms += [(-1 if minus else 1) * typed_term(term, variables) for minus, term in rest]
            return z3.Sum(terms)
        case SyntaxBinary(op, lhs, rhs):
            left_value, right_value = constant_value(lhs), constant_value(rhs)
            match op:
                case "*":
                    if left_value is not None:
                        return _int_val(left_value) * typed_term(rhs, variables)
                    assert right_value is not None, "parse_map accepted it: one factor is constant"
                    return typed_term(lhs, variables) * _int_val(right_value)
                case "min" | "max":
                    a, b = typed_term(lhs, variables), typed_term(rhs, variables)
                    return z3.If(a <= b, a, b) if op == "min" else z3.If(a >= b, a, b)
            assert right_value, "parse_map accepted it: a non-zero constant divisor"
            x = typed_term(lhs, variables)
            match op:
                case "floordiv":
                    return _typed_floor(x, right_value)[0]
                case "mod":
                    return _typed_floor(x, right_value)[1]
                case "ceildiv":
                    return -_typed_floor(-x, right_value)[0]
    raise AssertionError(f"unexpected typed syntax {syntax}")


def typed_to_z3(typed: TypedMap) -> Z3Map:
    """The z3 translation of a map's text as typed; variable ``v`` becomes
    the integer constant ``v.name``, as in `to_z3`."""
    variables = {v: _int_const(v.name) for v, _ in typed.variables}
    conditions = []
    for v, bounds in typed.variables:
        conditions += [
            variables[v] >= _int_val(bounds.lower),
            variables[v] <= _int_val(bounds.upper),
        ]
    for syntax, interval in typed.constraints:
        term = typed_term(syntax, variables)
        conditions += [term >= _int_val(interval.lower), term <= _int_val(interval.upper)]
    return Z3Map(
        variables=variables,
        domain=z3.And(conditions),
        results=tuple(typed_term(r, variables) for r in typed.results),
    )


# ----------------------------------------------------------------- questions


@dataclass(frozen=True)
class Z3Answer:
    """z3's answer to "are these two maps equal?": `differs` is `False`
    (proved equal), `True` (with a witness: named coordinates), or `None`
    (budget exhausted or z3 gave up — `reason` says which)."""

    differs: bool | None
    witness: tuple[tuple[str, int], ...] = ()
    reason: str = ""


def _solver(rlimit: int) -> Any:
    """A solver for linear integer arithmetic (div/mod by numerals included,
    quantifiers allowed), under the deterministic resource limit.  The LIA
    solver answers the same questions as the default one about 15% faster."""
    solver = z3.SolverFor("LIA")
    solver.set("rlimit", rlimit)
    return solver


def _solve(formula: Any, rlimit: int, shown: Sequence[tuple[str, Any]]) -> Z3Answer:
    """Satisfiability of `formula`: sat means the maps differ."""
    solver = _solver(rlimit)
    solver.add(formula)
    status = solver.check()
    if status == z3.unsat:
        return Z3Answer(differs=False)
    if status == z3.sat:
        model = solver.model()
        witness = tuple(
            (name, model.eval(term, model_completion=True).as_long()) for name, term in shown
        )
        return Z3Answer(differs=True, witness=witness)
    return Z3Answer(differs=None, reason=solver.reason_unknown())


def _equal_results(left: Sequence[Any], right: Sequence[Any]) -> Any:
    # Result tuples of different lengths (a "KNOWN EMPTY" map against a
    # real one) are never equal.
    if len(left) != len(right):
        return z3.BoolVal(False)
    return z3.And([x == y for x, y in zip(left, right, strict=True)])


def compare_pointwise(a: IndexingMap, b: IndexingMap, *, rlimit: int = Z3_RLIMIT) -> Z3Answer:
    """Is there a point in exactly one domain, or in both with different
    results?  (The maps must declare the same variables.)

    ``(d0) -> (d0 mod 4)`` and ``(d0) -> (d0)`` on ``d0 in [0, 3]``: no
    (unsat, equal); on ``d0 in [0, 4]``: yes, ``d0 = 4``.
    """
    za, zb = to_z3(a), to_z3(b)
    mismatch = z3.Or(
        za.domain != zb.domain,
        z3.And(za.domain, zb.domain, z3.Not(_equal_results(za.results, zb.results))),
    )
    variables = {**zb.variables, **za.variables}
    return _solve(mismatch, rlimit, [(v.name, term) for v, term in variables.items()])


def compare_typed(typed: TypedMap, b: IndexingMap, *, rlimit: int = Z3_RLIMIT) -> Z3Answer:
    """`compare_pointwise` of the map's text as typed against `b` (same
    variables).

    ``(d0) -> ((d0 + 3) * 2 - d0 * 2)`` typed against ``(d0) -> (6)``: equal,
    proved on the product and difference as written, not on the ``6``
    construction made of them.
    """
    za, zb = typed_to_z3(typed), to_z3(b)
    mismatch = z3.Or(
        za.domain != zb.domain,
        z3.And(za.domain, zb.domain, z3.Not(_equal_results(za.results, zb.results))),
    )
    variables = {**zb.variables, **za.variables}
    return _solve(mismatch, rlimit, [(v.name, term) for v, term in variables.items()])


def relates(
    indexing_map: IndexingMap,
    dims: Sequence[int],
    result: Sequence[int],
    *,
    rlimit: int = Z3_RLIMIT,
) -> bool | None:
    """Whether the map relates ``dims -> result`` for some feasible symbols
    (quantifier-free: the dims and result are fixed); `None` when z3 gives up.

    The question goes to z3 as SMT-LIB text (`SmtLibSource`), parsed in one
    call: building it term by term through z3's Python API cost twice as
    much (2 ms a question on the XLA-style pairs of
    ``benchmarks/equivalence.py``, 1 ms as text).
    """
    if len(dims) != indexing_map.num_dims:
        return False
    source = SmtLibSource()
    variables = indexing_map.all_variables
    conjuncts = [
        f"(= {v.name} {source.map_const(x)})" for v, x in zip(variables, dims, strict=False)
    ]
    for v in variables:
        bounds = indexing_map.bounds(v)
        low, high = source.map_const(bounds.lower), source.map_const(bounds.upper)
        conjuncts.append(f"(<= {low} {v.name} {high})")
    for expr, interval in indexing_map.constraints:
        low, high = source.map_const(interval.lower), source.map_const(interval.upper)
        conjuncts.append(f"(<= {low} {source.convert(expr)} {high})")
    for expr, value in zip(indexing_map.results, result, strict=True):
        conjuncts.append(f"(= {source.convert(expr)} {source.map_const(value)})")
    names = [v.name for v in variables] + [name for name, _ in source.definitions]
    declarations = "".join(f"(declare-const {name} Int)" for name in names)
    conjuncts += [f"(= {name} {value})" for name, value in source.definitions]
    solver = _solver(rlimit)
    solver.from_string(f"{declarations}(assert (and true {' '.join(conjuncts)}))")
    status = solver.check()
    if status == z3.unknown:
        return None
    return bool(status == z3.sat)


class SmtLibSource(ExprTranslator[str]):
    """Expression → SMT-LIB integer term (text) with the semantics of
    `Z3ExprConverter`: ``div``/``mod`` by the positive divisors the nodes
    keep, ``ceildiv`` as ``-((-x) div c)``, ``min``/``max`` as ``ite``.

    A ``min``/``max`` becomes a constant ``aux!k`` of its own, defined in
    `definitions` (name, ``ite`` term) for the caller to declare and assert.

    >>> from verifier.expr import dim, min_
    >>> source = SmtLibSource()
    >>> source.convert((dim(0) - 7) // 2 + dim(1) % 3)
    '(+ (mod d1 3) (div (+ d0 (- 7)) 2))'
    >>> source.convert(min_(dim(0), dim(1) * 2)), source.definitions
    ('aux!0', [('aux!0', '(ite (<= (* d1 2) d0) (* d1 2) d0)')])
    """

    def __init__(self) -> None:
        super().__init__()
        self.definitions: list[tuple[str, str]] = []

    def map_const(self, value: int) -> str:
        return str(value) if value >= 0 else f"(- {-value})"

    def map_var(self, variable: Var) -> str:
        return variable.name

    def map_add(self, operands: tuple[Expr, ...]) -> str:
        return f"(+ {' '.join(self.convert(operand) for operand in operands)})"

    def map_mul(self, operand: Expr, factor: int) -> str:
        return f"(* {self.convert(operand)} {self.map_const(factor)})"

    def map_floordiv(self, operand: Expr, divisor: int) -> str:
        assert divisor > 0, "Euclidean div equals floordiv only for a positive divisor"
        return f"(div {self.convert(operand)} {divisor})"

    def map_ceildiv(self, operand: Expr, divisor: int) -> str:
        assert divisor > 0, "Euclidean div equals floordiv only for a positive divisor"
        return f"(- (div (- {self.convert(operand)}) {divisor}))"

    def map_mod(self, operand: Expr, modulus: int) -> str:
        assert modulus > 0, "Euclidean mod equals Python's % only for a positive modulus"
        return f"(mod {self.convert(operand)} {modulus})"

    def map_min(self, lhs: Expr, rhs: Expr) -> str:
        return self._defined("<=", lhs, rhs)

    def map_max(self, lhs: Expr, rhs: Expr) -> str:
        return self._defined(">=", lhs, rhs)

    def _defined(self, comparison: str, lhs: Expr, rhs: Expr) -> str:
        # An ``ite`` names both operands twice: as a constant of its own,
        # nested min/max cost linear text, not exponential.
        a, b = self.convert(lhs), self.convert(rhs)
        name = f"aux!{len(self.definitions)}"
        self.definitions.append((name, f"(ite ({comparison} {a} {b}) {a} {b})"))
        return name
