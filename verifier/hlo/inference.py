"""The shape XLA infers for an instruction written without one.

XLA's parser lets most opcodes omit their result shape
(`s = add(p0, p1)`, `g = get-tuple-element(t), index=0`, `t = tuple(a, b)`)
and infers it from the operands, the attributes and the called
computations.  `infer_shape` does the same, one small function per opcode
family in a table (`INFERENCE`): adding an opcode is adding an entry.
An opcode XLA cannot infer either (`broadcast` to new dims, `reshape`,
`convert`, `iota`, `constant`, `parameter`...) gets an `InvalidHloError`
that says to write the shape.

>>> from verifier.hlo.shape import parse_shape
>>> from verifier.hlo.attributes import Attributes
>>> str(infer_shape("dot", (parse_shape("f32[2,3]"), parse_shape("f32[3,5]")),
...     Attributes((("lhs_contracting_dims", (1,)), ("rhs_contracting_dims", (0,)))),
...     {}))
'f32[2,5]'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from verifier.errors import InvalidHloError, SourceSpan
from verifier.hlo.attributes import (
    Attributes,
    PaddingDim,
    SliceDim,
    WindowDim,
)
from verifier.hlo.shape import Shape, element_bit_width

_NO_PLACE = SourceSpan("<built>", 1, 1)


class _Cannot(Exception):
    """Why a shape does not follow; `infer_shape` adds the instruction's place."""


class _CalleeNotYetRead(_Cannot):
    """The shape depends on a computation not read yet (or not given)."""


@dataclass(frozen=True)
class _Request:
    """What an inference function sees: operands, attributes, called roots."""

    opcode: str
    operands: Sequence[Shape]
    attributes: Attributes
    roots: Mapping[str, Shape]

    def operand(self, index: int) -> Shape:
        if index >= len(self.operands):
            raise _Cannot(f"{self.opcode} needs at least {index + 1} operands")
        shape = self.operands[index]
        if shape.tuple_shapes is not None and self.opcode not in _TUPLE_OPERANDS:
            raise _Cannot(f"operand {index} is a tuple {shape}, {self.opcode} takes arrays")
        return shape

    def ints(self, name: str) -> tuple[int, ...]:
        value = self.attributes.ints(name)
        if value is None:
            raise _Cannot(f"{self.opcode} needs the attribute '{name}'")
        return value

    def root(self, attribute: str) -> Shape:
        """The ROOT shape of the computation named by `attribute`."""
        names = self.attributes.names(attribute)
        name = names[0] if names else self.attributes.word(attribute)
        if name is None:
            raise _Cannot(f"{self.opcode} needs the attribute '{attribute}'")
        if name not in self.roots:
            raise _CalleeNotYetRead(f"computation '{name}' must be defined before it is called")
        return self.roots[name]


_TUPLE_OPERANDS = frozenset(
    {"get-tuple-element", "tuple", "while", "call", "conditional", "copy", "opt-barrier"}
)


def infer_shape(
    opcode: str,
    operands: Sequence[Shape],
    attributes: Attributes,
    roots: Mapping[str, Shape],
    span: SourceSpan = _NO_PLACE,
    name: str = "",
) -> Shape:
    """The result shape of `opcode` applied to `operands` (layouts default).

    `roots` maps each computation defined so far to its ROOT shape (for
    `call`, `fusion`, `conditional`, `map`).  Raises `InvalidHloError` at
    `span` when the shape does not follow, saying why.
    """
    infer = INFERENCE.get(opcode)
    if infer is None:
        raise InvalidHloError(
            f"XLA infers no shape for {opcode}: write it (e.g. 'x = f32[4] {opcode}(...)')", span
        )
    try:
        return infer(_Request(opcode, operands, attributes, roots))
    except _Cannot as error:
        what = f"{opcode} '{name}'" if name else f"this {opcode}"
        raise InvalidHloError(f"cannot infer the shape of {what}: {error}", span) from None


