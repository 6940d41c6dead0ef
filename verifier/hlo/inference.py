"""The shape XLA infers for an instruction written without one.

XLA's parser lets most opcodes omit their result shape
(`s = add(p0, p1)`, `g = get-tuple-element(t), index=0`, `t = tuple(a, b)`)
and infers it from the operands, the attributes and the called
computations.  `infer_shape` does the same, one small function per opcode
family in a table (`INFERENCE`): adding an opcode is adding an entry.
An opcode XLA cannot infer either (`broadcast` to new dims, `reshape`,
`convert`, `iota`, `constant`, `parameter`...) gets an `InvalidHloError`
that says to write the shape.

It is also the one home of the shape formulas: `check_shape` compares a
written shape with the inferred one (and, for the opcodes XLA does not
infer, with what `VALIDATION` requires), as XLA's verifier does — when the
parser reads an instruction, and again before an indexing rule builds maps
from an instruction's shapes.

>>> from verifier.hlo.shape import parse_shape
>>> from verifier.hlo.attributes import Attributes
>>> str(infer_shape("dot", (parse_shape("f32[2,3]"), parse_shape("f32[3,5]")),
...     Attributes((("lhs_contracting_dims", (1,)), ("rhs_contracting_dims", (0,)))),
...     {}))
'f32[2,5]'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from verifier.errors import InvalidHloError, SourceSpan
from verifier.hlo.attributes import (
    Attributes,
    ConvolutionDimensionNumbers,
    PaddingDim,
    RawAttribute,
    SliceDim,
    WindowDim,
)
from verifier.hlo.opcodes import CALLEE_ATTRIBUTE, ELEMENTWISE_OPCODES, TUPLE_OPERAND_OPCODES
from verifier.hlo.shape import Shape, element_bit_width

_NO_PLACE = SourceSpan("<built>", 1, 1)


class _Cannot(Exception):
    """Why a shape does not follow; `infer_shape` adds the instruction's place."""


class _Unchecked(_Cannot):
    """The written shape cannot be compared with anything: written it stands,
    omitted it cannot be inferred."""


class _CalleeNotYetRead(_Unchecked):
    """The shape depends on a computation not read yet (or not given)."""


class _Request(NamedTuple):
    """What an inference function sees: operands, attributes, called roots
    (a named tuple: one is made per instruction read)."""

    opcode: str
    operands: Sequence[Shape]
    attributes: Attributes
    roots: Mapping[str, Shape]

    def operand(self, index: int) -> Shape:
        if index >= len(self.operands):
            raise _Cannot(f"{self.opcode} needs at least {index + 1} operands")
        shape = self.operands[index]
        if shape.tuple_shapes is not None and self.opcode not in TUPLE_OPERAND_OPCODES:
            raise _Cannot(f"operand {index} is a tuple {shape}, {self.opcode} takes arrays")
        return shape

    def ints(self, name: str) -> tuple[int, ...]:
        value = self.attributes.ints(name)
        if value is None:
            raise _Cannot(f"{self.opcode} needs the attribute '{name}'")
        return value

    def integer(self, name: str, default: int | None = None) -> int:
        value = self.attributes.integer(name)
        if value is None:
            if default is None:
                raise _Cannot(f"{self.opcode} needs the attribute '{name}'")
            return default
        return value

    def window(self, rank: int, per: str) -> tuple[WindowDim, ...]:
        """`window={...}` with `rank` dimensions, one per `per`."""
        window = self.attributes.get("window", ())
        if (
            not isinstance(window, tuple)
            or len(window) != rank
            or not all(isinstance(dim, WindowDim) for dim in window)
        ):
            raise _Cannot(f"the window does not have one dimension per {per}")
        return tuple(dim for dim in window if isinstance(dim, WindowDim))

    def root(self, attribute: str) -> Shape:
        """The ROOT shape of the computation named by `attribute`."""
        names = self.attributes.names(attribute)
        name = names[0] if names else self.attributes.word(attribute)
        if name is None:
            raise _Cannot(f"{self.opcode} needs the attribute '{attribute}'")
        if name not in self.roots:
            raise _CalleeNotYetRead(f"computation '{name}' must be defined before it is called")
        return self.roots[name]


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
    computation missing from `roots`, and instructions with an attribute
    that could not be read (a rule that needs it says so, at its place).

    >>> from verifier.hlo.shape import parse_shape
    >>> check_shape(parse_shape("f32[3]"), "transpose", (parse_shape("f32[2,3]"),),
    ...     Attributes((("dimensions", (1, 0)),)), {})
    Traceback (most recent call last):
    ...
    verifier.errors.InvalidHloError: <built>:1:1: transpose is not valid HLO: it is written f32[3], its operands and attributes give f32[3,2]
    """
    relevant = []
    for entry in attributes.entries:
        value = entry[1]
        if isinstance(value, RawAttribute) and value.problem is not None:
            return  # a rule that needs the attribute rejects it, at the attribute's place
        if entry[0] not in ANNOTATIONS:
            relevant.append(entry)
    key = None
    if (
        opcode not in READS_CALLEES
        and written.tuple_shapes is None
        and all([shape.tuple_shapes is None for shape in operands])
    ):
        key = (opcode, written, tuple(operands), tuple(relevant))
        if key in _PASSED:
            return
    _check_shape(written, opcode, operands, attributes, roots, span, name)
    if key is not None:
        if len(_PASSED) >= _PASSED_LIMIT:
            _PASSED.clear()
        _PASSED[key] = None


ANNOTATIONS = frozenset(
    {"metadata", "backend_config", "frontend_attributes", "sharding", "control-predecessors"}
)
"""Attributes no shape rule reads: left out of the key of `_PASSED`."""

READS_CALLEES = frozenset({*CALLEE_ATTRIBUTE, "while", "conditional", "map"})
"""Opcodes whose rule reads a called computation's ROOT (`roots`): never memoised,
nor are checks with a tuple shape (hashing one costs what checking it does)."""

_PASSED: dict[tuple[object, ...], None] = {}
"""The checks that passed, by (opcode, written shape, operand shapes, attributes
but `ANNOTATIONS`): everything a rule of an opcode outside `READS_CALLEES`
reads, so the same key passes again.  Only passes are kept: a failure is
always recomputed, and reported at its own place."""

_PASSED_LIMIT = 1 << 16


def _check_shape(
    written: Shape,
    opcode: str,
    operands: Sequence[Shape],
    attributes: Attributes,
    roots: Mapping[str, Shape],
    span: SourceSpan,
    name: str,
) -> None:
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
    except _Unchecked:
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
    """The operand's shape, tuples included (copy, opt-barrier)."""
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


