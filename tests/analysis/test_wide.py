"""A ROOT tuple of hundreds of leaves: each output leaf is its own operand
(the maps are laid out sparsely by the forwarding rule and the gate skips
what is not read, so both must still put each map at its leaf)."""

from __future__ import annotations

import itertools

from tests.wide import wide_tuple_module
from verifier.analysis import ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.expr import Undefined
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module


def test_each_leaf_of_a_wide_tuple_reads_its_own_operand() -> None:
    width = 300
    module = parse_module(wide_tuple_module(width))
    entry = module.entry
    view = ModuleMaps(module).instruction(entry, entry.root)
    for k in range(width):
        forward = view.o2i(view.outputs[k])
        backward = view.i2o(view.operands[k])
        assert [leaf.number for leaf, c in forward if c.maps] == [k]
        assert [output.number for output, c in backward if c.maps] == [k]
        read_maps = forward[k].maps.maps
        assert not isinstance(read_maps, Undefined)
        (read,) = read_maps
        box = itertools.product(range(k % 7 + 1), range(4))
        assert read.map.relation() == {(point, point) for point in box}
    tuple_findings = [
        f for f in run_checks(module, MemoryCache(), only=["in-bounds"]) if f.instruction == "t"
    ]
    assert len(tuple_findings) == 2 * width
    assert tuple_findings[1].subject == "output 1 -> operand 1 (n1)"
