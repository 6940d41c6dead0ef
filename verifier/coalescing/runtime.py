"""Loads at runtime offsets (a dynamic-slice's start indices, a
dynamic-update-slice's): the runtime values a count has to range over, and
the loads with one assignment of them fixed.

**Semantics.** A runtime variable whose value is one scalar per execution
(its source reads the same element for every thread: a dynamic-slice's
offset operand) takes, in one execution, one value of its range (the
clamped offsets XLA's maps give it).  The operand's counts are exact for
every such value: the execution with the *worst alignment* (the most
sectors over all its requests; ties: the largest request) and the one with
the *best* are reported, and the operand is coalesced only when every
value leaves every request at its ideal.  Only the values that can give a
different count are counted (`assignments`): a variable that enters the
offset as ``c * rt`` added to the rest (not under a ``floordiv`` or
``mod``, nor in a constraint) moves every element by ``c * rt``, and a
move by a multiple of a sector's elements ``S`` changes no count, so its
values ``lo … lo + S / gcd(c, S) - 1`` stand for all; any other variable
takes every value of its range; past `ASSIGNMENT_LIMIT` assignments there
is no count, and the reason says how many there would be.  A runtime value that differs between the
threads of a launch (a gather's indices) has no such answer: the reason
says so.

For ``s32[2,2,258]`` sliced ``[1,2,32]`` at runtime offsets, the linearised
load is ``(d0 floordiv 32) * 258 + rt0 * 516 + d0 mod 32 + rt2`` (f32: 8
elements a sector): ``rt0`` moves it by 516 elements, half a sector off
whole ones, so its values 0 and 1 both count; ``rt2 in [0, 226]`` needs its
values 0 … 7 only.  Fixed, the load is an ordinary one:

>>> from verifier.expr import parse_map
>>> from verifier.expr.indexing_map import RuntimeSource, Variable
>>> load = parse_map("(d0)[s0]{rt0, rt1} -> ((d0 floordiv 32) * 258 + rt0 * 516 "
...                  "+ d0 mod 32 + rt1), domain: d0 in [0, 63], s0 in [0, 0], "
...                  "rt0 in [0, 1], rt1 in [0, 226]")
>>> scalar = IndexingMap.create([(0, 63)], [], range_vars=[(0, 0)])
>>> load = load.replaced(rt_vars=[Variable(v.bounds, RuntimeSource(name, scalar))
...                               for v, name in zip(load.rt_vars, ["q1", "q3"])])
>>> keys = runtime_keys([load])
>>> values = assignments([load], keys, element_bits=32, sector_bits=256)
>>> len(values), sorted({a[1] for a in values})
(16, [0, 1, 2, 3, 4, 5, 6, 7])
>>> str(fixed(load, keys, (1, 7)).results[0])
'(d0 floordiv 32) * 258 + d0 mod 32 + 523'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from verifier.expr import (
    Add,
    Expr,
    IndexingMap,
    Mul,
    Var,
    Variable,
    VarKind,
    const,
    rt_var,
    substitute,
    variables_of,
)
from verifier.simplify import simplify

ASSIGNMENT_LIMIT = 256
"""Most assignments of the runtime values counted; past it no count."""

Key = tuple[str, str]  # the source instruction and the element it reads


def runtime_keys(loads: Sequence[IndexingMap]) -> list[Key] | str:
    """The distinct runtime values of `loads` (the same instruction's same
    element in two loads is one value), or why they have no count: a value
    that differs between threads."""
    keys: list[Key] = []
    for load in loads:
        for variable in load.rt_vars:
            source = variable.source
            if source is None:
                return "a runtime value of unknown source"
            if any(variables_of(e) for e in source.index_map.results):
                return (
                    f"the offsets depend on runtime values that differ between threads "
                    f"({source.instruction}'s elements, a gather's indices): not counted"
                )
            key = _key(variable)
            if key not in keys:
                keys.append(key)
    return keys


def assignments(
    loads: Sequence[IndexingMap], keys: Sequence[Key], element_bits: int, sector_bits: int
) -> list[tuple[int, ...]] | str:
    """Every assignment of the runtime values `keys` (`runtime_keys`) that
    can give its own count (module docstring), or why there are too many."""
    elements_per_sector = sector_bits // math.gcd(sector_bits, element_bits)
    choices: list[range] = []
    for key in keys:
        bounds, period = None, 1
        for load in loads:
            for k, variable in enumerate(load.rt_vars):
                if _key(variable) != key:
                    continue
                bounds = variable.bounds
                step = _additive_coefficient(load, rt_var(k))
                if step is None:
                    period = 0  # every value
                elif period:
                    period = math.lcm(
                        period, elements_per_sector // math.gcd(step, elements_per_sector)
                    )
        assert bounds is not None
        last = bounds.upper if period == 0 else min(bounds.upper, bounds.lower + period - 1)
        choices.append(range(bounds.lower, last + 1))
    total = math.prod(len(c) for c in choices)
    if total > ASSIGNMENT_LIMIT:
        return f"{total} runtime alignments to count (more than {ASSIGNMENT_LIMIT})"
    return list(itertools.product(*choices))


def fixed(load: IndexingMap, keys: Sequence[Key], values: Sequence[int]) -> IndexingMap:
    """`load` with each runtime variable replaced by its key's value."""
    chosen = [values[keys.index(_key(v))] for v in load.rt_vars]

    def place(v: Var) -> Expr:
        return const(chosen[v.index]) if v.kind is VarKind.RT else v

    return simplify(
        IndexingMap.create(
            load.dims,
            [substitute(e, place) for e in load.results],
            range_vars=load.range_vars,
            constraints=[(substitute(e, place), b) for e, b in load.constraints],
        )
    ).map


def _key(variable: Variable) -> Key:
    source = variable.source
    assert source is not None
    return (source.instruction, ", ".join(map(str, source.index_map.results)))


def _additive_coefficient(load: IndexingMap, variable: Var) -> int | None:
    """``c`` when `variable` enters `load`'s one result as ``c * variable``
    added to terms without it and in no constraint; else None."""
    if any(variable in variables_of(e) for e, _ in load.constraints):
        return None
    (result,) = load.results
    terms = result.operands if isinstance(result, Add) else (result,)
    coefficient = None
    for term in terms:
        if variable not in variables_of(term):
            continue
        if term == variable:
            step = 1
        elif isinstance(term, Mul) and term.operand == variable:
            step = term.factor
        else:
            return None
        if coefficient is not None:
            return None
        coefficient = step
    return coefficient