def _tuple_select(request: _Request) -> Shape:
    """``tuple-select(p, on_true, on_false)`` (XLA until 2022): `p` a
    ``pred[]`` scalar, the branches of one shape, which is the result's."""
    predicate, on_true, on_false = (request.operand(k) for k in range(3))
    if predicate.tuple_shapes is not None or predicate.rank or predicate.element_type != "pred":
        raise _Cannot(f"its predicate is {predicate}, not a pred[] scalar")
    if not on_true.compatible(on_false):
        raise _Cannot(f"its branches are {on_true} and {on_false}, not one shape")
    return on_true


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


# Every kind XLA ever printed: the last three until 2018.
_FUSION_KINDS = (
    "kLoop",
    "kInput",
    "kOutput",
    "kCustom",
    "kTransposeDot",
    "kConvBackwardFilter",
    "kConvBackwardInput",
)


def _fusion(request: _Request) -> Shape:
    """A fusion's result is its computation's; XLA's parser requires its `kind`."""
    kind = request.attributes.word("kind")
    if kind is None:
        raise _Cannot("fusion needs the attribute 'kind' (kind=kLoop, kInput, kOutput or kCustom)")
    if kind not in _FUSION_KINDS:
        raise _Cannot(f"kind={kind} is not a fusion kind ({', '.join(_FUSION_KINDS[:4])})")
    return request.root("calls")


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


def _collective_permute(request: _Request) -> Shape:
    """The in-place form (``collective-permute(in, out, in_starts, out_starts),
    slice_sizes=...``) writes into `in`'s shape; otherwise one result per
    operand, as XLA's combiner writes several permutes as one:
    ``(f32[4], s32[2]) collective-permute(f32[4] a, s32[2] b)``."""
    if "slice_sizes" in request.attributes:
        return _same_as_operand(0)(request)
    return _each_operand(request)


def _sort(request: _Request) -> Shape:
    """One result per operand, every operand of the keys' dimensions, sorted
    along one dimension of them: ``sort(f32[6] p), dimensions={1}`` is not
    valid HLO (f32[6] has no dimension 1)."""
    dimensions = request.ints("dimensions")
    keys = request.operand(0)
    if len(dimensions) != 1 or not 0 <= dimensions[0] < keys.rank:
        raise _Cannot(f"dimensions={list(dimensions)} is not one dimension of {keys}")
    for index in range(1, len(request.operands)):
        if request.operand(index).dimensions != keys.dimensions:
            raise _Cannot(
                f"operand {index} has dimensions {list(request.operand(index).dimensions)}, "
                f"operand 0 {list(keys.dimensions)}: sort's operands have the same dimensions"
            )
    return _each_operand(request)


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
    value = request.operand(1)
    if value.rank != 0:
        raise _Cannot(f"the padding value must be a scalar, not {value}")
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


