"""XLA's operand-utilization heuristic, reproduced for comparison.

XLA's GPU cost model does not count elements; it multiplies per-op ratios
(``FusionCalculateUtilizations`` in ``gpu_hlo_cost_analysis``, on top of the
per-op handlers of ``HloCostAnalysis``).  In a fused computation the root has
utilization 1.  Walking from users to producers:

* an elementwise user (and ``tuple`` / ``get-tuple-element``) passes its
  *roots* on to its operands: the operand's utilization is the sum of its
  roots' utilizations, each root counted once however many elementwise paths
  lead to it (so ``add(p0, p0)`` gives p0 utilization 1, not 2);
* any other user makes the operand a root of its own, adding the user's
  utilization times the op's ratio, rounded up to whole elements of the
  operand: ``ceil(u * ratio * n) / n`` for an operand of ``n`` elements.

A fusion operand's utilization is that of its parameter.  The op ratios are
the handlers' (everything else keeps ``Preprocess``'s default 1):

=====================  =====================================================
slice                  output elements / operand elements
dynamic-slice, gather  output elements / operand 0 elements (the start
                       indices: 1)
dynamic-update-slice   operand 0: update elements / output elements (the
                       handler's ratio for the aliased buffer); others 1
broadcast              1: every operand element is read, however often
reduce, reduce-window  1: the whole input is reduced
pad, concatenate       1 (negative padding included: XLA does not look)
transpose, reshape,    1
bitcast, reverse, copy
dot, convolution,      1
scatter, sort, others
=====================  =====================================================

We evaluate the formula in exact rationals where XLA uses ``float``: XLA
can round one element further up when ``u * n`` is a whole number that
float arithmetic misses.  Worked example, ``p0 + transpose(p0)`` on
``f32[10,10]``: the root ``add`` has utilization 1 and is elementwise, so p0
inherits the root ``add`` (1); ``transpose`` inherits it too, and as a
non-elementwise user makes p0 a root with ``1 * 1 = 1``: p0's utilization is
2 (200 elements), where exactly 100 distinct elements are read.

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... f {
...   p0 = f32[10,10] parameter(0)
...   t = f32[10,10] transpose(p0), dimensions={1,0}
...   ROOT a = f32[10,10] add(p0, t)
... }
... ENTRY e {
...   x = f32[10,10] parameter(0)
...   ROOT r = f32[10,10] fusion(x), kind=kLoop, calls=f
... }''')
>>> operand_utilizations(module, module.entry, module.entry.root)
(Fraction(2, 1),)
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

from verifier.analysis.dataflow import users_first_order
from verifier.hlo import (
    ELEMENTWISE_OPCODES,
    PLUMBING_OPCODES,
    Computation,
    Instruction,
    Module,
    Shape,
)

# Users that pass their roots on instead of starting new ones.
_PASS_THROUGH = ELEMENTWISE_OPCODES | PLUMBING_OPCODES


def elements(shape: Shape) -> int:
    """XLA's ``ElementsInRecursive``: a tuple counts the elements of its parts."""
    if shape.tuple_shapes is not None:
        return sum(elements(part) for part in shape.tuple_shapes)
    return math.prod(shape.dimensions)


def op_ratio(computation: Computation, instruction: Instruction, operand: int) -> Fraction:
    """The per-op utilization of `operand` (the table above)."""
    opcode = instruction.opcode
    output = elements(instruction.shape)
    operands = computation.operand_instructions(instruction)
    if opcode == "slice" or (opcode in ("dynamic-slice", "gather") and operand == 0):
        return _ratio(output, elements(operands[operand].shape))
    if opcode == "dynamic-update-slice" and operand == 0:
        return _ratio(elements(operands[1].shape), output)
    return Fraction(1)


def _ratio(numerator: int, denominator: int) -> Fraction:
    return Fraction(numerator, denominator) if denominator else Fraction(0)


def _round_up(utilization: Fraction, size: int) -> Fraction:
    """Up to a whole number of the operand's `size` elements."""
    if size == 0:
        return Fraction(0)
    return Fraction(math.ceil(utilization * size), size)


def operand_utilizations(
    module: Module, computation: Computation, instruction: Instruction
) -> tuple[Fraction, ...]:
    """XLA's utilization of each operand of `instruction` (of `computation`):
    the fused-computation walk for a fusion, the op's rounded ratio otherwise."""
    if instruction.opcode == "fusion":
        fused = module.computation(instruction.called_computations[0])
        return fused_parameter_utilizations(fused)
    operands = computation.operand_instructions(instruction)
    return tuple(
        _round_up(op_ratio(computation, instruction, k), elements(operand.shape))
        for k, operand in enumerate(operands)
    )


def fused_parameter_utilizations(fused: Computation) -> tuple[Fraction, ...]:
    """``FusionCalculateUtilizations``: one utilization per parameter of the
    fused computation."""
    root = fused.root.name
    roots: defaultdict[str, set[str]] = defaultdict(set)
    roots[root].add(root)
    root_utilization: defaultdict[str, Fraction] = defaultdict(Fraction)
    root_utilization[root] = Fraction(1)
    utilization: dict[str, Fraction] = {}
    for instruction in users_first_order(fused):
        name = instruction.name
        current = sum((root_utilization[r] for r in roots[name]), Fraction(0))
        utilization[name] = current
        operands = fused.operand_instructions(instruction)
        for number, operand in enumerate(operands):
            if instruction.opcode in _PASS_THROUGH:
                roots[operand.name] |= roots[name]
                continue
            roots[operand.name].add(operand.name)
            ratio = current * op_ratio(fused, instruction, number)
            root_utilization[operand.name] += _round_up(ratio, elements(operand.shape))
    return tuple(utilization.get(p.name, Fraction(0)) for p in fused.parameters)
