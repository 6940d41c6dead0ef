"""HLO text → `Module`: a hand-written recursive-descent parser.

Grammar (trivia — whitespace, `/* ... */` and `// ...` — allowed between tokens)::

    module      := "HloModule" name {"," attribute} {section | computation}
    section     := SECTION_NAME {int value}        # FileNames, FunctionNames,
                                                   # FileLocations, StackFrames: skipped
    computation := ["ENTRY"] name [signature] "{" {instruction} "}" {"," attribute}
    signature   := "(" [name ":" shape {"," name ":" shape}] ")" "->" shape
    instruction := ["ROOT"] name "=" shape opcode "(" operands ")" {"," attribute}
    operands    := literal                         # constant(...): raw balanced text
                 | int                             # parameter(N)
                 | [operand {"," operand}]
    operand     := [shape] name                    # shapes printed by XLA dumps
    attribute   := attribute_name "=" value        # see verifier.hlo.attributes
    name        := ["%"] [A-Za-z_][A-Za-z0-9_.-]*

Names are resolved after a computation is read, so operands may refer to
instructions defined later. Every malformed input raises `ParseError` with
file, line, column and what was expected:

>>> m = parse_module('''HloModule m
... ENTRY main (p0: f32[10]) -> f32[10] {
...   %p0 = f32[10]{0} parameter(0)
...   ROOT %neg = f32[10]{0} negate(f32[10]{0} %p0)
... }''')
>>> m.entry.root.name, m.entry.parameters[0].literal
('neg', '0')
>>> parse_module("HloModule m\\nENTRY e {\\n  ROOT r = f32[] negate(q)\\n}", "x.hlo")
Traceback (most recent call last):
...
verifier.errors.ParseError: x.hlo:3:25: operand 'q' of 'r' is not defined in computation 'e'
    ROOT r = f32[] negate(q)
                          ^
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from verifier.hlo.attributes import (
    COMPUTATION_ATTRIBUTES,
    COMPUTATION_LIST_ATTRIBUTES,
    Attributes,
    AttributeValue,
    RawAttribute,
    read_attribute_value,
)
from verifier.hlo.lexer import Scanner
from verifier.hlo.module import Computation, Instruction, Module
from verifier.hlo.shape import Shape, at_shape, read_shape

_SECTION_NAMES = frozenset({"FileNames", "FunctionNames", "FileLocations", "StackFrames"})

_REQUIRED_ATTRIBUTES: dict[str, Callable[[Instruction], object]] = {
    "broadcast": lambda i: i.int_list("dimensions"),
    "concatenate": lambda i: i.int_list("dimensions"),
    "reduce": lambda i: i.int_list("dimensions"),
    "reverse": lambda i: i.int_list("dimensions"),
    "transpose": lambda i: i.int_list("dimensions"),
    "dynamic-slice": lambda i: i.int_list("dynamic_slice_sizes"),
    "get-tuple-element": lambda i: i.integer("index"),
    "iota": lambda i: i.integer("iota_dimension"),
    "slice": Instruction.slice_dims,
    "pad": Instruction.padding,
    "reduce-window": Instruction.window,
    "convolution": Instruction.convolution_dimension_numbers,
    "gather": lambda i: (i.gather_dimension_numbers(), i.int_list("slice_sizes")),
    "scatter": Instruction.scatter_dimension_numbers,
}
"""Attributes without which an op has no meaning; checked when the module is read."""


def parse_module(text: str, filename: str = "<input>") -> Module:
    """Parse HLO module text.

    >>> parse_module("HloModule m\\nENTRY e {\\n ROOT c = s32[] constant(1)\\n}").entry.root.literal
    '1'
    """
    return _ModuleParser(Scanner(text, filename=filename)).module()


def parse_module_file(path: str | Path) -> Module:
    """Parse the HLO module in the file at `path` (errors carry the path)."""
    file = Path(path)
    return parse_module(file.read_text(encoding="utf-8"), str(file))


@dataclass
class _PendingOperand:
    name: str
    shape: Shape | None
    offset: int


@dataclass
class _PendingInstruction:
    instruction: Instruction
    operands: list[_PendingOperand]
    offset: int


@dataclass
class _PendingComputation:
    computation: Computation
    offset: int
    called: list[tuple[str, int]] = field(default_factory=list)


class _ModuleParser:
    def __init__(self, scanner: Scanner) -> None:
        self.scanner = scanner

    # -- module ---------------------------------------------------------------

    def module(self) -> Module:
        s = self.scanner
        s.skip_trivia()
        if not s.at_identifier() or s.identifier("'HloModule'") != "HloModule":
            raise s.error("expected 'HloModule' at the start of the module", 0)
        name = s.name("a module name")
        header = self.attributes(raw=True)[0]
        pending: list[_PendingComputation] = []
        while not s.at_end():
            word_at = s.pos
            if not s.at_identifier():
                raise s.error(f"expected a computation, found {s.describe_here()}")
            word = s.name("a computation name")
            if s.at_integer() or (word in _SECTION_NAMES and s.text[word_at] != "%"):
                self.skip_section()
                continue
            is_entry = word == "ENTRY" and s.text[word_at] != "%" and s.at_identifier()
            if is_entry:
                word_at = s.pos
                word = s.name("a computation name")
                s.skip_trivia()
            pending.append(self.computation(word, word_at, is_entry))
        if not pending:
            raise s.error("expected at least one computation after the module header")
        return self.link(name, header, pending)

    def skip_section(self) -> None:
        """Skip the entries `N value` of a leading section such as `StackFrames`."""
        s = self.scanner
        while s.at_integer():
            s.integer()
            start, end = s.value_extent()
            if start == end:
                raise s.error(f"expected a section entry value, found {s.describe_here()}")

    def link(self, name: str, header: Attributes, pending: list[_PendingComputation]) -> Module:
        s = self.scanner
        by_name: dict[str, _PendingComputation] = {}
        for item in pending:
            computation = item.computation
            if computation.name in by_name:
                raise s.error(f"computation '{computation.name}' is defined twice", item.offset)
            by_name[computation.name] = item
        entries = [item for item in pending if item.computation.is_entry]
        if len(entries) > 1:
            raise s.error("more than one ENTRY computation", entries[1].offset)
        for item in pending:
            for callee, offset in item.called:
                if callee not in by_name:
                    raise s.error(
                        f"computation '{callee}' called from '{item.computation.name}' "
                        "is not defined in this module",
                        offset,
                    )
        computations = tuple(item.computation for item in pending)
        entry = entries[0].computation if entries else computations[-1]
        if not entries:
            entry = Computation(
                entry.name, entry.instructions, entry.root, entry.parameters, True, entry.span
            )
            computations = (*computations[:-1], entry)
        return Module(name, computations, entry, header)

    # -- computation ----------------------------------------------------------

    def computation(self, name: str, offset: int, is_entry: bool) -> _PendingComputation:
        s = self.scanner
        signature: list[tuple[str, Shape, int]] | None = None
        result: tuple[Shape, int] | None = None
        if s.accept("("):
            signature = []
            if not s.accept(")"):
                while True:
                    s.skip_trivia()
                    param_at = s.pos
                    param = s.name("a parameter name")
                    s.expect(":", f"after parameter '{param}' in the signature")
                    signature.append((param, read_shape(s), param_at))
                    if s.accept(")"):
                        break
                    s.expect(",", "or ')' in the signature")
            s.expect("->", "after the parameter list")
            s.skip_trivia()
            result_at = s.pos
            result = (read_shape(s), result_at)
        s.expect("{", f"to open computation '{name}'")
        called: list[tuple[str, int]] = []
        instructions: list[_PendingInstruction] = []
        while not s.accept("}"):
            if s.at_end():
                raise s.error(f"expected '}}' to close computation '{name}'")
            instructions.append(self.instruction(called))
        self.attributes(raw=True)
        if not instructions:
            raise s.error(f"computation '{name}' has no instructions", offset)
        computation = self.resolve(name, offset, is_entry, instructions, signature, result)
        return _PendingComputation(computation, offset, called)

    def resolve(
        self,
        name: str,
        offset: int,
        is_entry: bool,
        pending: list[_PendingInstruction],
        signature: list[tuple[str, Shape, int]] | None,
        result: tuple[Shape, int] | None,
    ) -> Computation:
        """Check names, operands, ROOT and parameters of one computation, and build it."""
        s = self.scanner
        defined: dict[str, _PendingInstruction] = {}
        for item in pending:
            inst = item.instruction
            if inst.name in defined:
                raise s.error(
                    f"instruction '{inst.name}' is defined twice in computation '{name}'",
                    item.offset,
                )
            defined[inst.name] = item
        for item in pending:
            for operand in item.operands:
                target = defined.get(operand.name)
                if target is None:
                    raise s.error(
                        f"operand '{operand.name}' of '{item.instruction.name}' is not "
                        f"defined in computation '{name}'",
                        operand.offset,
                    )
                defined_shape = target.instruction.shape
                if operand.shape is not None and not operand.shape.same_as(defined_shape):
                    raise s.error(
                        f"operand '{operand.name}' of '{item.instruction.name}' is written "
                        f"with shape {operand.shape} but is defined with shape {defined_shape}",
                        operand.offset,
                    )
        self.check_acyclic(name, pending, defined)
        roots = [item for item in pending if item.instruction.is_root]
        if len(roots) > 1:
            raise s.error(f"computation '{name}' has more than one ROOT", roots[1].offset)
        instructions = [item.instruction for item in pending]
        if not roots:
            last = instructions[-1]
            instructions[-1] = Instruction(
                last.name,
                last.opcode,
                last.shape,
                last.operands,
                last.attributes,
                last.literal,
                True,
                last.span,
            )
        root = next(inst for inst in instructions if inst.is_root)
        parameters = self.parameters(name, offset, pending, signature)
        if result is not None and not result[0].same_as(root.shape):
            raise s.error(
                f"computation '{name}' returns {result[0]} but its ROOT '{root.name}' "
                f"has shape {root.shape}",
                result[1],
            )
        return Computation(name, tuple(instructions), root, parameters, is_entry, s.span(offset))

    def parameters(
        self,
        name: str,
        offset: int,
        pending: list[_PendingInstruction],
        signature: list[tuple[str, Shape, int]] | None,
    ) -> tuple[Instruction, ...]:
        s = self.scanner
        by_number: dict[int, _PendingInstruction] = {}
        for item in pending:
            number = item.instruction.parameter_number
            if number is None:
                continue
            if number in by_number:
                raise s.error(
                    f"parameter number {number} is used twice in computation '{name}'",
                    item.offset,
                )
            by_number[number] = item
        if sorted(by_number) != list(range(len(by_number))):
            missing = min(set(range(len(by_number) + 1)) - set(by_number))
            raise s.error(
                f"computation '{name}' has parameters {sorted(by_number)} but no "
                f"parameter({missing}); numbers must be 0..n-1",
                offset,
            )
        parameters = tuple(by_number[n].instruction for n in range(len(by_number)))
        if signature is not None:
            if len(signature) != len(parameters):
                raise s.error(
                    f"signature of '{name}' lists {len(signature)} parameters but the body "
                    f"defines {len(parameters)}",
                    offset,
                )
            for (param, shape, param_at), inst in zip(signature, parameters, strict=True):
                if not shape.same_as(inst.shape):
                    raise s.error(
                        f"signature parameter '{param}' has shape {shape} but "
                        f"parameter({inst.literal}) '{inst.name}' has shape {inst.shape}",
                        param_at,
                    )
        return parameters

    def check_acyclic(
        self, name: str, pending: list[_PendingInstruction], defined: dict[str, _PendingInstruction]
    ) -> None:
        """Reject operand cycles (possible only with forward references)."""
        done: set[str] = set()
        for start in pending:
            if start.instruction.name in done:
                continue
            on_path: set[str] = {start.instruction.name}
            stack = [(start, 0)]
            while stack:
                item, index = stack.pop()
                operands = item.instruction.operands
                if index == len(operands):
                    on_path.discard(item.instruction.name)
                    done.add(item.instruction.name)
                    continue
                stack.append((item, index + 1))
                operand = operands[index]
                if operand in on_path:
                    raise self.scanner.error(
                        f"instruction '{item.instruction.name}' in computation '{name}' "
                        f"depends on itself through operand '{operand}'",
                        item.offset,
                    )
                if operand not in done:
                    on_path.add(operand)
                    stack.append((defined[operand], 0))

    # -- instruction ------------------------------------------------------------

    def instruction(self, called: list[tuple[str, int]]) -> _PendingInstruction:
        s = self.scanner
        s.skip_trivia()
        name_at = s.pos
        name = s.name("an instruction name")
        is_root = name == "ROOT" and s.text[name_at] != "%" and not s.at("=")
        if is_root:
            s.skip_trivia()
            name_at = s.pos
            name = s.name("an instruction name after ROOT")
        s.expect("=", f"after instruction name '{name}'")
        shape = read_shape(s)
        opcode = s.identifier("an opcode")
        s.skip_trivia()
        open_at = s.pos
        s.expect("(", f"after opcode '{opcode}'")
        literal: str | None = None
        operands: list[_PendingOperand] = []
        if opcode == "constant":
            close = s.skip_balanced(open_at)
            literal = s.text[open_at + 1 : close - 1].strip()
            if not literal:
                raise s.error("expected a literal in constant(...)", open_at + 1)
            s.pos = close
        elif opcode == "parameter":
            literal = str(s.natural("a parameter number"))
            s.expect(")", "after the parameter number")
        elif not s.accept(")"):
            while True:
                operands.append(self.operand())
                if s.accept(")"):
                    break
                s.expect(",", "or ')' between operands")
        attributes, offsets = self.attributes(raw=False)
        for attribute, value in attributes.entries:
            if attribute in COMPUTATION_ATTRIBUTES and isinstance(value, str):
                called.append((value, offsets[attribute]))
            elif attribute in COMPUTATION_LIST_ATTRIBUTES:
                callees = attributes.names(attribute) or ()
                called.extend((callee, offsets[attribute]) for callee in callees)
        instruction = Instruction(
            name,
            opcode,
            shape,
            tuple(operand.name for operand in operands),
            attributes,
            literal,
            is_root,
            s.span(name_at),
        )
        check = _REQUIRED_ATTRIBUTES.get(opcode)
        if check is not None:
            check(instruction)
        return _PendingInstruction(instruction, operands, name_at)

    def operand(self) -> _PendingOperand:
        s = self.scanner
        shape = read_shape(s) if at_shape(s) else None
        s.skip_trivia()
        offset = s.pos
        return _PendingOperand(s.name("an operand name"), shape, offset)

    def attributes(self, *, raw: bool) -> tuple[Attributes, dict[str, int]]:
        """Read `{"," name "=" value}`; with `raw`, every value is kept as text."""
        s = self.scanner
        entries: list[tuple[str, AttributeValue]] = []
        offsets: dict[str, int] = {}
        while s.accept(","):
            s.skip_trivia()
            name_at = s.pos
            name = s.identifier("an attribute name")
            if name in offsets:
                raise s.error(f"attribute '{name}' is given twice", name_at)
            s.expect("=", f"after attribute name '{name}'")
            s.skip_trivia()
            offsets[name] = s.pos
            if raw:
                start, end = s.value_extent()
                value: AttributeValue = RawAttribute(s.text[start:end])
            else:
                value = read_attribute_value(name, s)
            entries.append((name, value))
        return Attributes(tuple(entries)), offsets
