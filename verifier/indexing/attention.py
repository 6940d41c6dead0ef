"""The element relation of a fused attention call (softmax(Q·Kᵀ)·V and its
gradients), whatever library computes it and however it lays out its
arrays.

**Logical arrays.**  Every array an attention call reads or writes is one of
a few logical arrays, each indexed by a batch ``b``, a sequence position, a
head and a feature:

- ``Q`` (query positions, query heads, qk features), ``K`` (key positions,
  kv heads, qk features), ``V`` (key positions, kv heads, v features);
- ``O`` and its gradient ``dO`` (query positions, query heads, v features);
- ``LSE``, the softmax statistics of each row (query positions, query
  heads, no feature: a trailing dim of size 1 or none);
- the gradients ``dQ``, ``dK``, ``dV``, indexed as Q, K, V;
- a ``bias`` added to the scores and its gradient ``dbias``, indexed by a
  batch, a query head, a query position ``sq`` and a key position ``sk``
  (a dim of size 1 broadcast).

Query head ``h`` attends with kv head ``h // (heads / kv_heads)`` (grouped
query attention; ``kv_heads == heads`` is plain multi-head attention).  A
`Placement` says where a logical array lives: which operand (or output)
leaf, and which physical dim holds ``b``, the position ``s``, the head
``h``, the feature ``f`` — or a fixed `Slot` of a packed dim (K and V
packed in one ``[B, S, 2, H, D]`` array are slots 0 and 1 of dim 2).

**Reads.**  An element of a result reads, of each logical array it depends
on (`Attention.reads`), the elements of the same batch, of the matching head
(the same, its kv head, or every query head of its group), of the same
position when both arrays are indexed by the same kind of position (query
or key) and of every position of the other kind otherwise, and of the same
feature where the pair says so (O[…, d] reads V[…, d] only), every feature
otherwise.  Semantics followed for masks: a score that the mask removes
contributes nothing (``exp(-inf) = 0``), so what it would read is not read:
under a causal mask (aligned top-left, ``key ≤ query``, or bottom-right,
``key ≤ query + kv_len - q_len``) the query/key pairs are restricted
exactly.  A padding mask cuts each row at the batch's actual lengths,
runtime values read from the sequence-length operands: as for every
runtime value (dynamic-slice offsets), the reads are the union over every
value they may take — every position (with the causal restriction, when
there is one, that holds for every length: top-left only) — plus the
lengths the batch's element reads (`SeqLens`).

Worked example (forward, 1 batch, 4 query heads, 2 kv heads, 8 positions,
qk and v features 16, causal top-left, Q/K/V as ``[b, s, h, f]``): output
``O(d0, d1, d2, d3)`` reads ``K(d0, s0, d2 floordiv 2, s1)`` for
``s0 in [0, 7]``, ``s1 in [0, 15]``, ``d1 - s0 in [0, 7]``, and
``V(d0, s0, d2 floordiv 2, d3)`` likewise; ``K(d0, d1, d2, d3)`` reaches
``O(d0, s0, d2 * 2 + s1, s2)`` for ``s0 - d1 in [0, 7]``, s1 ∈ [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal, TypeAlias, assert_never

from verifier.expr import Expr, IndexingMap, Interval, Undefined, const, dim, floordiv, range_var
from verifier.indexing.registry import Indexing, OpContext, OpRule
from verifier.indexing.shapes import dims_box


class Logical(Enum):
    """A logical array of attention, with the kinds of its position, head and feature."""

    Q = ("Q", "query", "query", "qk")
    K = ("K", "key", "kv", "qk")
    V = ("V", "key", "kv", "v")
    O = ("O", "query", "query", "v")  # noqa: E741 - the attention output's name
    DO = ("dO", "query", "query", "v")
    LSE = ("LSE", "query", "query", "one")
    DQ = ("dQ", "query", "query", "qk")
    DK = ("dK", "key", "kv", "qk")
    DV = ("dV", "key", "kv", "v")
    BIAS = ("bias", "pair", "query", "none")
    DBIAS = ("dbias", "pair", "query", "none")

    def __init__(self, label: str, position: str, head: str, feature: str) -> None:
        self.label = label
        self.position = position
        self.head = head
        self.feature = feature


@dataclass(frozen=True)
class Slot:
    """Element `index` of a packed dim of `count` (K is slot 0 of 2 in ``[B, S, 2, H, D]``)."""

    index: int
    count: int


Axis: TypeAlias = Literal["b", "s", "sq", "sk", "h", "f"] | Slot
"""What a physical dim holds: batch, position (of an array of one kind of
position), query or key position (of the bias, indexed by both), head,
feature, or a packed slot (a broadcast dim of size 1 is ``Slot(0, 1)``)."""


@dataclass(frozen=True)
class Placement:
    """Logical array `array` lives in leaf `leaf` (of the operands or the
    outputs), its dims holding `axes` in order."""

    array: Logical
    leaf: int
    axes: tuple[Axis, ...]


class Causal(Enum):
    """Which query/key pairs a mask keeps, for every runtime length."""

    NONE = "every pair"
    TOP_LEFT = "key <= query"
    BOTTOM_RIGHT = "key <= query + kv_len - q_len"


@dataclass(frozen=True)
class SeqLens:
    """An operand of sequence lengths, one per batch (``cumulative``: the
    batch's length is ``lens[b + 1] - lens[b]``, so ``b`` reads two)."""

    leaf: int
    cumulative: bool


@dataclass(frozen=True)
class Attention:
    """One attention call: its sizes, mask, where each logical array lives,
    and what each result reads (result → (array read, same feature?))."""

    batch: int
    heads: int
    kv_heads: int
    q_len: int
    kv_len: int
    qk_features: int
    v_features: int
    causal: Causal
    seq_lens: tuple[SeqLens, ...]
    inputs: tuple[Placement, ...]
    outputs: tuple[Placement, ...]
    reads: Mapping[Logical, tuple[tuple[Logical, bool], ...]]
    unknown: Mapping[tuple[int, int], str]
    """(output leaf, operand leaf) pairs whose relation is not modelled, and why."""

    def size(self, array: Logical, axis: Axis) -> int:
        """The extent of `axis` in `array`."""
        if isinstance(axis, Slot):
            return axis.count
        match axis:
            case "b":
                return self.batch
            case "s":
                return self.q_len if array.position == "query" else self.kv_len
            case "sq":
                return self.q_len
            case "sk":
                return self.kv_len
            case "h":
                return self.heads if array.head == "query" else self.kv_heads
            case "f":
                features = {"qk": self.qk_features, "v": self.v_features, "one": 1, "none": 0}
                return features[array.feature]
            case _:
                assert_never(axis)

    def mismatch(self, placement: Placement, dimensions: Sequence[int]) -> str | None:
        """Why `dimensions` are not those `placement` describes, or None."""
        axes = placement.axes
        expected = [self.size(placement.array, a) for a in axes]
        if list(dimensions) != expected:
            return (
                f"{placement.array.name} is {list(dimensions)}, where its layout "
                f"({_axes_text(axes)}) and the sizes give {expected}"
            )
        return None

    @property
    def group(self) -> int:
        """Query heads per kv head."""
        return self.heads // self.kv_heads


FORWARD_READS: Mapping[Logical, tuple[tuple[Logical, bool], ...]] = {
    Logical.O: ((Logical.Q, False), (Logical.K, False), (Logical.V, True)),
    Logical.LSE: ((Logical.Q, False), (Logical.K, False)),
}
"""What a forward call's results read: O[…, d] reads V's feature d only."""

_EVERYTHING = (Logical.Q, Logical.K, Logical.V, Logical.LSE, Logical.O, Logical.DO)
BACKWARD_READS: Mapping[Logical, tuple[tuple[Logical, bool], ...]] = {
    Logical.DQ: tuple((a, False) for a in _EVERYTHING),
    Logical.DK: tuple((a, False) for a in _EVERYTHING),
    # dV = Pᵀ·dO: the probabilities (q, k, statistics) and dO of the same feature.
    Logical.DV: ((Logical.Q, False), (Logical.K, False), (Logical.LSE, False), (Logical.DO, True)),
}
"""What a backward call's gradients read (dS = P∘(dO·Vᵀ − rowsum(dO∘O)),
dQ = dS·K, dK = dSᵀ·Q)."""


def biased(
    reads: Mapping[Logical, tuple[tuple[Logical, bool], ...]],
) -> Mapping[Logical, tuple[tuple[Logical, bool], ...]]:
    """`reads` of a call that adds a bias to the scores: every result reads
    it (the probabilities do), and its gradient dS (summed over the dims
    the bias is broadcast along) reads what dQ reads and the bias."""
    found = {result: (*arrays, (Logical.BIAS, False)) for result, arrays in reads.items()}
    found[Logical.DBIAS] = tuple((a, False) for a in (*_EVERYTHING, Logical.BIAS))
    return found


def bias_axes(dimensions: Sequence[int]) -> tuple[Axis, ...]:
    """The axes of a bias ``[b, h, q, k]``, a dim of size 1 broadcast."""
    b: Axis = Slot(0, 1) if dimensions[0] == 1 else "b"
    h: Axis = Slot(0, 1) if dimensions[1] == 1 else "h"
    return (b, h, "sq", "sk")


def _axes_text(axes: Sequence[Axis]) -> str:
    return ", ".join(f"{a.index} of {a.count}" if isinstance(a, Slot) else a for a in axes)


def checked(
    described: Attention, operands: Sequence[tuple[int, ...]], outputs: Sequence[tuple[int, ...]]
) -> Attention | str:
    """`described`, when every placed array has the shape its layout gives
    (and each length operand one element per batch, or one more when
    cumulative); else why not."""
    for placements, dims in ((described.inputs, operands), (described.outputs, outputs)):
        for placement in placements:
            why = described.mismatch(placement, dims[placement.leaf])
            if why is not None:
                return why
    for lens in described.seq_lens:
        expected = (described.batch + lens.cumulative,)
        if operands[lens.leaf] != expected:
            return f"the sequence lengths {list(operands[lens.leaf])} are not {list(expected)}"
    return described


# ---------------------------------------------------------------- maps


@dataclass
class _Builder:
    """A map under construction from a source placement's dims: its range
    variables and constraints grow as target coordinates are chosen."""

    attention: Attention
    dims: tuple[int, ...]
    ranges: list[Interval]
    constraints: list[tuple[Expr, Interval]]

    def fresh(self, size: int) -> Expr:
        self.ranges.append(Interval(0, size - 1))
        return range_var(len(self.ranges) - 1)

    def build(self, results: Sequence[Expr]) -> IndexingMap:
        return IndexingMap.create(
            dims_box(self.dims), results, range_vars=self.ranges, constraints=self.constraints
        )


def _coordinates(builder: _Builder, source: Placement) -> dict[str, Expr]:
    """The source's logical coordinates as dims (a packed slot is a constraint)."""
    found: dict[str, Expr] = {}
    for position, axis in enumerate(source.axes):
        if isinstance(axis, Slot):
            builder.constraints.append((dim(position), Interval(axis.index, axis.index)))
        else:
            found[axis] = dim(position)
    return found


def pair_map(
    attention: Attention,
    source: Placement,
    source_dims: tuple[int, ...],
    target: Placement,
    same_feature: bool,
) -> IndexingMap:
    """From an element of `source` to the elements of `target` it is related
    to (read, or reached), by the rules of the module docstring."""
    builder = _Builder(attention, source_dims, [], [])
    at = _coordinates(builder, source)
    positions = {kind: at[axis] for axis, kind in _POSITIONS.items() if axis in at}
    if "s" in at:
        positions[source.array.position] = at["s"]
    results: list[Expr] = []
    for axis in target.axes:
        if isinstance(axis, Slot):
            results.append(const(axis.index))
            continue
        match axis:
            case "b":
                results.append(at["b"] if "b" in at else builder.fresh(attention.batch))
            case "s" | "sq" | "sk":
                kind = target.array.position if axis == "s" else _POSITIONS[axis]
                if kind not in positions:
                    positions[kind] = builder.fresh(attention.size(target.array, axis))
                results.append(positions[kind])
            case "h":
                if "h" in at:
                    results.append(_head(builder, source.array, target.array, at["h"]))
                else:  # a bias broadcast along heads reaches every head
                    results.append(builder.fresh(attention.size(target.array, "h")))
            case "f":
                same = same_feature and source.array.feature == target.array.feature
                if same and "f" in at:
                    results.append(at["f"])
                else:
                    results.append(builder.fresh(attention.size(target.array, "f")))
            case _:
                assert_never(axis)
    if len(positions) == 2:
        builder.constraints.extend(_causal(attention, positions["query"], positions["key"]))
    return builder.build(results)


_POSITIONS = {"sq": "query", "sk": "key"}


def _head(builder: _Builder, source: Logical, target: Logical, head: Expr) -> Expr:
    """The target head of source head `head`: the same, its kv head, or each
    query head of its group."""
    group = builder.attention.group
    if source.head == target.head:
        return head
    if source.head == "query":
        return floordiv(head, group)
    return head * group + builder.fresh(group)


def _causal(attention: Attention, query: Expr, key: Expr) -> list[tuple[Expr, Interval]]:
    """The constraint a causal mask puts on a query/key pair."""
    match attention.causal:
        case Causal.NONE:
            return []
        case Causal.TOP_LEFT:
            shift = 0
        case Causal.BOTTOM_RIGHT:
            shift = attention.kv_len - attention.q_len
        case _:
            assert_never(attention.causal)
    # query - key >= -shift; the upper bound holds for every pair in range.
    return [(query - key, Interval(-shift, attention.q_len - 1))]


def seq_lens_read(dims: tuple[int, ...], batch_dim: int, lens: SeqLens) -> IndexingMap:
    """An element of batch ``b`` (dim `batch_dim`) reads ``lens[b]`` (and
    ``lens[b + 1]`` when cumulative)."""
    if not lens.cumulative:
        return IndexingMap.create(dims_box(dims), [dim(batch_dim)])
    return IndexingMap.create(
        dims_box(dims), [dim(batch_dim) + range_var(0)], range_vars=[Interval(0, 1)]
    )


def seq_lens_reach(
    attention: Attention,
    lens: SeqLens,
    length: int,
    target: Placement,
    target_dims: tuple[int, ...],
) -> IndexingMap:
    """From ``lens[j]`` to every element of the batches that read it."""
    ranges: list[Interval] = []
    constraints: list[tuple[Expr, Interval]] = []
    results: list[Expr] = []
    for position, axis in enumerate(target.axes):
        if isinstance(axis, Slot):
            results.append(const(axis.index))
        elif axis == "b" and lens.cumulative:
            ranges.append(Interval(0, 1))
            batch = dim(0) - range_var(len(ranges) - 1)
            constraints.append((batch, Interval(0, attention.batch - 1)))
            results.append(batch)
        elif axis == "b":
            results.append(dim(0))
        else:
            ranges.append(Interval(0, target_dims[position] - 1))
            results.append(range_var(len(ranges) - 1))
    return IndexingMap.create(
        [Interval(0, length - 1)], results, range_vars=ranges, constraints=constraints
    )


# ---------------------------------------------------------------- per leaf


def _collect(found: dict[int, list[IndexingMap]], leaf: int, indexing: IndexingMap) -> None:
    maps = found.setdefault(leaf, [])
    if indexing not in maps:
        maps.append(indexing)


def _finish(
    found: dict[int, list[IndexingMap]], count: int, unknown: Sequence[tuple[int, str]]
) -> tuple[Indexing, ...]:
    result: list[Indexing] = [tuple(found.get(leaf, ())) for leaf in range(count)]
    for leaf, reason in unknown:
        result[leaf] = Undefined(reason)
    return tuple(result)


def attention_output_to_input(
    attention: Attention, operands: Sequence[tuple[int, ...]], out: tuple[int, ...], output: int
) -> tuple[Indexing, ...]:
    """Per operand leaf (of dims `operands`), what output leaf `output` (of dims `out`) reads."""
    found: dict[int, list[IndexingMap]] = {}
    for source in (p for p in attention.outputs if p.leaf == output):
        for array, same_feature in attention.reads[source.array]:
            for target in (p for p in attention.inputs if p.array is array):
                _collect(found, target.leaf, pair_map(attention, source, out, target, same_feature))
        for lens in attention.seq_lens:
            _collect(found, lens.leaf, seq_lens_read(out, source.axes.index("b"), lens))
    unknown = [(o, why) for (leaf, o), why in attention.unknown.items() if leaf == output]
    return _finish(found, len(operands), unknown)


def attention_input_to_output(
    attention: Attention, operand: tuple[int, ...], outputs: Sequence[tuple[int, ...]], leaf: int
) -> tuple[Indexing, ...]:
    """Per output leaf (of dims `outputs`), what operand leaf `leaf` (of dims `operand`) reaches."""
    found: dict[int, list[IndexingMap]] = {}
    for target in attention.outputs:
        for array, same_feature in attention.reads[target.array]:
            for source in (p for p in attention.inputs if p.leaf == leaf and p.array is array):
                _collect(
                    found, target.leaf, pair_map(attention, source, operand, target, same_feature)
                )
        for lens in (lens for lens in attention.seq_lens if lens.leaf == leaf):
            reach = seq_lens_reach(attention, lens, operand[0], target, outputs[target.leaf])
            _collect(found, target.leaf, reach)
    unknown = [(o, why) for (o, i), why in attention.unknown.items() if i == leaf]
    return _finish(found, len(outputs), unknown)


def rule(describe: Callable[[OpContext], Attention | str]) -> OpRule:
    """The indexing rule of a call that `describe` reads as an attention (or
    says why not: every indexing UNDEFINED, with the target and the reason)."""

    def undefined(ctx: OpContext, reason: str, count: int) -> tuple[Indexing, ...]:
        target = ctx.instruction.attributes.word("custom_call_target")
        return (Undefined(f"custom-call target {target}: {reason}"),) * count

    def o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
        described = describe(ctx)
        operands = [leaf.shape.dimensions for leaf in ctx.operand_leaves]
        if isinstance(described, str):
            return undefined(ctx, described, len(operands))
        out = ctx.output_shapes[output].dimensions
        return attention_output_to_input(described, operands, out, output)

    def i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
        described = describe(ctx)
        outputs = [shape.dimensions for shape in ctx.output_shapes]
        if isinstance(described, str):
            return undefined(ctx, described, len(outputs))
        dims = ctx.operand_leaves[operand].shape.dimensions
        return attention_input_to_output(described, dims, outputs, operand)

    return OpRule(o2i, i2o, whole_tuples=True)
