"""The immutable HLO module: instructions, computations, the module.

Built by `verifier.hlo.parser`; every value is frozen and every sequence a
tuple. Operands are instruction *names* (without `%`) resolved through the
computation that holds the instruction:

>>> from verifier.hlo.parser import parse_module
>>> m = parse_module('''
... HloModule m
... ENTRY e {
...   p0 = f32[10] parameter(0)
...   ROOT neg = f32[10] negate(p0)
... }''')
>>> root = m.entry.root
>>> root.opcode, root.operands, [str(p.shape) for p in m.entry.operand_instructions(root)]
('negate', ('p0',), ['f32[10]'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from verifier.errors import ParseError, SourceSpan
from verifier.hlo.attributes import (
    COMPUTATION_ATTRIBUTES,
    COMPUTATION_LIST_ATTRIBUTES,
    Attributes,
    AttributeValue,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    PaddingDim,
    RawAttribute,
    ScatterDimensionNumbers,
    SliceDim,
    WindowDim,
)
from verifier.hlo.opcodes import CALLEES_RUN_ONCE
from verifier.hlo.shape import Shape

NO_SPAN = SourceSpan("<built>", 1, 1)
"""The span of values built in code rather than parsed."""


@dataclass(frozen=True, slots=True)
class Instruction:
    """One HLO instruction: `ROOT add.1 = f32[10]{0} add(p0, p1), metadata={...}`.

    `literal` is the raw text between the parentheses of `constant(...)`
    (`"{1, 2}"`, `"-inf"`) and the parameter number of `parameter(N)`.
    `span` (the position of the name) is not part of equality.

    The typed accessors (`int_list`, `dot_dimension_numbers`, ...) raise a
    ParseError at the instruction when a required attribute is missing.
    """

    name: str
    opcode: str
    shape: Shape
    operands: tuple[str, ...] = ()
    attributes: Attributes = field(default_factory=Attributes)
    literal: str | None = None
    is_root: bool = False
    span: SourceSpan = field(default=NO_SPAN, compare=False)

    def attribute(self, name: str) -> AttributeValue | None:
        """The value of attribute `name`, or None when it is absent."""
        return self.attributes.get(name)

    @property
    def called_computations(self) -> tuple[str, ...]:
        """Names of the computations this instruction calls, in attribute order.

        >>> Instruction("r", "reduce", Shape("f32"), attributes=Attributes(
        ...     (("dimensions", (0,)), ("to_apply", "add")))).called_computations
        ('add',)
        """
        called: list[str] = []
        for name, _ in self.attributes.entries:
            if name in COMPUTATION_ATTRIBUTES:
                called.extend(filter(None, (self.attributes.word(name),)))
            elif name in COMPUTATION_LIST_ATTRIBUTES:
                called.extend(self.attributes.names(name) or ())
        return tuple(called)

    @property
    def control_predecessors(self) -> tuple[str, ...]:
        """Names in `control-predecessors={...}` (empty when absent)."""
        return self.attributes.names("control-predecessors") or ()

    @property
    def parameter_number(self) -> int | None:
        """N of `parameter(N)`; None for other opcodes."""
        if self.opcode != "parameter" or self.literal is None:
            return None
        return int(self.literal)

    # -- typed accessors for the indexing rules -----------------------------------

    def _missing(self, attribute: str, example: str) -> ParseError:
        value = self.attributes.get(attribute)
        if isinstance(value, RawAttribute) and value.problem is not None:
            return ParseError(
                f"{self.opcode} '{self.name}' needs the attribute '{attribute}', which "
                f"could not be read: {value.problem.message}",
                value.problem.span,
            )
        return ParseError(
            f"{self.opcode} '{self.name}' needs the attribute '{attribute}' (e.g. {example})",
            self.span,
        )

    def int_list(self, name: str) -> tuple[int, ...]:
        """The required integer-list attribute `name` (`dimensions={1,0}` → (1, 0))."""
        value = self.attributes.ints(name)
        if value is None:
            raise self._missing(name, f"{name}={{0}}")
        return value

    def optional_int_list(self, name: str) -> tuple[int, ...]:
        """The integer-list attribute `name`, empty when absent; one that is
        written but could not be read is an error at it, never taken as empty."""
        if name not in self.attributes:
            return ()
        return self.int_list(name)

    def optional_integer(self, name: str, default: int) -> int:
        """The integer attribute `name`, `default` when absent; one that is
        written but could not be read is an error at it."""
        if name not in self.attributes:
            return default
        return self.integer(name)

    def integer(self, name: str) -> int:
        """The required integer attribute `name` (`index=1` → 1)."""
        value = self.attributes.integer(name)
        if value is None:
            raise self._missing(name, f"{name}=0")
        return value

    def slice_dims(self) -> tuple[SliceDim, ...]:
        """`slice={[start:limit:stride], ...}`, required."""
        value = self.attributes.get("slice")
        if not isinstance(value, tuple) or not all(isinstance(v, SliceDim) for v in value):
            raise self._missing("slice", "slice={[0:2:1]}")
        return tuple(v for v in value if isinstance(v, SliceDim))

    def padding(self) -> tuple[PaddingDim, ...]:
        """`padding=low_high_interior x ...`, required."""
        value = self.attributes.get("padding")
        if not isinstance(value, tuple) or not all(isinstance(v, PaddingDim) for v in value):
            raise self._missing("padding", "padding=0_1_0")
        return tuple(v for v in value if isinstance(v, PaddingDim))

    def window(self) -> tuple[WindowDim, ...]:
        """`window={...}`; an absent window is the empty (rank-0) window."""
        value = self.attributes.get("window", ())
        if not isinstance(value, tuple) or not all(isinstance(v, WindowDim) for v in value):
            raise self._missing("window", "window={size=2}")
        return tuple(v for v in value if isinstance(v, WindowDim))

    def convolution_dimension_numbers(self) -> ConvolutionDimensionNumbers:
        """`dim_labels=b01f_01io->b01f`, required."""
        value = self.attributes.get("dim_labels")
        if not isinstance(value, ConvolutionDimensionNumbers):
            raise self._missing("dim_labels", "dim_labels=b01f_01io->b01f")
        return value

    def dot_dimension_numbers(self) -> DotDimensionNumbers:
        """The dot's batch and contracting dimensions (absent lists are empty)."""
        return DotDimensionNumbers(
            self.optional_int_list("lhs_batch_dims"),
            self.optional_int_list("rhs_batch_dims"),
            self.optional_int_list("lhs_contracting_dims"),
            self.optional_int_list("rhs_contracting_dims"),
        )

    def gather_dimension_numbers(self) -> GatherDimensionNumbers:
        """The gather's dimension numbers; `index_vector_dim` and the maps are required."""
        return GatherDimensionNumbers(
            self.int_list("offset_dims"),
            self.int_list("collapsed_slice_dims"),
            self.int_list("start_index_map"),
            self.integer("index_vector_dim"),
            self.optional_int_list("operand_batching_dims"),
            self.optional_int_list("start_indices_batching_dims"),
        )

    def scatter_dimension_numbers(self) -> ScatterDimensionNumbers:
        """The scatter's dimension numbers; `index_vector_dim` and the maps are required."""
        return ScatterDimensionNumbers(
            self.int_list("update_window_dims"),
            self.int_list("inserted_window_dims"),
            self.int_list("scatter_dims_to_operand_dims"),
            self.integer("index_vector_dim"),
            self.optional_int_list("input_batching_dims"),
            self.optional_int_list("scatter_indices_batching_dims"),
        )


