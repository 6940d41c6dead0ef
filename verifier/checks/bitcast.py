"""The bitcast check: a bitcast reinterprets the same buffer, so it is valid
when both buffers have the same bytes and the bits held by real elements are
the same set on both sides — no element lands on the other side's tile
padding or past its end, none is lost.

Questions, each with a witness, all about offset maps (never a walk over
elements, so the cost does not grow with the tensors, and every isl call
runs under the deterministic operation budget — exhausting it is
``unknown``):

1. the buffers have the same bytes (`verifier.indexing.layout.buffer_bytes`:
   XLA's ``ShapeUtil::ArraySize``) — unsupported when they differ and a
   side has no layout written (HLO before layout assignment, where XLA's
   verifier lets a bitcast change its size);
2. on each side, every element's offset lies inside its buffer (a nested
   tiling can pad beyond the first tiling, which the buffer does not count);
3. the bits of the output's elements are bits of the operand's: with
   ``u = gcd`` of the two slot widths, a side with ``w``-bit slots holds
   the ``u``-bit units ``x`` whose slot ``x floordiv (w / u)`` holds an
   element (the domain of the inverse layout), and the output's unit set
   must lie in the operand's (isl) — equal, unless the output has fewer
   element bits: a bitcast to fewer elements over the same bytes (XLA's
   verifier allows it) drops the rest, but no output element may read a
   bit no operand element holds;
4. when the bitcast's output→input maps are known, they relate exactly the
   pairs whose bits overlap (`verifier.indexing.bitcast`, from the offsets).

``f32[3,5]{1,0:T(2,2)}`` (24 slots) bitcast to ``f32[15]{0}``:

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr import Undefined
>>> from verifier.hlo import parse_shape
>>> result = check_bitcast(parse_shape("f32[3,5]{1,0:T(2,2)}"), parse_shape("f32[15]{0}"),
...                        Undefined("tiled"), MemoryCache())
>>> result.outcome.value, result.message
('refuted', 'the operand has 96 bytes (24 slots of 32 bits) and the output 60 bytes (15 slots of 32 bits)')
>>> check_bitcast(parse_shape("s4[16]{0:E(4)}"), parse_shape("s8[8]{0}"),
...               Undefined("x"), MemoryCache()).message
'the same 8 bytes: every bit of every element is kept'
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, prod

from verifier.analysis.instruction_maps import Indexing
from verifier.analysis.layout import (
    buffer_bytes,
    buffer_elements,
    logical_index,
    overlapping_slots,
    physical_offset,
    slot_bits,
)
from verifier.bridges import isl_questions, isl_sets
from verifier.checks.budget import Budget
from verifier.checks.cache import ProofCache, cached
from verifier.checks.result import DEFAULT_BUDGET, CheckResult, tuple_text, union_key
from verifier.checks.verdict import Outcome
from verifier.errors import UnsupportedError
from verifier.expr import Expr, IndexingMap, Interval, Undefined, Var, compose, dim, substitute
from verifier.hlo import Shape

CHECK = "bitcast"


@dataclass(frozen=True)
class _Side:
    """One side of the bitcast: its name, offsets, slot width and buffer."""

    name: str
    shape: Shape
    offset: IndexingMap
    inverse: IndexingMap
    slot_bits: int
    elements: int
    bytes: int

    @staticmethod
    def of(name: str, shape: Shape) -> _Side:
        return _Side(
            name,
            shape,
            physical_offset(shape),
            logical_index(shape),
            slot_bits(shape),
            buffer_elements(shape),
            buffer_bytes(shape),
        )

    def __str__(self) -> str:
        return f"{self.bytes} bytes ({self.elements} slots of {self.slot_bits} bits)"


def check_bitcast(
    operand: Shape,
    output: Shape,
    output_to_input: Indexing,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
) -> CheckResult:
    """Whether ``output = bitcast(operand)`` keeps every element's bits."""
    try:
        sides = _Side.of("operand", operand), _Side.of("output", output)
    except (UnsupportedError, ValueError) as error:
        return CheckResult(Outcome.UNSUPPORTED, f"layout not modelled: {error}")
    known = "" if isinstance(output_to_input, Undefined) else union_key(output_to_input)
    key = f"{CHECK}|{operand}|{output}|{known}"

    def ask() -> dict[str, object]:
        return _decide(*sides, output_to_input, budget.isl_operations).to_answer()

    return cached(cache, key, ask, CheckResult.from_answer)


