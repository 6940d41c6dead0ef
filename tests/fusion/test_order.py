"""The users-first order of a computation: every instruction after its
users, ties by source position, and a cycle named."""

from __future__ import annotations

import networkx as nx
import pytest

from tests.examples import EVERY_EXAMPLE, EXAMPLES
from verifier.fusion.graph import computation_graph, users_first_order
from verifier.hlo import Computation, Instruction, Shape, parse_module, parse_module_file


def test_every_instruction_comes_after_all_of_its_users() -> None:
    module = parse_module("""
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] abs(p)
  c = f32[4] add(b, a)
  ROOT d = f32[4] multiply(c, a)
}""")
    order = [i.name for i in users_first_order(module.entry)]
    assert order == ["d", "c", "b", "a", "p"]
    for k, instruction in enumerate(users_first_order(module.entry)):
        assert all(order.index(operand) > k for operand in instruction.operands)


def test_a_cycle_of_operands_is_named() -> None:
    scalar = Shape("f32")
    a = Instruction("a", "negate", scalar, ("b",))
    b = Instruction("b", "negate", scalar, ("a",), is_root=True)
    with pytest.raises(ValueError, match="computation 'c' has a cycle"):
        users_first_order(Computation("c", (a, b), b))


def test_the_order_is_networkx_topological_order_on_every_example() -> None:
    # networkx, sorting the computation's graph with the same tie-break,
    # is the independent witness of the order composition walks.
    computations = 0
    for path in EVERY_EXAMPLE:
        if "checks" in path.parts:
            continue  # broken on purpose
        for computation in parse_module_file(path).computations:
            graph = computation_graph(computation)
            position = nx.get_node_attributes(graph, "position")
            expected = list(nx.lexicographical_topological_sort(graph, key=position.__getitem__))
            assert [i.name for i in reversed(users_first_order(computation))] == expected
            computations += 1
    assert computations > 1000


def test_the_graph_has_an_edge_per_operand_use() -> None:
    computation = parse_module_file(EXAMPLES / "real" / "softmax.hlo").entry
    graph = computation_graph(computation)
    assert graph.number_of_nodes() == len(computation.instructions)
    assert graph.number_of_edges() == sum(len(i.operands) for i in computation.instructions)
    for instruction in computation.instructions:
        into = sorted((u, k) for u, _, k in graph.in_edges(instruction.name, data="operand"))
        assert into == sorted((u, k) for k, u in enumerate(instruction.operands))
