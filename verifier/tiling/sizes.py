"""Expressions of the tile sizes: the language of a tile's size and stride
maps and of its constraints.

A tile's size along an operand dimension is a function of the output tile
sizes ``d0 … d{r-1}`` that may multiply them (a merged reshape reads
``d0 * d1`` elements) or divide by them (``6 mod d0``): beyond quasi-affine
`verifier.expr`, so these maps have their own small closed union, built in
canonical form (constants folded, sums and products flat) by `add`, `mul`,
`floordiv`, `mod` and `minimum`, evaluated on a size vector by `evaluate`
and printed in XLA's map text by `render`.

A `Condition` is a disjunction of conjunctions of atoms ``EXPR in [lo, hi]``
(XLA's `ConstraintExpression`): ``(())`` always holds, ``()`` never.

>>> d0 = Size(0)
>>> q = floordiv(add(d0, Const(5)), 6)
>>> render(q), evaluate(q, (12,))
('(d0 + 5) floordiv 6', 2)
>>> c = either(Atom(mod(Const(6), d0), 0, 0), Atom(mod(d0, Const(6)), 0, 0))
>>> render_condition(c), holds(c, (3,)), holds(c, (4,)), holds(c, (12,))
('6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]', True, False, True)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias, assert_never


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Size:
    """The output tile size ``d{index}``."""

    index: int


@dataclass(frozen=True)
class Sum:
    terms: tuple[SizeExpr, ...]


@dataclass(frozen=True)
class Product:
    factors: tuple[SizeExpr, ...]


@dataclass(frozen=True)
class FloorDiv:
    """``operand floordiv divisor``; the divisor is positive wherever the
    expression is evaluated (a size or a stride magnitude)."""

    operand: SizeExpr
    divisor: SizeExpr


@dataclass(frozen=True)
class Mod:
    """``operand mod modulus`` (Python's ``%``), the modulus positive."""

    operand: SizeExpr
    modulus: SizeExpr


@dataclass(frozen=True)
class Minimum:
    lhs: SizeExpr
    rhs: SizeExpr


SizeExpr: TypeAlias = Const | Size | Sum | Product | FloorDiv | Mod | Minimum


def _of(value: SizeExpr | int) -> SizeExpr:
    return Const(value) if isinstance(value, int) else value


def add(*values: SizeExpr | int) -> SizeExpr:
    """The sum, flat, constants folded into one last term."""
    terms: list[SizeExpr] = []
    constant = 0
    for value in map(_of, values):
        match value:
            case Const(c):
                constant += c
            case Sum(inner):
                terms.extend(t for t in inner if not isinstance(t, Const))
                constant += sum(t.value for t in inner if isinstance(t, Const))
            case _:
                terms.append(value)
    if constant or not terms:
        terms.append(Const(constant))
    return terms[0] if len(terms) == 1 else Sum(tuple(terms))


def mul(*values: SizeExpr | int) -> SizeExpr:
    """The product, flat, the constant factor last; a constant factor
    distributes over a sum (so sums stay flat)."""
    factors: list[SizeExpr] = []
    constant = 1
    for value in map(_of, values):
        match value:
            case Const(c):
                constant *= c
            case Product(inner):
                factors.extend(f for f in inner if not isinstance(f, Const))
                for f in inner:
                    if isinstance(f, Const):
                        constant *= f.value
            case _:
                factors.append(value)
    if constant == 0 or not factors:
        return Const(constant)
    if len(factors) == 1 and isinstance(factors[0], Sum):
        return add(*(mul(term, constant) for term in factors[0].terms))
    if constant != 1:
        factors.append(Const(constant))
    return factors[0] if len(factors) == 1 else Product(tuple(factors))


def floordiv(operand: SizeExpr | int, divisor: SizeExpr | int) -> SizeExpr:
    operand, divisor = _of(operand), _of(divisor)
    if divisor == Const(1):
        return operand
    if isinstance(operand, Const) and isinstance(divisor, Const):
        return Const(operand.value // divisor.value)
    return FloorDiv(operand, divisor)


def mod(operand: SizeExpr | int, modulus: SizeExpr | int) -> SizeExpr:
    operand, modulus = _of(operand), _of(modulus)
    if modulus == Const(1):
        return Const(0)
    if isinstance(operand, Const) and isinstance(modulus, Const):
        return Const(operand.value % modulus.value)
    return Mod(operand, modulus)


def minimum(lhs: SizeExpr | int, rhs: SizeExpr | int) -> SizeExpr:
    lhs, rhs = _of(lhs), _of(rhs)
    if isinstance(lhs, Const) and isinstance(rhs, Const):
        return Const(min(lhs.value, rhs.value))
    return lhs if lhs == rhs else Minimum(lhs, rhs)


def evaluate(expr: SizeExpr, sizes: Sequence[int]) -> int:
    """The value at the tile sizes `sizes` (``d_i = sizes[i]``)."""
    match expr:
        case Const(value):
            return value
        case Size(index):
            return sizes[index]
        case Sum(terms):
            return sum(evaluate(t, sizes) for t in terms)
        case Product(factors):
            result = 1
            for factor in factors:
                result *= evaluate(factor, sizes)
            return result
        case FloorDiv(operand, divisor):
            return evaluate(operand, sizes) // evaluate(divisor, sizes)
        case Mod(operand, modulus):
            return evaluate(operand, sizes) % evaluate(modulus, sizes)
        case Minimum(lhs, rhs):
            return min(evaluate(lhs, sizes), evaluate(rhs, sizes))
        case _:
            assert_never(expr)


def is_affine(expr: SizeExpr) -> bool:
    """Whether `expr` is a constant plus constant multiples of sizes."""
    match expr:
        case Const() | Size():
            return True
        case Sum(terms):
            return all(is_affine(t) for t in terms)
        case Product(factors):
            return sum(not isinstance(f, Const) for f in factors) <= 1 and all(
                is_affine(f) for f in factors
            )
        case FloorDiv() | Mod() | Minimum():
            return False
        case _:
            assert_never(expr)


def affine_terms(expr: SizeExpr) -> tuple[dict[int, int], int]:
    """An affine `expr` as ``({size index: coefficient}, constant)``."""
    match expr:
        case Const(value):
            return {}, value
        case Size(index):
            return {index: 1}, 0
        case Sum(terms):
            total: dict[int, int] = {}
            constant = 0
            for term in terms:
                coefficients, c = affine_terms(term)
                constant += c
                for index, k in coefficients.items():
                    total[index] = total.get(index, 0) + k
            return total, constant
        case Product(factors):
            scale = 1
            inner: tuple[dict[int, int], int] = ({}, 1)
            for factor in factors:
                if isinstance(factor, Const):
                    scale *= factor.value
                else:
                    inner = affine_terms(factor)
            return {i: k * scale for i, k in inner[0].items()}, inner[1] * scale
        case FloorDiv() | Mod() | Minimum():
            raise ValueError(f"'{render(expr)}' is not affine in the tile sizes")
        case _:
            assert_never(expr)


def render(expr: SizeExpr) -> str:
    """XLA's text: ``d0 * d1``, ``(d0 + 5) floordiv 6``, ``6 mod d0``."""
    match expr:
        case Const(value):
            return str(value)
        case Size(index):
            return f"d{index}"
        case Sum(terms):
            text = render(terms[0])
            for term in terms[1:]:
                if isinstance(term, Const) and term.value < 0:
                    text += f" - {-term.value}"
                elif isinstance(term, Product) and term.factors[-1] == Const(-1):
                    text += f" - {_operand(mul(term, -1))}"
                else:
                    text += f" + {render(term)}"
            return text
        case Product(factors):
            return " * ".join(_operand(f) for f in factors)
        case FloorDiv(operand, divisor):
            return f"{_operand(operand)} floordiv {_operand(divisor)}"
        case Mod(operand, modulus):
            return f"{_operand(operand)} mod {_operand(modulus)}"
        case Minimum(lhs, rhs):
            return f"min({render(lhs)}, {render(rhs)})"
        case _:
            assert_never(expr)


def _operand(expr: SizeExpr) -> str:
    atomic = isinstance(expr, Size | Minimum) or (isinstance(expr, Const) and expr.value >= 0)
    return render(expr) if atomic else f"({render(expr)})"


def render_map(num_sizes: int, results: Sequence[SizeExpr]) -> str:
    """``(d0, …) -> (results)``."""
    header = ", ".join(f"d{i}" for i in range(num_sizes))
    return f"({header}) -> ({', '.join(render(r) for r in results)})"


# ---------------------------------------------------------------- conditions


@dataclass(frozen=True)
class Atom:
    """``expr in [lower, upper]``."""

    expr: SizeExpr
    lower: int
    upper: int

    def holds(self, sizes: Sequence[int]) -> bool:
        return self.lower <= evaluate(self.expr, sizes) <= self.upper


Conjunction: TypeAlias = tuple[Atom, ...]
Condition: TypeAlias = tuple[Conjunction, ...]
ALWAYS: Condition = ((),)
NEVER: Condition = ()


def atom_condition(atom: Atom) -> Condition:
    """The condition of one atom, folded when it is constant."""
    if isinstance(atom.expr, Const):
        return ALWAYS if atom.holds(()) else NEVER
    return ((atom,),)


def either(*atoms: Atom) -> Condition:
    """The disjunction of single atoms."""
    result: Condition = NEVER
    for atom in atoms:
        result = disjoin(result, atom_condition(atom))
    return result


def disjoin(a: Condition, b: Condition) -> Condition:
    return _minimal((*a, *b))


def conjoin(a: Condition, b: Condition) -> Condition:
    """The conjunction, distributed into a disjunction of conjunctions."""
    return _minimal(tuple(tuple(dict.fromkeys((*x, *y))) for x, y in itertools.product(a, b)))


def _minimal(condition: Condition) -> Condition:
    """Without repeated or subsumed conjunctions (one whose atoms include
    another's holds less often)."""
    unique = list(dict.fromkeys(tuple(sorted(c, key=render_atom)) for c in condition))
    kept = [c for c in unique if not any(other != c and set(other) <= set(c) for other in unique)]
    return tuple(kept)


def restrict(condition: Condition, bounds: Sequence[int]) -> Condition:
    """`condition` with its atoms decided where sizes ``1 ≤ d_i ≤ bounds[i]``
    decide them: an atom of one size is tried at every size it may take
    (up to 4096 of them), and dropped when it always holds; a conjunction
    with an atom that never holds is dropped; atoms are read again with
    the sizes a conjunction pins, until nothing changes."""
    while True:
        narrower = _restrict_once(condition, bounds)
        if narrower == condition:
            return narrower
        condition = narrower


def _restrict_once(condition: Condition, bounds: Sequence[int]) -> Condition:
    result: list[Conjunction] = []
    for conjunction in condition:
        kept: list[Atom] = []
        possible = True
        fixed = {
            a.expr.index: a.lower
            for a in conjunction
            if isinstance(a.expr, Size) and a.lower == a.upper
        }
        for original in conjunction:
            atom = original
            if not isinstance(original.expr, Size):
                # Other atoms read with the sizes this conjunction pins.
                atom = Atom(fixing(original.expr, fixed), original.lower, original.upper)
            verdict = _decided(atom, bounds)
            if verdict is False:
                possible = False
                break
            if verdict is None:
                kept.append(_narrowed(atom, bounds))
        if possible:
            result.append(tuple(kept))
    return _minimal(tuple(result))


def _decided(atom: Atom, bounds: Sequence[int]) -> bool | None:
    if isinstance(atom.expr, Const):
        return atom.holds(())
    used = sizes_of(atom.expr)
    if len(used) != 1:
        return None
    (index,) = used
    if bounds[index] > 4096:
        return None
    outcomes = set()
    for value in range(1, bounds[index] + 1):
        sizes = [1] * len(bounds)
        sizes[index] = value
        outcomes.add(atom.holds(sizes))
    return outcomes.pop() if len(outcomes) == 1 else None


def _narrowed(atom: Atom, bounds: Sequence[int]) -> Atom:
    """``k * d_i + c in [lo, hi]`` written as ``d_i in [a, b]`` (within the
    size's bounds)."""
    if not is_affine(atom.expr):
        return atom
    coefficients, constant = affine_terms(atom.expr)
    if len(coefficients) != 1:
        reach = constant + sum(max(k, k * bounds[i]) for i, k in coefficients.items())
        return Atom(atom.expr, atom.lower, min(atom.upper, reach))
    ((index, k),) = coefficients.items()
    low, high = atom.lower - constant, atom.upper - constant
    if k < 0:
        k, low, high = -k, -high, -low
    lower = max(1, -(-low // k))
    upper = min(bounds[index], high // k)
    return Atom(Size(index), lower, upper)


def fixing(expr: SizeExpr, fixed: dict[int, int]) -> SizeExpr:
    """`expr` with the sizes of `fixed` replaced by their values, folded."""
    match expr:
        case Const():
            return expr
        case Size(index):
            return Const(fixed[index]) if index in fixed else expr
        case Sum(terms):
            return add(*(fixing(t, fixed) for t in terms))
        case Product(factors):
            return mul(*(fixing(f, fixed) for f in factors))
        case FloorDiv(operand, divisor):
            return floordiv(fixing(operand, fixed), fixing(divisor, fixed))
        case Mod(operand, modulus):
            return mod(fixing(operand, fixed), fixing(modulus, fixed))
        case Minimum(lhs, rhs):
            return minimum(fixing(lhs, fixed), fixing(rhs, fixed))
        case _:
            assert_never(expr)


def sizes_of(expr: SizeExpr) -> frozenset[int]:
    """The indices of the sizes `expr` uses."""
    match expr:
        case Const():
            return frozenset()
        case Size(index):
            return frozenset((index,))
        case Sum(parts) | Product(parts):
            return frozenset().union(*(sizes_of(p) for p in parts))
        case FloorDiv(a, b) | Mod(a, b) | Minimum(a, b):
            return sizes_of(a) | sizes_of(b)
        case _:
            assert_never(expr)


def holds(condition: Condition, sizes: Sequence[int]) -> bool:
    return any(all(atom.holds(sizes) for atom in c) for c in condition)


def render_atom(atom: Atom) -> str:
    return f"{render(atom.expr)} in [{atom.lower}, {atom.upper}]"


def render_condition(condition: Condition) -> str:
    """XLA's text: ``a in [0, 0] && b in [1, 1] || …``; empty when it always
    holds, ``false`` when it never does."""
    if condition == NEVER:
        return "false"
    return " || ".join(" && ".join(render_atom(a) for a in c) for c in condition)
