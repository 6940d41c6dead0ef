"""The dataflow order of a computation's instructions.

A computation is a graph with an edge ``producer -> user`` per operand use
(``add(p0, p0)`` has two); composition walks it users first (output→input)
or producers first (input→output).
"""

from __future__ import annotations

import heapq

from verifier.hlo import Computation, Instruction


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