_SPARSITY = re.compile(r"([LR])\.(\d+)@(\d+):(\d+)")


def sparse_dot_descriptors(attributes: Attributes) -> tuple[tuple[int, int, int, int], ...]:
    """``(operand, dim, n, m)`` per descriptor of a sparse dot as XLA printed
    it until 2025 (``sparsity=L.3@2:4``, several joined by ``_``): operand
    0 (``L``) or 1 (``R``) stores `n` of every `m` elements along `dim`,
    one metadata operand per descriptor after the two.  ``()`` for a dense
    dot; `_Cannot` for a descriptor XLA's parser does not read.

    >>> sparse_dot_descriptors(Attributes((("sparsity", RawAttribute("L.3@2:4")),)))
    ((0, 3, 2, 4),)
    """
    text = attributes.raw("sparsity")
    if text is None:
        return ()
    found = []
    for item in text.split("_"):
        match = _SPARSITY.fullmatch(item)
        if match is None or int(match[3]) == 0 or int(match[4]) % int(match[3]):
            raise _Cannot(f"'{item}' is not a sparsity descriptor such as L.0@2:4")
        side, dim, n, m = match.groups()
        found.append(("LR".index(side), int(dim), int(n), int(m)))
    return tuple(found)


def _dense(shape: Shape, operand: int, descriptors: Sequence[tuple[int, int, int, int]]) -> Shape:
    """A sparse dot operand's shape with its stored dims at their logical sizes."""
    dimensions = list(shape.dimensions)
    for side, dim, n, m in descriptors:
        if side == operand:
            if not 0 <= dim < shape.rank:
                raise _Cannot(f"the sparse dimension {dim} is not a dim of {shape}")
            dimensions[dim] = dimensions[dim] * m // n
    return _array(shape.element_type, dimensions)


def _dot(request: _Request) -> Shape:
    descriptors = sparse_dot_descriptors(request.attributes)
    if descriptors and len(request.operands) != 2 + len(descriptors):
        raise _Cannot(
            f"a sparse dot of {len(descriptors)} descriptors takes {2 + len(descriptors)} operands"
        )
    lhs, rhs = (_dense(request.operand(k), k, descriptors) for k in (0, 1))
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


def _scaled_dot(request: _Request) -> Shape:
    """``scaled-dot(lhs, rhs, lhs_scale, rhs_scale)``: a dot's shape; each
    scale has its operand's rank and divides each of its dims into blocks."""
    for operand, scale in ((0, 2), (1, 3)):
        values, scales = request.operand(operand), request.operand(scale)
        if scales.rank != values.rank or any(
            m == 0 or n % m != 0 for n, m in zip(values.dimensions, scales.dimensions, strict=True)
        ):
            raise _Cannot(f"the scale {scales} does not divide {values} into equal blocks")
    return _dot(request)


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
    window = request.window(first.rank, f"dimension of {first}")
    sizes = [
        _window_positions(size, dim) for size, dim in zip(first.dimensions, window, strict=True)
    ]
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


def _window_positions(size: int, dim: WindowDim) -> int:
    """How many positions a window dim takes over an input dim of `size`:
    the input dilated (``base_dilation - 1`` holes between elements) and
    padded, the window dilated, stepped by `stride` (XLA's
    ``ShapeInference::InferWindowOutputShape``).  ``size=3 stride=2
    pad=1_1`` over 4 elements: the padded input has 6, so 2 positions."""
    dilated = (size - 1) * dim.base_dilation + 1 if size else 0
    padded = dim.padding_low + dilated + dim.padding_high
    extent = (dim.size - 1) * dim.window_dilation + 1
    return (padded - extent) // dim.stride + 1 if padded >= extent else 0