_NAME, _OPCODE, _SHAPE, _OPERANDS, _ATTRIBUTES, _LITERAL, _IS_ROOT, _SPAN = (
    Instruction.__dict__[f.name].__set__ for f in fields(Instruction)
)


def read_instruction(
    name: str,
    opcode: str,
    shape: Shape,
    operands: tuple[str, ...],
    attributes: Attributes,
    literal: str | None,
    is_root: bool,
    span: SourceSpan,
) -> Instruction:
    """`Instruction(name, opcode, ..., span)`, the same value, at half the cost:
    the dataclass `__init__` of a frozen class sets each field through
    `object.__setattr__`; this sets the slots directly (the parser makes one
    per instruction read, 10^5 in a large module).

    >>> shape = Shape("f32", (2,))
    >>> read_instruction("n", "negate", shape, ("p",), Attributes(), None, True, NO_SPAN) == (
    ...     Instruction("n", "negate", shape, ("p",), is_root=True))
    True
    """
    instruction = object.__new__(Instruction)
    _NAME(instruction, name)
    _OPCODE(instruction, opcode)
    _SHAPE(instruction, shape)
    _OPERANDS(instruction, operands)
    _ATTRIBUTES(instruction, attributes)
    _LITERAL(instruction, literal)
    _IS_ROOT(instruction, is_root)
    _SPAN(instruction, span)
    return instruction