def check_shape(
    written: Shape,
    opcode: str,
    operands: Sequence[Shape],
    attributes: Attributes,
    roots: Mapping[str, Shape],
    span: SourceSpan = _NO_PLACE,
    name: str = "",
) -> None:
    """Raise `InvalidHloError` when `written` is not the shape the operands and
    attributes give (dimensions and tuple structure; layouts, and the element
    types some ops let the writer choose, aside), as XLA's verifier does.
    Opcodes XLA cannot infer a shape for are checked by `VALIDATION` when
    they have an entry there; the others pass, and so do calls of a
    computation missing from `roots`.

    >>> from verifier.hlo.shape import parse_shape
    >>> check_shape(parse_shape("f32[3]"), "transpose", (parse_shape("f32[2,3]"),),
    ...     Attributes((("dimensions", (1, 0)),)), {})
    Traceback (most recent call last):
    ...
    verifier.errors.InvalidHloError: <built>:1:1: transpose is not valid HLO: it is written f32[3], its operands and attributes give f32[3,2]
    """
    request = _Request(opcode, operands, attributes, roots)
    subject = f"{opcode} '{name}'" if name else opcode
    validate = VALIDATION.get(opcode)
    if validate is not None:
        try:
            validate(written, request)
        except _Cannot as error:
            raise InvalidHloError(f"{subject} is not valid HLO: {error}", span) from None
    infer = INFERENCE.get(opcode)
    if infer is None:
        return
    try:
        inferred = infer(request)
    except _CalleeNotYetRead:
        return  # nothing to compare with
    except _Cannot as error:
        raise InvalidHloError(f"{subject} is not valid HLO: {error}", span) from None
    if not _same_dimensions(inferred, written):
        raise InvalidHloError(
            f"{subject} is not valid HLO: it is written {written}, its operands and "
            f"attributes give {inferred}",
            span,
        )


def _same_dimensions(a: Shape, b: Shape) -> bool:
    """Equal dimension sizes and tuple structure (element types and layouts aside)."""
    if a.tuple_shapes is not None or b.tuple_shapes is not None:
        return (
            a.tuple_shapes is not None
            and b.tuple_shapes is not None
            and len(a.tuple_shapes) == len(b.tuple_shapes)
            and all(map(_same_dimensions, a.tuple_shapes, b.tuple_shapes))
        )
    return a.dimensions == b.dimensions


def _array(element_type: str, dimensions: Sequence[int]) -> Shape:
    return Shape(element_type, tuple(dimensions))


def _same_as_operand(index: int) -> Callable[[_Request], Shape]:
    def infer(request: _Request) -> Shape:
        shape = request.operand(index)
        return _array(shape.element_type, shape.dimensions)

    return infer


def _whole_operand(request: _Request) -> Shape:
    """The operand's shape, tuples included (copy, while, opt-barrier)."""
    return request.operand(0)


def _elementwise(request: _Request) -> Shape:
    """Every operand has the same dimensions, except the scalars `select`
    (its predicate) and `clamp` (its bounds) broadcast implicitly."""
    arrays = [request.operand(k) for k in range(len(request.operands))]
    if not arrays:
        raise _Cannot("an elementwise op needs operands")
    largest = max(arrays, key=lambda shape: shape.rank)
    scalars_allowed = request.opcode in ("select", "clamp")
    for index, shape in enumerate(arrays):
        if shape.dimensions != largest.dimensions and not (scalars_allowed and not shape.rank):
            raise _Cannot(
                f"operand {index} has dimensions {list(shape.dimensions)}, another "
                f"{list(largest.dimensions)}"
            )
    value = arrays[1] if request.opcode in ("select", "clamp") and len(arrays) > 1 else arrays[0]
    return _array(value.element_type, largest.dimensions)


def _compare(request: _Request) -> Shape:
    return _array("pred", _elementwise(request).dimensions)


_COMPLEX_PARTS = {"c64": "f32", "c128": "f64"}


def _complex_part(request: _Request) -> Shape:
    shape = request.operand(0)
    return _array(_COMPLEX_PARTS.get(shape.element_type, shape.element_type), shape.dimensions)


def _is_finite(request: _Request) -> Shape:
    return _array("pred", request.operand(0).dimensions)


def _tuple(request: _Request) -> Shape:
    return Shape.tuple_of(*request.operands)


def _get_tuple_element(request: _Request) -> Shape:
    shape = request.operand(0)
    index = request.attributes.integer("index")
    if index is None:
        raise _Cannot("get-tuple-element needs the attribute 'index'")
    elements = shape.tuple_shapes
    if elements is None or not 0 <= index < len(elements):
        raise _Cannot(f"index={index} is not an element of {shape}")
    return elements[index]


def _called_root(attribute: str) -> Callable[[_Request], Shape]:
    def infer(request: _Request) -> Shape:
        return request.root(attribute)

    return infer


def _conditional(request: _Request) -> Shape:
    if request.attributes.names("branch_computations") is not None:
        return request.root("branch_computations")
    return request.root("true_computation")


def _map(request: _Request) -> Shape:
    return _array(request.root("to_apply").element_type, request.operand(0).dimensions)


