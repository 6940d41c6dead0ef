"""``triangular-solve``: which elements of the triangular matrix and of the
right-hand side each element of the solution depends on; and why
``cholesky`` has no maps.

``x = triangular-solve(a, b)`` solves ``op(a) x = b`` (``left_side=true``)
or ``x op(a) = b``, with ``op(a)`` = a, its transpose or its adjoint
(``transpose_a``), over the leading batch dims.  Only one triangle of a is
read (``lower``), and not its diagonal with ``unit_diagonal=true``.  Call
``t = op(a)`` (n × n); t is lower triangular when ``lower`` differs
from "transposed".  Substitution solves one row of x after another (left
side) or one column (right side), from the end where t's triangle starts:
a left-side solve with t lower is forward substitution, ``x[i] = (b[i] -
sum_{q < i} t[i, q] x[q]) / t[i, i]``, so row i depends on the rows of b up
to i and on the t[p, q] with ``q <= p <= i`` (``q < p`` with a unit
diagonal).  The other three cases are the same with rows or columns and
with the order reversed.  ``t[p, q]`` is ``a[p, q]``, or ``a[q, p]`` when
transposed.

``x = f32[4,3] triangular-solve(f32[4,4] a, f32[4,3] b), left_side=true,
lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE``: b ``(d0,
d1)[s0] -> (s0, d1)`` with ``d0 - s0 in [0, 3]``; a ``(d0, d1)[s0, s1] ->
(s0, s1)`` with ``s0 - s1 in [0, 3]`` and ``d0 - s0 in [0, 3]``.

``cholesky(a), lower=true`` returns l in a's lower triangle, which reads
a's lower triangle; the values in the other triangle are, in XLA's words,
"implementation-defined and may be anything" (LAPACK's potrf leaves a's
values there).  So what an element of that triangle reads is unknown, and
the op is UNDEFINED with that reason rather than a map that guesses.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.expr import Expr, IndexingMap, Interval, Undefined, dim, range_var
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box


@dataclass(frozen=True)
class _Solve:
    """A triangular-solve's geometry: `batch` leading dims, t of size `size`,
    the solved axis of x (`axis`: -2 for rows, -1 for columns), and whether
    the solve runs forward (from index 0)."""

    batch: int
    size: int
    left_side: bool
    forward: bool
    transposed: bool
    unit_diagonal: bool

    @property
    def axis(self) -> int:
        """The position in x (rank batch + 2) of the solved index."""
        return self.batch if self.left_side else self.batch + 1

    def earlier(self, solved: Expr, other: Expr) -> tuple[Expr, Interval]:
        """``other`` is solved no later than ``solved``."""
        span = Interval(0, self.size - 1)
        return (solved - other, span) if self.forward else (other - solved, span)

    def triangle(self, p: Expr, q: Expr) -> list[tuple[Expr, Interval]]:
        """``t[p, q]`` is in t's triangle (off its diagonal with a unit
        diagonal, which is not read)."""
        lowest = 1 if self.unit_diagonal else 0
        lower = self.forward == self.left_side
        off = (p - q) if lower else (q - p)
        return [(off, Interval(lowest, self.size - 1))]

    def a_index(self, p: Expr, q: Expr) -> tuple[Expr, Expr]:
        return (q, p) if self.transposed else (p, q)


def _solve(ctx: OpContext) -> _Solve | Undefined:
    attributes = ctx.instruction.attributes
    transpose = attributes.word("transpose_a") or "NO_TRANSPOSE"
    if transpose not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        return Undefined(f"triangular-solve with transpose_a={transpose}")
    transposed = transpose != "NO_TRANSPOSE"
    lower = attributes.boolean("lower") is True
    left_side = attributes.boolean("left_side") is True
    # t lower: a left-side solve runs forward, a right-side one backward.
    forward = (lower != transposed) == left_side
    a = ctx.operand_shape(0).dimensions
    return _Solve(
        batch=len(a) - 2,
        size=a[-1],
        left_side=left_side,
        forward=forward,
        transposed=transposed,
        unit_diagonal=attributes.boolean("unit_diagonal") is True,
    )


def _t_of(solve: _Solve, solved: Expr) -> tuple[Expr, Expr]:
    """The t entry ``(p, q)`` a solve reads, its solved index being the
    row p (left side) or the column q (right side)."""
    other = range_var(1)
    return (solved, other) if solve.left_side else (other, solved)


def _output_to_input(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """x → a and x → b (module docstring)."""
    solve = _solve(ctx)
    if isinstance(solve, Undefined):
        return (solve, solve)
    x = ctx.shape.dimensions
    position = dim(solve.axis)
    batch = [dim(k) for k in range(solve.batch)]
    # b: the same other index, every solved index up to this one.
    b_results: list[Expr] = [dim(k) for k in range(len(x))]
    b_results[solve.axis] = range_var(0)
    b_map = IndexingMap.create(
        dims_box(x),
        b_results,
        range_vars=[Interval(0, solve.size - 1)],
        constraints=[solve.earlier(position, range_var(0))],
    )
    # a: t[p, q] with the solved index s0 up to this one, the other s1 in the triangle.
    p, q = _t_of(solve, range_var(0))
    a_map = IndexingMap.create(
        dims_box(x),
        [*batch, *solve.a_index(p, q)],
        range_vars=[Interval(0, solve.size - 1)] * 2,
        constraints=[solve.earlier(position, range_var(0)), *solve.triangle(p, q)],
    )
    return ((a_map,), (b_map,))


def _input_to_output(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """a → x and b → x: the elements of x solved no earlier than the index read."""
    solve = _solve(ctx)
    if isinstance(solve, Undefined):
        return (solve,)
    x = ctx.shape.dimensions
    if operand == 1:
        # b[.., i, j] is read by x at the same other index, solved from i on.
        b_results: list[Expr] = [dim(k) for k in range(len(x))]
        b_results[solve.axis] = range_var(0)
        return (
            (
                IndexingMap.create(
                    dims_box(x),
                    b_results,
                    range_vars=[Interval(0, solve.size - 1)],
                    constraints=[solve.earlier(range_var(0), dim(solve.axis))],
                ),
            ),
        )
    batch = [dim(k) for k in range(solve.batch)]
    solved = range_var(0) if solve.left_side else range_var(1)
    a = ctx.operand_shape(0).dimensions
    row, column = dim(solve.batch), dim(solve.batch + 1)
    p, q = (column, row) if solve.transposed else (row, column)
    read = p if solve.left_side else q
    return (
        (
            IndexingMap.create(
                dims_box(a),
                [*batch, range_var(0), range_var(1)],
                range_vars=[Interval(0, x[-2] - 1), Interval(0, x[-1] - 1)],
                constraints=[*solve.triangle(p, q), solve.earlier(solved, read)],
            ),
        ),
    )


register("triangular-solve")(OpRule(_output_to_input, _input_to_output))


_CHOLESKY = Undefined(
    "cholesky: the values in the triangle of the output it does not compute are "
    "implementation-defined, so what they read is unknown"
)

register("cholesky")(OpRule(lambda ctx, output: (_CHOLESKY,), lambda ctx, operand: (_CHOLESKY,)))