def _convolution(request: _Request) -> Shape:
    """XLA's ``ShapeInference::InferConvolveShape``: the output batch is the
    lhs batch over `batch_group_count`, the output features the kernel's,
    each output spatial dim the window positions over the lhs one.

    ``f32[8,28,28,3]`` ``convolution`` ``f32[5,5,3,16]``, ``window={size=5x5
    stride=2x2}``, ``dim_labels=b01f_01io->b01f`` gives ``f32[8,12,12,16]``.
    A sparse convolution (``sparsity_config=``) has a compressed kernel:
    its shape is not checked."""
    if "sparsity_config" in request.attributes:
        raise _Unchecked("a sparse convolution's kernel is compressed")
    lhs, rhs = request.operand(0), request.operand(1)
    numbers = request.attributes.get("dim_labels")
    if not isinstance(numbers, ConvolutionDimensionNumbers):
        raise _Cannot("convolution needs the attribute 'dim_labels'")
    spatial = len(numbers.input_spatial)
    if lhs.rank != spatial + 2 or rhs.rank != spatial + 2:
        raise _Cannot(
            f"dim_labels {numbers} have {spatial} spatial dims; the operands are {lhs} and {rhs}"
        )
    window = request.window(spatial, "spatial dimension of the dim_labels")
    feature_groups = request.integer("feature_group_count", 1)
    batch_groups = request.integer("batch_group_count", 1)
    if feature_groups < 1 or batch_groups < 1:
        raise _Cannot("feature_group_count and batch_group_count must be at least 1")
    if feature_groups > 1 and batch_groups > 1:
        raise _Cannot("feature_group_count and batch_group_count cannot both exceed 1")
    batch = lhs.dimensions[numbers.input_batch]
    features = lhs.dimensions[numbers.input_feature]
    kernel_features = rhs.dimensions[numbers.kernel_input_feature]
    outputs = rhs.dimensions[numbers.kernel_output_feature]
    if features % feature_groups or features // feature_groups != kernel_features:
        raise _Cannot(
            f"the lhs has {features} input features in {feature_groups} groups; the kernel "
            f"reads {kernel_features} per group"
        )
    if outputs % feature_groups or outputs % batch_groups:
        raise _Cannot(
            f"the kernel's {outputs} output features do not split into "
            f"{max(feature_groups, batch_groups)} groups"
        )
    if batch % batch_groups:
        raise _Cannot(f"the lhs batch {batch} does not split into {batch_groups} groups")
    for k, dim in enumerate(window):
        if dim.size != rhs.dimensions[numbers.kernel_spatial[k]]:
            raise _Cannot(
                f"window size {dim.size} of spatial dim {k} is not the kernel's "
                f"{rhs.dimensions[numbers.kernel_spatial[k]]}"
            )
        if dim.stride < 1 or dim.window_dilation < 1 or dim.base_dilation < 1:
            raise _Cannot(f"spatial dim {k}: stride and dilations must be at least 1")
    sizes = [0] * (spatial + 2)
    sizes[numbers.output_batch] = batch // batch_groups
    sizes[numbers.output_feature] = outputs
    for k, dim in enumerate(window):
        sizes[numbers.output_spatial[k]] = _window_positions(
            lhs.dimensions[numbers.input_spatial[k]], dim
        )
    return _array(lhs.element_type, sizes)


def _distinct_dims(name: str, dims: Sequence[int], rank: int) -> None:
    if len(set(dims)) != len(dims) or any(not 0 <= k < rank for k in dims):
        raise _Cannot(f"{name}={{{','.join(map(str, dims))}}} must be distinct dims of [0, {rank})")


def _index_batch(indices: Sequence[int], index_vector_dim: int) -> tuple[tuple[int, ...], int]:
    """The batch dims of an index array and the length of its index vectors
    (``index_vector_dim == rank`` is an implicit trailing 1)."""
    if not 0 <= index_vector_dim <= len(indices):
        raise _Cannot(f"index_vector_dim={index_vector_dim} is not a dim of {list(indices)}")
    vector = indices[index_vector_dim] if index_vector_dim < len(indices) else 1
    batch = tuple(n for k, n in enumerate(indices) if k != index_vector_dim)
    return batch, vector


@dataclass(frozen=True)
class _IndexedDims:
    """The attribute names of a gather's or scatter's index dimension numbers."""

    mapped: str  # operand dim of each index vector component
    dropped: str  # operand dims of size 1 absent from the slices (updates)
    operand_batching: str
    indices_batching: str


_GATHER = _IndexedDims(
    "start_index_map",
    "collapsed_slice_dims",
    "operand_batching_dims",
    "start_indices_batching_dims",
)
_SCATTER = _IndexedDims(
    "scatter_dims_to_operand_dims",
    "inserted_window_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
)


