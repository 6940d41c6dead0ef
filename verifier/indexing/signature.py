"""Structural signatures: what an instruction's or a computation's indexing
is a function of, with names left out.

An indexing rule sees one instruction and its operands' defining
instructions (`registry.OpContext`); a composition through a computation
sees its instructions, how they use each other, and the computations they
call.  None of it reads a *name* except to quote it (a runtime variable's
source, an `Undefined` reason, an error), and none reads ``metadata=``
(where an op came from in the program: XLA's ``HloInstruction::Identical``
ignores it too).  Real modules repeat the same structure under other
names — every layer of a transformer has its own ``fusion.12`` with the
same body — so maps memoised on a signature are computed once per
structure (`verifier.fusion.compose`).

The **form** of an instruction is everything of it but its name, span,
operand names and metadata: opcode, shape (layout included), literal
(a constant's value, a parameter's number), whether it is the ROOT, and
every other attribute as written, with each called computation replaced by
its signature.  An instruction's signature is its form and, in order, what
its rule reads of each operand: the shape, or the whole form of a constant
or an iota (`registry.VALUE_OPCODES`); a computation's is the form of each
instruction in source order with its operands as positions.  Two
signatures are equal exactly when those values are, e.g. ``add(p0, n)``
and ``add(p0, p1)`` on the same shapes are the same instruction signature
(the rule sees two operands of the same shapes, ``n = negate(p1)`` or not)
but ``add(p0, p0)`` and ``add(p0, p1)`` are different computation
signatures (operands ``(0, 0)`` against ``(0, 1)``).

Signatures are interned as small integers, one numbering per `Signatures`
(per module), so that a memo keyed on one hashes an integer.

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[4] parameter(0)
...   a = f32[4] negate(p0), metadata={op_name="a"}
...   b = f32[4] negate(p0), metadata={op_name="b"}
...   c = f32[4] abs(b)
...   d = f32[4] abs(p0)
...   ROOT t = (f32[4], f32[4]) tuple(c, d)
... }''')
>>> signatures, e = Signatures(module), module.entry
>>> a, b, c, d = (signatures.instruction(e, e.instruction(name)) for name in "abcd")
>>> a == b, b == c, c == d
(True, False, True)
"""

from __future__ import annotations

from collections.abc import Hashable

from verifier.hlo import (
    COMPUTATION_ATTRIBUTES,
    COMPUTATION_LIST_ATTRIBUTES,
    Computation,
    Instruction,
    Module,
    Shape,
)
from verifier.indexing.registry import VALUE_OPCODES

_PROVENANCE = frozenset({"metadata"})
"""Attributes that say where an op came from, never what it computes."""


class Signatures:
    """Interned structural signatures of the instructions and computations
    of `module`, each computed once."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._interned: dict[Hashable, int] = {}
        self._forms: dict[tuple[str, str], int] = {}
        self._computations: dict[str, int] = {}
        self._instructions: dict[tuple[str, str], int] = {}
        # By identity (the parser makes one object per distinct shape), each
        # shape kept with its number so that its identity is never reused.
        self._shapes: dict[int, tuple[Shape, int]] = {}
        self._computing: set[str] = set()

    def instruction(self, computation: Computation, instruction: Instruction) -> int:
        """The signature of `instruction`'s own indexing: its form and what
        its rule reads of each operand, in operand order."""
        key = (computation.name, instruction.name)
        found = self._instructions.get(key)
        if found is None:
            operands = tuple(
                self._read_of(computation, computation.instruction(name))
                for name in instruction.operands
            )
            found = self._instructions[key] = self._intern(
                ("instruction", self._form(computation, instruction), operands)
            )
        return found

    def computation(self, computation: Computation) -> int:
        """The signature of `computation`: each instruction's form in source
        order with its operands as positions."""
        found = self._computations.get(computation.name)
        if found is None:
            if computation.name in self._computing:
                # A computation that calls itself (not valid HLO): never
                # equal to another.
                return self._intern(("recursive", computation.name))
            self._computing.add(computation.name)
            position = {inst.name: k for k, inst in enumerate(computation.instructions)}
            body = tuple(
                (
                    self._form(computation, inst),
                    tuple(position.get(name, name) for name in inst.operands),
                )
                for inst in computation.instructions
            )
            self._computing.discard(computation.name)
            found = self._computations[computation.name] = self._intern(("computation", body))
        return found

    def _read_of(self, computation: Computation, operand: Instruction) -> Hashable:
        """What an indexing rule reads of `operand`: its shape, or the whole
        form of an operand whose value it folds."""
        if operand.opcode in VALUE_OPCODES:
            return self._form(computation, operand)
        return self._shape(operand.shape)

    def _shape(self, shape: Shape) -> int:
        """The interned signature of `shape`, hashed once per shape object
        rather than once per instruction that has it."""
        found = self._shapes.get(id(shape))
        if found is None:
            found = self._shapes[id(shape)] = (shape, self._intern(("shape", shape)))
        return found[1]

    def _form(self, computation: Computation, instruction: Instruction) -> int:
        key = (computation.name, instruction.name)
        found = self._forms.get(key)
        if found is None:
            attributes = tuple(
                (name, self._called(name, value))
                for name, value in instruction.attributes.entries
                if name not in _PROVENANCE
            )
            found = self._forms[key] = self._intern(
                (
                    "form",
                    instruction.opcode,
                    self._shape(instruction.shape),
                    instruction.literal,
                    instruction.is_root,
                    attributes,
                )
            )
        return found

    def _called(self, name: str, value: object) -> Hashable:
        """An attribute's value with each computation it names replaced by
        that computation's signature (a name the module does not define
        stays a name)."""
        if name in COMPUTATION_ATTRIBUTES and isinstance(value, str):
            return self._callee(value)
        if name in COMPUTATION_LIST_ATTRIBUTES and isinstance(value, tuple):
            return tuple(self._callee(v) if isinstance(v, str) else v for v in value)
        assert isinstance(value, Hashable)
        return value

    def _callee(self, name: str) -> Hashable:
        if not self.module.has_computation(name):
            return ("undefined computation", name)
        return self.computation(self.module.computation(name))

    def _intern(self, value: Hashable) -> int:
        return self._interned.setdefault(value, len(self._interned))
