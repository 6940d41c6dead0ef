"""Warp requests: a thread→offset map (thread and block dims; the load's
loop ids, then the launch's symbols) renumbered as a map of the request
``r`` (warp within its block, then the blocks, in the order of the
threads' linear ids) and the loop ids, with the lane and the vector id as
symbols — what `verifier.coalescing.sectors` counts.

>>> from verifier.coalescing.devices import DEVICES
>>> from verifier.coalescing.emitter import loop_launch
>>> from verifier.expr import compose, IndexingMap
>>> from verifier.hlo import parse_shape
>>> launch = loop_launch(parse_shape("f32[256]"), 1, DEVICES["rtx-a6000"])
>>> (piece,) = request_map([launch.thread_map], launch).maps
>>> str(piece).splitlines()[0]
'(d0, d1)[s0, s1] -> (d0 * 32 + s0),'
"""

from __future__ import annotations

from verifier.coalescing.emitter import Launch
from verifier.coalescing.sectors import RequestMap
from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    Var,
    VarKind,
    const,
    dim,
    range_var,
    substitute,
)
from verifier.simplify import simplify


def request_map(pieces: list[IndexingMap], launch: Launch) -> RequestMap:
    """The pieces of one load (thread dims; the operand's loop ids, then
    the launch's symbols) as maps of ``(r, loop ids…)`` with ``(lane,
    vector id)`` as symbols (`sectors`): every symbol but the launch's
    vector one is a loop id."""
    return RequestMap(tuple(_requests(m, launch) for m in pieces))


def _requests(linearized: IndexingMap, launch: Launch) -> IndexingMap:
    warp = launch.warp_size
    per_block = -(-launch.threads_per_block // warp)
    grid_x, grid_y, _ = launch.grid
    own = len(launch.thread_map.range_vars)
    vector_index = len(linearized.range_vars) - own + launch.vector_symbol
    loops = [k for k in range(len(linearized.range_vars)) if k != vector_index]
    r, lane = dim(0), range_var(0)
    thread = (r % per_block) * warp + lane
    values: dict[int, Expr] = {
        0: thread,
        1: const(0),
        2: const(0),
        3: (r // per_block) % grid_x,
        4: r // (per_block * grid_x),
        5: const(0),
    }

    def place(v: Var) -> Expr:
        if v.kind is VarKind.DIM:
            return values[v.index]
        return range_var(1) if v.index == vector_index else dim(1 + loops.index(v.index))

    requests = grid_y * grid_x * per_block
    constraints = [(substitute(e, place), b) for e, b in linearized.constraints]
    constraints.append((thread, Interval(0, launch.threads_per_block - 1)))
    # The map's own bounds on its thread and block ids (a simplified map
    # may have tightened them past the launch's).
    constraints += [(values[k], linearized.dims[k].bounds) for k in range(len(linearized.dims))]
    mapped = IndexingMap.create(
        [Interval(0, requests - 1)] + [linearized.range_vars[k].bounds for k in loops],
        [substitute(e, place) for e in linearized.results] or [const(0)],
        range_vars=[Interval(0, warp - 1), linearized.range_vars[vector_index].bounds],
        constraints=constraints,
    )
    return simplify(mapped).map
