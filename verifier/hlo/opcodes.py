"""The one table of opcode facts: every opcode XLA's HLO text parser knows
(`xla/hlo/ir/hlo_opcode.h`), with what the floors need to know of it.

Each opcode has one frozen `Opcode` record in `OPCODE_TABLE`: how many
operands it takes, whether it is elementwise, whether it runs a called
computation on its operands, and so on.  Every other opcode set of the
package is derived from the table (`OPCODES`, `ELEMENTWISE_OPCODES`,
`CALLING_OPCODES`, `PLUMBING_OPCODES`, ...), never written out again; the
per-opcode *rules* (shape inference, indexing rules, validation) are tables
of functions keyed by these names, and `tests/hlo/test_opcode_tables.py`
checks they name only opcodes of this table and agree with its facts.

>>> OPCODE_TABLE["add"].least, OPCODE_TABLE["add"].most, OPCODE_TABLE["sort"].most
(2, 2, None)
>>> "add" in ELEMENTWISE_OPCODES, "transpose" in ELEMENTWISE_OPCODES
(True, False)

An instruction with any other opcode is rejected when the module is read,
as XLA rejects it, with the nearest known opcode as a hint:

>>> nearest_opcode_hint("dynamic_slice")
"; did you mean 'dynamic-slice'?"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from difflib import get_close_matches
from types import MappingProxyType
from typing import TypedDict, Unpack

from verifier.errors import InvalidHloError, SourceSpan


@dataclass(frozen=True)
class Opcode:
    """What the floors need to know of one opcode."""

    least: int
    """The fewest operands it takes."""
    most: int | None
    """The most operands it takes; None when any number from `least` up."""
    elementwise: bool = False
    """Output element ``d`` reads element ``d`` of every operand (a rank-0
    operand of `select` or `clamp` is read whole): its indexing rule is the
    identity, XLA's utilization heuristic passes its count through it."""
    tuple_operands: bool = False
    """It may take a tuple-shaped operand (the others take arrays)."""
    calls: bool = False
    """It runs a called computation on its operands: its maps are composed
    through that computation (`InstructionMaps.composed`)."""
    callees_run_once: bool = False
    """One run of it runs each computation it calls at most once (a loop,
    `map` or `reduce` runs its callee many times)."""
    plumbing: bool = False
    """It forwards tuple elements and computes nothing (`tuple`,
    `get-tuple-element`)."""
    own_async: bool = False
    """It has no ``<op>-start`` sugar: it has start/done opcodes of its own,
    or is an async opcode itself."""
    callee: str | None = None
    """The attribute naming the computation it runs on its operands, whose
    ROOT is its value (``to_apply`` of a `call`, ``calls`` of a `fusion`)."""
    computations: tuple[str, ...] = ()
    """The attributes naming a computation that XLA's parser requires of it
    (``to_apply`` of a `reduce`, ``select`` and ``scatter`` of a
    `select-and-scatter`); a module without one is not HLO."""


class _Facts(TypedDict, total=False):
    """The facts of a row besides its operand counts."""

    elementwise: bool
    tuple_operands: bool
    calls: bool
    callees_run_once: bool
    plumbing: bool
    own_async: bool
    callee: str
    computations: tuple[str, ...]


def _exactly(count: int, **facts: Unpack[_Facts]) -> Opcode:
    return Opcode(count, count, **facts)


def _at_least(count: int, **facts: Unpack[_Facts]) -> Opcode:
    return Opcode(count, None, **facts)


_APPLIES = ("to_apply",)

