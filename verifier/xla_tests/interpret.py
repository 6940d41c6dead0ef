"""Follows the statements of an XLA indexing test and checks each of its
map expectations against what `verifier` computes for the same input.

A test's maps are followed as values: ``Parse(R"(…)")`` (and the older
``IndexingMap::FromTensorSizes(ParseAffineMap(…), {sizes}, {sizes})``, the
constructor with explicit variables, ``AddConstraint``) gives the map as
read; ``ComposeIndexingMaps(a, b)`` and ``a * b`` compose it
(`verifier.expr.compose`); ``Simplify`` keeps it (a simplification must be
pointwise equal to its input); ``RemoveUnusedSymbols`` and
``RescaleSymbols`` keep it as a relation; ``RemoveUnusedVars`` makes the
unused dims existential (the kept dims correspond in order);
``ConvertSymbolsToDimensions`` appends the symbols as dims
(`verifier.xla_tests.transforms`); constraints may be built from C++
expressions (``CreateDimExpr(0, …) % 4``).  HLO tests
(``ParseAndGetRoot(R"(…)")`` then ``GetOutputToInputIndexing(root)`` or
``GetInputToOutputIndexing(root, k)``, physical layouts too) get the maps
`verifier.analysis` computes for the root; grouped indexing of a fusion
adaptor is composed from them (`verifier.xla_tests.grouped`).

An ``EXPECT_THAT(x, MatchIndexingMap(R"(…)"))`` (or ``MatchIndexingString``
on ``ToString(x)``; ``MatchInstrIndexing`` blocks; ``EXPECT_EQ`` of two
followed maps) is then an expectation: XLA's text against the followed
value — pointwise when the value kept its variables, as relations when it
did not.  What is not followed is ``not-comparable``, with the construct
named.

>>> from verifier.xla_tests.cpp import read_tests
>>> (test,) = read_tests('''
... TEST_F(T, ModIsSub) {
...   auto m = Parse("(d0) -> (d0 mod 4), domain: d0 in [0, 5]");
...   EXPECT_TRUE(m.Simplify());
...   EXPECT_THAT(m, MatchIndexingMap("(d0) -> (d0 - 4), domain: d0 in [0, 5]"));
... }''')
>>> [(e.line, e.kind, e.verdict.value, e.witness) for e in check_test(test, "t.cc")]
[(5, 'simplify', 'different', 'd0 = 0: verifier computes (0), XLA expects (-4)')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TypeAlias

from verifier.analysis import ModuleMaps
from verifier.errors import VerifierError
from verifier.expr import (
    Const,
    Expr,
    IndexingMap,
    Interval,
    Undefined,
    compose,
    const,
    dim,
    range_var,
    variables_of,
)
from verifier.hlo import Computation, Instruction, Module, Shape, parse_module
from verifier.xla_tests import grouped as grouping
from verifier.xla_tests.compare import (
    Comparison,
    compare_maps,
    compare_unions,
    not_comparable,
)
from verifier.xla_tests.cpp import (
    Binary,
    BraceList,
    Call,
    Literal,
    Member,
    Name,
    Node,
    Statement,
    TestCase,
    Unary,
    callee_name,
    counted_loop,
    literals,
    substituted,
)
from verifier.xla_tests.grouped import Adaptor, Place
from verifier.xla_tests.map_text import read_map, read_operands
from verifier.xla_tests.matchers import (
    calls,
    defined_by_hlo,
    integers,
    mentions_map_text,
    operand_blocks,
    unrecognised,
)
from verifier.xla_tests.result import Agreement, Expectation, Kind
from verifier.xla_tests.tile_text import (
    read_constraints,
    read_rt_ranges,
    read_tile,
    read_tile_parts,
)
from verifier.xla_tests.tiled import (
    TiledInstruction,
    compare_constraints,
    compare_tiled,
    operand_of,
    parameter,
    reach,
    runtime_variable,
    symbolic_root,
    tiled_root,
    tiling_space_map,
    transposed,
)
from verifier.xla_tests.tiles import compare_tile
from verifier.xla_tests.transforms import (
    affine_map,
    logical_to_physical,
    physical_to_logical,
    read_expr,
    symbols_to_dims,
    unused_dims_existential,
)

# ------------------------------------------------------------------ values


@dataclass(frozen=True)
class Tracked:
    """A map of the test: `reference` is what verifier computes for it;
    `pointwise` whether XLA's map keeps the reference's variables with their
    meaning (else only the relation); `operations` what the test did to it."""

    reference: IndexingMap
    pointwise: bool
    operations: tuple[str, ...]


@dataclass(frozen=True)
class HloValue:
    """An instruction of a parsed HLO module (``ParseAndGetRoot``), in
    `computation` (None: the entry), reached through `adaptor` (a fusion
    adaptor's instruction) or not."""

    module: Module
    instruction: Instruction
    maps: ModuleMaps
    computation: Computation | None = None
    adaptor: Adaptor | None = None

    @property
    def place(self) -> Place:
        return Place(self.computation or self.module.entry, self.instruction)


@dataclass(frozen=True)
class FusionValue:
    """An ``HloFusionAdaptor`` of the test."""

    hlo: HloValue
    adaptor: Adaptor


@dataclass(frozen=True)
class GroupedValue:
    """Grouped indexing: per instruction (its place's key), the maps from
    the start's output to its output."""

    groups: dict[tuple[str, str], list[IndexingMap]]


@dataclass(frozen=True)
class HloIndexing:
    """An instruction's indexing: output → operands (`operand` None), or
    operand `operand` → outputs; between `physical` indices (each shape's
    dims in its layout's order, major first) or logical ones."""

    hlo: HloValue
    output: int
    operand: int | None
    physical: bool = False


@dataclass(frozen=True)
class ExprValue:
    """An expression built in C++ (``CreateDimExpr(0, …) - 5``), over
    dims and symbols by position."""

    expr: Expr


@dataclass(frozen=True)
class TileValue:
    """``SymbolicTile::FromIndexingMap(map)``: the tile of `map`."""

    map: IndexingMap


@dataclass(frozen=True)
class AnalysisValue:
    """``SymbolicTileAnalysis`` of the fusion `hlo`."""

    hlo: HloValue


@dataclass(frozen=True)
class TilingValue:
    """``Tiling({{root, FlatTiling({sizes})}})`` (or ``Tiling::TileMapping``)."""

    root: HloValue
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class RootsValue:
    """``tiled_computation.roots()``: the fusion's outputs, tiled from `tiled`."""

    tiled: TiledInstruction


@dataclass(frozen=True)
class ParametersValue:
    """``GetParametersTiling(&tiled_computation)``: the fusion's parameters,
    each tiled from `tiled` (the root)."""

    tiled: TiledInstruction


@dataclass(frozen=True)
class ConstraintsValue:
    """The constraints of an analysis's tiling specification."""

    hlo: HloValue


@dataclass(frozen=True)
class Unfollowed:
    """A value this reader does not follow, and why."""

    reason: str


Value: TypeAlias = (
    Tracked
    | HloValue
    | HloIndexing
    | FusionValue
    | GroupedValue
    | ExprValue
    | TileValue
    | AnalysisValue
    | ConstraintsValue
    | ParametersValue
    | TilingValue
    | RootsValue
    | TiledInstruction
    | Unfollowed
)

_SIMPLIFYING = ("Simplify", "RemoveUnusedSymbols", "RemoveUnusedVars", "RescaleSymbols")
# Methods that only read the map (the test's value is unchanged).
_READING = re.compile(
    r"(Get|Is|Has|To|Evaluate|Constraints|Verify|Print|Convert|size|begin|end|value|has_value"
    r"|GetSymbolicMap|IsUndefined|IsKnownEmpty)"
)
_MATCHERS = frozenset({"MatchIndexingMap", "MatchIndexingString"})
_EXPECTS = frozenset({"EXPECT_THAT", "ASSERT_THAT"})
_EQUALS = frozenset({"EXPECT_EQ", "ASSERT_EQ"})
_PARSERS = frozenset({"Parse", "ParseIndexingMap", "ParseIndexingMapOrDie"})
_AFFINE_PARSERS = frozenset({"ParseAffineMap", "ParseSymbolicMap"})
_EXPR_PARSERS = frozenset({"ParseAffineExpr", "ParseSymbolicExpr"})
_HLO_PARSERS = frozenset({"ParseAndGetRoot", "ParseAndReturnVerifiedModule"})
_TRUTHS = frozenset({"EXPECT_TRUE", "EXPECT_FALSE", "ASSERT_TRUE", "ASSERT_FALSE"})
_TILE_MATCHERS = frozenset({"MatchSymbolicTileString", "MatchSymbolicTile"})


class _Test:
    """The state of one test as its statements run."""

    def __init__(
        self, test: TestCase, filename: str, tile_file: bool, producer_first: bool
    ) -> None:
        self.test = test
        self.filename = filename
        self.tile_file = tile_file
        self.producer_first = producer_first
        self.values: dict[str, Value] = {}
        # Initializer lists held in variables (``std::vector<…> rt_vars{…}``).
        self.lists: dict[str, BraceList | Call] = {}
        # String constants (``constexpr absl::string_view kMap = R"(…)"``).
        self.strings: dict[str, Literal] = {}
        # Counted loops' variables and values (``for (int i = 1; i <= 3; i++)``).
        self.loops: dict[str, range] = {}

    # ------------------------------------------------------------ statements

    def run(self) -> Iterator[Expectation]:
        for statement in self.test.statements:
            yield from self.statement(statement)

    def statement(self, statement: Statement) -> Iterator[Expectation]:
        value = statement.value
        loop = counted_loop(value)
        if loop is not None:
            self.loops[loop[0]] = loop[1]
            return
        for variable, values in self.loops.items():
            first = Literal(str(values.start), statement.line, is_string=False)
            if variable not in self.values and substituted(value, variable, first) != value:
                unrolled = self.unrolled(statement, variable, values)
                if unrolled is not None:
                    yield unrolled
                return
        name = callee_name(value)
        if name in _EXPECTS and isinstance(value, Call) and len(value.args) == 2:
            expectation = self.expectation(statement, value.args[0], value.args[1])
            if expectation is not None:
                yield expectation
            return
        if name in _EQUALS and isinstance(value, Call) and len(value.args) == 2:
            yield from self.equality(statement, value.args[0], value.args[1])
            return
        if name in _TRUTHS and isinstance(value, Call) and len(value.args) == 1:
            found = self.tile_presence(statement, name or "", value.args[0])
            if found is not None:
                yield found
                return
        self.effects(value)
        if (
            statement.target is not None
            and isinstance(value, BraceList | Call)
            and (isinstance(value, BraceList) or value.braced)
        ):
            self.lists[statement.target] = value
        if statement.target is not None and isinstance(value, Literal) and value.is_string:
            self.strings[statement.target] = value
        if statement.target is not None:
            self.values[statement.target] = self.evaluate(value)

    def unrolled(self, statement: Statement, variable: str, values: range) -> Expectation | None:
        """A statement in a counted loop, run for each value of its variable:
        one expectation, different if one run is, else not comparable if one
        is, else equal."""
        runs: list[tuple[int, Expectation]] = []
        for number in values:
            literal = Literal(str(number), statement.line, is_string=False)
            body = replace(statement, value=substituted(statement.value, variable, literal))
            runs += [(number, found) for found in self.statement(body)]
        for wanted in (Agreement.DIFFERENT, Agreement.NOT_COMPARABLE, Agreement.EQUAL):
            for number, found in runs:
                if found.verdict is wanted:
                    at = f"{variable} = {number}: "
                    return replace(
                        found,
                        witness=None if found.witness is None else at + found.witness,
                        reason=None if found.reason is None else at + found.reason,
                        note="; ".join(
                            n
                            for n in (
                                f"for {variable} in {values.start}..{values.stop - 1}",
                                found.note,
                            )
                            if n
                        ),
                    )
        return None

    def effects(self, node: Node) -> None:
        """The changes calls in `node` make to followed maps: ``m.Simplify()``
        in ``EXPECT_TRUE(m.Simplify())`` too."""
        match node:
            case Call(Member(Name(target), method), args) if target in self.values:
                for arg in args:
                    self.effects(arg)
                self.values[target] = self.method(self.values[target], method, args)
            case Call(callee, args):
                self.effects(callee)
                for arg in args:
                    self.effects(arg)
            case Member(value) | Unary(_, value):
                self.effects(value)
            case _:
                return

    def method(self, value: Value, method: str, args: tuple[Node, ...]) -> Value:
        """`value` after ``value.method(args)``."""
        if isinstance(value, HloIndexing | HloValue | FusionValue | GroupedValue):
            return value  # Simplify and reads leave the relations as they are
        if not isinstance(value, Tracked):
            return value
        if method not in _SIMPLIFYING and method != "AddConstraint":
            if _READING.match(method):
                return value
            return Unfollowed(f"after {method}(), which this reader does not follow")
        operations = (*value.operations, method)
        match method:
            case "Simplify":
                return replace(value, operations=operations)
            case "RemoveUnusedSymbols" | "RescaleSymbols":
                return Tracked(value.reference, False, operations)
            case "RemoveUnusedVars":
                return Tracked(unused_dims_existential(value.reference), False, operations)
            case _:  # AddConstraint(expr, Interval{lower, upper})
                constrained = self.constraint(value.reference, args)
                if constrained is None:
                    return Unfollowed("AddConstraint with an expression this reader does not read")
                return replace(value, reference=constrained, operations=operations)

    def constraint(self, reference: IndexingMap, args: tuple[Node, ...]) -> IndexingMap | None:
        if len(args) != 2:
            return None
        bounds = integers(args[1])
        if len(bounds) != 2:
            return None
        if callee_name(args[0]) in _EXPR_PARSERS:
            text = next(literals(args[0]), None)
            expr = None if text is None else read_expr(text.value, reference)
        else:
            built = self.evaluate(args[0])
            expr = built.expr if isinstance(built, ExprValue) else None
            known = set(reference.all_variables)
            if expr is not None and not variables_of(expr) <= known:
                return None
        if expr is None:
            return None
        interval = Interval(bounds[0], bounds[1])
        return reference.replaced(constraints=(*reference.constraints, (expr, interval)))

    # ------------------------------------------------------------ values

    def evaluate(self, node: Node) -> Value:
        name = callee_name(node)
        match node:
            case Name(text):
                return self.values.get(
                    text, Unfollowed(f"'{text}' is not a map this reader follows")
                )
            case Unary("*", inner):
                return self.evaluate(inner)
            case Call(Member(inner, "fused_expression_root"), ()):
                return self.fused_root(self.evaluate(inner))
            case Call(_, (inner,)) if name == "TryAnalyzeModule":
                base = self.evaluate(inner)
                return AnalysisValue(base) if isinstance(base, HloValue) else base
            case Call(Member(inner, "ComputeTiledComputation"), args) if args:
                schedule = args[1] if len(args) > 1 else Name("default_schedule_builder_")
                match schedule:
                    case Name("default_schedule_builder_"):
                        return self.tiled_computation(self.evaluate(inner), self.evaluate(args[0]))
                    case Name("TransposedDotTiledHloSchedule::Create"):
                        found = self.tiled_computation(self.evaluate(inner), self.evaluate(args[0]))
                        if not isinstance(found, TiledInstruction):
                            return found
                        swapped = transposed(found)
                        return Unfollowed(swapped) if isinstance(swapped, str) else swapped
                    case _:
                        return Unfollowed("a schedule of tiles this reader does not follow")
            case Call(
                Member(Call(Member(inner, "shape"), ()), "dimensions"),
                (Literal(index, is_string=False),),
            ) if isinstance(hlo := self.evaluate(inner), HloValue):
                shape = hlo.instruction.shape
                if shape.is_tuple or int(index) >= len(shape.dimensions):
                    return Unfollowed(f"no dimension {index} of {hlo.instruction.name}")
                return ExprValue(const(shape.dimensions[int(index)]))
            case Call(_, args) if name in ("Tiling", "const Tiling") and len(args) == 1:
                return self.tiling(args[0])
            case Call(_, (inner,)) if name == "GetFirstRoot":
                return self.evaluate(inner)
            case Call(Member(inner, "roots"), ()):
                base = self.evaluate(inner)
                return RootsValue(base) if isinstance(base, TiledInstruction) else base
            case Call(Member(inner, "[]"), (Literal(index, is_string=False),)) if isinstance(
                roots := self.evaluate(inner), RootsValue
            ):
                return self.root(roots.tiled, int(index))
            case Call(Member(inner, "operand"), (Literal(index, is_string=False),)) if isinstance(
                tiled := self.evaluate(inner), TiledInstruction
            ):
                return _reached(operand_of(tiled, int(index)))
            case Call(
                Member(Call(Member(inner, "runtime_variables"), ()), "[]"),
                (Literal(index, is_string=False),),
            ) if isinstance(tiled := self.evaluate(inner), TiledInstruction):
                return _reached(runtime_variable(tiled, int(index)))
            case Call(_, (inner, Name(opcode))) if name == "FindFirstInstruction":
                return self.first_instruction(self.evaluate(inner), opcode)
            case Call(Member(inner, "indexing_map"), ()) if isinstance(
                tiled := self.evaluate(inner), TiledInstruction
            ):
                return Tracked(tiling_space_map(tiled), True, ())
            case Call(
                Member(Call(Member(inner, "operands"), ()), "[]"),
                (Literal(index, is_string=False),),
            ) if isinstance(tiled := self.evaluate(inner), TiledInstruction):
                return _reached(operand_of(tiled, int(index)))
            case Call(_, (inner,)) if name == "GetParametersTiling":
                base = self.evaluate(inner)
                return ParametersValue(base) if isinstance(base, TiledInstruction) else base
            case Call(Member(inner, "[]"), (Literal(index, is_string=False),)) if isinstance(
                parameters := self.evaluate(inner), ParametersValue
            ):
                return _reached(parameter(parameters.tiled, int(index)))
            case Call(Member(Call(Member(inner, "GetTilingSpecification"), ()), "constraints"), ()):
                base = self.evaluate(inner)
                return ConstraintsValue(base.hlo) if isinstance(base, AnalysisValue) else base
            case Call(Member(inner, "value" | "ToString" | "begin" | "map" | "get"), ()) | Member(
                inner, "indexing_maps"
            ):
                return self.evaluate(inner)
            case Call(_, (inner,)) if name == "FromIndexingMap":
                return self.tile_of(self.evaluate(inner))
            case Call(Member(inner, "[]"), (Literal(index, is_string=False),)) if isinstance(
                indexing := self.evaluate(inner), HloIndexing
            ):
                return self.operand_map(indexing, int(index))
            case Call(Member(inner, "[]"), (Name(variable),)) if variable not in self.values:
                return Unfollowed(
                    f"an element chosen by '{variable}', a loop variable this reader does not unroll"
                )
            case Call(Name("ToString"), (inner,)):
                return self.evaluate(inner)
            case Call(Member(inner, method), args) if method in _SIMPLIFYING:
                return Unfollowed(f"the value of {method}()")  # a bool, not a map
            case Call(Member(inner, "ConvertSymbolsToDimensions"), ()):
                value = self.evaluate(inner)
                if not isinstance(value, Tracked):
                    return value
                return self.range_vars_to_dims(value, list(range(len(value.reference.symbols))))
            case Call(_, args) if name in _PARSERS:
                return self.parsed(args)
            case Binary(op, lhs, rhs):
                left, right = self.evaluate(lhs), self.evaluate(rhs)
                if op == "*" and isinstance(left, Tracked):
                    return self.composed(left, right)
                return _arithmetic(op, left, right)
            case Literal(value, _, False):
                numbers = integers(node)
                return (
                    ExprValue(const(numbers[0])) if numbers else Unfollowed(f"the number {value}")
                )
            case Call(_, (Literal(index, _, False), *_)) if name == "CreateDimExpr":
                return ExprValue(dim(int(index)))
            case Call(_, (Literal(index, _, False), *_)) if name == "CreateSymbolExpr":
                return ExprValue(range_var(int(index)))
            case Call(_, (inner, indices)) if name == "ConvertRangeVariablesToDimensions":
                return self.range_vars_to_dims(self.evaluate(inner), integers(indices))
            case Call(_, args) if name == "ComposeIndexingMaps" and len(args) >= 2:
                first, second = self.evaluate(args[0]), self.evaluate(args[1])
                if self.producer_first:
                    return self.composed(second, first)
                return self.composed(first, second)
            case Call(_, args) if name == "FromTensorSizes":
                return self.from_sizes(args)
            case Call(Name("IndexingMap"), args) if len(args) >= 2:
                return self.constructed(args)
            case Call(_, args) if name in _HLO_PARSERS and args:
                return self.hlo(args[0])
            case Call(Member(inner, "root_instruction" | "entry_computation"), ()):
                return self.evaluate(inner)
            case Call(Member(inner, "GetInstructionWithName"), (Literal(text),)):
                base = self.evaluate(inner)
                if isinstance(base, HloValue):
                    try:
                        instruction = base.module.entry.instruction(text)
                    except (KeyError, VerifierError):
                        return Unfollowed(f"no instruction '{text}' in the entry computation")
                    return replace(base, instruction=instruction)
                return base
            case Call(Member(inner, "operand" | "GetOperand"), (Literal(index, is_string=False),)):
                base = self.evaluate(inner)
                if isinstance(base, HloValue) and int(index) < len(base.instruction.operands):
                    if base.adaptor is not None:
                        place = grouping.operand(base.maps, base.adaptor, base.place, int(index))
                        return replace(
                            base, instruction=place.instruction, computation=place.computation
                        )
                    reached = base.place.computation.operand_instructions(base.instruction)[
                        int(index)
                    ]
                    return replace(base, instruction=reached)
                if isinstance(base, Unfollowed):
                    return base
                return Unfollowed("an operand this reader does not follow")
            case Unary("&", inner) | Call(Member(inner, "instruction" | "parent"), ()):
                return self.evaluate(inner)
            case Call(_, args) if name in ("ForInstruction", "ForProducerConsumer"):
                return self.adaptor(name, [self.evaluate(a) for a in args])
            case Call(
                Member(Call(Member(inner, "GetRoots"), ()), "[]"),
                (Literal(index, is_string=False),),
            ):
                fusion = self.evaluate(inner)
                if isinstance(fusion, FusionValue) and int(index) < len(fusion.adaptor.roots):
                    root = fusion.adaptor.roots[int(index)]
                    return replace(
                        fusion.hlo,
                        instruction=root.instruction,
                        computation=root.computation,
                        adaptor=fusion.adaptor,
                    )
                return Unfollowed("a fusion root this reader does not follow")
            case Call(_, args) if name == "ComputeGroupedOutputToInputIndexing" and len(args) >= 2:
                return self.grouped(self.evaluate(args[0]), self.evaluate(args[1]))
            case Call(_, args) if name == "GroupIndexingMapsByProducers" and len(args) == 2:
                return self.by_producers(self.evaluate(args[0]))
            case Call(Member(inner, "[]"), (key,)):
                return self.group(self.evaluate(inner), self.evaluate(key))
            case Call(_, args) if name in (
                "GetOutputToInputIndexing",
                "ComputeOutputToInputIndexing",
                "GetInputToOutputIndexing",
                "ComputeInputToOutputIndexing",
            ):
                return self.indexing(name, args)
            case _:
                pass
        if isinstance(node, Call) and name is not None:
            return Unfollowed(f"{name}(…) is not followed by this reader")
        return Unfollowed("an expression this reader does not follow")

    def parsed(self, args: tuple[Node, ...]) -> Value:
        text = next((lit for arg in args[:1] for lit in literals(arg)), None)
        if text is None:
            return Unfollowed("a map parsed from a non-literal string")
        try:
            parsed = read_map(text.value, self.filename)
        except VerifierError as error:
            return Unfollowed(f"the input map is not read: {error}")
        if isinstance(parsed, Undefined):
            return Unfollowed("the input map is UNDEFINED")
        return Tracked(parsed, True, ("Parse",))

    def composed(self, consumer: Value, producer: Value) -> Value:
        for value in (consumer, producer):
            if not isinstance(value, Tracked):
                return value if isinstance(value, Unfollowed) else Unfollowed("composing non-maps")
        assert isinstance(consumer, Tracked) and isinstance(producer, Tracked)
        try:
            composed = compose(consumer.reference, producer.reference)
        except VerifierError as error:
            return Unfollowed(f"composition failed: {error}")
        return Tracked(composed, False, (*consumer.operations, *producer.operations, "Compose"))

    def range_vars_to_dims(self, value: Value, indices: list[int]) -> Value:
        """XLA's ``ConvertSymbolsToDimensions`` / ``ConvertRangeVariablesToDimensions``."""
        if not isinstance(value, Tracked):
            return value
        converted = symbols_to_dims(value.reference, indices)
        if converted is None:
            return Unfollowed("a conversion of symbols the map does not have")
        return Tracked(converted, value.pointwise, (*value.operations, "ConvertToDimensions"))

    def from_sizes(self, args: tuple[Node, ...]) -> Value:
        """``FromTensorSizes([context,] ParseAffineMap(text), {dim sizes}, {symbol sizes})``."""
        affine = [a for a in args if callee_name(a) in _AFFINE_PARSERS]
        lists = [a for a in args if isinstance(a, BraceList)]
        if len(affine) != 1 or len(lists) != 2:
            return Unfollowed("FromTensorSizes with arguments this reader does not read")
        text = next(literals(affine[0]), None)
        sizes = [[n for item in lst.items for n in integers(item)] for lst in lists]
        if text is None:
            return Unfollowed("FromTensorSizes of a non-literal map")
        dims = [(0, n - 1) for n in sizes[0]]
        symbols = [(0, n - 1) for n in sizes[1]]
        return self.affine(text.value, dims, symbols, 0)

    def constructed(self, args: tuple[Node, ...]) -> Value:
        """``IndexingMap(ParseAffineMap(text), {dim vars}, {range vars}, {rt vars}[, …])``."""
        if callee_name(args[0]) not in _AFFINE_PARSERS:
            return Unfollowed("an IndexingMap built in C++ from a map this reader does not read")
        text = next(literals(args[0]), None)
        groups: list[list[tuple[int, int]]] = []
        for given in args[1:4]:
            if callee_name(given) == "move" and isinstance(given, Call) and len(given.args) == 1:
                given = given.args[0]  # std::move(rt_vars)
            arg = self.lists.get(given.text, given) if isinstance(given, Name) else given
            if isinstance(arg, Call) and arg.braced:
                arg = BraceList(arg.args)
            if not isinstance(arg, BraceList):
                return Unfollowed("an IndexingMap built in C++ from variables held in variables")
            if any(defined_by_hlo(item) for item in arg.items):
                return Unfollowed(
                    "a runtime variable defined by an HLO instruction (its value is the "
                    "instruction's, which this reader does not model)"
                )
            bounds = [integers(item)[:2] for item in arg.items]
            if any(len(b) != 2 for b in bounds):
                return Unfollowed("an IndexingMap variable without a literal interval")
            groups.append([(b[0], b[1]) for b in bounds])
        while len(groups) < 3:
            groups.append([])
        if text is None:
            return Unfollowed("an IndexingMap built from a non-literal map")
        return self.affine(text.value, groups[0], groups[1] + groups[2], len(groups[2]))

    def affine(
        self, text: str, dims: list[tuple[int, int]], symbols: list[tuple[int, int]], rt_count: int
    ) -> Value:
        try:
            return Tracked(
                affine_map(text, dims, symbols, rt_count, self.filename), True, ("Parse",)
            )
        except VerifierError as error:
            return Unfollowed(f"the affine map is not read: {error}")

    def hlo(self, node: Node) -> Value:
        text = next(literals(self.resolved(node)), None)
        if text is None:
            return Unfollowed("an HLO module from a non-literal string")
        try:
            module = parse_module(text.value, self.filename)
        except VerifierError as error:
            return Unfollowed(f"the HLO module is not read by verifier: {error}")
        return HloValue(module, module.entry.root, ModuleMaps(module))

    def adaptor(self, name: str, args: list[Value]) -> Value:
        places = [a for a in args if isinstance(a, HloValue)]
        if len(places) != len(args) or not places:
            return Unfollowed(f"{name} of values this reader does not follow")
        if name == "ForInstruction":
            return FusionValue(places[0], grouping.single(places[0].maps, places[0].place))
        if len(places) != 2:
            return Unfollowed("ForProducerConsumer without a producer and a consumer")
        return FusionValue(places[0], grouping.producer_consumer(places[0].place, places[1].place))

    def grouped(self, fusion: Value, start: Value) -> Value:
        if not isinstance(fusion, FusionValue) or not isinstance(start, HloValue):
            return Unfollowed("grouped indexing of values this reader does not follow")
        try:
            return GroupedValue(grouping.grouped(start.maps, fusion.adaptor, start.place))
        except VerifierError as error:
            return Unfollowed(f"verifier computes no grouped maps: {error}")

    def by_producers(self, indexing: Value) -> Value:
        """``GroupIndexingMapsByProducers``: an instruction's operand maps, by operand instruction."""
        if not isinstance(indexing, HloIndexing) or indexing.operand is not None:
            return Unfollowed("grouping of an indexing this reader does not follow")
        hlo = indexing.hlo
        try:
            view = hlo.maps.instruction(hlo.place.computation, hlo.instruction)
            computed = view.o2i(view.outputs[indexing.output])
        except VerifierError as error:
            return Unfollowed(f"verifier computes no maps for it: {error}")
        groups: dict[tuple[str, str], list[IndexingMap]] = {}
        reads = hlo.place.computation.operand_instructions(hlo.instruction)
        for leaf, composed in computed:
            read = reads[leaf.operand]
            if isinstance(composed.maps, Undefined):
                return Unfollowed(f"verifier: {composed.maps}")
            bucket = groups.setdefault(Place(hlo.place.computation, read).key, [])
            bucket += [c.map for c in composed.maps if c.map not in bucket]
        return GroupedValue(groups)

    def group(self, grouped_value: Value, key: Value) -> Value:
        if isinstance(grouped_value, Unfollowed):
            return grouped_value
        if not isinstance(grouped_value, GroupedValue) or not isinstance(key, HloValue):
            return Unfollowed("an element of a value this reader does not follow")
        return GroupedValue({key.place.key: grouped_value.groups.get(key.place.key, [])})

    def indexing(self, name: str, args: tuple[Node, ...]) -> Value:
        if not args:
            return Unfollowed(f"{name} without arguments")
        base = self.evaluate(args[0])
        if not isinstance(base, HloValue):
            return (
                base if isinstance(base, Unfollowed) else Unfollowed("indexing of a non-HLO value")
            )
        numbers = [a for a in args[1:] if isinstance(a, Literal) and not a.is_string]
        flags = [a for a in args[1:] if isinstance(a, Name) and a.text in ("true", "false")]
        physical = any(flag.text == "true" for flag in flags)
        index = int(numbers[0].value) if numbers else 0
        if "OutputToInput" in name:
            return HloIndexing(base, index, None, physical)
        return HloIndexing(base, 0, index, physical)

    # ------------------------------------------------------------ expectations

    def expectation(self, statement: Statement, actual: Node, matcher: Node) -> Expectation | None:
        matcher = self.resolved(matcher)
        name = callee_name(matcher)
        if name == "Optional" and isinstance(matcher, Call) and len(matcher.args) == 1:
            inner = matcher.args[0]
            if callee_name(inner) in _TILE_MATCHERS and isinstance(inner, Call):
                return self.place(statement, "tile", self.compare_tile(actual, inner))
        if name in _TILE_MATCHERS and isinstance(matcher, Call):
            return self.place(statement, "tile", self.compare_tile(actual, matcher))
        if name == "MatchTiledHloInstruction" and isinstance(matcher, Call):
            return self.place(statement, "tile", self.compare_tiled(actual, matcher))
        if name == "MatchConstraintExpressionString" and isinstance(matcher, Call):
            return self.place(statement, "tile", self.compare_constraints(actual, matcher))
        if name in _MATCHERS and isinstance(matcher, Call):
            text = next(literals(matcher), None)
            value = self.evaluate(actual)
            if text is None:
                reason = "a matcher of a text this reader does not resolve"
                return self.place(statement, self.kind(value), not_comparable(reason))
            return self.place(statement, self.kind(value), self.compare(value, text.value))
        value_first = self.evaluate(actual)
        if isinstance(value_first, GroupedValue):
            return self.place(statement, "hlo-maps", self.compare_grouped(value_first, matcher))
        blocks = operand_blocks(matcher)
        if blocks is not None:
            value = self.evaluate(actual)
            if isinstance(value, HloIndexing):
                try:
                    expected = [
                        (i, [read_map(t, self.filename) for t in texts]) for i, texts in blocks
                    ]
                except VerifierError as error:
                    comparison = not_comparable(f"XLA's expected maps are not read: {error}")
                else:
                    comparison = self.compare_hlo(value, expected)
                return self.place(statement, "hlo-maps", comparison)
        if not mentions_map_text(matcher) and not calls(matcher, "Match"):
            return None
        value = self.evaluate(actual)
        reason = unrecognised(matcher)
        if isinstance(value, Unfollowed):
            reason = value.reason
        return self.place(statement, self.kind(value), not_comparable(reason))

    def resolved(self, node: Node) -> Node:
        """`node` with the names of string constants (``constexpr
        absl::string_view kMap = R"(…)"``) replaced by their literals."""
        match node:
            case Name(text) if text in self.strings:
                return self.strings[text]
            case Call(callee, args, braced):
                return Call(callee, tuple(self.resolved(a) for a in args), braced)
            case _:
                return node

    def equality(self, statement: Statement, lhs: Node, rhs: Node) -> Iterator[Expectation]:
        self.effects(lhs)
        self.effects(rhs)
        left, right = self.evaluate(lhs), self.evaluate(rhs)
        if isinstance(rhs, Name) and rhs.text == "std::nullopt" and self.tile_file:
            yield self.place(statement, "tile", self.nullopt(left))
            return
        if isinstance(left, Tracked) and isinstance(right, Tracked):
            pointwise = left.pointwise and right.pointwise
            comparison = compare_maps(left.reference, right.reference, pointwise=pointwise)
            yield self.place(statement, self.kind(left), comparison)
        elif mentions_map_text(rhs) or mentions_map_text(lhs):
            yield self.place(statement, "other", not_comparable(unrecognised(rhs)))

    # ------------------------------------------------------------ tiles

    def operand_map(self, indexing: HloIndexing, index: int) -> Value:
        """``indexing.indexing_maps[index].begin()``: operand `index`'s one map."""
        hlo = indexing.hlo
        if indexing.operand is not None or indexing.physical:
            return Unfollowed("a map of an input-to-output or physical indexing")
        try:
            view = hlo.maps.instruction(hlo.module.entry, hlo.instruction)
            computed = view.o2i(view.outputs[indexing.output])
        except VerifierError as error:
            return Unfollowed(f"verifier computes no maps for it: {error}")
        if index >= len(computed):
            return Unfollowed(f"verifier has no operand {index}")
        maps = computed[index].maps.maps
        if isinstance(maps, Undefined):
            return Unfollowed(f"verifier: {maps}")
        if len(maps) != 1:
            return Unfollowed(
                f"operand {index} has {len(maps)} maps: which one begin() is depends on "
                "XLA's set order"
            )
        return Tracked(maps[0].map, False, ("GetOutputToInputIndexing",))

    def tile_of(self, value: Value) -> Value:
        if isinstance(value, Tracked):
            return TileValue(value.reference)
        return value if isinstance(value, Unfollowed) else Unfollowed("a tile of a non-map")

    def compare_tile(self, actual: Node, matcher: Call) -> Comparison:
        value = self.evaluate(actual)
        if not isinstance(value, TileValue):
            return not_comparable(
                value.reason if isinstance(value, Unfollowed) else "a tile of a non-map"
            )
        texts = [lit.value for lit in literals(matcher)]
        try:
            if callee_name(matcher) == "MatchSymbolicTileString" and len(texts) == 1:
                expected = read_tile(texts[0])
            elif len(texts) in (3, 4):
                ranges = read_rt_ranges(texts[3] if len(texts) == 4 else "")
                expected = read_tile_parts(texts[0], texts[1], texts[2], None, ranges)
            else:
                return not_comparable("a tile matcher of texts this reader does not resolve")
        except VerifierError as error:
            return not_comparable(f"XLA's expected tile is not read: {error}")
        return compare_tile(value.map, expected)

    def nullopt(self, value: Value) -> Comparison:
        if isinstance(value, TileValue):
            return compare_tile(value.map, None)
        return not_comparable(
            value.reason if isinstance(value, Unfollowed) else "nullopt of a value not followed"
        )

    def tile_presence(self, statement: Statement, name: str, node: Node) -> Expectation | None:
        """``EXPECT_FALSE(FromIndexingMap(m).has_value())`` (or TRUE)."""
        match node:
            case Call(Member(inner, "has_value"), ()) if callee_name(
                inner
            ) == "FromIndexingMap" or isinstance(self.evaluate(inner), TileValue):
                value = self.evaluate(inner)
            case _:
                return None
        if "FALSE" in name:
            return self.place(statement, "tile", self.nullopt(value))
        if not isinstance(value, TileValue):
            return self.place(statement, "tile", self.nullopt(value))
        derived = compare_tile(value.map, None)
        # EXPECT_TRUE: a tile exists; equal when verifier derives one too.
        if derived.verdict is Agreement.DIFFERENT:
            return self.place(statement, "tile", Comparison(Agreement.EQUAL))
        return self.place(
            statement,
            "tile",
            Comparison(Agreement.DIFFERENT, witness="XLA derives a tile, verifier none"),
        )

    def fused_root(self, base: Value) -> Value:
        if not isinstance(base, HloValue) or base.instruction.opcode != "fusion":
            return Unfollowed("the fused root of a value that is no fusion")
        called = base.instruction.called_computations[:1]
        if not called:
            return Unfollowed("a fusion without its computation")
        computation = base.module.computation(called[0])
        return replace(base, instruction=computation.root, computation=computation)

    def tiling(self, node: Node) -> Value:
        """The one ``{root, sizes}`` pair of a tiling (``FlatTiling({…})`` or ``{…}``)."""
        pairs: list[BraceList] = []

        def walk(item: Node) -> None:
            match item:
                case BraceList(items) if (
                    len(items) == 2
                    and (callee_name(items[1]) == "FlatTiling" or isinstance(items[1], BraceList))
                    and not isinstance(items[0], BraceList)
                ):
                    pairs.append(item)
                case BraceList(items) | Call(_, items):
                    for inner in items:
                        walk(inner)
                case _:
                    return

        walk(node)
        if len(pairs) != 1:
            return Unfollowed(f"a tiling of {len(pairs)} instructions")
        root = self.evaluate(pairs[0].items[0])
        if not isinstance(root, HloValue):
            return Unfollowed("a tiling of an instruction this reader does not follow")
        sizes = self.integers(pairs[0].items[1])
        if sizes is None:
            return Unfollowed("tile sizes this reader does not resolve")
        return TilingValue(root, sizes)

    def integers(self, node: Node) -> tuple[int, ...] | None:
        """The integers of an initializer, constants held in names resolved."""
        items = node.args if isinstance(node, Call) else ()
        if isinstance(node, Call) and len(items) == 1 and isinstance(items[0], BraceList):
            node = items[0]
        if not isinstance(node, BraceList):
            return None
        found: list[int] = []
        for item in node.items:
            value = self.evaluate(item)
            if not isinstance(value, ExprValue) or not isinstance(value.expr, Const):
                return None
            found.append(value.expr.value)
        return tuple(found)

    def root(self, tiled: TiledInstruction, index: int) -> Value:
        """Output `index` of the tiled fusion, tiled from the tiled root."""
        fused = tiled.computation.root
        outputs = (
            tiled.computation.operand_instructions(fused) if fused.opcode == "tuple" else (fused,)
        )
        if index >= len(outputs):
            return Unfollowed(f"the fusion has no output {index}")
        found = reach(tiled, outputs[index])
        return Unfollowed(found) if isinstance(found, str) else found

    def first_instruction(self, analysis: Value, opcode: str) -> Value:
        """``FindFirstInstruction(analysis, HloOpcode::kX)``: the first
        instruction of that opcode in the analysis (operands before users),
        reached from its root."""
        if not isinstance(analysis, AnalysisValue):
            return Unfollowed("an analysis this reader does not follow")
        fused = self.fused_root(analysis.hlo)
        if not isinstance(fused, HloValue):
            return fused
        computation = fused.place.computation
        root = symbolic_root(fused.maps, computation)
        if isinstance(root, str):
            return Unfollowed(root)
        wanted = re.sub(r"(?<!^)([A-Z])", r"-\1", opcode.rsplit("::k", 1)[-1]).lower()
        found = [i for i in computation.instructions if i.opcode == wanted]
        if len(found) != 1:
            return Unfollowed(f"{len(found)} instructions {wanted}: which is first is XLA's order")
        reached = reach(root, found[0])
        return Unfollowed(reached) if isinstance(reached, str) else reached

    def tiled_computation(self, analysis: Value, tiling: Value) -> Value:
        """``ComputeTiledComputation(tiling, …)``: the tiled root."""
        if isinstance(tiling, Unfollowed):
            return tiling
        if not isinstance(analysis, AnalysisValue) or not isinstance(tiling, TilingValue):
            return Unfollowed("a tiled computation of a value this reader does not follow")
        root = tiling.root
        found = tiled_root(root.maps, root.place.computation, root.instruction, tiling.sizes)
        return Unfollowed(found) if isinstance(found, str) else found

    def compare_tiled(self, actual: Node, matcher: Call) -> Comparison:
        value = self.evaluate(actual)
        if not isinstance(value, TiledInstruction):
            return not_comparable(
                value.reason if isinstance(value, Unfollowed) else "a tiled value not followed"
            )
        text = self.text(matcher.args[2]) if len(matcher.args) == 3 else None
        if text is None:
            return not_comparable("a MatchTiledHloInstruction of arguments not read")
        sizes, strides = integers(matcher.args[0]), integers(matcher.args[1])
        return compare_tiled(value, sizes, strides, text)

    def number(self, node: Node) -> int | None:
        """The integer `node` is, where the test computes one."""
        value = self.evaluate(node)
        if isinstance(value, ExprValue) and isinstance(value.expr, Const):
            return value.expr.value
        return None

    def text(self, node: Node) -> str | None:
        """A string literal, or ``absl::Substitute(literal, args…)`` whose
        arguments are integers the test computes (``$0`` the first)."""
        match node:
            case Literal(value, _, True):
                return value
            case Call(Name("absl::Substitute"), (Literal(value, _, True), *args)):
                shown = [self.number(a) for a in args]
                wanted = {int(i) for i in re.findall(r"\$(\d)", value)}
                if any(i >= len(shown) or shown[i] is None for i in wanted):
                    return None
                return re.sub(r"\$(\d)", lambda m: str(shown[int(m.group(1))]), value)
            case _:
                return None

    def compare_constraints(self, actual: Node, matcher: Call) -> Comparison:
        value = self.evaluate(actual)
        if not isinstance(value, ConstraintsValue):
            return not_comparable(
                value.reason if isinstance(value, Unfollowed) else "constraints not followed"
            )
        text = next(literals(matcher), None)
        if text is None:
            return not_comparable("constraints of a text this reader does not resolve")
        hlo = value.hlo
        rank = 0 if hlo.instruction.shape.is_tuple else len(hlo.instruction.shape.dimensions)
        try:
            expected = read_constraints(" ".join(lit.value for lit in literals(matcher)), rank)
        except VerifierError as error:
            return not_comparable(f"XLA's constraints are not read: {error}")
        return compare_constraints(hlo.maps, hlo.place.computation, hlo.instruction, expected)

    def compare(self, value: Value, text: str) -> Comparison:
        match value:
            case Unfollowed(reason):
                return not_comparable(reason)
            case Tracked(reference, pointwise, _):
                try:
                    expected = read_map(text, self.filename)
                except VerifierError as error:
                    return not_comparable(f"XLA's expected map is not read: {error}")
                return compare_maps(reference, expected, pointwise=pointwise)
            case HloIndexing():
                try:
                    blocks = read_operands(text, self.filename)
                except VerifierError as error:
                    return not_comparable(f"XLA's expected maps are not read: {error}")
                return self.compare_hlo(value, blocks)
            case HloValue():
                return not_comparable("an expectation on an instruction, not on its maps")
        return not_comparable("an expectation on a value this reader does not follow")

    def compare_grouped(self, value: GroupedValue, matcher: Node) -> Comparison:
        """``UnorderedElementsAre(Pair(key, <maps>), …)`` on a grouping, or
        ``<maps>`` on one group (``grouped[key]``)."""
        pairs: list[tuple[tuple[str, str], Node]] = []
        if (
            callee_name(matcher) == "UnorderedElementsAre"
            and isinstance(matcher, Call)
            and all(callee_name(a) == "Pair" for a in matcher.args)
        ):
            for pair in matcher.args:
                assert isinstance(pair, Call)
                named_by = self.evaluate(pair.args[0]) if len(pair.args) == 2 else None
                if not isinstance(named_by, HloValue):
                    return not_comparable("a group key this reader does not follow")
                pairs.append((named_by.place.key, pair.args[1]))
            if {k for k, _ in pairs} != set(value.groups):
                named = sorted(name for _, name in value.groups)
                return not_comparable(f"the groups differ from verifier's ({', '.join(named)})")
        elif len(value.groups) == 1:
            pairs.append((next(iter(value.groups)), matcher))
        else:
            return not_comparable("a matcher on a grouping this reader does not follow")
        results: list[tuple[int, Comparison]] = []
        for index, (key, maps_matcher) in enumerate(pairs):
            blocks = operand_blocks(Call(Name("ElementsAre"), (maps_matcher,)))
            if blocks is None:
                return not_comparable("a matcher of a group's maps this reader does not follow")
            try:
                expected = [read_map(t, self.filename) for t in blocks[0][1]]
            except VerifierError as error:
                return not_comparable(f"XLA's expected maps are not read: {error}")
            results.append((index, compare_unions(value.groups.get(key, []), expected)))
        return _combined(results)

    def compare_hlo(
        self, value: HloIndexing, blocks: list[tuple[int, list[IndexingMap | Undefined]]]
    ) -> Comparison:
        hlo = value.hlo
        try:
            view = hlo.maps.instruction(hlo.module.entry, hlo.instruction)
            computed = [
                composed
                for _, composed in (
                    view.o2i(view.outputs[value.output])
                    if value.operand is None
                    else view.i2o(view.operands[value.operand])
                )
            ]
        except VerifierError as error:
            return not_comparable(f"verifier computes no maps for it: {error}")
        results: list[tuple[int, Comparison]] = []
        for operand, expected in blocks:
            if operand >= len(computed):
                results.append((operand, not_comparable(f"verifier has no operand {operand}")))
                continue
            maps = computed[operand].maps
            unknown = [m for m in expected if isinstance(m, Undefined)]
            if isinstance(maps, Undefined):
                agreed = (
                    Comparison(Agreement.EQUAL) if unknown else not_comparable(f"verifier: {maps}")
                )
                results.append((operand, agreed))
                continue
            found = [c.map for c in maps]
            if value.physical:
                physical = _physical(hlo, value, operand, found)
                if isinstance(physical, Unfollowed):
                    results.append((operand, not_comparable(physical.reason)))
                    continue
                found = physical
            results.append((operand, _resolved_runtime(compare_unions(found, expected), found)))
        return _combined(results)

    def kind(self, value: Value) -> Kind:
        if self.tile_file:
            return "tile"
        simplifying: Kind = "constraint" if "Constraint" in self.test.name else "simplify"
        match value:
            case HloIndexing() | HloValue() | FusionValue() | GroupedValue():
                return "hlo-maps"
            case Tracked(_, _, operations) if any(op in _SIMPLIFYING for op in operations):
                return simplifying
            case Unfollowed() if any(op in self.test.name for op in _SIMPLIFYING):
                return simplifying  # not followed: the test's name says what it checks
            case _:
                return "other"

    def place(self, statement: Statement, kind: Kind, comparison: Comparison) -> Expectation:
        return Expectation(
            self.filename,
            statement.line,
            self.test.name,
            kind,
            comparison.verdict,
            comparison.witness,
            comparison.reason,
            comparison.witness_point,
            comparison.expected,
            comparison.computed,
            comparison.note,
        )


def _reached(found: TiledInstruction | str) -> Value:
    """A tiled instruction reached, or why not."""
    return Unfollowed(found) if isinstance(found, str) else found


def _arithmetic(op: str, left: Value, right: Value) -> Value:
    """``left op right`` on C++-built expressions (``%`` and ``/`` by a
    constant: ``mod`` and ``floordiv``, as XLA's ``SymbolicExpr`` has them)."""
    if not isinstance(left, ExprValue) or not isinstance(right, ExprValue):
        return Unfollowed(f"'{op}' of values this reader does not follow")
    a, b = left.expr, right.expr
    try:
        match op:
            case "+":
                return ExprValue(a + b)
            case "-":
                return ExprValue(a - b)
            case "*":
                return ExprValue(a * b)
            case "/":
                return ExprValue(a // b)
            case _:
                return ExprValue(a % b)
    except VerifierError as error:
        return Unfollowed(f"an expression verifier does not read: {error}")


def _resolved_runtime(comparison: Comparison, computed: list[IndexingMap]) -> Comparison:
    """A difference where verifier's maps relate more and keep runtime
    variables is not XLA's: XLA may resolve a runtime variable from the HLO
    that defines it (a constant, an iota), where verifier keeps it ranging
    over its interval — a superset, not a contradiction."""
    point = comparison.witness_point
    if (
        comparison.verdict is Agreement.DIFFERENT
        and point is not None
        and point.get("only_in") == "computed"
        and any(m.rt_vars for m in computed)
    ):
        reason = (
            "verifier's maps keep runtime variables that XLA resolves from the HLO, and relate "
            f"more: {comparison.witness}"
        )
        return replace(
            comparison,
            verdict=Agreement.NOT_COMPARABLE,
            witness=None,
            reason=reason,
            witness_point=None,
        )
    return comparison


def _physical(
    hlo: HloValue, value: HloIndexing, index: int, maps: list[IndexingMap]
) -> list[IndexingMap] | Unfollowed:
    """`maps` between physical indices: from the source's physical index to
    its logical one, through the map, to the target's physical index (as
    XLA's ``use_physical_layout``)."""
    operands = hlo.module.entry.operand_instructions(hlo.instruction)
    output = hlo.instruction.shape
    source: Shape | None
    target: Shape | None
    if value.operand is None:
        source, target = output, operands[index].shape if index < len(operands) else None
    else:
        source = operands[value.operand].shape if value.operand < len(operands) else None
        target = output
    if source is None or target is None or source.is_tuple or target.is_tuple:
        return Unfollowed("physical maps of a tuple shape are not modelled here")
    return [
        compose(compose(physical_to_logical(source), m), logical_to_physical(target)) for m in maps
    ]


def _combined(results: list[tuple[int, Comparison]]) -> Comparison:
    """One verdict for an instruction's operands: different if one is, else
    not comparable if one is, else equal."""
    for wanted in (Agreement.DIFFERENT, Agreement.NOT_COMPARABLE):
        found = [(operand, c) for operand, c in results if c.verdict is wanted]
        if found:
            operand, first = found[0]
            witness = None if first.witness is None else f"operand {operand}: {first.witness}"
            reason = None if first.reason is None else f"operand {operand}: {first.reason}"
            point = (
                None if first.witness_point is None else {"operand": operand, **first.witness_point}
            )
            return Comparison(wanted, witness, reason, point, first.computed, first.expected)
    return Comparison(Agreement.EQUAL)


def check_test(
    test: TestCase, filename: str, *, tile_file: bool = False, producer_first: bool = False
) -> list[Expectation]:
    """Every expectation of `test` this reader recognises, checked.

    `producer_first`: the file is from before XLA's commit 35bb0a5ed0
    (2024-02-01), when ``ComposeIndexingMaps(producer_map, consumer_map)``
    took the map applied second first; since, ``ComposeIndexingMaps(first,
    second)`` applies `first` first, as `verifier.expr.compose` does."""
    return list(_Test(test, filename, tile_file, producer_first).run())
