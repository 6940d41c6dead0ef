"""A computation's dataflow graph: an edge ``producer -> user`` per operand
use (``add(p0, p0)`` has two).

Composition walks it users first (output→input) or producers first
(input→output), in the order `users_first_order` computes from the
computation itself; `computation_graph` gives the same graph as a networkx
multigraph, for what users ask of a fusion graph beyond that order (paths,
dominators, drawing; this package is the only networkx user).  networkx is
imported on first use: its import costs more than parsing a 3,800-
instruction module, so the gate, which needs only the order, never pays it.
"""

from __future__ import annotations

import heapq
from typing import Any

from verifier.hlo import Computation, Instruction


def computation_graph(computation: Computation) -> Any:
    """The dataflow multigraph of `computation` (an ``nx.MultiDiGraph``):
    nodes are instruction names with their ``opcode``, ``shape`` (as HLO
    writes it) and source ``position``; an edge ``producer -> user`` per
    operand use, labelled with its ``operand`` number.

    >>> from verifier.hlo import parse_module
    >>> entry = parse_module('''
    ... HloModule m
    ... ENTRY e {
    ...   p = f32[2] parameter(0)
    ...   ROOT r = f32[2] add(p, p)
    ... }''').entry
    >>> graph = computation_graph(entry)
    >>> sorted(graph.edges(data="operand")), graph.nodes["r"]["opcode"]
    ([('p', 'r', 0), ('p', 'r', 1)], 'add')
    """
    import networkx as nx

    graph = nx.MultiDiGraph()
    for position, instruction in enumerate(computation.instructions):
        graph.add_node(
            instruction.name,
            opcode=instruction.opcode,
            shape=str(instruction.shape),
            position=position,
        )
    for instruction in computation.instructions:
        for number, operand in enumerate(instruction.operands):
            graph.add_edge(operand, instruction.name, operand=number)
    return graph


def users_first_order(computation: Computation) -> list[Instruction]:
    """Every instruction after all of its users (reverse topological order),
    ties broken by source position so the order is deterministic: the
    reverse of the producers-first order that, of the instructions whose
    operands are all placed, places the first in the source next.

    >>> from verifier.hlo import parse_module
    >>> module = parse_module('''
    ... HloModule m
    ... ENTRY e {
    ...   ROOT r = f32[2] add(a, b)
    ...   a = f32[2] negate(b)
    ...   b = f32[2] abs(p)
    ...   p = f32[2] parameter(0)
    ... }''')
    >>> [i.name for i in users_first_order(module.entry)]
    ['r', 'a', 'b', 'p']
    """
    instructions = computation.instructions
    position = {instruction.name: k for k, instruction in enumerate(instructions)}
    unplaced = [len(instruction.operands) for instruction in instructions]
    users: list[list[int]] = [[] for _ in instructions]
    for k, instruction in enumerate(instructions):
        for operand in instruction.operands:
            users[position[operand]].append(k)
    ready = [k for k, count in enumerate(unplaced) if count == 0]
    heapq.heapify(ready)
    order: list[Instruction] = []
    while ready:
        k = heapq.heappop(ready)
        order.append(instructions[k])
        for user in users[k]:
            unplaced[user] -= 1
            if unplaced[user] == 0:
                heapq.heappush(ready, user)
    if len(order) != len(instructions):
        raise ValueError(f"computation '{computation.name}' has a cycle of operands")
    order.reverse()
    return order
