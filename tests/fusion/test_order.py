"""The users-first order of a computation: every instruction after its
users, ties by source position, and a cycle named."""

from __future__ import annotations

import pytest

from verifier.fusion.graph import users_first_order
from verifier.hlo import Computation, Instruction, Shape, parse_module


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
