"""isl → IndexingMap: a single-valued `isl.Map` with one quasi-affine piece
on one convex domain, read back as an `IndexingMap` equal to it as a
relation (`from_isl_map`); the inverse of `verifier.bridges.isl.to_isl_map`
where one exists.

>>> print(from_isl_map(isl.Map("{ [d0] -> [o0] : o0 = floor(d0 / 4) and 0 <= d0 <= 7 }")))
(d0) -> (d0 floordiv 4),
domain:
d0 in [0, 7]
"""

from __future__ import annotations

from typing import Any

import islpy as isl

from verifier.bridges.isl import int_value, isl_val
from verifier.errors import UnsupportedError
from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    Var,
    Variable,
    VarKind,
    add,
    const,
    floordiv,
    interval_of,
    mul,
    var,
)

_DIM = isl.dim_type.set
_IN = isl.dim_type.in_
_OUT = isl.dim_type.out
_DIV = isl.dim_type.div


class IslAffConverter:
    """isl quasi-affine function → expression over the variables named by the
    function's input dimensions (``d0``, ``s1``, ``rt0``).

    isl writes a function as ``(Σ c_i x_i + Σ e_j q_j + k) / den`` with
    division variables ``q_j = floor(f_j)``; each part maps to one node:
    ``{ [d0] -> [(floor((d0)/4) + 1)] }`` becomes ``d0 floordiv 4 + 1``.
    """

    def convert(self, aff: Any) -> Expr:
        """The function's value; a rational function is floored, which is
        exact where isl guarantees it integral (on its piece's domain)."""
        denominator = int_value(aff.get_denominator_val())

        def scaled(value: Any) -> int:
            return int_value(value.mul(isl_val(denominator)))

        terms: list[Expr] = [const(scaled(aff.get_constant_val()))]
        for position in range(aff.dim(_IN)):
            coefficient = scaled(aff.get_coefficient_val(_IN, position))
            if coefficient:
                terms.append(mul(self.map_variable(aff, position), coefficient))
        for position in range(aff.dim(_DIV)):
            coefficient = scaled(aff.get_coefficient_val(_DIV, position))
            if coefficient:
                terms.append(mul(self.map_division(aff, position), coefficient))
        return floordiv(add(*terms), denominator)

    def map_variable(self, aff: Any, position: int) -> Var:
        return _variable_named(aff.get_dim_name(_IN, position))

    def map_division(self, aff: Any, position: int) -> Expr:
        # get_div gives the argument f_j of floor(f_j), possibly rational.
        return self.convert(aff.get_div(position))


def _variable_named(name: str | None) -> Var:
    for kind in (VarKind.RT, VarKind.RANGE, VarKind.DIM):
        prefix = kind.value
        if name and name.startswith(prefix) and name[len(prefix) :].isdigit():
            return var(kind, int(name[len(prefix) :]))
    raise UnsupportedError(f"isl dimension {name!r} is not named like d0, s0 or rt0")


def _bounds(domain: Any, position: int) -> Interval:
    local_space = isl.LocalSpace.from_space(domain.get_space())
    coordinate = isl.Aff.var_on_domain(local_space, _DIM, position)
    lower, upper = domain.min_val(coordinate), domain.max_val(coordinate)
    if not (lower.is_int() and upper.is_int()):
        raise UnsupportedError(
            f"dimension {domain.get_dim_name(_DIM, position)} of {domain} is unbounded"
        )
    return Interval(int_value(lower), int_value(upper))


def from_isl_map(isl_map: Any) -> IndexingMap:
    """An `IndexingMap` equal (as a relation) to a single-valued `isl.Map` with
    one quasi-affine piece on one convex domain; input dimensions named
    ``d0 …`` (then ``s0 …``, ``rt0 …`` for a graph from
    ``to_isl_map(…, existential_symbols=False)``).

    ``{ [d0] -> [o0] : o0 = floor(d0 / 4) and 0 <= d0 <= 7 }`` becomes
    ``(d0) -> (d0 floordiv 4), domain: d0 in [0, 7]``.  Anything else
    (several pieces, a union domain, an unbounded variable, other names)
    raises `UnsupportedError`.
    """
    names = [isl_map.get_dim_name(_IN, i) for i in range(isl_map.dim(_IN))]
    variables = [_variable_named(name) for name in names]
    counts = {kind: sum(1 for v in variables if v.kind is kind) for kind in VarKind}
    header = [var(kind, i) for kind in VarKind for i in range(counts[kind])]
    if variables != header:
        raise UnsupportedError(f"isl map inputs {names} are not in d, s, rt header order")
    if isl_map.is_empty():
        return IndexingMap.create(
            [(0, -1)] * counts[VarKind.DIM],
            [0] * isl_map.dim(_OUT),
            range_vars=[(0, -1)] * counts[VarKind.RANGE],
            rt_vars=[(0, -1)] * counts[VarKind.RT],
            # With no variable to carry the empty bound, a false constraint.
            constraints=[(const(0), Interval(1, 1))],
        )
    function = isl_map.as_pw_multi_aff()
    pieces: list[tuple[Any, Any]] = []
    function.foreach_piece(lambda domain, value: pieces.append((domain, value)))
    if len(pieces) != 1:
        raise UnsupportedError(f"isl map {isl_map} has {len(pieces)} pieces, not one")
    domain, value = pieces[0]
    basic_sets = domain.coalesce().get_basic_sets()
    if len(basic_sets) != 1:
        raise UnsupportedError(f"the domain of isl map {isl_map} is not convex")
    bounds = {v: _bounds(domain, position) for position, v in enumerate(variables)}
    converter = IslAffConverter()
    results = [converter.convert(value.get_at(i)) for i in range(value.dim(_OUT))]
    constraints: list[tuple[Expr, Interval]] = []
    for constraint in basic_sets[0].get_constraints():
        expr = converter.convert(constraint.get_aff())
        values = interval_of(expr, bounds.__getitem__)
        if constraint.is_equality():
            constraints.append((expr, Interval(0, 0)))
        elif values.lower < 0:
            # `expr >= 0` becomes `expr in [0, U]` with U its largest value
            # on the bounds' box, so the upper end never cuts a point off.
            # (With values.lower >= 0 it is one of the bounds: implied.)
            constraints.append((expr, Interval(0, max(0, values.upper))))

    def declared(kind: VarKind) -> list[Variable]:
        return [Variable(bounds[var(kind, i)]) for i in range(counts[kind])]

    return IndexingMap.create(
        declared(VarKind.DIM),
        results,
        range_vars=declared(VarKind.RANGE),
        rt_vars=declared(VarKind.RT),
        constraints=constraints,
    )
