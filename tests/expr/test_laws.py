"""Laws of the canonicalising constructors, and floor semantics equal to
Python's ``//`` and ``%`` for every sign of operand and divisor."""

import pickle

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import constants, divisors, expressions
from verifier.expr.evaluate import evaluate
from verifier.expr.nodes import ceildiv, const, dim, floordiv, mod, range_var, rt_var

VARIABLES = [dim(0), dim(1), range_var(0), rt_var(0)]
exprs = expressions(VARIABLES)
points = st.fixed_dictionaries({v: st.integers(-20, 20) for v in VARIABLES})


@given(exprs)
def test_adding_zero_gives_the_same_node(e):
    assert e + 0 is e
    assert 0 + e is e
    assert e * 1 is e


@given(exprs, exprs)
def test_sums_commute_to_the_same_node(a, b):
    assert a + b is b + a


@given(exprs, exprs, exprs)
def test_sums_associate_to_the_same_node(a, b, c):
    assert (a + b) + c is a + (b + c)


@given(exprs, exprs, st.integers(-5, 5))
def test_constant_factors_distribute_over_sums(a, b, c):
    assert (a + b) * c is a * c + b * c


@given(exprs)
def test_like_terms_combine(e):
    assert e + e is e * 2
    assert e - e is const(0)


@given(exprs)
def test_pickling_reinterns(e):
    assert pickle.loads(pickle.dumps(e)) is e


@given(st.integers(-50, 50), divisors)
def test_floordiv_mod_ceildiv_are_pythons(x, c):
    point = {dim(0): x}
    assert evaluate(floordiv(dim(0), c), point) == x // c
    assert evaluate(mod(dim(0), c), point) == x % c
    assert evaluate(ceildiv(dim(0), c), point) == -(-x // c)
    assert evaluate(floordiv(const(x), c), {}) == x // c
    assert evaluate(mod(const(x), c), {}) == x % c


@given(exprs, divisors, points)
def test_division_of_compound_expressions_is_pythons(e, c, point):
    value = evaluate(e, point)
    assert evaluate(floordiv(e, c), point) == value // c
    assert evaluate(mod(e, c), point) == value % c
    assert evaluate(ceildiv(e, c), point) == -(-value // c)


@given(exprs, exprs, constants, points)
def test_operators_evaluate_as_integers(a, b, k, point):
    x, y = evaluate(a, point), evaluate(b, point)
    assert evaluate(a + b, point) == x + y
    assert evaluate(a - b, point) == x - y
    assert evaluate(a * k, point) == x * k


def test_the_spec_examples_of_floor_semantics():
    assert evaluate(floordiv(const(-7), 2), {}) == -4
    assert evaluate(mod(const(-7), 2), {}) == 1
    assert evaluate(floordiv(const(7), -2), {}) == -4
    assert evaluate(mod(const(7), -2), {}) == -1
    assert evaluate(floordiv(dim(0), -2), {dim(0): 7}) == -4
    assert evaluate(mod(dim(0), -2), {dim(0): 7}) == -1


def test_interning_frees_nodes_no_one_holds_and_keeps_live_ones_unique() -> None:
    import gc
    import weakref

    from verifier.expr import nodes

    built = nodes.dim(7) * 987_654_321 + 123_456_789
    alive = weakref.ref(built)
    entries = len(nodes._TABLE)
    assert nodes.dim(7) * 987_654_321 + 123_456_789 is built
    del built
    gc.collect()
    assert alive() is None
    assert len(nodes._TABLE) < entries
    again = nodes.dim(7) * 987_654_321 + 123_456_789
    assert again is nodes.dim(7) * 987_654_321 + 123_456_789