def _several(shapes: Sequence[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape.tuple_of(*shapes)


def _each_operand(request: _Request) -> Shape:
    """One result per operand (sort, all-reduce, opt-barrier...)."""
    return _several([_array(s.element_type, s.dimensions) for s in request.operands])


def _concatenate(request: _Request) -> Shape:
    dimensions = request.ints("dimensions")
    first = request.operand(0)
    if len(dimensions) != 1 or not 0 <= dimensions[0] < first.rank:
        raise _Cannot(f"dimensions={list(dimensions)} is not one dimension of {first}")
    axis = dimensions[0]
    sizes = list(first.dimensions)
    for index in range(1, len(request.operands)):
        other = request.operand(index)
        if other.rank != first.rank or any(
            a != b
            for k, (a, b) in enumerate(zip(first.dimensions, other.dimensions, strict=True))
            if k != axis
        ):
            raise _Cannot(
                f"operand {index} has dimensions {list(other.dimensions)}, which differ from "
                f"operand 0's {list(first.dimensions)} outside the concatenated dimension {axis}"
            )
        sizes[axis] += other.dimensions[axis]
    return _array(first.element_type, sizes)


def _pad(request: _Request) -> Shape:
    operand = request.operand(0)
    padding = request.attributes.get("padding", ())
    if not isinstance(padding, tuple) or len(padding) != operand.rank:
        raise _Cannot(f"padding does not give one low_high_interior per dimension of {operand}")
    sizes = [
        config.low + config.high + size + max(size - 1, 0) * config.interior
        for size, config in zip(operand.dimensions, padding, strict=True)
        if isinstance(config, PaddingDim)
    ]
    if len(sizes) != operand.rank or any(size < 0 for size in sizes):
        raise _Cannot(f"padding gives the negative dimensions {sizes}")
    return _array(operand.element_type, sizes)


def _slice(request: _Request) -> Shape:
    operand = request.operand(0)
    dims = request.attributes.get("slice")
    if not isinstance(dims, tuple) or len(dims) != operand.rank:
        raise _Cannot(f"slice does not give one [start:limit:stride] per dimension of {operand}")
    sizes = []
    for size, dim in zip(operand.dimensions, dims, strict=True):
        if not isinstance(dim, SliceDim) or not 0 <= dim.start <= dim.limit <= size:
            raise _Cannot(f"slice {dim} is not inside a dimension of size {size}")
        sizes.append(dim.size)
    return _array(operand.element_type, sizes)


def _transpose(request: _Request) -> Shape:
    operand = request.operand(0)
    permutation = request.ints("dimensions")
    if sorted(permutation) != list(range(operand.rank)):
        raise _Cannot(f"dimensions={list(permutation)} is not a permutation of {operand}'s dims")
    return _array(operand.element_type, [operand.dimensions[k] for k in permutation])


def _dot(request: _Request) -> Shape:
    lhs, rhs = request.operand(0), request.operand(1)
    attributes = request.attributes
    lhs_batch = attributes.ints("lhs_batch_dims") or ()
    rhs_batch = attributes.ints("rhs_batch_dims") or ()
    lhs_contracting = attributes.ints("lhs_contracting_dims") or ()
    rhs_contracting = attributes.ints("rhs_contracting_dims") or ()
    for dims, shape in ((lhs_batch + lhs_contracting, lhs), (rhs_batch + rhs_contracting, rhs)):
        if len(set(dims)) != len(dims) or any(not 0 <= k < shape.rank for k in dims):
            raise _Cannot(
                f"batch and contracting dims {list(dims)} are not distinct dims of {shape}"
            )
    for a, b in ((lhs_batch, rhs_batch), (lhs_contracting, rhs_contracting)):
        if [lhs.dimensions[k] for k in a] != [rhs.dimensions[k] for k in b]:
            raise _Cannot("the batch or contracting dimension sizes of the operands differ")
    free = [
        shape.dimensions[k]
        for shape, used in ((lhs, lhs_batch + lhs_contracting), (rhs, rhs_batch + rhs_contracting))
        for k in range(shape.rank)
        if k not in used
    ]
    return _array(lhs.element_type, [lhs.dimensions[k] for k in lhs_batch] + free)


def _reduce(request: _Request) -> Shape:
    count = len(request.operands) // 2
    if count == 0 or len(request.operands) != 2 * count:
        raise _Cannot("a reduce takes N inputs and N initial values")
    reduced = request.ints("dimensions")
    first = request.operand(0)
    if any(not 0 <= k < first.rank for k in reduced):
        raise _Cannot(f"dimensions={list(reduced)} are not dims of {first}")
    kept = [n for k, n in enumerate(first.dimensions) if k not in reduced]
    return _several([_array(request.operand(count + k).element_type, kept) for k in range(count)])


def _reduce_window(request: _Request) -> Shape:
    count = len(request.operands) // 2
    if count == 0 or len(request.operands) != 2 * count:
        raise _Cannot("a reduce-window takes N inputs and N initial values")
    first = request.operand(0)
    window = request.attributes.get("window", ())
    if not isinstance(window, tuple) or len(window) != first.rank:
        raise _Cannot(f"the window does not have one dimension per dimension of {first}")
    sizes = []
    for size, dim in zip(first.dimensions, window, strict=True):
        assert isinstance(dim, WindowDim)
        dilated = (size - 1) * dim.base_dilation + 1 if size else 0
        padded = dim.padding_low + dilated + dim.padding_high
        extent = (dim.size - 1) * dim.window_dilation + 1
        sizes.append(max(0, (padded - extent) // dim.stride + 1) if padded >= extent else 0)
    return _several([_array(request.operand(count + k).element_type, sizes) for k in range(count)])


def _dynamic_slice(request: _Request) -> Shape:
    operand = request.operand(0)
    sizes = request.ints("dynamic_slice_sizes")
    if len(sizes) != operand.rank or any(
        s > n for s, n in zip(sizes, operand.dimensions, strict=True)
    ):
        raise _Cannot(f"dynamic_slice_sizes {list(sizes)} do not fit in {operand}")
    return _array(operand.element_type, sizes)


def _dynamic_update_slice(request: _Request) -> Shape:
    operand, update = request.operand(0), request.operand(1)
    if update.rank != operand.rank or any(
        u > o for u, o in zip(update.dimensions, operand.dimensions, strict=True)
    ):
        raise _Cannot(
            f"the update {list(update.dimensions)} does not fit in the operand "
            f"{list(operand.dimensions)}"
        )
    return _array(operand.element_type, operand.dimensions)


INFERENCE: dict[str, Callable[[_Request], Shape]] = {
    **{
        opcode: _elementwise
        for opcode in [
            "abs",
            "add",
            "and",
            "atan2",
            "cbrt",
            "ceil",
            "clamp",
            "divide",
            "erf",
            "exponential",
            "exponential-minus-one",
            "floor",
            "log",
            "log-plus-one",
            "logistic",
            "maximum",
            "minimum",
            "multiply",
            "negate",
            "not",
            "or",
            "popcnt",
            "power",
            "reduce-precision",
            "remainder",
            "round-nearest-afz",
            "round-nearest-even",
            "rsqrt",
            "select",
            "shift-left",
            "shift-right-arithmetic",
            "shift-right-logical",
            "sign",
            "sine",
            "sqrt",
            "subtract",
            "tan",
            "tanh",
            "xor",
            "count-leading-zeros",
            "cosine",
        ]
    },
    "copy": _whole_operand,
    "compare": _compare,
    "real": _complex_part,
    "imag": _complex_part,
    "is-finite": _is_finite,
    "tuple": _tuple,
    "get-tuple-element": _get_tuple_element,
    "call": _called_root("to_apply"),
    "fusion": _called_root("calls"),
    "while": _whole_operand,
    "conditional": _conditional,
    "map": _map,
    "sort": _each_operand,
    "all-reduce": _each_operand,
    "opt-barrier": _whole_operand,
    "collective-permute": _same_as_operand(0),
    "reverse": _same_as_operand(0),
    "dynamic-update-slice": _dynamic_update_slice,
    "concatenate": _concatenate,
    "pad": _pad,
    "slice": _slice,
    "transpose": _transpose,
    "dot": _dot,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "dynamic-slice": _dynamic_slice,
}
"""Per opcode: how its shape follows from operands, attributes, called roots."""


def _same_size(written: Shape, request: _Request) -> None:
    """A reshape keeps the number of elements."""
    operand = request.operand(0)
    if operand.num_elements != written.num_elements:
        raise _Cannot(
            f"it reshapes {operand} ({operand.num_elements} elements) to {written} "
            f"({written.num_elements})"
        )


def _same_bytes(written: Shape, request: _Request) -> None:
    """A bitcast keeps the number of bytes (elements times element width);
    with tiles or other layout fields the physical size differs from the
    logical one, and the bitcast check compares physical sizes instead."""
    operand = request.operand(0)
    widths = element_bit_width(operand.element_type), element_bit_width(written.element_type)
    plain = all(s.layout is None or s.layout.is_plain for s in (operand, written))
    if None in widths or written.tuple_shapes is not None or not plain:
        return
    before, after = (
        shape.num_elements * (width or 0)
        for shape, width in zip((operand, written), widths, strict=True)
    )
    if before != after:
        raise _Cannot(f"it bitcasts {operand} ({before} bits) to {written} ({after} bits)")


VALIDATION: dict[str, Callable[[Shape, _Request], None]] = {
    "reshape": _same_size,
    "bitcast": _same_bytes,
}
"""Per opcode whose shape XLA does not infer: what the written shape must satisfy."""

CHECKED_OPCODES = frozenset(INFERENCE) | frozenset(VALIDATION)
"""The opcodes `check_shape` checks."""
