"""Which linearised maps of one operand are one load instruction.

The emitter issues a load per read of the operand in the fused
computation; pieces of one read that no thread takes together (a pad's
edges, the operands of a concatenate: each point of the launch reads one
of them) are the branches of one load, while two reads that one thread
makes at the same loop ids (``add(q0, slice(q0))``: two instructions) are
two loads, each a request of its own.  So maps with the same loop ids
(the same number of range variables) are one load exactly when no point of
both domains reads two different offsets (disjoint domains, or pieces of
one read that agree where they overlap: a dynamic-update-slice's operand
outside the window, the union of four bands): `loads` puts each map in
the first load whose every map it agrees with (isl decides), else in a
load of its own.

>>> from verifier.expr import parse_map
>>> low = parse_map("(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [0, 0], d0 in [0, 4]")
>>> high = parse_map("(d0)[s0] -> (d0 - 5), domain: d0 in [0, 9], s0 in [0, 0], d0 in [5, 9]")
>>> shifted = parse_map("(d0)[s0] -> (d0 + 1), domain: d0 in [0, 9], s0 in [0, 0]")
>>> [len(load) for load in loads([low, high, shifted])]
[2, 1]
>>> overlapping = parse_map("(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [0, 0], d0 in [3, 9]")
>>> [len(load) for load in loads([low, overlapping, shifted])]
[2, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.bridges.isl_questions import is_empty
from verifier.expr import IndexingMap, Interval


def loads(maps: Sequence[IndexingMap]) -> list[list[IndexingMap]]:
    """`maps` partitioned into loads (module docstring), in order."""
    found: list[list[IndexingMap]] = []
    for indexing in maps:
        for load in found:
            if all(_agree(indexing, other) for other in load):
                load.append(indexing)
                break
        else:
            found.append([indexing])
    return found


def _agree(a: IndexingMap, b: IndexingMap) -> bool:
    """No point of both domains with two different offsets (never, when
    they have different loop ids: those are different loads anyway; isl's
    budget exhausted: not known to, so two loads)."""
    if len(a.dims) != len(b.dims) or len(a.range_vars) != len(b.range_vars):
        return False
    dims = [x.bounds.intersect(y.bounds) for x, y in zip(a.dims, b.dims, strict=True)]
    symbols = [
        x.bounds.intersect(y.bounds) for x, y in zip(a.range_vars, b.range_vars, strict=True)
    ]
    if any(bounds.is_empty for bounds in dims + symbols):
        return True
    (left,), (right,) = a.results, b.results
    return all(
        is_empty(
            IndexingMap.create(
                dims,
                [],
                range_vars=symbols,
                constraints=[*a.constraints, *b.constraints, (difference, _POSITIVE)],
            )
        )
        is True
        for difference in (left - right, right - left)
    )


_POSITIVE = Interval(1, 1 << 62)