@dataclass(frozen=True)
class Computation:
    """A named list of instructions with one ROOT; parameters ordered by number.

    `instructions` are in source order, which may refer forward
    (`verifier.fusion.graph` orders them by use).
    """

    name: str
    instructions: tuple[Instruction, ...]
    root: Instruction
    parameters: tuple[Instruction, ...] = ()
    is_entry: bool = False
    span: SourceSpan = field(default=NO_SPAN, compare=False)
    _by_name: Mapping[str, Instruction] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        by_name = MappingProxyType({inst.name: inst for inst in self.instructions})
        object.__setattr__(self, "_by_name", by_name)

    def instruction(self, name: str) -> Instruction:
        """The instruction called `name` (KeyError names the computation if absent)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no instruction '{name}' in computation '{self.name}'") from None

    def has_instruction(self, name: str) -> bool:
        """Whether an instruction called `name` is defined here."""
        return name in self._by_name

    def operand_instructions(self, instruction: Instruction) -> tuple[Instruction, ...]:
        """The instructions `instruction` reads, in operand order."""
        return tuple(self.instruction(name) for name in instruction.operands)

    def __repr__(self) -> str:
        """A summary (the instructions themselves can be megabytes of text)."""
        count = len(self.instructions)
        return f"<Computation {self.name!r}: {count:,} instructions, ROOT {self.root.name!r}>"


@dataclass(frozen=True)
class Module:
    """An HLO module: its computations (callees usually first) and the ENTRY one.

    `attributes` are the header's `name=value` pairs, each kept as raw text.
    """

    name: str
    computations: tuple[Computation, ...]
    entry: Computation
    attributes: Attributes = field(default_factory=Attributes)
    _by_name: Mapping[str, Computation] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        by_name = MappingProxyType({c.name: c for c in self.computations})
        object.__setattr__(self, "_by_name", by_name)

    def computation(self, name: str) -> Computation:
        """The computation called `name` (KeyError names the module if absent)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no computation '{name}' in module '{self.name}'") from None

    def has_computation(self, name: str) -> bool:
        """Whether a computation called `name` is defined."""
        return name in self._by_name

    @property
    def instruction_count(self) -> int:
        """Instructions across all computations."""
        return sum(len(c.instructions) for c in self.computations)

    def __repr__(self) -> str:
        """A summary (printing a module of 100,000 instructions in full
        wrote megabytes).

        >>> from verifier.hlo.parser import parse_module
        >>> parse_module("HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(0)\\n}")
        <Module 'm': 1 computations, 1 instructions, ENTRY 'e'>
        """
        return (
            f"<Module {self.name!r}: {len(self.computations):,} computations, "
            f"{self.instruction_count:,} instructions, ENTRY {self.entry.name!r}>"
        )

    def repeated_instructions(self, caller: Instruction) -> frozenset[str]:
        """Names of the instructions that can run more than once per run of
        `caller`, so produce more than one value: those of the computations
        it reaches through a ``while`` loop (body and condition run per
        iteration), through an op that applies a computation per element
        (a reduce's, a sort's comparator), or through more than one call
        site.  A ``call``, ``fusion`` or ``conditional`` runs what it calls
        once per run of itself.

        >>> from verifier.hlo.parser import parse_module
        >>> m = parse_module('''
        ... HloModule m
        ... inc {
        ...   s = s32[] parameter(0)
        ...   one = s32[] constant(1)
        ...   ROOT next = s32[] add(s, one)
        ... }
        ... small {
        ...   s = s32[] parameter(0)
        ...   ten = s32[] constant(10)
        ...   ROOT lt = pred[] compare(s, ten), direction=LT
        ... }
        ... g {
        ...   t = s32[] parameter(0)
        ...   ROOT n = s32[] negate(t)
        ... }
        ... outer {
        ...   u = s32[] parameter(0)
        ...   first = s32[] call(u), to_apply=g
        ...   ROOT second = s32[] call(first), to_apply=g
        ... }
        ... ENTRY e {
        ...   zero = s32[] constant(0)
        ...   w = s32[] while(zero), condition=small, body=inc
        ...   once = s32[] call(w), to_apply=g
        ...   ROOT twice = s32[] call(once), to_apply=outer
        ... }''')
        >>> [sorted(m.repeated_instructions(m.entry.instruction(name))) for name in ("w", "once", "twice")]
        [['lt', 'next', 'one', 's', 'ten'], [], ['n', 't']]
        """
        runs: dict[str, int] = {}  # per run of `caller`, counted up to 2

        def add_runs(instruction: Instruction, times: int) -> None:
            each = times if instruction.opcode in CALLEES_RUN_ONCE else 2
            for name in instruction.called_computations:
                if not self.has_computation(name):
                    continue
                before = runs.get(name, 0)
                after = runs[name] = min(2, before + each)
                if after > before:
                    for called in self.computation(name).instructions:
                        add_runs(called, after - before)

        add_runs(caller, 1)
        return frozenset(
            instruction.name
            for name, count in runs.items()
            if count > 1
            for instruction in self.computation(name).instructions
        )
