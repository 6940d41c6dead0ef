"""The maps of a conditional and of an async-start, composed through the
computations they call (given as `through`: a computation's maps from one
of its leaves, composed).

A conditional is the union of its branches (which one runs is a run-time
value): every output element reads the branch index, ``(d…) -> ()``, and
branch ``b``'s operand (operand ``b + 1``) through branch ``b``'s maps.  An
``((operands…), result, context…) async-start(operands…), calls=c`` holds
its operands in element ``{0}`` and the result of ``c`` on them in ``{1}``;
its contexts read nothing.  When it passes fewer operands than ``c`` has
parameters (the others bound later, by async-update), the result is not
composed: UNDEFINED, saying so.

>>> from verifier.fusion.compose import Composer
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... negated {
...   x = f32[4] parameter(0)
...   ROOT n = f32[4] negate(x)
... }
... reversed {
...   x = f32[4] parameter(0)
...   ROOT r = f32[4] reverse(x), dimensions={0}
... }
... ENTRY e {
...   b = s32[] parameter(0)
...   p = f32[4] parameter(1)
...   q = f32[4] parameter(2)
...   ROOT c = f32[4] conditional(b, p, q), branch_computations={negated, reversed}
... }''')
>>> entry = module.entry
>>> index, p, q = Composer(module).composed_output_to_input(entry, entry.root)
>>> [[str(c.map).splitlines()[0] for c in leaf.maps] for leaf in (index, p, q)]
[['(d0) -> (),'], ['(d0) -> (d0),'], ['(d0) -> (-d0 + 3),']]
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.expr import IndexingMap, Undefined, range_var
from verifier.fusion.composed import ComposedIndexing, CountedMap
from verifier.hlo import Computation, Instruction, Module, Shape, ShapeIndex
from verifier.indexing.leaves import OperandLeaf, instruction_operand_leaves, output_leaves
from verifier.indexing.shapes import dims_box

Through = Callable[[Computation, int], tuple[ComposedIndexing, ...]]
"""A called computation's maps from one of its leaves, composed."""


def conditional_output_to_input(
    module: Module, instruction: Instruction, output: int, through: Through
) -> tuple[ComposedIndexing, ...]:
    """Per operand leaf: the branch index read by every element of output
    `output`, each branch's operand by that branch's maps (`through`:
    from a computation's output leaf)."""
    shape = output_leaves(instruction.shape)[output].shape
    index_read = ComposedIndexing((CountedMap(IndexingMap.create(dims_box(shape), [])),))
    found = [index_read]
    for branch in _branches(module, instruction):
        found += through(branch, output)
    return tuple(found)


def conditional_input_to_output(
    module: Module,
    computation: Computation,
    instruction: Instruction,
    operand: int,
    through: Through,
) -> tuple[ComposedIndexing, ...]:
    """Per output leaf: the branch index reaches every element; a leaf of
    branch ``b``'s operand reaches what branch ``b`` makes of it (`through`:
    from a computation's parameter leaf)."""
    leaf = instruction_operand_leaves(computation, instruction)[operand]
    if leaf.operand == 0:
        return tuple(
            ComposedIndexing((CountedMap(_everywhere(output.shape.dimensions)),))
            for output in output_leaves(instruction.shape)
        )
    branch = _branches(module, instruction)[leaf.operand - 1]
    return through(branch, leaf.leaf)


def async_start_output_to_input(
    module: Module,
    computation: Computation,
    instruction: Instruction,
    output: int,
    through: Through,
) -> tuple[ComposedIndexing, ...]:
    """Per operand leaf, what output leaf `output` reads: in ``{0}`` its
    operand, in ``{1}`` the called computation's maps (`through`), in a
    context nothing."""
    leaf = output_leaves(instruction.shape)[output]
    operands = instruction_operand_leaves(computation, instruction)
    if leaf.index[0] == 0:
        forwarded = _same_place(operands, leaf.index[1:])
        identity = CountedMap(IndexingMap.identity(leaf.shape.dimensions))
        return tuple(
            ComposedIndexing((identity,) if o.number == forwarded else ()) for o in operands
        )
    if leaf.index[0] == 1:
        called = module.computation(instruction.called_computations[0])
        late = _late_bound(instruction, called)
        if late is not None:
            return tuple(ComposedIndexing(late) for _ in operands)
        first = _first_leaf_of_element(instruction.shape, 1)
        return through(called, output - first)
    return tuple(ComposedIndexing(()) for _ in operands)


def async_start_input_to_output(
    module: Module,
    computation: Computation,
    instruction: Instruction,
    operand: int,
    through: Through,
) -> tuple[ComposedIndexing, ...]:
    """Per output leaf: an operand leaf reaches its copy in ``{0}`` and,
    through the wrapped computation (`through`), the result ``{1}``."""
    leaf = instruction_operand_leaves(computation, instruction)[operand]
    called = module.computation(instruction.called_computations[0])
    late = _late_bound(instruction, called)
    reached = (
        through(called, operand)
        if late is None
        else tuple(ComposedIndexing(late) for _ in output_leaves(called.root.shape))
    )
    found: list[ComposedIndexing] = []
    for output in output_leaves(instruction.shape):
        if output.index[0] == 0 and output.index[1:] == (leaf.operand, *leaf.index):
            found.append(
                ComposedIndexing((CountedMap(IndexingMap.identity(leaf.shape.dimensions)),))
            )
        elif output.index[0] == 1:
            found.append(reached[output.number - _first_leaf_of_element(instruction.shape, 1)])
        else:
            found.append(ComposedIndexing(()))
    return tuple(found)


def _branches(module: Module, instruction: Instruction) -> tuple[Computation, ...]:
    """A conditional's branch computations, in operand order (``true``
    before ``false`` for a predicate)."""
    names = instruction.attributes.names("branch_computations")
    if names is None:
        names = tuple(
            instruction.attributes.word(name) or ""
            for name in ("true_computation", "false_computation")
        )
    if len(names) != len(instruction.operands) - 1:
        raise ValueError(
            f"conditional '{instruction.name}' has {len(names)} branches and "
            f"{len(instruction.operands) - 1} branch operands"
        )
    return tuple(module.computation(name) for name in names)


def _everywhere(dimensions: tuple[int, ...]) -> IndexingMap:
    """``()[s0, …] -> (s0, …)``: one element reaches every element of `dimensions`."""
    return IndexingMap.create(
        [], [range_var(k) for k in range(len(dimensions))], range_vars=dims_box(dimensions)
    )


def _same_place(operands: tuple[OperandLeaf, ...], index: ShapeIndex) -> int:
    """The operand leaf at (operand number, shape index) `index`."""
    return next(o.number for o in operands if (o.operand, *o.index) == index)


def _late_bound(start: Instruction, called: Computation) -> Undefined | None:
    """Why the result of async-start `start` is not composed through
    `called` — it passes fewer operands than `called` has parameters, the
    others bound later by async-updates — or None."""
    if len(start.operands) == len(called.parameters):
        return None
    return Undefined(
        f"async-start passes {len(start.operands)} of the {len(called.parameters)} operands "
        f"of '{called.name}' (the others bound later, by async-update): not composed"
    )


def _first_leaf_of_element(shape: Shape, element: int) -> int:
    """The number of the first output leaf inside tuple element `element`."""
    return next(leaf.number for leaf in output_leaves(shape) if leaf.index[0] == element)
