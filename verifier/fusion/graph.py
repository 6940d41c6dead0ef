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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Dataflow:
    """A computation's instructions users first (`users_first_order`) and,
    by position in that order, the positions of each one's operands and of
    its users (each user once): composing from one parameter, or to one output, walks only the
    instructions downstream or upstream of it, not the whole computation
    once per parameter (an optimizer's fusion of 280 parameter updates in
    900 instructions would cost their product).

    >>> from verifier.hlo import parse_module
    >>> flow = dataflow(parse_module('''
    ... HloModule m
    ... ENTRY e {
    ...   p = f32[2] parameter(0)
    ...   q = f32[2] parameter(1)
    ...   a = f32[2] abs(p)
    ...   n = f32[2] negate(q)
    ...   ROOT t = (f32[2], f32[2]) tuple(a, n)
    ... }''').entry)
    >>> [i.name for i in flow.downstream("q")], [i.name for i in flow.upstream("a")]
    (['q', 'n', 't'], ['a', 'p'])
    """

    order: tuple[Instruction, ...]
    position: Mapping[str, int]
    operands: tuple[tuple[int, ...], ...]
    users: tuple[tuple[int, ...], ...]

    def user_count(self, name: str) -> int:
        """How many instructions read `name`'s value."""
        return len(self.users[self.position[name]])

    def upstream(self, name: str) -> Iterator[Instruction]:
        """`name` and every instruction whose value it reads, directly or
        not, users first (in the order of `order`)."""
        return self._walk(self.position[name], self.operands, 1)

    def downstream(self, name: str) -> Iterator[Instruction]:
        """`name` and every instruction that reads its value, directly or
        not, producers first (in the reverse order of `order`)."""
        return self._walk(self.position[name], self.users, -1)

    def _walk(
        self, start: int, edges: tuple[tuple[int, ...], ...], sign: int
    ) -> Iterator[Instruction]:
        # Every edge goes one way along `order` (`sign`): popping the
        # nearest position first yields an instruction after all of its
        # predecessors in the walk.
        pending, seen = [sign * start], {start}
        while pending:
            k = sign * heapq.heappop(pending)
            yield self.order[k]
            for following in edges[k]:
                if following not in seen:
                    seen.add(following)
                    heapq.heappush(pending, sign * following)


def dataflow(computation: Computation) -> Dataflow:
    """The `Dataflow` of `computation`."""
    order = tuple(users_first_order(computation))
    position = {instruction.name: k for k, instruction in enumerate(order)}
    operands = tuple(
        tuple(position[operand] for operand in instruction.operands) for instruction in order
    )
    users: list[list[int]] = [[] for _ in order]
    for k, reads in enumerate(operands):
        for operand in dict.fromkeys(reads):
            users[operand].append(k)
    return Dataflow(order, position, operands, tuple(tuple(u) for u in users))
