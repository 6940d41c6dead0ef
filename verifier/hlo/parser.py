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
    operand     := [shape] name {"#" int}          # shapes printed by XLA dumps;
                                                   # `t#1`: element 1 of tuple t
                 | [shape] opcode "(" operands ")" {"," attribute}  # nested instruction
    opcode      := OPCODE | OPCODE ("-start" | "-update" | "-done") | LEGACY
                   # the second: XLA's shorthand for async-start (async-update,
                   # async-done) calling a computation of that one op; the third:
                   # a name XLA printed before 2019 (verifier.hlo.legacy)
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

import gc
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from sys import intern
from typing import TypeVar

from verifier.errors import ParseError, span_at
from verifier.hlo.attributes import (
    COMPUTATION_ATTRIBUTES,
    COMPUTATION_LIST_ATTRIBUTES,
    Attributes,
    AttributeValue,
    RawAttribute,
    plain_metadata,
    read_attribute_value,
)
from verifier.hlo.inference import (
    ANNOTATIONS,
    READS_CALLEES,
    check_shape,
    constructed_shape,
    infer_shape,
)
from verifier.hlo.legacy import modern, modern_attribute
from verifier.hlo.lexer import IDENTIFIER, Scanner
from verifier.hlo.module import Computation, Instruction, Module, read_instruction
from verifier.hlo.opcodes import (
    CALLEE_ATTRIBUTE,
    OPCODES,
    async_sugar,
    check_arity,
    nearest_opcode_hint,
)
from verifier.hlo.shape import Shape, at_shape, read_shape
from verifier.hlo.validation import validate

MAX_DEPTH = 64
"""How deep instructions and inline computations may nest."""

_NOT_YET = Shape("tuple", tuple_shapes=())
"""The shape of an instruction written without one, until it is inferred."""

_NO_ATTRIBUTES = Attributes()
# What an `<op>-update` / `<op>-done` drops of the wrapped op's attributes
# written on it: the computations, which are the chain's start's.
_CALLEE_ATTRIBUTES = frozenset((*COMPUTATION_ATTRIBUTES, *COMPUTATION_LIST_ATTRIBUTES))
"""The attributes of every instruction written without any (one shared value)."""

_MLIR = re.compile(r"\s*(module\b|func\.func\b|#loc|\"?builtin\.module)")
_NESTED_OPCODE = re.compile(r"[a-z][a-z0-9-]*\s*\(")
_ATTRIBUTE_AHEAD = re.compile(r",\s*[A-Za-z_][\w.-]*\s*=")
# Fast paths for what XLA prints, each one match where the general path
# reads token by token; anything else (comments, line breaks, shapes on
# operands, nested instructions) fails the match and takes the general path,
# so every error is still raised, at the same place, by the general path.
# `[ROOT] [%]name =` on one line.
_PLAIN_HEAD = re.compile(rf"(?:(ROOT)[ \t]+)?(%?({IDENTIFIER}))[ \t]*=")
# An array shape without trivia inside, or a tuple of such text on one line
# (two levels deep at most), before an opcode, a name, `,` or `)`: what
# follows cannot extend it (as `{`, a layout, would), so its text alone
# decides what `read_shape` reads.
_SHAPE_TEXT = (
    r"(?:[a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*\})?"
    r"|\((?:[^()\"'\n]|\([^()\"'\n]*\))*\))"
)
_PLAIN_SHAPE = re.compile(rf"{_SHAPE_TEXT}(?=[ \t]*[,)%A-Za-z_])")
# `[ROOT] [%]name = shape ` before an opcode: what a dump writes on nearly
# every line, read in one match when the shape's text was read before.
_PLAIN_HEAD_SHAPE = re.compile(
    rf"(?:(ROOT)[ \t]+)?(%?({IDENTIFIER}))[ \t]*=[ \t]*"
    r"([a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*\})?)[ \t]+(?=[A-Za-z_])"
)
# `(literal)` of a constant without brackets, quotes or comments in it.
_PLAIN_LITERAL = re.compile(r"\(([^()\[\]{}\"'/]*)\)")
# An attribute value without brackets (but a plain integer list), quotes,
# spaces or comments, where `Scanner.value_extent` would end it.
_PLAIN_VALUE = re.compile(r"(?:\{[0-9,]*\}|[^()\[\]{}\"',\s/]+)(?=[ \t]*(?:[,)\]}\n]|$))")
# `opcode(`.
_PLAIN_OPCODE = re.compile(rf"({IDENTIFIER})\(")
# The operands `(%a, %b)` after the `(`: names only, up to the `)`.
_PLAIN_OPERANDS = re.compile(rf"(?:%?{IDENTIFIER}(?:,[ \t]*%?{IDENTIFIER})*)?\)")
_OPERAND_NAME = re.compile(rf"%?({IDENTIFIER})")
# `, name = ` before an attribute value that follows without trivia.
_PLAIN_ATTRIBUTE = re.compile(rf"[ \t]*,[ \t]*({IDENTIFIER})[ \t]*=[ \t]*(?![\s/])")

