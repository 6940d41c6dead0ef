"""XLA's two coalescing verdicts, reproduced: the first-warp analysis
(``CoalescingAnalysis`` with ``use_heuristic=false``) and the heuristic
(``IsReadCoalescedHeuristic``).

**First warp.**  The thread→linearised-operand map (XLA linearises by
minor-to-major only, without tiles) is sampled at threads 0…31 of block 0:
runtime variables at the middle of their range, every other dim at 0.  An
empty sample is coalesced.  Every range variable but the last is fixed at
its lower bound; the offset must then split into ``f(tx) + g(s)`` (a term
using both fails, constant terms are dropped), with no constraint left but
one on the offset itself.  The elements touched are estimated as
intervals: ``f = tx`` gives ``[0, 31]``; ``f = e * c`` gives, when ``g =
s``, one interval or one per thread, else the 32 points ``c * i`` (``g``
ignored); any other ``f`` gives its values over ``[0, 31]`` merged into
intervals, stretched by the trip count of ``s`` when ``g = s``.  Coalesced
when ``ceil(all elements * bytes / 128)`` exceeds 0.9 times the sum of
``ceil(interval * bytes / 128)``.  The forms are our simplifier's, which
may differ from XLA's where the two simplifiers do.

>>> from verifier.expr import parse_map
>>> first_warp_coalesced(parse_map(
...     "(d0, d1, d2, d3, d4, d5)[s0] -> ((d3 * 32 + d0) floordiv 4 * 40 + d0 mod 4 + s0 * 4), "
...     "domain: d0 in [0, 31], d1 in [0, 0], d2 in [0, 0], d3 in [0, 7], d4 in [0, 0], "
...     "d5 in [0, 0], s0 in [0, 9]"), element_bytes=4)
False

**Heuristic.**  Outside the transpose emitter, a producer or consumer that
transposes its most minor non-trivial dimension (a transpose, a copy, or a
fusion holding one) is uncoalesced unless the transposed value is a
broadcast or iota (through bitcasts and unary elementwise ops); in the
reduction emitter, two input-fusible reductions fused together are
uncoalesced; everything else is coalesced.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.bridges.isl_questions import is_empty
from verifier.expr import (
    Add,
    Expr,
    IndexingMap,
    Interval,
    Mul,
    Var,
    VarKind,
    const,
    dim,
    range_var,
    substitute,
    variables_of,
)
from verifier.hlo import ELEMENTWISE_OPCODES, Computation, Instruction, Module, Shape
from verifier.simplify import simplify

_WARP = 32
_TRANSACTION_BYTES = 128
_THRESHOLD = 0.9


def first_warp_coalesced(thread_to_linear: IndexingMap, *, element_bytes: int) -> bool:
    """XLA's first-warp verdict on one thread→linearised-offset map."""
    if thread_to_linear.num_results == 0:
        return True
    sample = _first_warp(thread_to_linear)
    if _empty(sample):
        return True
    sample = _innermost_loop_only(sample)
    (result,) = sample.results
    parts = _partition(result)
    if parts is None:
        return False
    if len(sample.constraints) > 1:
        return False
    if sample.constraints and sample.constraints[0][0] != result:
        return False
    f, g = parts
    return _estimate(_intervals(f, g, sample), element_bytes)


def _first_warp(indexing: IndexingMap) -> IndexingMap:
    middles = [(b.bounds.lower + b.bounds.upper) // 2 for b in indexing.rt_vars]

    def fixed(v: Var) -> Expr:
        if v.kind is VarKind.DIM:
            return dim(0) if v.index == 0 else const(0)
        if v.kind is VarKind.RT:
            return const(middles[v.index])
        return v

    def inside(v: Var, bounds: Interval) -> bool:
        return v.kind is VarKind.DIM and v.index > 0 and 0 not in bounds

    constraints = [(substitute(e, fixed), b) for e, b in indexing.constraints]
    if any(inside(dim(k), b.bounds) for k, b in enumerate(indexing.dims)):
        constraints.append((const(1), Interval(0, 0)))
    sample = IndexingMap.create(
        [Interval(0, _WARP - 1)],
        [substitute(e, fixed) for e in indexing.results],
        range_vars=indexing.range_vars,
        constraints=constraints,
    )
    return simplify(sample, rescale_symbols=True, remove_unused_symbols=True).map


def _empty(sample: IndexingMap) -> bool:
    """Empty, by isl (a budget run out counts as not empty).  XLA asks its
    simplifier, which may miss an empty sample and go on to estimate it:
    one of the places the reproduction may differ."""
    return sample.is_known_empty or is_empty(sample) is True


def _innermost_loop_only(sample: IndexingMap) -> IndexingMap:
    count = len(sample.range_vars)
    if count <= 1:
        return sample
    last = count - 1

    def fixed(v: Var) -> Expr:
        if v.kind is VarKind.RANGE and v.index < last:
            return const(sample.range_vars[v.index].bounds.lower)
        return range_var(0) if v.kind is VarKind.RANGE else v

    reduced = IndexingMap.create(
        sample.dims,
        [substitute(e, fixed) for e in sample.results],
        range_vars=[sample.range_vars[last]],
        constraints=[(substitute(e, fixed), b) for e, b in sample.constraints],
    )
    return simplify(reduced, remove_unused_symbols=True).map


def _partition(expr: Expr) -> tuple[Expr, Expr] | None:
    terms = expr.operands if isinstance(expr, Add) else (expr,)
    f: Expr = const(0)
    g: Expr = const(0)
    for term in terms:
        used = variables_of(term)
        on_thread, on_loop = dim(0) in used, range_var(0) in used
        if on_thread and on_loop:
            return None
        if on_thread:
            f = f + term
        elif on_loop:
            g = g + term
    return f, g


def _intervals(f: Expr, g: Expr, sample: IndexingMap) -> list[tuple[int, int]]:
    loop = sample.range_vars[0].bounds if sample.range_vars else None
    is_loop = loop is not None and g == range_var(0)
    if f == dim(0):
        return [(0, _WARP - 1)]
    if isinstance(f, Mul):
        c = f.factor
        if c == -1:
            return [(0, _WARP - 1)]
        if is_loop and loop is not None:
            trips = loop.size
            if trips >= abs(c):
                return [(0, c * (_WARP - 1) + trips - 1)]
            return [(loop.lower + i * c, loop.upper + i * c) for i in range(_WARP)]
        return [(i * c, i * c) for i in range(_WARP)]
    values = sorted(
        {_value(f, t) for t in range(sample.dims[0].bounds.lower, sample.dims[0].bounds.upper + 1)}
    )
    intervals: list[tuple[int, int]] = []
    for v in values:
        if intervals and intervals[-1][1] + 1 == v:
            intervals[-1] = (intervals[-1][0], v)
        else:
            intervals.append((v, v))
    if not is_loop or loop is None:
        return intervals
    stretch = loop.size - 1
    merged: list[tuple[int, int]] = []
    for lower, upper in intervals:
        if merged and merged[-1][1] >= lower - 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], upper + stretch))
        else:
            merged.append((lower, upper + stretch))
    return merged