OPCODE_TABLE: Mapping[str, Opcode] = MappingProxyType(
    {
        "abs": _exactly(1, elementwise=True),
        "acos": _exactly(1, elementwise=True),
        "acosh": _exactly(1, elementwise=True),
        "add": _exactly(2, elementwise=True),
        "add-dependency": _at_least(0, tuple_operands=True),
        "after-all": _at_least(0, tuple_operands=True),
        "all-gather": _at_least(1, own_async=True),
        "all-gather-done": _at_least(1),
        "all-gather-start": _at_least(1),
        "all-reduce": _at_least(1, own_async=True, computations=_APPLIES),
        "all-reduce-done": _at_least(1, tuple_operands=True),
        "all-reduce-start": _at_least(1, computations=_APPLIES),
        "all-to-all": _at_least(1),
        "and": _exactly(2, elementwise=True),
        "asin": _exactly(1, elementwise=True),
        "asinh": _exactly(1, elementwise=True),
        "async-done": _at_least(1, own_async=True),
        "async-start": _at_least(0, calls=True, own_async=True, computations=("calls",)),
        "async-update": _at_least(1, own_async=True),
        "atan2": _exactly(2, elementwise=True),
        "atanh": _exactly(1, elementwise=True),
        "batch-norm-grad": _at_least(5),
        "batch-norm-inference": _at_least(5),
        "batch-norm-training": _at_least(3),
        "bitcast": _exactly(1),
        "bitcast-convert": _exactly(1),
        "broadcast": _exactly(1),
        "call": _at_least(
            0,
            callee="to_apply",
            tuple_operands=True,
            calls=True,
            callees_run_once=True,
            computations=_APPLIES,
        ),
        "cbrt": _exactly(1, elementwise=True),
        "ceil": _exactly(1, elementwise=True),
        "cholesky": _exactly(1),
        "clamp": _exactly(3, elementwise=True),
        "collective-broadcast": _at_least(1),
        "collective-permute": _at_least(1, own_async=True),
        "collective-permute-done": _at_least(1),
        "collective-permute-start": _at_least(1),
        "collective-reduce": _at_least(0, computations=_APPLIES),
        "compare": _exactly(2, elementwise=True),
        "complex": _exactly(2, elementwise=True),
        "concatenate": _at_least(1),
        "conditional": _at_least(1, tuple_operands=True, calls=True, callees_run_once=True),
        "constant": _exactly(0),
        "convert": _exactly(1, elementwise=True),
        "convolution": _exactly(2),
        "copy": _exactly(1, tuple_operands=True, own_async=True),
        "copy-done": _at_least(1),
        "copy-start": _at_least(0),
        "cosh": _exactly(1, elementwise=True),
        "cosine": _exactly(1, elementwise=True),
        "count-leading-zeros": _exactly(1, elementwise=True),
        "custom-call": _at_least(0),
        "divide": _exactly(2, elementwise=True),
        "domain": _at_least(0, tuple_operands=True),
        "dot": _exactly(2),
        "dynamic-reshape": _at_least(1),
        "dynamic-slice": _at_least(2),
        "dynamic-update-slice": _at_least(3),
        "erf": _exactly(1, elementwise=True),
        "exponential": _exactly(1, elementwise=True),
        "exponential-minus-one": _exactly(1, elementwise=True),
        "fft": _exactly(1),
        "floor": _exactly(1, elementwise=True),
        "fusion": _at_least(
            0, callee="calls", calls=True, callees_run_once=True, computations=("calls",)
        ),
        "gather": _exactly(2),
        "get-dimension-size": _at_least(1),
        "get-tuple-element": _exactly(1, tuple_operands=True, plumbing=True),
        "imag": _exactly(1, elementwise=True),
        "infeed": _at_least(1),
        "iota": _exactly(0),
        "is-finite": _exactly(1, elementwise=True),
        "log": _exactly(1, elementwise=True),
        "log-plus-one": _exactly(1, elementwise=True),
        "logistic": _exactly(1, elementwise=True),
        "map": _at_least(1, elementwise=True, computations=_APPLIES),
        "maximum": _exactly(2, elementwise=True),
        "minimum": _exactly(2, elementwise=True),
        "mulhi": _exactly(2, elementwise=True),
        "multiply": _exactly(2, elementwise=True),
        "negate": _exactly(1, elementwise=True),
        "not": _exactly(1, elementwise=True),
        "opt-barrier": _at_least(0, tuple_operands=True),
        "or": _exactly(2, elementwise=True),
        "outfeed": _at_least(2, tuple_operands=True),
        "pad": _exactly(2),
        "parameter": _exactly(0),
        "partition-id": _at_least(0),
        "popcnt": _exactly(1, elementwise=True),
        "power": _exactly(2, elementwise=True),
        "ragged-all-to-all": _at_least(0),
        "ragged-dot": _at_least(0),
        "real": _exactly(1, elementwise=True),
        "recv": _at_least(1, own_async=True),
        "recv-done": _at_least(1, tuple_operands=True),
        "reduce": _at_least(2, computations=_APPLIES),
        "reduce-precision": _exactly(1, elementwise=True),
        "reduce-scatter": _at_least(1, computations=_APPLIES),
        "reduce-window": _at_least(2, computations=_APPLIES),
        "remainder": _exactly(2, elementwise=True),
        "replica-id": _at_least(0),
        "reshape": _exactly(1),
        "reverse": _exactly(1),
        "rng": _at_least(0),
        "rng-bit-generator": _at_least(1),
        "rng-get-and-update-state": _at_least(0),
        "round-nearest-afz": _exactly(1, elementwise=True),
        "round-nearest-even": _exactly(1, elementwise=True),
        "rsqrt": _exactly(1, elementwise=True),
        "scaled-dot": _at_least(0),
        "scan": _at_least(0, computations=_APPLIES),
        "scatter": _at_least(3, computations=_APPLIES),
        "select": _exactly(3, elementwise=True),
        "select-and-scatter": _at_least(3, computations=("select", "scatter")),
        "send": _at_least(2, tuple_operands=True, own_async=True),
        "send-done": _at_least(1),
        "set-dimension-size": _at_least(2),
        "shift-left": _exactly(2, elementwise=True),
        "shift-right-arithmetic": _exactly(2, elementwise=True),
        "shift-right-logical": _exactly(2, elementwise=True),
        "sign": _exactly(1, elementwise=True),
        "sine": _exactly(1, elementwise=True),
        "sinh": _exactly(1, elementwise=True),
        "slice": _exactly(1),
        "sort": _at_least(1, computations=_APPLIES),
        "sqrt": _exactly(1, elementwise=True),
        "stochastic-convert": _exactly(2, elementwise=True),
        "subtract": _exactly(2, elementwise=True),
        "tan": _exactly(1, elementwise=True),
        "tanh": _exactly(1, elementwise=True),
        "topk": _at_least(0),
        "transpose": _exactly(1),
        "triangular-solve": _exactly(2),
        "tuple": _at_least(0, tuple_operands=True, plumbing=True),
        "tuple-select": _exactly(3, tuple_operands=True),
        "while": _at_least(1, tuple_operands=True, calls=True, computations=("condition", "body")),
        "xor": _exactly(2, elementwise=True),
    }
)
"""Every opcode the parser knows, with its facts."""