# One typical instruction in one match (`fast_instruction`): `[ROOT] [%]name =
# shape opcode(...)` after whitespace, the shape's text as `_PLAIN_SHAPE`'s and the
# parentheses holding plain names (group 6) or any text without brackets,
# quotes or comments (group 7: a constant's literal, a parameter's number),
# ending where an attribute's comma follows on the same line (group 8) or
# where, after whitespace, neither a comma nor a comment does.
_FAST_INSTRUCTION = re.compile(
    rf"[ \t\n\r\f\v]*+(?:(ROOT)[ \t]+)?(%?({IDENTIFIER}))[ \t]*=[ \t]*"
    rf"({_SHAPE_TEXT})[ \t]+"
    rf"({IDENTIFIER})\((?:((?:%?{IDENTIFIER}(?:,[ \t]*%?{IDENTIFIER})*)?)|([^()\[\]{{}}\"'/]*))\)"
    r"(?:(?=[ \t]*(,))|(?=(?>\s*)(?![,/])))"
)
# `, name = ` and the value when `_PLAIN_VALUE` matches it (else group 2 is empty).
_FAST_ATTRIBUTE = re.compile(
    rf"[ \t]*,[ \t]*({IDENTIFIER})[ \t]*=[ \t]*(?![\s/])"
    rf"((?:{_PLAIN_VALUE.pattern})?)"
)
# A computation's `(name: shape, ...) -> ` on one line, up to its result shape.
# (Possessive spaces: a name, 30,000 spaces and no shape is one failure, not
# one per way of splitting the spaces around an absent colon.)
_FAST_PARAMETER = re.compile(rf"(?>%?{IDENTIFIER})[ \t]*+(?::[ \t]*+)?({_SHAPE_TEXT})[ \t]*+")
_FAST_SIGNATURE = re.compile(
    rf"\([ \t]*(?:{_FAST_PARAMETER.pattern}(?:,[ \t]*{_FAST_PARAMETER.pattern})*)?\)"
    r"[ \t]*->[ \t]*(?=[a-z(])"
)
# Section entries `N "text"` or `N {fields}` each alone on its line, as
# `skip_section` reads them (it goes on from where this ends).
_FAST_SECTION = re.compile(
    r"(?:[ \t\n\r\f\v]*+[0-9]{1,18}[ \t]+"
    r"(?:\"[^\"\\\n]*\"|\{[^{}()\[\]\"'\\\n/]*\})(?=[ \t]*\n))*"
)
# A value of brackets, braces and plain text without quotes or comments on
# one line (`slice={[0:2], [0:4]}`, `replica_groups={{0,1},{2,3}}`,
# `[2,4]<=[8]`), where `Scanner.value_extent` would end it: read once
# (`_VALUES`) by the fast path, as plain values are by both.
_FAST_VALUE = re.compile(
    r"(?:\{(?:[^{}\"'\n/]|\{[^{}\"'\n/]*\})*\}|\[[0-9,]*\]<=\[[0-9,]*\](?:T\([0-9,]*\))?)"
    r"(?=[ \t]*(?:[,\n]|$))"
)
# After an attribute value: another attribute on the line (group 1), or
# whitespace and neither a comma nor a comment.
_FAST_NEXT = re.compile(r"(?=[ \t]*(,))|(?=(?>\s*)(?![,/]))")
_PARAMETER_NUMBER = re.compile(r"[0-9]{1,18}")

_SHAPES: dict[str, Shape] = {}
"""The shape read from each plain shape text (`f32[64,10]{1,0}`): a dump
writes the same few shapes many times, and modules of one program share them."""
_VALUES: dict[tuple[str, str], AttributeValue] = {}
"""Each attribute value written plainly, by attribute name and text (never
one that could not be read: its reason carries its place)."""
_MEMO_LIMIT = 1 << 16
"""How many entries `_SHAPES` and `_VALUES` keep each (then no more are kept)."""
_K = TypeVar("_K")
_V = TypeVar("_V")

_SECTION_NAMES = frozenset({"FileNames", "FunctionNames", "FileLocations", "StackFrames"})