def _indexed(
    request: _Request, operand: Shape, indices: Shape, names: _IndexedDims
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The batch sizes of the index array and the operand dims the slices
    (updates) do not have, after checking the index dimension numbers."""
    mapped = request.ints(names.mapped)
    index_vector_dim = request.integer("index_vector_dim")
    operand_batching = request.attributes.ints(names.operand_batching) or ()
    indices_batching = request.attributes.ints(names.indices_batching) or ()
    batch, vector = _index_batch(indices.dimensions, index_vector_dim)
    _distinct_dims(names.mapped, mapped, operand.rank)
    if len(mapped) != vector:
        raise _Cannot(
            f"{names.mapped} has {len(mapped)} dims, the index vectors {vector} components"
        )
    hidden = request.ints(names.dropped) + operand_batching
    _distinct_dims(f"{names.dropped} and {names.operand_batching}", hidden, operand.rank)
    if names is _SCATTER and set(operand_batching) & set(mapped):
        # XLA reads a gather's batching dim at its batch coordinate even when
        # the dim is also indexed (`verifier.indexing.dynamic`); the scatter
        # rule does not follow that yet.
        raise _Cannot(f"a dim of {names.operand_batching} is also in {names.mapped}")
    _distinct_dims(names.indices_batching, indices_batching, indices.rank)
    if len(operand_batching) != len(indices_batching) or index_vector_dim in indices_batching:
        raise _Cannot(
            f"{names.operand_batching} and {names.indices_batching} must pair up, "
            "without the index vector dim"
        )
    return batch, hidden


def _gather(request: _Request) -> Shape:
    """Batch dims from the indices, offset dims from the uncollapsed slice
    sizes: ``gather(f32[33,76,70], s32[1806,2]), offset_dims={1,2,3},
    start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}`` gives
    ``f32[1806,7,8,4]``."""
    operand, indices = request.operand(0), request.operand(1)
    sizes = request.ints("slice_sizes")
    if len(sizes) != operand.rank or any(
        not 0 <= s <= n for s, n in zip(sizes, operand.dimensions, strict=True)
    ):
        raise _Cannot(f"slice_sizes {list(sizes)} do not fit in the operand {operand}")
    batch, hidden = _indexed(request, operand, indices, _GATHER)
    if any(sizes[k] > 1 for k in hidden):
        raise _Cannot("a collapsed or batching dim has a slice size above 1")
    offset_dims = request.ints("offset_dims")
    window = [sizes[k] for k in range(operand.rank) if k not in hidden]
    rank = len(batch) + len(window)
    _distinct_dims("offset_dims", offset_dims, rank)
    if len(offset_dims) != len(window) or list(offset_dims) != sorted(offset_dims):
        raise _Cannot(f"offset_dims must be {len(window)} increasing dims")
    batch_sizes, window_sizes = iter(batch), iter(window)
    return _array(
        operand.element_type,
        [next(window_sizes) if k in offset_dims else next(batch_sizes) for k in range(rank)],
    )


def _scatter(request: _Request) -> Shape:
    """The operands' shapes; the updates are scatter batch dims (the
    indices') and window dims no larger than the operand's."""
    count = (len(request.operands) - 1) // 2
    if len(request.operands) != 2 * count + 1 or count == 0:
        raise _Cannot(
            f"a scatter has N operands, 1 index array and N updates, not "
            f"{len(request.operands)} operands"
        )
    operand, indices = request.operand(0), request.operand(count)
    updates = request.operand(count + 1).dimensions
    batch, hidden = _indexed(request, operand, indices, _SCATTER)
    update_window_dims = request.ints("update_window_dims")
    window_operand = [n for k, n in enumerate(operand.dimensions) if k not in hidden]
    _distinct_dims("update_window_dims", update_window_dims, len(updates))
    update_batch = tuple(n for k, n in enumerate(updates) if k not in update_window_dims)
    window = [updates[k] for k in sorted(update_window_dims)]
    if len(window) != len(window_operand) or any(
        w > n for w, n in zip(window, window_operand, strict=True)
    ):
        raise _Cannot(f"the update windows {window} do not fit the operand's {window_operand}")
    if update_batch != batch:
        raise _Cannot(
            f"the updates' scatter dims {list(update_batch)} are not the "
            f"indices' batch dims {list(batch)}"
        )
    return _several([_array(s.element_type, s.dimensions) for s in request.operands[:count]])


def _fft(request: _Request) -> Shape:
    """FFT and IFFT keep the shape; RFFT halves the last transformed dim
    (``n / 2 + 1`` complex values), IRFFT restores it to ``fft_length``."""
    lengths = request.ints("fft_length")
    operand = request.operand(0)
    sizes = operand.dimensions
    if not lengths or len(lengths) > min(3, len(sizes)):
        raise _Cannot(f"fft_length {list(lengths)} does not fit an operand of rank {len(sizes)}")
    batch, transformed = sizes[: len(sizes) - len(lengths)], sizes[len(sizes) - len(lengths) :]
    complex_type = {"f32": "c64", "f64": "c128"}
    match request.attributes.word("fft_type"):
        case "FFT" | "IFFT":
            return _array(operand.element_type, sizes)
        case "RFFT":
            if transformed != tuple(lengths):
                raise _Cannot(f"RFFT of dims {list(transformed)} with fft_length {list(lengths)}")
            element = complex_type.get(operand.element_type, operand.element_type)
            return _array(element, (*batch, *lengths[:-1], lengths[-1] // 2 + 1))
        case "IRFFT":
            if transformed != (*lengths[:-1], lengths[-1] // 2 + 1):
                raise _Cannot(f"IRFFT of dims {list(transformed)} with fft_length {list(lengths)}")
            element = _COMPLEX_PARTS.get(operand.element_type, operand.element_type)
            return _array(element, (*batch, *lengths))
        case other:
            raise _Cannot(f"unknown fft_type {other}")


def _batch_norm_inference(request: _Request) -> Shape:
    """The operand's shape; scale, offset, mean and variance have one entry
    per feature."""
    operand = request.operand(0)
    feature = request.integer("feature_index")
    if not 0 <= feature < operand.rank:
        raise _Cannot(f"feature_index {feature} is not a dim of the operand {operand}")
    for index in range(1, len(request.operands)):
        dims = request.operand(index).dimensions
        if dims != (operand.dimensions[feature],):
            raise _Cannot(
                f"operand {index} has dimensions {list(dims)}, not "
                f"[{operand.dimensions[feature]}] (one per feature)"
            )
    return _array(operand.element_type, operand.dimensions)


def _fixed(element_type: str) -> Callable[[_Request], Shape]:
    """A scalar of `element_type` whatever the operands: ``after-all`` is a
    ``token[]``, ``partition-id`` a ``u32[]``, ``get-dimension-size`` an ``s32[]``."""
    return lambda request: _array(element_type, ())


def _batch_norm_statistics(request: _Request) -> Shape:
    """``batch-norm-training`` and ``-grad``: the operand's shape, then two
    arrays of one entry per feature (mean and variance; their gradients)."""
    operand = request.operand(0)
    feature = request.integer("feature_index")
    if not 0 <= feature < operand.rank:
        raise _Cannot(f"feature_index {feature} is not a dim of the operand {operand}")
    per_feature = _array(operand.element_type, (operand.dimensions[feature],))
    whole = _array(operand.element_type, operand.dimensions)
    return Shape.tuple_of(whole, per_feature, per_feature)


def _complex(request: _Request) -> Shape:
    """``complex(re, im)``: the complex type of the parts' width."""
    shape = _elementwise(request)
    parts = {part: whole for whole, part in _COMPLEX_PARTS.items()}
    return _array(parts.get(shape.element_type, shape.element_type), shape.dimensions)