OPCODES: frozenset[str] = frozenset(OPCODE_TABLE)
ELEMENTWISE_OPCODES = frozenset(op for op, facts in OPCODE_TABLE.items() if facts.elementwise)
TUPLE_OPERAND_OPCODES = frozenset(op for op, f in OPCODE_TABLE.items() if f.tuple_operands)
CALLING_OPCODES = frozenset(op for op, facts in OPCODE_TABLE.items() if facts.calls)
CALLEES_RUN_ONCE = frozenset(op for op, facts in OPCODE_TABLE.items() if facts.callees_run_once)
PLUMBING_OPCODES = frozenset(op for op, facts in OPCODE_TABLE.items() if facts.plumbing)
NATIVE_ASYNC = frozenset(op for op, facts in OPCODE_TABLE.items() if facts.own_async)
CALLEE_ATTRIBUTE: Mapping[str, str] = MappingProxyType(
    {op: facts.callee for op, facts in OPCODE_TABLE.items() if facts.callee is not None}
)


def nearest_opcode_hint(opcode: str) -> str:
    """`"; did you mean 'x'?"` for the known opcode nearest to `opcode`, or ''.

    >>> nearest_opcode_hint("zzzzzz")
    ''
    """
    close = get_close_matches(opcode.replace("_", "-").lower(), sorted(OPCODES), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


_ASYNC_FORMS = (("-start", "async-start"), ("-update", "async-update"), ("-done", "async-done"))


def async_sugar(word: str) -> tuple[str, str] | None:
    """``(async opcode, wrapped opcode)`` when `word` is XLA's shorthand for an
    async op wrapping one instruction (``<op>-start``, ``-update``, ``-done``
    for any opcode but those of `NATIVE_ASYNC`), else None.

    >>> async_sugar("all-to-all-start"), async_sugar("fusion-done")
    (('async-start', 'all-to-all'), ('async-done', 'fusion'))
    >>> async_sugar("send-update"), async_sugar("all-gather-start"), async_sugar("foo-start")
    (None, None, None)
    """
    if word in OPCODES:
        return None
    for suffix, opcode in _ASYNC_FORMS:
        wrapped = word.removesuffix(suffix)
        if wrapped != word and wrapped in OPCODES and wrapped not in NATIVE_ASYNC:
            return opcode, wrapped
    return None


def check_arity(opcode: str, count: int, span: SourceSpan) -> None:
    """Raise `InvalidHloError` at `span` when `opcode` cannot take `count` operands.

    >>> check_arity("add", 1, SourceSpan("m.hlo", 3, 3))
    Traceback (most recent call last):
    ...
    verifier.errors.InvalidHloError: m.hlo:3:3: add takes 2 operands, not 1
    >>> check_arity("scatter", 2, SourceSpan("m.hlo", 4, 3))
    Traceback (most recent call last):
    ...
    verifier.errors.InvalidHloError: m.hlo:4:3: scatter takes at least 3 operands, not 2
    """
    facts = OPCODE_TABLE.get(opcode)
    if facts is None:
        return
    if facts.most == facts.least and count != facts.least:
        raise InvalidHloError(f"{opcode} takes {facts.least} operands, not {count}", span)
    if count < facts.least:
        raise InvalidHloError(f"{opcode} takes at least {facts.least} operands, not {count}", span)