_REQUIRED_ATTRIBUTES: dict[str, Callable[[Instruction], object]] = {
    "broadcast": lambda i: i.int_list("dimensions"),  # a scalar's is added when absent
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


def _given_twice(written: str, name: str) -> str:
    """The error for an attribute written twice (`name`: today's name of `written`)."""
    if written == name:
        return f"attribute '{name}' is given twice"
    return f"attribute '{written}' is given twice (it is XLA's older name of '{name}')"


def _remember(memo: dict[_K, _V], key: _K, value: _V) -> None:
    """`memo[key] = value` while `memo` holds fewer than `_MEMO_LIMIT` entries."""
    if len(memo) < _MEMO_LIMIT:
        memo[key] = value


def _problem(value: AttributeValue) -> bool:
    """Whether `value` is the text of an attribute that could not be read."""
    return isinstance(value, RawAttribute) and value.problem is not None


def parse_module(text: str, filename: str = "<input>") -> Module:
    """Parse HLO module text.

    >>> parse_module("HloModule m\\nENTRY e {\\n ROOT c = s32[] constant(1)\\n}").entry.root.literal
    '1'
    """
    # Reading makes a few objects per instruction and no reference cycle, so
    # the cyclic collector's passes over everything read so far (a quarter
    # to a third of the time of a large module) find nothing: paused.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _ModuleParser(Scanner(text, filename=filename)).module()
    finally:
        if collecting:
            gc.enable()


def parse_module_file(path: str | Path) -> Module:
    """Parse the HLO module in the file at `path` (errors carry the path)."""
    from verifier.inputs import read_regular_file  # a FIFO or a device is refused, not read

    file = Path(path)
    return parse_module(decode_hlo(read_regular_file(file), str(file)), str(file))


def decode_hlo(data: bytes, filename: str) -> str:
    """`data` as UTF-8 text, or a ParseError at the first byte that is not.

    >>> decode_hlo(b"HloModule m\\n\\xff", "m.hlo")
    Traceback (most recent call last):
    ...
    verifier.errors.ParseError: m.hlo:2:1: byte 0xff is not UTF-8 text (HLO text is UTF-8)
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        good = data[: error.start].decode("utf-8")
        span = span_at(good + " ", len(good), filename)
        span = replace(span, line_text="")
        raise ParseError(
            f"byte 0x{data[error.start]:02x} is not UTF-8 text (HLO text is UTF-8)", span
        ) from None


@dataclass(slots=True)
class _PendingOperand:
    name: str
    shape: Shape | None
    offset: int


@dataclass(slots=True)
class _PendingInstruction:
    instruction: Instruction
    operands: list[_PendingOperand] | int
    """The operands as written (shape where written, offset), or, when they
    are plain names (what XLA prints), the offset of their list: `operand_at`
    finds one there when an error needs its place."""
    offset: int
    shape_written: bool

    def operand_at(self, text: str, index: int) -> int:
        """The offset of operand `index` in `text`."""
        if isinstance(self.operands, list):
            return self.operands[index].offset
        names = _OPERAND_NAME.finditer(text, self.operands)
        return next(itertools.islice(names, index, None)).start()


@dataclass(slots=True)
class _PendingComputation:
    computation: Computation
    offset: int
    called: list[tuple[str, int]] = field(default_factory=list)


class _ModuleParser:
    def __init__(self, scanner: Scanner) -> None:
        self.scanner = scanner
        self.pending: list[_PendingComputation] = []
        self.roots: dict[str, Shape] = {}
        self.callees: dict[str, Computation] = {}
        """The first computation of each name read so far (a wrapped op's callee)."""
        self.shapes = _SHAPES  # (shared by every module read)
        self.values = _VALUES
        self.inline_names: set[str] = set()
        """The names given to inline computations (`to_apply={...}`) so far."""
        self.depth = 0
        """How many computation bodies are open (inline ones nest)."""
        self.passed: dict[tuple[object, ...], tuple[Shape, tuple[Shape, ...]]] = {}
        """The `passed_key` of each instruction `complete` passed unchanged,
        holding the shapes whose identities it names."""

    # -- module ---------------------------------------------------------------

    def module(self) -> Module:
        s = self.scanner
        s.skip_trivia()
        header = Attributes()
        name = Path(s.filename).name.split(".")[0] or "module"
        if s.text.startswith("HloModule", s.pos):
            s.identifier("'HloModule'")
            name = s.name("a module name")
            s.accept(":")  # `HloModule name:` is also XLA's
            header = self.attributes(raw=True)[0]
        elif _MLIR.match(s.text, s.pos):
            raise s.error(
                "this is MLIR (StableHLO) text, not HLO text: print HLO with "
                "jax.jit(f).lower(*args).compile().as_text() (optimized) or "
                "jax.jit(f).lower(*args).as_text(dialect='hlo')"
            )
        pending = self.pending
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
            self.computation(word, word_at, is_entry)
        if not pending:
            raise s.error("expected 'HloModule' or a computation")
        return self.link(name, header, pending)

    def skip_section(self) -> None:
        """Skip the entries `N value` of a leading section such as `StackFrames`."""
        s = self.scanner
        entries = _FAST_SECTION.match(s.text, s.pos, s.end)
        if entries is not None:  # (it always matches, perhaps nothing)
            s.pos = entries.end()
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
        module = Module(name, computations, entry, header)
        validate(module)
        return module

    # -- shape ----------------------------------------------------------------

    def shape(self) -> Shape:
        """`read_shape` at the scanner, memoised by the text of a plain array shape."""
        s = self.scanner
        s.skip_trivia()
        plain = _PLAIN_SHAPE.match(s.text, s.pos, s.end)
        if plain is None:
            return read_shape(s)
        known = self.shapes.get(plain.group())
        if known is not None:
            s.pos = plain.end()
            return known
        shape = read_shape(s)
        if s.pos == plain.end():
            _remember(self.shapes, plain.group(), shape)
        return shape

    # -- computation ----------------------------------------------------------

    def computation(self, name: str, offset: int, is_entry: bool) -> _PendingComputation:
        s = self.scanner
        result: tuple[Shape, int] | None = None
        signature = _FAST_SIGNATURE.match(s.text, s.pos, s.end)
        if signature is not None and all(
            shape in self.shapes
            for shape in _FAST_PARAMETER.findall(s.text, signature.start() + 1, signature.end())
        ):
            # What the loop below reads when every parameter's shape was read before.
            s.pos = signature.end()
            result = (read_shape(s), signature.end())
        elif s.accept("("):
            # XLA reads the parameter list and ignores it: the body's
            # parameter instructions are the parameters.
            if not s.accept(")"):
                while True:
                    s.name("a parameter name")
                    s.accept(":")  # XLA also reads `name shape` without the colon
                    self.shape()
                    if s.accept(")"):
                        break
                    s.expect(",", "or ')' in the signature")
            s.expect("->", "after the parameter list")
            s.skip_trivia()
            result_at = s.pos
            result = (read_shape(s), result_at)
        s.expect("{", f"to open computation '{name}'")
        return self.body(name, offset, is_entry, result, after=True)

    def body(
        self,
        name: str,
        offset: int,
        is_entry: bool,
        result: tuple[Shape, int] | None = None,
        *,
        after: bool = False,
    ) -> _PendingComputation:
        """The instructions up to the closing `}` (already past the `{`)."""
        s = self.scanner
        if self.depth >= MAX_DEPTH:
            raise s.error(f"computations nested deeper than {MAX_DEPTH} levels", offset)
        self.depth += 1
        called: list[tuple[str, int]] = []
        instructions: list[_PendingInstruction] = []
        fast = _FAST_INSTRUCTION.match
        while True:
            line = fast(s.text, s.pos, s.end)
            if line is not None:
                if self.fast_instruction(line, called, instructions):
                    continue
                s.pos = line.start()  # where the general path starts
            if s.accept("}"):
                break
            if s.pos >= s.end:  # `accept` skipped the trivia
                raise s.error(f"expected '}}' to close computation '{name}'")
            self.instruction(called, instructions, 0)
        self.depth -= 1
        if after:
            self.attributes(raw=True)
        if not instructions:
            raise s.error(f"computation '{name}' has no instructions", offset)
        computation = self.resolve(name, offset, is_entry, instructions, result)
        item = _PendingComputation(computation, offset, called)
        self.pending.append(item)
        self.roots[name] = computation.root.shape
        self.callees.setdefault(name, computation)
        return item

    def resolve(
        self,
        name: str,
        offset: int,
        is_entry: bool,
        pending: list[_PendingInstruction],
        result: tuple[Shape, int] | None,
    ) -> Computation:
        """Check names, operands, ROOT and parameters of one computation, infer
        the shapes written without one, and build it."""
        s = self.scanner
        defined: dict[str, _PendingInstruction] = {}
        backward = True  # every operand defined above its user: no cycle, source order
        for item in pending:
            inst = item.instruction
            if inst.name in defined:
                raise s.error(
                    f"instruction '{inst.name}' is defined twice in computation '{name}'",
                    item.offset,
                )
            if backward:
                backward = all([operand in defined for operand in inst.operands])
            defined[inst.name] = item
        order = pending
        if not backward:
            for item in pending:
                for index, operand in enumerate(item.instruction.operands):
                    if operand not in defined:
                        raise s.error(
                            f"operand '{operand}' of '{item.instruction.name}' is not "
                            f"defined in computation '{name}'",
                            item.operand_at(s.text, index),
                        )
            order = self.check_acyclic(name, pending, defined)
        for item in order:
            self.complete(item, defined)
        roots = [item for item in pending if item.instruction.is_root]
        if len(roots) > 1:
            raise s.error(f"computation '{name}' has more than one ROOT", roots[1].offset)
        instructions = [item.instruction for item in pending]
        if not roots:
            instructions[-1] = replace(instructions[-1], is_root=True)
        root = next(inst for inst in instructions if inst.is_root)
        parameters = self.parameters(name, offset, pending)
        if result is not None and not result[0].compatible(root.shape):
            raise s.error(
                f"computation '{name}' returns {result[0]} but its ROOT '{root.name}' "
                f"has shape {root.shape}",
                result[1],
            )
        return Computation(name, tuple(instructions), root, parameters, is_entry, s.span(offset))

    def complete(self, item: _PendingInstruction, defined: dict[str, _PendingInstruction]) -> None:
        """Give `item` its shape (inferred when not written), check the shapes
        its operands are written with, and the attributes its opcode needs."""
        s = self.scanner
        inst = item.instruction
        operand_shapes = tuple([defined[operand].instruction.shape for operand in inst.operands])
        key = self.passed_key(item, operand_shapes)
        if key is not None and key in self.passed:
            return
        written = item.operands if isinstance(item.operands, list) else ()
        for operand, shape in zip(written, operand_shapes[: len(written)], strict=True):
            if operand.shape is not None and not operand.shape.compatible(shape):
                raise s.error(
                    f"operand '{operand.name}' of '{inst.name}' is written "
                    f"with shape {operand.shape} but is defined with shape {shape}",
                    operand.offset,
                )
        scalar = bool(operand_shapes) and operand_shapes[0].rank == 0
        attributes = inst.attributes
        if inst.opcode == "broadcast" and "dimensions" not in attributes and scalar:
            # XLA's parser reads a scalar broadcast without `dimensions=`.
            attributes = Attributes((*attributes.entries, ("dimensions", ())))
        counted = len(operand_shapes)
        if counted == 3 and inst.opcode == "convolution" and "sparsity_config" in attributes:
            counted = 2  # a sparse convolution may take its sparsity metadata as operand 2
        if counted > 2 and inst.opcode == "dot" and "sparsity" in inst.attributes:
            counted = 2  # a legacy sparse dot takes a metadata operand per descriptor
        check_arity(inst.opcode, counted, inst.span)
        if item.shape_written:
            shape = constructed_shape(inst.shape, inst.opcode, operand_shapes, inst.span, inst.name)
            check_shape(
                shape, inst.opcode, operand_shapes, attributes, self.roots, inst.span, inst.name
            )
        else:
            shape = infer_shape(
                inst.opcode, operand_shapes, attributes, self.roots, inst.span, inst.name
            )
        if shape is not inst.shape or attributes is not inst.attributes:
            inst = read_instruction(
                inst.name,
                inst.opcode,
                shape,
                inst.operands,
                attributes,
                inst.literal,
                inst.is_root,
                inst.span,
            )
        rebuilt = inst is not item.instruction
        item.instruction = inst
        check = _REQUIRED_ATTRIBUTES.get(inst.opcode)
        if check is not None:
            try:
                check(inst)
            except ParseError:
                # An attribute XLA read but we could not: only a rule that needs
                # it may reject this instruction (with that attribute's place).
                if not any(isinstance(v, RawAttribute) for _, v in inst.attributes.entries):
                    raise
                return
        if key is not None and not rebuilt:
            self.passed[key] = (inst.shape, operand_shapes)

    def passed_key(
        self, item: _PendingInstruction, operand_shapes: tuple[Shape, ...]
    ) -> tuple[object, ...] | None:
        """What `complete` reads of an instruction with its shape written and
        its operands plain names, with shapes by identity (the memo holds
        them): one that passed without a change passes again unchanged.
        None when the check reads more (a callee's ROOT) or excuses a
        failure (an attribute kept as text)."""
        inst = item.instruction
        if not item.shape_written or isinstance(item.operands, list):
            return None
        if inst.opcode in READS_CALLEES:
            return None
        relevant = []
        for entry in inst.attributes.entries:
            if type(entry[1]) is RawAttribute:
                return None
            if entry[0] not in ANNOTATIONS:
                relevant.append(entry)
        return (inst.opcode, id(inst.shape), *map(id, operand_shapes), *relevant)

    def parameters(
        self, name: str, offset: int, pending: list[_PendingInstruction]
    ) -> tuple[Instruction, ...]:
        """The parameters by number (0..n-1); a signature's list is not read
        (XLA ignores it too)."""
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
        return tuple(by_number[n].instruction for n in range(len(by_number)))

    def check_acyclic(
        self, name: str, pending: list[_PendingInstruction], defined: dict[str, _PendingInstruction]
    ) -> list[_PendingInstruction]:
        """Reject operand cycles (possible only with forward references);
        return the instructions with every operand before its users."""
        done: set[str] = set()
        order: list[_PendingInstruction] = []
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
                    if item.instruction.name not in done:
                        done.add(item.instruction.name)
                        order.append(item)
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
        return order

    # -- instruction ------------------------------------------------------------

    def fast_instruction(
        self, line: re.Match[str], called: list[tuple[str, int]], into: list[_PendingInstruction]
    ) -> bool:
        """Read the instruction `line` matched (`_FAST_INSTRUCTION`) as
        `instruction` would, with its plainly written attribute values, and
        say so; or read nothing and say False when any part of it needs the
        general path (a shape it cannot read alone, an opcode XLA
        renamed, an inline computation, a comment, an error): that path
        then reads it, the same instruction or the same error."""
        s = self.scanner
        root, _, name, shape_text, opcode, plain, inside, comma = line.groups()
        if opcode not in OPCODES:
            return False
        shape = self.shapes.get(shape_text)
        if shape is None:  # read (and remembered) as the general path reads it
            s.pos = line.start(4)
            try:
                shape = self.shape()
            except ParseError:
                return False
            if s.pos != line.end(4):
                return False
        opcode = intern(opcode)
        names: tuple[str, ...] = ()
        operands: list[_PendingOperand] | int = []
        literal = None
        if opcode == "constant":
            literal = (inside if plain is None else plain).strip()
            if not literal:
                return False
        elif opcode == "parameter":
            if inside is None or _PARAMETER_NUMBER.fullmatch(inside) is None:
                return False
            literal = str(int(inside))
        elif plain is None:
            return False
        else:
            operands = line.start(6)
            names = tuple(map(intern, _OPERAND_NAME.findall(plain))) if plain else ()
        attributes = _NO_ATTRIBUTES
        pos = line.end()
        if comma is not None:
            text, values = s.text, self.values
            entries: list[tuple[str, AttributeValue]] = []
            offsets: dict[str, int] = {}
            while comma is not None:
                written = _FAST_ATTRIBUTE.match(text, pos, s.end)
                if written is None:
                    return False
                attribute = modern_attribute(written.group(1))
                value_at = pos = written.start(2)
                if attribute in offsets:
                    return False
                offsets[attribute] = value_at
                value = values.get((attribute, written.group(2)))
                if value is not None:
                    pos = written.end()
                elif attribute in COMPUTATION_ATTRIBUTES and text.startswith("{", value_at):
                    return False  # an inline computation
                elif attribute == "metadata" and (read := plain_metadata(text, value_at, s.end)):
                    value, pos = read
                else:
                    whole = _FAST_VALUE.match(text, value_at, s.end)
                    known = None if whole is None else values.get((attribute, whole.group()))
                    if whole is not None and known is not None:
                        value, pos = known, whole.end()
                    else:
                        s.pos = value_at
                        try:
                            value = self.value(attribute)
                        except ParseError:
                            return False
                        pos = s.pos
                        if whole is not None and pos == whole.end() and not _problem(value):
                            _remember(values, (attribute, whole.group()), value)
                entries.append((attribute, value))
                after = _FAST_NEXT.match(text, pos, s.end)
                if after is None:
                    return False
                comma = after.group(1)
            attributes = Attributes(tuple(entries))
            for attribute, value in entries:
                if attribute in COMPUTATION_ATTRIBUTES and isinstance(value, str):
                    called.append((value, offsets[attribute]))
                elif attribute in COMPUTATION_LIST_ATTRIBUTES:
                    callees = attributes.names(attribute) or ()
                    called.extend((callee, offsets[attribute]) for callee in callees)
        s.pos = pos
        name_at = line.start(2)
        instruction = read_instruction(
            intern(name),
            opcode,
            shape,
            names,
            attributes,
            literal,
            root is not None,
            s.span(name_at),
        )
        into.append(_PendingInstruction(instruction, operands, name_at, True))
        return True

    def instruction(
        self, called: list[tuple[str, int]], into: list[_PendingInstruction], depth: int
    ) -> None:
        """`["ROOT"] name "=" [shape] opcode "(" operands ")" {"," attribute}`."""
        s = self.scanner
        s.skip_trivia()
        line = _PLAIN_HEAD_SHAPE.match(s.text, s.pos, s.end)
        if line is not None and (shape := self.shapes.get(line.group(4))) is not None:
            s.pos = line.end()
            name, name_at, is_root = line.group(3), line.start(2), line.group(1) is not None
            self.rhs(name, name_at, is_root, called, into, depth, shape)
            return
        head = _PLAIN_HEAD.match(s.text, s.pos, s.end)
        if head is not None:
            s.pos = head.end()
            self.rhs(head.group(3), head.start(2), head.group(1) is not None, called, into, depth)
            return
        name_at = s.pos
        name = s.name("an instruction name")
        is_root = name == "ROOT" and s.text[name_at] != "%" and not s.at("=")
        if is_root:
            s.skip_trivia()
            name_at = s.pos
            name = s.name("an instruction name after ROOT")
        s.expect("=", f"after instruction name '{name}'")
        self.rhs(name, name_at, is_root, called, into, depth)

    def rhs(
        self,
        name: str,
        name_at: int,
        is_root: bool,
        called: list[tuple[str, int]],
        into: list[_PendingInstruction],
        depth: int,
        shape_read: Shape | None = None,
    ) -> None:
        """`[shape] opcode "(" operands ")" {"," attribute}` of instruction `name`
        (the scanner past the shape when `shape_read` is given);
        it and the instructions nested in its operands are added to `into`."""
        s = self.scanner
        name = intern(name)  # one string per name, however many operands refer to it
        if shape_read is None:
            shape_written = at_shape(s)
            shape = self.shape() if shape_written else _NOT_YET
            s.skip_trivia()
        else:
            shape_written, shape = True, shape_read
        opcode_at = s.pos
        call = _PLAIN_OPCODE.match(s.text, opcode_at, s.end)
        opcode = intern(s.identifier("an opcode") if call is None else call.group(1))
        call_name = opcode
        renamed = None if opcode in OPCODES else modern(opcode)
        if renamed is not None:
            opcode = renamed[0]
        sugar = None if opcode in OPCODES else async_sugar(opcode)
        if opcode not in OPCODES and sugar is None:
            raise s.error(f"unknown opcode '{opcode}'{nearest_opcode_hint(opcode)}", opcode_at)
        if call is None:
            s.skip_trivia()
            open_at = s.pos
            s.expect("(", f"after opcode '{opcode}'")
        else:
            open_at = call.end() - 1
            s.pos = call.end()
        literal: str | None = None
        operands: list[_PendingOperand] | int = []
        names: tuple[str, ...] = ()
        if opcode == "constant":
            # `(0.5)`, `(-inf)`: no bracket, quote or comment to walk over
            short = _PLAIN_LITERAL.match(s.text, open_at, s.end)
            close = s.skip_balanced(open_at) if short is None else short.end()
            literal = s.text[open_at + 1 : close - 1].strip()
            if not literal:
                raise s.error("expected a literal in constant(...)", open_at + 1)
            s.pos = close
        elif opcode == "parameter":
            literal = str(s.natural("a parameter number"))
            s.expect(")", "after the parameter number")
        elif plain := _PLAIN_OPERANDS.match(s.text, s.pos, s.end):
            operands = s.pos
            names = tuple(map(intern, _OPERAND_NAME.findall(s.text, s.pos, plain.end())))
            s.pos = plain.end()
        elif not s.accept(")"):
            written: list[_PendingOperand] = []
            while True:
                written.append(self.operand(name, len(written), called, into, depth))
                if s.accept(")"):
                    break
                s.expect(",", "or ')' between operands")
            operands = written
            names = tuple([intern(operand.name) for operand in written])
        attributes, offsets = self.attributes(raw=False, owner=name, nested=depth > 0)
        if renamed is not None and renamed[1] is not None:
            if "direction" in attributes:
                raise s.error(
                    f"'{call_name}' names its direction; it takes no 'direction' attribute",
                    offsets["direction"],
                )
            attributes = Attributes((*attributes.entries, ("direction", renamed[1])))
        if sugar is not None:
            opcode = sugar[0]
            if opcode == "async-start":
                attributes = self.async_wrapped(name, name_at, shape, sugar[1], attributes, offsets)
                offsets = {"calls": name_at}
            else:  # the wrapped op's attributes, printed again in 2023: the start's
                attributes = Attributes(
                    tuple((k, v) for k, v in attributes.entries if k not in _CALLEE_ATTRIBUTES)
                )
        for attribute, value in attributes.entries:
            if attribute in COMPUTATION_ATTRIBUTES and isinstance(value, str):
                called.append((value, offsets[attribute]))
            elif attribute in COMPUTATION_LIST_ATTRIBUTES:
                callees = attributes.names(attribute) or ()
                called.extend((callee, offsets[attribute]) for callee in callees)
        instruction = read_instruction(
            name,
            opcode,
            shape,
            names,
            attributes,
            literal,
            is_root,
            s.span(name_at),
        )
        into.append(_PendingInstruction(instruction, operands, name_at, shape_written))

    def async_wrapped(
        self,
        name: str,
        name_at: int,
        shape: Shape,
        wrapped: str,
        attributes: Attributes,
        offsets: dict[str, int],
    ) -> Attributes:
        """The computation XLA builds for ``name = ((operand shapes…), result,
        …) <wrapped>-start(operands…), attributes``: one parameter per operand
        shape, its ROOT the `wrapped` op of those parameters, named `name`,
        with the attributes; returns the async-start's own attributes
        (``calls=`` it, and ``async_execution_thread`` when written).  A
        wrapped call or fusion takes its computation's parameters and result,
        as XLA makes it: operands bound later by async-updates (``call-start()``
        written ``((), (), …)``) are its parameters all the same."""
        s = self.scanner
        elements = shape.tuple_shapes
        if elements is None or len(elements) < 2 or elements[0].tuple_shapes is None:
            raise s.error(
                f"{wrapped}-start '{name}' needs its shape written as "
                "((operand shapes...), result shape, ...)",
                name_at,
            )
        operand_shapes, result = elements[0].tuple_shapes, elements[1]
        callee = self.read_callee(wrapped, attributes)
        if callee is not None:
            operand_shapes = tuple(parameter.shape for parameter in callee.parameters)
            result = callee.root.shape
        computation = f"{name}.async_wrapped"
        while computation in self.roots:
            computation += "_"
        thread = "async_execution_thread"
        pending = [
            _PendingInstruction(
                Instruction(
                    f"param.{n}", "parameter", operand, literal=str(n), span=s.span(name_at)
                ),
                [],
                name_at,
                True,
            )
            for n, operand in enumerate(operand_shapes)
        ]
        own = Attributes(tuple((k, v) for k, v in attributes.entries if k != thread))
        operands = [_PendingOperand(item.instruction.name, None, name_at) for item in pending]
        root = Instruction(
            name,
            wrapped,
            result,
            tuple(operand.name for operand in operands),
            own,
            is_root=True,
            span=s.span(name_at),
        )
        pending.append(_PendingInstruction(root, operands, name_at, True))
        callees = [
            (callee, offsets[k])
            for k, v in own.entries
            for callee in (
                (v,)
                if k in COMPUTATION_ATTRIBUTES and isinstance(v, str)
                else own.names(k) or ()
                if k in COMPUTATION_LIST_ATTRIBUTES
                else ()
            )
        ]
        built = self.resolve(computation, name_at, False, pending, None)
        self.pending.append(_PendingComputation(built, name_at, callees))
        self.roots[computation] = built.root.shape
        self.callees.setdefault(computation, built)
        kept = tuple((k, v) for k, v in attributes.entries if k == thread)
        return Attributes((("calls", computation), *kept))

    def read_callee(self, wrapped: str, attributes: Attributes) -> Computation | None:
        """The computation a wrapped call (``to_apply=``) or fusion (``calls=``)
        runs, when it is already read."""
        attribute = CALLEE_ATTRIBUTE.get(wrapped)
        callee = attributes.word(attribute) if attribute else None
        return None if callee is None else self.callees.get(callee)

    def operand(
        self,
        user: str,
        number: int,
        called: list[tuple[str, int]],
        into: list[_PendingInstruction],
        depth: int,
    ) -> _PendingOperand:
        """`[shape] name`, or an instruction nested in place of its name
        (`compare(g, s32[] constant(10))`), which gets the name `user.number`."""
        s = self.scanner
        s.skip_trivia()
        start = s.pos
        shape = self.shape() if at_shape(s) else None
        s.skip_trivia()
        offset = s.pos
        if _NESTED_OPCODE.match(s.text, s.pos, s.end):
            if depth >= MAX_DEPTH:
                raise s.error(f"instructions nested deeper than {MAX_DEPTH} levels")
            nested = f"{user}.{number}"
            s.pos = start
            self.rhs(nested, start, False, called, into, depth + 1)
            return _PendingOperand(nested, None, start)
        name = s.name("an operand name")
        while s.text.startswith("#", s.pos):
            # `t#1` is element 1 of `t`: one get-tuple-element per name.
            s.pos += 1
            index = s.natural("a tuple index after '#'")
            element = f"{name}#{index}"
            if not any(item.instruction.name == element for item in into):
                gte = Instruction(
                    element,
                    "get-tuple-element",
                    _NOT_YET,
                    (name,),
                    Attributes((("index", index),)),
                    span=s.span(offset),
                )
                into.append(
                    _PendingInstruction(gte, [_PendingOperand(name, None, offset)], offset, False)
                )
            name = element
        return _PendingOperand(name, shape, offset)

    def attributes(
        self, *, raw: bool, owner: str = "", nested: bool = False
    ) -> tuple[Attributes, dict[str, int]]:
        """Read `{"," name "=" value}`; with `raw`, every value is kept as text.

        A value its typed parser cannot read is kept as a `RawAttribute`
        carrying the error: XLA read it, so only a rule that needs it may
        reject the instruction.  A computation attribute may be an inline
        body (`to_apply={ ... }`): it becomes the computation `owner.name`.
        In a nested instruction, a comma not followed by `name=` belongs to
        the enclosing operand list.
        """
        s = self.scanner
        entries: list[tuple[str, AttributeValue]] = []
        offsets: dict[str, int] = {}
        text = s.text
        while True:
            plain = None if nested else _PLAIN_ATTRIBUTE.match(text, s.pos, s.end)
            if plain is not None:
                name = modern_attribute(plain.group(1))
                if name in offsets:
                    raise s.error(_given_twice(plain.group(1), name), plain.start(1))
                s.pos = plain.end()
            elif _ATTRIBUTE_AHEAD.match(text, s.pos, s.end) if nested else s.accept(","):
                s.accept(",")
                s.skip_trivia()
                name_at = s.pos
                written = s.identifier("an attribute name")
                name = modern_attribute(written)
                if name in offsets:
                    raise s.error(_given_twice(written, name), name_at)
                s.expect("=", f"after attribute name '{name}'")
                s.skip_trivia()
            else:
                break
            offsets[name] = s.pos
            value: AttributeValue
            if raw:
                start, end = s.value_extent(spaces=True)
                value = RawAttribute(s.text[start:end])
            elif name in COMPUTATION_ATTRIBUTES and s.accept("{"):
                inline = f"{owner}.{name}"
                while inline in self.roots or inline in self.inline_names:
                    inline += "_"  # `call.0` in the body of `call.0.to_apply`
                self.inline_names.add(inline)
                value = self.body(inline, offsets[name], False).computation.name
            else:
                value = self.value(name)
            entries.append((name, value))
        return (Attributes(tuple(entries)) if entries else _NO_ATTRIBUTES), offsets

    def value(self, name: str) -> AttributeValue:
        """The value of attribute `name` (not an inline body) at the scanner.

        A value written without brackets, quotes or spaces (`kLoop`, `%add`,
        `{1,0}`, `0_1x0_1`) is read once (`_VALUES`) and shared: it reads the
        same wherever it is written, unless it could not be read (the reason
        carries the place), which is never shared.
        """
        s = self.scanner
        plain = _PLAIN_VALUE.match(s.text, s.pos, s.end)
        if plain is not None and (name, plain.group()) in self.values:
            s.pos = plain.end()
            return self.values[name, plain.group()]
        if name in COMPUTATION_ATTRIBUTES or name in COMPUTATION_LIST_ATTRIBUTES:
            value = read_attribute_value(name, s)
        else:
            value = self.tolerant_value(name)
        if plain is not None and s.pos == plain.end() and not _problem(value):
            _remember(self.values, (name, plain.group()), value)
        return value

    def tolerant_value(self, name: str) -> AttributeValue:
        """The typed value of attribute `name`, or its text with the reason."""
        s = self.scanner
        start = s.pos
        try:
            return read_attribute_value(name, s)
        except ParseError as error:
            s.pos = start
            value_start, value_end = s.value_extent(spaces=True)
            return RawAttribute(s.text[value_start:value_end], error)
