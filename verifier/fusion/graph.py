"""A computation as a networkx graph (this package is the only networkx user).

Nodes are instruction names; an edge ``producer -> user`` per operand use
(a multigraph, so ``add(p0, p0)`` has two edges), labelled with the operand
number.
"""

from __future__ import annotations

from typing import Any

from verifier.hlo import Computation, Instruction


def computation_graph(computation: Computation) -> Any:
    """The dataflow multigraph of `computation` (an ``nx.MultiDiGraph``)."""
    import networkx as nx  # on first use: it is a fifth of the tool's start-up

    graph = nx.MultiDiGraph()
    for position, instruction in enumerate(computation.instructions):
        graph.add_node(instruction.name, position=position)
    for instruction in computation.instructions:
        for operand_number, operand in enumerate(instruction.operands):
            graph.add_edge(operand, instruction.name, operand=operand_number)
    return graph


def users_first_order(graph: Any, computation: Computation) -> list[Instruction]:
    """Every instruction after all of its users (reverse topological order),
    ties broken by source position so the order is deterministic."""
    import networkx as nx

    order = nx.lexicographical_topological_sort(
        graph, key=lambda name: graph.nodes[name]["position"]
    )
    return [computation.instruction(name) for name in reversed(list(order))]
