"""The per-opcode registry of indexing rules, and what a rule returns.

A rule computes, for one HLO instruction, the *output→input* maps (for output
``k``: per operand, the union of maps from an output index to the operand
elements it reads) and the *input→output* maps (for operand ``i``: per
output, the union of maps from an operand index to the output elements it
contributes to).  An operand that is not read gets the empty union ``()``;
an operand whose relation cannot be expressed gets `Undefined(reason)` —
the two are never confused.

For ``add = f32[10,20] add(p0, p1)`` the rule gives, for output 0, each
operand ``((d0, d1) -> (d0, d1),)`` on d0 ∈ [0, 9], d1 ∈ [0, 19].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import ParamSpec, TypeAlias, TypeVar

from verifier.expr import IndexingMap, Undefined
from verifier.hlo import Instruction, Shape
from verifier.indexing.leaves import OperandLeaf, operand_leaves, output_leaves

Indexing: TypeAlias = tuple[IndexingMap, ...] | Undefined
"""A union of maps (``()`` = not read), or unknown indexing."""


VALUE_OPCODES = frozenset({"constant", "iota"})
"""The operands whose defining instruction, not only its shape, a rule may
read: a scalar constant's value and an iota's dimension fold into the map
of a dynamic slice or a gather (``dynamic._runtime_start``).  Of every
other operand the maps are a function of its shape alone."""


@dataclass(frozen=True)
class OpContext:
    """One instruction with its operands' defining instructions.

    The operands are instructions (not only shapes) so rules can fold
    constant and iota offsets into maps; of any other operand a rule reads
    its shape, and its name only to quote it (a runtime variable's source):
    `VALUE_OPCODES`.
    """

    instruction: Instruction
    operands: tuple[Instruction, ...]

    @property
    def shape(self) -> Shape:
        return self.instruction.shape

    def operand_shape(self, index: int) -> Shape:
        return self.operands[index].shape

    @cached_property
    def output_shapes(self) -> tuple[Shape, ...]:
        """The array shapes of the outputs, one per leaf (see `leaves`)."""
        return tuple(leaf.shape for leaf in output_leaves(self.instruction.shape))

    @cached_property
    def operand_leaves(self) -> tuple[OperandLeaf, ...]:
        """Every operand's leaves, the numbering of a rule's operand indexings
        (listed once: a tuple's rule asks once per output)."""
        return operand_leaves(self.operands)


_P = ParamSpec("_P")
_T = TypeVar("_T")


def remember_last(compute: Callable[_P, _T]) -> Callable[_P, _T]:
    """`compute`, remembered for the last arguments it was given (the same
    objects, compared by identity: contexts, computations and instructions
    are immutable).  A composer asks for each output and each operand leaf
    of an instruction in turn: its context is built once (`analysis`), and
    what a rule or a guard derives from the whole instruction is derived
    once, not once per leaf — a tuple of a thousand leaves would otherwise
    cost a million steps."""
    last: list[tuple[tuple[object, ...], _T] | None] = [None]

    def remembered(*arguments: _P.args, **keywords: _P.kwargs) -> _T:
        known = last[0]
        if known is not None and not keywords and len(known[0]) == len(arguments):
            for before, now in zip(known[0], arguments, strict=True):
                if before is not now:
                    break
            else:
                return known[1]
        value = compute(*arguments, **keywords)
        last[0] = (arguments, value)
        return value

    return remembered


@dataclass(frozen=True)
class OpRule:
    """How one family of opcodes maps indices.

    `output_to_input(ctx, output)` returns one `Indexing` per operand leaf;
    `input_to_output(ctx, operand)` (an operand leaf) returns one `Indexing`
    per output leaf (`verifier.indexing.leaves`).  A rule with
    `whole_tuples` False reads arrays only: an instruction of its opcode with
    a tuple-shaped operand gets `Undefined` without calling it.
    """

    output_to_input: Callable[[OpContext, int], tuple[Indexing, ...]]
    input_to_output: Callable[[OpContext, int], tuple[Indexing, ...]]
    whole_tuples: bool = False


_RULES: dict[str, OpRule] = {}


def register(*opcodes: str) -> Callable[[OpRule], OpRule]:
    """Register `rule` for `opcodes` (each opcode once)."""

    def decorate(rule: OpRule) -> OpRule:
        for opcode in opcodes:
            if opcode in _RULES:
                raise ValueError(f"indexing rule for '{opcode}' registered twice")
            _RULES[opcode] = rule
        return rule

    return decorate


def rule_for(opcode: str) -> OpRule | None:
    """The rule for `opcode`, or None when no rule exists."""
    return _RULES.get(opcode)


def registered_opcodes() -> frozenset[str]:
    return frozenset(_RULES)