def _value(f: Expr, thread: int) -> int:
    (value,) = IndexingMap.create([Interval(thread, thread)], [f]).evaluate({dim(0): thread})
    return value


def _estimate(intervals: list[tuple[int, int]], element_bytes: int) -> bool:
    transactions = total = 0
    for lower, upper in intervals:
        elements = upper - lower + 1
        transactions += -(-elements * element_bytes // _TRANSACTION_BYTES)
        total += elements
    if transactions == 0:
        return True
    lower_bound = -(-total * element_bytes // _TRANSACTION_BYTES)
    return lower_bound > transactions * _THRESHOLD


# ---------------------------------------------------------------- heuristic


@dataclass(frozen=True)
class Place:
    """An instruction and the computation it is in."""

    computation: Computation
    instruction: Instruction


def _most_minor_nontrivial(shape: Shape) -> tuple[int, int]:
    order = shape.layout_or_default.minor_to_major
    for position, d in enumerate(order):
        if shape.dimensions[d] != 1:
            return d, position
    return (order[0] if order else -1), 0


def transposes_minor_dimension(module: Module, place: Place) -> bool:
    """XLA's ``TransposesMinorDimension``."""
    instruction = place.instruction
    match instruction.opcode:
        case "fusion":
            (name,) = instruction.called_computations
            called = module.computation(name)
            return any(
                transposes_minor_dimension(module, Place(called, i)) for i in called.instructions
            )
        case "copy":
            (operand,) = place.computation.operand_instructions(instruction)
            return (
                _most_minor_nontrivial(operand.shape)[0]
                != _most_minor_nontrivial(instruction.shape)[0]
            )
        case "transpose":
            (operand,) = place.computation.operand_instructions(instruction)
            position = {d: k for k, d in enumerate(operand.shape.layout_or_default.minor_to_major)}
            first = _most_minor_nontrivial(operand.shape)[1]
            permutation = instruction.int_list("dimensions")
            for output_dim in instruction.shape.layout_or_default.minor_to_major:
                if instruction.shape.dimensions[output_dim] == 1:
                    continue
                return position[permutation[output_dim]] > first
            return False
    return False


def _is_broadcast(place: Place) -> bool:
    computation, instruction = place.computation, place.instruction
    while True:
        if instruction.opcode in ("broadcast", "iota"):
            return True
        if len(instruction.operands) != 1:
            return False
        if instruction.opcode != "bitcast" and instruction.opcode not in ELEMENTWISE_OPCODES:
            return False
        instruction = computation.operand_instructions(instruction)[0]


def _bad_transpose(module: Module, place: Place) -> bool:
    instruction = place.instruction
    if instruction.opcode == "fusion":
        (name,) = instruction.called_computations
        called = module.computation(name)
        return any(
            transposes_minor_dimension(module, Place(called, i))
            and _is_broadcast(Place(called, called.operand_instructions(i)[0])) is False
            for i in called.instructions
        )
    if not transposes_minor_dimension(module, place):
        return False
    operand = place.computation.operand_instructions(instruction)[0]
    return not _is_broadcast(Place(place.computation, operand))


def read_coalesced_heuristic(
    module: Module,
    emitter_kind: str,
    producer: Place,
    consumer: Place | None,
    input_fusible_reduction: bool,
) -> bool:
    """XLA's ``IsReadCoalescedHeuristic`` (module docstring);
    `input_fusible_reduction`: whether both producer and consumer are
    reductions XLA fuses as inputs."""
    if emitter_kind != "transpose":
        if _bad_transpose(module, producer):
            return False
        if consumer is not None and _bad_transpose(module, consumer):
            return False
    return not (emitter_kind.endswith("reduction") and input_fusible_reduction)
