"""Every opcode XLA's HLO text parser knows (`xla/hlo/ir/hlo_opcode.h`).

An instruction with any other opcode is rejected when the module is read,
as XLA rejects it, with the nearest known opcode as a hint:

>>> nearest_opcode_hint("dynamic_slice")
"; did you mean 'dynamic-slice'?"
"""

from __future__ import annotations

from difflib import get_close_matches

from verifier.errors import InvalidHloError, SourceSpan

OPCODES: frozenset[str] = frozenset(
    [
        "abs",
        "acos",
        "acosh",
        "add",
        "add-dependency",
        "after-all",
        "all-gather",
        "all-gather-done",
        "all-gather-start",
        "all-reduce",
        "all-reduce-done",
        "all-reduce-start",
        "all-to-all",
        "and",
        "asin",
        "asinh",
        "async-done",
        "async-start",
        "async-update",
        "atan2",
        "atanh",
        "batch-norm-grad",
        "batch-norm-inference",
        "batch-norm-training",
        "bitcast",
        "bitcast-convert",
        "broadcast",
        "call",
        "cbrt",
        "ceil",
        "cholesky",
        "clamp",
        "collective-reduce",
        "cosh",
        "count-leading-zeros",
        "cosine",
        "collective-broadcast",
        "collective-permute",
        "collective-permute-done",
        "collective-permute-start",
        "compare",
        "complex",
        "concatenate",
        "conditional",
        "constant",
        "convert",
        "convolution",
        "copy",
        "copy-done",
        "copy-start",
        "custom-call",
        "divide",
        "domain",
        "dot",
        "dynamic-reshape",
        "dynamic-slice",
        "dynamic-update-slice",
        "erf",
        "exponential",
        "exponential-minus-one",
        "fft",
        "floor",
        "fusion",
        "gather",
        "get-dimension-size",
        "get-tuple-element",
        "imag",
        "infeed",
        "iota",
        "is-finite",
        "log",
        "log-plus-one",
        "logistic",
        "map",
        "maximum",
        "minimum",
        "mulhi",
        "multiply",
        "negate",
        "not",
        "opt-barrier",
        "or",
        "outfeed",
        "pad",
        "parameter",
        "partition-id",
        "popcnt",
        "power",
        "ragged-all-to-all",
        "ragged-dot",
        "real",
        "recv",
        "recv-done",
        "reduce",
        "reduce-precision",
        "reduce-scatter",
        "reduce-window",
        "remainder",
        "replica-id",
        "reshape",
        "reverse",
        "rng",
        "rng-bit-generator",
        "rng-get-and-update-state",
        "round-nearest-afz",
        "round-nearest-even",
        "rsqrt",
        "scaled-dot",
        "scan",
        "scatter",
        "select",
        "select-and-scatter",
        "send",
        "send-done",
        "set-dimension-size",
        "shift-left",
        "shift-right-arithmetic",
        "shift-right-logical",
        "sign",
        "sine",
        "sinh",
        "slice",
        "sort",
        "sqrt",
        "stochastic-convert",
        "subtract",
        "tan",
        "tanh",
        "topk",
        "transpose",
        "triangular-solve",
        "tuple",
        "while",
        "xor",
    ]
)


def nearest_opcode_hint(opcode: str) -> str:
    """`"; did you mean 'x'?"` for the known opcode nearest to `opcode`, or ''.

    >>> nearest_opcode_hint("zzzzzz")
    ''
    """
    close = get_close_matches(opcode.replace("_", "-").lower(), sorted(OPCODES), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


_ASYNC_FORMS = (("-start", "async-start"), ("-update", "async-update"), ("-done", "async-done"))
NATIVE_ASYNC = frozenset(
    {"all-gather", "all-reduce", "collective-permute", "copy", "recv", "send"}
    | {opcode for _, opcode in _ASYNC_FORMS}
)
"""Opcodes with no ``<op>-start`` sugar: their own start/done pairs (or none),
and the async ops themselves."""


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


_UNARY = """
    abs acos acosh asin asinh atanh bitcast bitcast-convert broadcast cbrt ceil cholesky
    convert copy cosh cosine sinh
    count-leading-zeros erf exponential exponential-minus-one fft floor get-tuple-element
    imag is-finite log log-plus-one logistic negate not popcnt real reduce-precision
    reshape reverse round-nearest-afz round-nearest-even rsqrt sign sine slice sqrt tan
    tanh transpose
"""
_BINARY = """
    add and atan2 compare complex divide dot gather maximum minimum mulhi multiply or pad
    power remainder shift-left shift-right-arithmetic shift-right-logical subtract xor
    convolution triangular-solve stochastic-convert
"""
ARITY: dict[str, int] = {
    **dict.fromkeys(_UNARY.split(), 1),
    **dict.fromkeys(_BINARY.split(), 2),
    "select": 3,
    "clamp": 3,
    "iota": 0,
    "constant": 0,
    "parameter": 0,
}
"""Opcodes that take a fixed number of operands."""

MINIMUM_ARITY: dict[str, int] = {
    "dynamic-slice": 2,
    "dynamic-update-slice": 3,
    "concatenate": 1,
    "scatter": 3,
    "reduce": 2,
    "reduce-window": 2,
    "select-and-scatter": 3,
    "sort": 1,
    "map": 1,
    "while": 1,
    "conditional": 1,
    "dynamic-reshape": 1,
    "all-gather": 1,
    "all-gather-start": 1,
    "all-reduce": 1,
    "all-reduce-start": 1,
    "reduce-scatter": 1,
    "all-to-all": 1,
    "collective-permute": 1,
    "collective-permute-start": 1,
    "collective-broadcast": 1,
    "get-dimension-size": 1,
    "set-dimension-size": 2,
    "batch-norm-inference": 5,
    "batch-norm-training": 3,
    "batch-norm-grad": 5,
    "rng-bit-generator": 1,
    "async-update": 1,
    "async-done": 1,
    "copy-done": 1,
    "all-reduce-done": 1,
    "all-gather-done": 1,
    "collective-permute-done": 1,
    "send-done": 1,
    "recv-done": 1,
    "send": 2,
    "recv": 1,
    "infeed": 1,
    "outfeed": 2,
}
"""Opcodes that take at least this many operands."""


def check_arity(opcode: str, count: int, span: SourceSpan) -> None:
    """Raise `InvalidHloError` at `span` when `opcode` cannot take `count` operands.

    >>> check_arity("add", 1, SourceSpan("m.hlo", 3, 3))
    Traceback (most recent call last):
    ...
    verifier.errors.InvalidHloError: m.hlo:3:3: add takes 2 operands, not 1
    """
    exact = ARITY.get(opcode)
    if exact is not None and count != exact:
        raise InvalidHloError(f"{opcode} takes {exact} operands, not {count}", span)
    least = MINIMUM_ARITY.get(opcode)
    if least is not None and count < least:
        raise InvalidHloError(f"{opcode} takes at least {least} operands, not {count}", span)
