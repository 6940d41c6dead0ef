"""``scan``: a loop over one dimension of its inputs, threading carries.

XLA's syntax (as its HLO parser reads it, and as ``mhlo.scan`` shows it:
``scan(inputs…) inits(inits…) dimension=D``)::

    r = (f32[5,3], f32[]) scan(f32[5] xs, f32[] init), dimensions={0},
        num_carries=1, is_reverse=false, to_apply=body

The last ``num_carries`` operands are the carries' initial values, the
others the inputs, each sliced along dimension ``D`` (length ``L``).  Step
``t`` (``0…L-1``, or ``L-1…0`` with ``is_reverse=true``) calls
``body(x_0[t], …, c_0, …)``, which returns the step's output slices then the
new carries; the results are the outputs (the slices stacked along ``D``)
then the final carries.

The body is opaque here, as a reduce's ``to_apply``: a step's results read
every element of the step's slices and carries.  Through the carries, output
slice ``t`` then reads the input slices of every step up to ``t`` (from
``t`` on, reversed) and all of every init; a final carry reads everything.
XLA's own indexing (``ComputeOutputToInputScanOpIndexing``) maps an output
element to the *same* input element of its step, which describes the step's
indexing, not what the output depends on; this rule gives the dependence.

``r`` above: output 0 reads xs through ``(d0, d1)[s0] -> (s0)`` with
``d0 - s0 in [0, 4]``, s0 ∈ [0, 4], and init through ``(d0, d1) -> ()``;
output 1 reads xs through ``()[s0] -> (s0)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.expr import IndexingMap, Interval, Undefined, dim, range_var
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box
from verifier.indexing.whole_slices import slice_map


@dataclass(frozen=True)
class _Scan:
    dimension: int
    inputs: int
    outputs: int
    reverse: bool

    @staticmethod
    def of(ctx: OpContext) -> _Scan | str:
        instruction = ctx.instruction
        carries = instruction.attributes.integer("num_carries") or 0
        (dimension,) = instruction.int_list("dimensions")
        results = ctx.shape.tuple_shapes if ctx.shape.is_tuple else (ctx.shape,)
        assert results is not None
        if any(result.is_tuple for result in results):
            return "a scan whose results nest tuples"
        stacked = [operand.shape for operand in ctx.operands[: len(ctx.operands) - carries]]
        stacked += results[: len(results) - carries]
        if len({shape.dimensions[dimension] for shape in stacked if shape.rank > dimension}) > 1:
            return f"scan inputs and outputs disagree on the length of dimension {dimension}"
        return _Scan(
            dimension,
            len(ctx.operands) - carries,
            len(results) - carries,
            instruction.attributes.boolean("is_reverse") is True,
        )


def _earlier_slices(
    scan: _Scan, source: tuple[int, ...], target: tuple[int, ...], forward: bool
) -> IndexingMap:
    """From a stacked `source` index (step ``d_D``) to every element of the
    `target` slices of the steps it depends on (`forward`: steps ``t`` with
    ``t <= d_D`` in scan order) — or, inverted, that those steps reach."""
    length = target[scan.dimension]
    step = range_var(0)
    rest = [range_var(k + 1) for k in range(len(target) - 1)]
    sizes = [n for k, n in enumerate(target) if k != scan.dimension]
    before = dim(scan.dimension) - step if forward != scan.reverse else step - dim(scan.dimension)
    return IndexingMap.create(
        dims_box(source),
        [*rest[: scan.dimension], step, *rest[scan.dimension :]],
        range_vars=[Interval(0, length - 1), *(Interval(0, n - 1) for n in sizes)],
        constraints=[(before, Interval(0, length - 1))],
    )


def _scan_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    scan = _Scan.of(ctx)
    if isinstance(scan, str):
        return (Undefined(scan),) * len(ctx.operands)
    out = ctx.output_shapes[output].dimensions
    found: list[Indexing] = []
    for operand in range(len(ctx.operands)):
        target = ctx.operand_shape(operand).dimensions
        if output < scan.outputs and operand < scan.inputs:
            found.append((_earlier_slices(scan, out, target, forward=True),))
        else:
            found.append((slice_map(out, target, {}),))
    return tuple(found)


def _scan_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    scan = _Scan.of(ctx)
    if isinstance(scan, str):
        return (Undefined(scan),) * len(ctx.output_shapes)
    source = ctx.operand_shape(operand).dimensions
    found: list[Indexing] = []
    for output, shape in enumerate(ctx.output_shapes):
        if output < scan.outputs and operand < scan.inputs:
            found.append((_earlier_slices(scan, source, shape.dimensions, forward=False),))
        else:
            found.append((slice_map(source, shape.dimensions, {}),))
    return tuple(found)


register("scan")(OpRule(_scan_o2i, _scan_i2o))