def _decide(
    operand: _Side, output: _Side, output_to_input: Indexing, max_operations: int
) -> CheckResult:
    if operand.bytes != output.bytes and None in (operand.shape.layout, output.shape.layout):
        return CheckResult(
            Outcome.UNSUPPORTED,
            f"the operand has {operand} and the output {output}, and a side has no layout: "
            "before layout assignment XLA lets a bitcast change its size (its verifier "
            "compares the sizes only with layouts), so there are no buffers to compare",
        )
    if operand.bytes != output.bytes:
        return CheckResult(
            Outcome.REFUTED,
            f"the operand has {operand} and the output {output}",
            (("operand_bytes", operand.bytes), ("output_bytes", output.bytes)),
        )
    for side in (operand, output):
        inside = _inside_buffer(side, max_operations)
        if inside is not None:
            return inside
    kept = _same_bits(operand, output, max_operations)
    if kept.outcome is not Outcome.PROVED:
        return kept
    if not isinstance(output_to_input, Undefined):
        read = _reads_overlapping_bits(operand, output, output_to_input, max_operations)
        if read is not None:
            return read
    return kept


def _inside_buffer(side: _Side, max_operations: int) -> CheckResult | None:
    """A refutation when an element's offset is past the side's buffer."""
    found = isl_sets.escape(side.offset, [side.elements], max_operations=max_operations)
    if found.found is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted bounding offsets")
    if not found.found:
        return None
    point = dict(found.witness)
    element = tuple(point[f"d{i}"] for i in range(side.shape.rank))
    offset = point["r0"]
    return CheckResult(
        Outcome.REFUTED,
        f"{side.name} element {tuple_text(element)} is at offset {offset}, past its "
        f"buffer's {side.elements} slots (a later tiling pads beyond the first)",
        (*((f"{side.name}_d{i}", v) for i, v in enumerate(element)), ("offset", offset)),
    )


def _units(side: _Side, unit: int) -> IndexingMap:
    """``(d0) -> (d0)`` over the `unit`-bit units ``d0`` of the side's buffer
    held by an element: the slot ``d0 floordiv (w / unit)`` is in the domain
    of the side's inverse layout (`logical_index`, a function of the offset:
    no element variables to project out, which isl finds costly)."""
    per_slot = side.slot_bits // unit
    slots = side.inverse.bounds(dim(0))

    def slot_of(variable: Var) -> Expr:
        return variable // per_slot if variable == dim(0) else variable

    return IndexingMap.create(
        [Interval(slots.lower * per_slot, slots.upper * per_slot + per_slot - 1)],
        [dim(0)],
        constraints=[(substitute(e, slot_of), b) for e, b in side.inverse.constraints],
    )


def _same_bits(operand: _Side, output: _Side, max_operations: int) -> CheckResult:
    """Every bit an output element holds is a bit an operand element holds
    (no output element reads padding); the operand may hold more only when
    the output has fewer element bits (a bitcast to fewer elements drops the
    rest, as XLA lets it: the buffers have the same bytes)."""
    unit = gcd(operand.slot_bits, output.slot_bits)
    answer = isl_questions.compare_relations(
        _units(output, unit), _units(operand, unit), max_operations=max_operations
    )
    if answer.differs is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted comparing bits")
    if answer.vacuous:
        return CheckResult(Outcome.VACUOUS, "no elements on either side")
    if not answer.differs:
        return CheckResult(
            Outcome.PROVED, f"the same {operand.bytes} bytes: every bit of every element is kept"
        )
    if answer.only_in == "b":
        return CheckResult(
            Outcome.PROVED,
            f"the same {operand.bytes} bytes: every bit of every output element is an operand "
            f"element's, and the output's {prod(output.shape.dimensions)} elements keep part "
            f"of the operand's {prod(operand.shape.dimensions)} (a bitcast to fewer elements)",
        )
    first_bit = dict(answer.witness)["d0"] * unit
    offset = first_bit // output.slot_bits
    element = output.inverse.evaluate({dim(0): offset})
    return CheckResult(
        Outcome.REFUTED,
        f"output element {tuple_text(element)} at offset {offset} holds bit {first_bit}, "
        "which the operand's layout leaves as padding",
        (
            *((f"output_d{i}", v) for i, v in enumerate(element)),
            ("offset", offset),
            ("bit", first_bit),
        ),
    )


def _reads_overlapping_bits(
    operand: _Side, output: _Side, output_to_input: tuple[IndexingMap, ...], max_operations: int
) -> CheckResult | None:
    """A refutation when the output→input maps relate a pair whose bits do
    not overlap, or miss one whose bits do."""
    slots = overlapping_slots(output.offset, output.slot_bits, operand.slot_bits)
    expected = compose(slots, logical_index(operand.shape))
    answer = isl_sets.compare_unions(
        output_to_input,
        [expected],
        num_in=output.shape.rank,
        num_out=operand.shape.rank,
        max_operations=max_operations,
    )
    if answer.differs is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted comparing the maps")
    if not answer.differs:
        return None
    relation = "reads" if answer.only_in == 0 else "does not read"
    overlap = "whose bits it does not overlap" if answer.only_in == 0 else "whose bits it overlaps"
    return CheckResult(
        Outcome.REFUTED,
        f"output element {tuple_text(answer.source)} {relation} operand element "
        f"{tuple_text(answer.target)}, {overlap}",
        (
            *((f"d{i}", v) for i, v in enumerate(answer.source)),
            *((f"operand_d{i}", v) for i, v in enumerate(answer.target)),
        ),
    )
