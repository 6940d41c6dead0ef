"""Hypothesis strategies for quasi-affine expressions and indexing maps.

Shared by every test tier: import as ``from strategies import …`` (the
``tests`` directory is on ``sys.path`` for test packages under it).

Everything is built through the canonicalising constructors, from inputs a
user could write: negative constants, negative values in every domain,
negative divisors and moduli (normalised by the constructors), ``min`` and
``max``, constraints, range and runtime variables.  Domains stay small
(a few hundred points at most) so tests can enumerate them.

>>> from hypothesis import given, settings
>>> @settings(max_examples=20)
... @given(indexing_maps())
... def test(m): assert m.domain_size_bound() <= 4 ** 4
>>> test()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import strategies as st

from verifier.expr.evaluate import evaluate, substitute
from verifier.expr.indexing_map import IndexingMap, Variable
from verifier.expr.interval import Interval
from verifier.expr.nodes import (
    Expr,
    Var,
    ceildiv,
    const,
    dim,
    floordiv,
    max_,
    min_,
    mod,
    range_var,
    rt_var,
)

# Variable intervals: lower bound in [-4, 3], at most 4 values, so a map with
# four variables has at most 256 domain points.
_MAX_WIDTH = 4
divisors = st.integers(-6, 6).filter(lambda c: c != 0)
constants = st.integers(-8, 8)


def expressions(variables: Sequence[Var], *, max_leaves: int = 6) -> st.SearchStrategy[Expr]:
    """Random quasi-affine expressions over `variables` (constants only when
    `variables` is empty)."""
    leaves: st.SearchStrategy[Expr] = constants.map(const)
    if variables:
        leaves = st.one_of(st.sampled_from(list(variables)), leaves)

    def extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        return st.one_of(
            st.tuples(children, children).map(lambda ab: ab[0] + ab[1]),
            st.tuples(children, children).map(lambda ab: ab[0] - ab[1]),
            st.tuples(children, st.integers(-4, 4)).map(lambda ak: ak[0] * ak[1]),
            st.tuples(children, divisors).map(lambda ac: floordiv(*ac)),
            st.tuples(children, divisors).map(lambda ac: ceildiv(*ac)),
            st.tuples(children, divisors).map(lambda ac: mod(*ac)),
            st.tuples(children, children).map(lambda ab: min_(*ab)),
            st.tuples(children, children).map(lambda ab: max_(*ab)),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def intervals(*, allow_empty: bool = False) -> st.SearchStrategy[Interval]:
    """Small variable intervals around zero (sometimes empty, if allowed)."""
    sizes = st.integers(0 if allow_empty else 1, _MAX_WIDTH)
    return st.tuples(st.integers(-4, 3), sizes).map(lambda ls: Interval(ls[0], ls[0] + ls[1] - 1))


def constraint_intervals() -> st.SearchStrategy[Interval]:
    """Constraint intervals: often a single value (``e in [0, 0]``), always
    non-empty (an empty one is a known-empty map, generated separately)."""
    return st.tuples(st.integers(-6, 6), st.integers(0, 8)).map(
        lambda ls: Interval(ls[0], ls[0] + ls[1])
    )


@st.composite
def indexing_maps(
    draw: st.DrawFn,
    *,
    max_dims: int = 2,
    max_range_vars: int = 1,
    max_rt_vars: int = 1,
    max_results: int = 2,
    max_constraints: int = 2,
    max_leaves: int = 6,
    allow_empty: bool = False,
    num_dims: int | None = None,
    num_results: int | None = None,
) -> IndexingMap:
    """Random maps ``(d…)[s…]{rt…} -> (e…)`` with constraints.  At most four
    variables in all, so ``domain_points()`` stays cheap."""
    n_dims = draw(st.integers(0, max_dims)) if num_dims is None else num_dims
    room = max(0, 4 - n_dims)
    n_range = draw(st.integers(0, min(max_range_vars, room)))
    n_rt = draw(st.integers(0, min(max_rt_vars, room - n_range)))
    variables = (
        [dim(i) for i in range(n_dims)]
        + [range_var(i) for i in range(n_range)]
        + [rt_var(i) for i in range(n_rt)]
    )
    exprs = expressions(variables, max_leaves=max_leaves)
    n_results = draw(st.integers(0, max_results)) if num_results is None else num_results
    bounds = intervals(allow_empty=allow_empty).map(Variable)
    dims_ = [draw(bounds) for _ in range(n_dims)]
    range_vars = [draw(bounds) for _ in range(n_range)]
    rt_vars = [draw(bounds) for _ in range(n_rt)]
    # Most constraints hold at one point of the box (so most domains are
    # non-empty but cut); some are random intervals.
    anchor = {
        v: draw(st.integers(b.bounds.lower, max(b.bounds.lower, b.bounds.upper)))
        for v, b in zip(variables, dims_ + range_vars + rt_vars, strict=True)
    }
    constraints = []
    for expr in draw(st.lists(exprs, max_size=max_constraints)):
        if draw(st.booleans()):
            value = evaluate(expr, anchor)
            below, above = draw(st.integers(0, 3)), draw(st.integers(0, 3))
            constraints.append((expr, Interval(value - below, value + above)))
        else:
            constraints.append((expr, draw(constraint_intervals())))
    return IndexingMap.create(
        dims_,
        [draw(exprs) for _ in range(n_results)],
        range_vars=range_vars,
        rt_vars=rt_vars,
        constraints=constraints,
    )


# ------------------------------------------------------------- pairs of maps


def _equivalent_rewrites(expr: Expr) -> st.SearchStrategy[Expr]:
    """Expressions equal to `expr` at every integer point, written differently
    (the kind of pair a simplifier produces)."""
    return st.one_of(
        st.just(expr),
        st.integers(2, 5).map(lambda c: (expr * c) // c),
        st.integers(2, 5).map(lambda c: (expr // c) * c + expr % c),
        st.integers(2, 5).map(lambda c: -((-expr) // c) * c - (-expr) % c),
        st.integers(2, 5).map(lambda c: ceildiv(expr * c - (c - 1), c)),
        st.just(max_(expr, expr - 1)),
    )


def _near_miss(expr: Expr) -> st.SearchStrategy[Expr]:
    """Expressions that usually differ from `expr` somewhere, by a little."""
    return st.one_of(
        st.sampled_from([-1, 1]).map(lambda k: expr + k),
        st.integers(2, 4).map(lambda c: (expr // c) * c),
        st.integers(2, 4).map(lambda c: expr % c),
        st.just(-expr),
    )


def _shift_symbol(indexing_map: IndexingMap, shift: int) -> IndexingMap:
    """Rename ``s0`` to ``s0 - shift`` with its interval moved by `shift`:
    the same relation, a different function of the symbols."""
    if not indexing_map.range_vars:
        return indexing_map
    s0 = range_var(0)

    def shifted(v: Var) -> Expr:
        return v - shift if v is s0 else v

    first = indexing_map.range_vars[0]
    moved = Variable(Interval(first.bounds.lower + shift, first.bounds.upper + shift))
    return IndexingMap.create(
        indexing_map.dims,
        [substitute(r, shifted) for r in indexing_map.results],
        range_vars=(moved, *indexing_map.range_vars[1:]),
        rt_vars=indexing_map.rt_vars,
        constraints=[(substitute(e, shifted), b) for e, b in indexing_map.constraints],
    )


def _rewrite_results(
    indexing_map: IndexingMap, rewrite: Callable[[Expr], st.SearchStrategy[Expr]]
) -> st.SearchStrategy[IndexingMap]:
    if not indexing_map.results:
        return st.just(indexing_map)
    return st.tuples(*(rewrite(r) for r in indexing_map.results)).map(
        lambda results: indexing_map.replaced(results=list(results))
    )


def _widen_bound(indexing_map: IndexingMap) -> IndexingMap:
    """One more value for ``d0`` (or the first variable): usually a different domain."""
    if not indexing_map.dims:
        return indexing_map
    first = indexing_map.dims[0].bounds
    return indexing_map.replaced(
        dims=[Variable(Interval(first.lower, first.upper + 1)), *indexing_map.dims[1:]]
    )


@st.composite
def map_pairs(
    draw: st.DrawFn, *, max_dims: int = 2, max_results: int = 2, max_leaves: int = 6
) -> tuple[IndexingMap, IndexingMap]:
    """Pairs ``(a, b)`` of maps with the same variables: often equal
    (rewritten results, shifted symbols), often nearly equal (off by one, a
    wider bound), sometimes unrelated (new results and constraints)."""
    a = draw(indexing_maps(max_dims=max_dims, max_results=max_results, max_leaves=max_leaves))
    kind = draw(st.sampled_from(["rewrite", "near", "shift", "widen", "independent"]))
    if kind == "rewrite":
        return a, draw(_rewrite_results(a, _equivalent_rewrites))
    if kind == "near":
        return a, draw(_rewrite_results(a, _near_miss))
    if kind == "shift":
        return a, _shift_symbol(a, draw(st.integers(-2, 2)))
    if kind == "widen":
        return a, _widen_bound(a)
    exprs = expressions(a.all_variables, max_leaves=max_leaves)
    return a, a.replaced(
        results=[draw(exprs) for _ in a.results],
        constraints=draw(st.lists(st.tuples(exprs, constraint_intervals()), max_size=2)),
    )