def _topk(request: _Request) -> Shape:
    """``topk(x), k=K``: the K largest along the last dim, and their s32 indices."""
    operand = request.operand(0)
    k = request.integer("k")
    if not operand.rank or not 0 <= k <= operand.dimensions[-1]:
        raise _Cannot(f"k={k} is not a size within the last dimension of {operand}")
    sizes = (*operand.dimensions[:-1], k)
    return Shape.tuple_of(_array(operand.element_type, sizes), _array("s32", sizes))


def _same_size(written: Shape, request: _Request) -> None:
    """A reshape keeps the number of elements."""
    operand = request.operand(0)
    if operand.num_elements != written.num_elements:
        raise _Cannot(
            f"it reshapes {operand} ({operand.num_elements} elements) to {written} "
            f"({written.num_elements})"
        )


def _same_bytes(written: Shape, request: _Request) -> None:
    """A bitcast keeps the number of bytes: elements times the bytes of one
    element in memory, its width rounded up to whole bytes as XLA's
    ``ShapeUtil::ByteSizeOf`` counts it (``pred[8]`` and ``f64[]`` are both
    8 bytes; an unpacked ``s4[16]`` is 16) — when both sides have a plain
    layout written.  With tiles, ``E(n)`` or other layout fields the
    physical size differs from the logical one, and the bitcast check
    compares physical sizes instead; with no layout written (HLO before
    layout assignment) XLA's verifier does not compare sizes at all."""
    operand = request.operand(0)
    widths = element_bit_width(operand.element_type), element_bit_width(written.element_type)
    plain = all(s.layout is not None and s.layout.is_plain for s in (operand, written))
    if None in widths or written.tuple_shapes is not None or not plain:
        return
    before, after = (
        shape.num_elements * -(-(width or 0) // 8)
        for shape, width in zip((operand, written), widths, strict=True)
    )
    if before != after:
        raise _Cannot(f"it bitcasts {operand} ({before} bytes) to {written} ({after} bytes)")


def _broadcast(written: Shape, request: _Request) -> None:
    """Operand dim i is output dim ``dimensions[i]``, of the same size; the
    other output dims are free: ``broadcast(f32[3]), dimensions={1}`` may
    be ``f32[2,3,4]``, not ``f32[2,4,3]``."""
    operand = request.operand(0)
    dimensions = request.ints("dimensions")
    if len(dimensions) != operand.rank or any(not 0 <= k < written.rank for k in dimensions):
        raise _Cannot(
            f"dimensions={{{','.join(map(str, dimensions))}}} does not place the operand's "
            f"{operand.rank} dimensions in an output of rank {written.rank}"
        )
    for size, k in zip(operand.dimensions, dimensions, strict=True):
        if written.dimensions[k] != size:
            raise _Cannot(
                f"it is written {written}, but output dim {k} is operand {operand}'s "
                f"dim of size {size}"
            )


def _same_dimensions_as_operands(written: Shape, request: _Request) -> None:
    """An elementwise op whose element type the writer chooses (`convert`,
    `complex`): every operand has the output's dimensions."""
    for index in range(len(request.operands)):
        dims = request.operand(index).dimensions
        if dims != written.dimensions:
            raise _Cannot(
                f"operand {index} has dimensions {list(dims)}, the output "
                f"{list(written.dimensions)}"
            )


def _gathered_or_scattered(written: Shape, request: _Request) -> None:
    """``all-gather`` and ``reduce-scatter`` along ``dimensions={d}``: one
    result per operand (a tuple of them for several), each of its operand's
    rank, ``d`` one of its dims, the other dims the operand's, and dim ``d``
    a multiple (all-gather) or a divisor (reduce-scatter) of the operand's.
    The async ``all-gather-start`` holds ``(operands, results)``, or, of one
    operand, may be written as the result alone (XLA's importer reads that
    form as the pair)."""
    operands = [request.operand(k) for k in range(len(request.operands))]
    results = written.tuple_shapes if written.tuple_shapes is not None else (written,)
    if request.opcode == "all-gather-start" and (written.tuple_shapes or len(operands) > 1):
        if len(results) != 2:
            raise _Cannot(f"it is written {written}, not (operands, results)")
        held = results[1]
        results = (held.tuple_shapes or ()) if len(operands) > 1 else (held,)
    if len(results) != len(operands):
        raise _Cannot(f"it is written {written}: one result per operand, {len(operands)}")
    dimensions = request.ints("dimensions")
    for operand, result in zip(operands, results, strict=True):
        if len(dimensions) != 1 or not 0 <= dimensions[0] < operand.rank:
            raise _Cannot(f"dimensions={list(dimensions)} is not one dimension of {operand}")
        (axis,) = dimensions
        same = [k for k in range(operand.rank) if k != axis]
        if result.rank != operand.rank or any(
            result.dimensions[k] != operand.dimensions[k] for k in same
        ):
            raise _Cannot(f"the result {result} is not {operand} along dimension {axis}")
        small, large = (
            (result.dimensions[axis], operand.dimensions[axis])
            if request.opcode == "reduce-scatter"
            else (operand.dimensions[axis], result.dimensions[axis])
        )
        if small == 0 or large % small:
            raise _Cannot(f"dimension {axis} of {result} does not split {operand} evenly")


VALIDATION: dict[str, Callable[[Shape, _Request], None]] = {
    "all-gather": _gathered_or_scattered,
    "all-gather-start": _gathered_or_scattered,
    "reduce-scatter": _gathered_or_scattered,
    "reshape": _same_size,
    "bitcast": _same_bytes,
    "broadcast": _broadcast,
    "convert": _same_dimensions_as_operands,
    "stochastic-convert": _same_dimensions_as_operands,
    "complex": _same_dimensions_as_operands,
}
"""Per opcode whose shape XLA does not infer: what the written shape must satisfy."""

INFERENCE: dict[str, Callable[[_Request], Shape]] = {
    # An elementwise op whose element type the writer chooses is checked, not inferred.
    **dict.fromkeys(sorted(ELEMENTWISE_OPCODES - VALIDATION.keys()), _elementwise),
    "after-all": _fixed("token"),
    "partition-id": _fixed("u32"),
    "replica-id": _fixed("u32"),
    "get-dimension-size": _fixed("s32"),
    "add-dependency": _whole_operand,
    "domain": _whole_operand,
    "cholesky": _same_as_operand(0),
    "triangular-solve": _same_as_operand(1),
    "select-and-scatter": _same_as_operand(0),
    "batch-norm-training": _batch_norm_statistics,
    "batch-norm-grad": _batch_norm_statistics,
    "complex": _complex,
    "topk": _topk,
    "copy": _whole_operand,
    "compare": _compare,
    "real": _complex_part,
    "imag": _complex_part,
    "is-finite": _is_finite,
    "tuple": _tuple,
    "tuple-select": _tuple_select,
    "get-tuple-element": _get_tuple_element,
    **{opcode: _called_root(attribute) for opcode, attribute in CALLEE_ATTRIBUTE.items()},
    "fusion": _fusion,
    "while": _called_root("body"),
    "conditional": _conditional,
    "map": _map,
    "sort": _sort,
    "all-reduce": _each_operand,
    "all-reduce-start": _each_operand,
    "all-reduce-done": _whole_operand,
    "opt-barrier": _whole_operand,
    "collective-permute": _collective_permute,
    "collective-broadcast": _each_operand,
    "reverse": _same_as_operand(0),
    "dynamic-update-slice": _dynamic_update_slice,
    "concatenate": _concatenate,
    "pad": _pad,
    "slice": _slice,
    "transpose": _transpose,
    "dot": _dot,
    "scaled-dot": _scaled_dot,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "dynamic-slice": _dynamic_slice,
    "convolution": _convolution,
    "gather": _gather,
    "scatter": _scatter,
    "fft": _fft,
    "batch-norm-inference": _batch_norm_inference,
    "set-dimension-size": _same_as_operand(0),
}
"""Per opcode: how its shape follows from operands, attributes, called roots."""


_TOKEN = Shape("token", ())


def _tuple_data(written: Shape, request: _Request) -> Shape:
    """The data shape of a ``recv`` or ``infeed``: element 0 of its written tuple."""
    if not written.tuple_shapes:
        raise _Cannot(f"it is written {written}, not the non-empty tuple XLA requires")
    return written.tuple_shapes[0]


def _send(written: Shape, request: _Request) -> Shape:
    return Shape.tuple_of(request.operand(0), _array("u32", ()), _TOKEN)


def _recv(written: Shape, request: _Request) -> Shape:
    return Shape.tuple_of(_tuple_data(written, request), _array("u32", ()), _TOKEN)


def _infeed(written: Shape, request: _Request) -> Shape:
    return Shape.tuple_of(_tuple_data(written, request), _TOKEN)


def _recv_done(written: Shape, request: _Request) -> Shape:
    state = request.operands[0]
    if not state.tuple_shapes:
        raise _Cannot(f"its operand is {state}, not the tuple a recv makes")
    return Shape.tuple_of(state.tuple_shapes[0], _TOKEN)


CONSTRUCTED: dict[str, Callable[[Shape, _Request], Shape]] = {
    "send": _send,
    "send-done": lambda written, request: _TOKEN,
    "recv": _recv,
    "recv-done": _recv_done,
    "infeed": _infeed,
    "outfeed": lambda written, request: _TOKEN,
}
"""Per opcode whose shape XLA's parser builds itself from the operands (and
the data part of the written shape), whatever else is written: ``f32[4]
send(x, token)`` is read as ``(f32[4], u32[], token[]) send(x, token)``."""


def constructed_shape(
    written: Shape,
    opcode: str,
    operands: Sequence[Shape],
    span: SourceSpan = _NO_PLACE,
    name: str = "",
) -> Shape:
    """The shape XLA gives an instruction of an opcode in `CONSTRUCTED`
    (`written` for the others); `InvalidHloError` when XLA rejects it.

    >>> from verifier.hlo.shape import parse_shape
    >>> str(constructed_shape(parse_shape("f32[4]"), "send",
    ...     (parse_shape("f32[4]"), parse_shape("token[]"))))
    '(f32[4], u32[], token[])'
    """
    construct = CONSTRUCTED.get(opcode)
    if construct is None:
        return written
    try:
        return construct(written, _Request(opcode, operands, Attributes(), {}))
    except _Cannot as error:
        subject = f"{opcode} '{name}'" if name else opcode
        raise InvalidHloError(f"{subject} is not valid HLO: {error}", span) from None


CHECKED_OPCODES = frozenset(INFERENCE) | frozenset(VALIDATION)
"""The opcodes `check_shape` checks."""
