"""Which operand elements does each output element read? (convolution and
cuDNN's convolution custom-calls, sort, scatter, select-and-scatter,
collectives, bitcast through tiled layouts), by enumeration.

Conventions shared with `tests/oracle`: a runtime value (a scatter index) is
the union over every value it may take; an update whose window would leave
the operand is skipped (XLA's scatter semantics); a window position in
padding or in a dilation hole reads nothing.  For a collective the reads are
those of the output on the replica at each group position, unioned over the
group, all replicas holding operands of the same shape.

A bitcast reads the operand elements whose bits overlap the output
element's bits, both buffers laid out by the tiled-layout document's
pad-reshape-transpose (`oracle_layout`); padding slots hold no element.

Convolution groups follow XLA's ``convolution_group_converter``: the lhs
feature dim is split group-major into ``feature_group_count`` groups of
``C_g`` features (the kernel's input features), the kernel's output
features into as many groups; the lhs batch is split group-major into
``batch_group_count`` groups of the output batch size, the output features
likewise.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import TypeAlias

from tests.oracle_layout import element_bits
from verifier.hlo import Computation, Instruction, Shape

Index: TypeAlias = tuple[int, ...]
Element: TypeAlias = tuple[int, Index]
Semantics: TypeAlias = Callable[[Instruction, list[Instruction], int, Index], set[Element]]


def _indices(dimensions: Sequence[int]) -> Iterator[Index]:
    return itertools.product(*(range(n) for n in dimensions))


class UnsupportedByOracle(Exception):
    """The oracle has no semantics for this instruction (or configuration)."""


def _outputs(instruction: Instruction) -> list[tuple[int, ...]]:
    """The dims of every output array, depth first through nested tuples."""
    return list(_leaf_dims(instruction.shape))


def _leaf_dims(shape: Shape) -> Iterator[tuple[int, ...]]:
    if shape.tuple_shapes is None:
        yield shape.dimensions
        return
    for element in shape.tuple_shapes:
        yield from _leaf_dims(element)


# ------------------------------------------------------------------ convolution


def _convolution_terms(
    instruction: Instruction, lhs: Index, rhs: Index, out: Index, index: Index
) -> set[tuple[Index, Index]]:
    """The (lhs, kernel) element pairs multiplied in the sum of output
    element `index`, for a convolution of `lhs` and `rhs` dims into `out`
    dims with `instruction`'s window and dim_labels."""
    labels = instruction.convolution_dimension_numbers()
    window = instruction.window()
    feature_groups = instruction.attributes.integer("feature_group_count") or 1
    batch_groups = instruction.attributes.integer("batch_group_count") or 1
    out_features = rhs[labels.kernel_output_feature]
    group_features = rhs[labels.kernel_input_feature]
    out_batch = out[labels.output_batch]
    o = index[labels.output_feature]
    feature_group = o // (out_features // feature_groups)
    batch_group = o // (out_features // batch_groups)
    lhs_batch = batch_group * out_batch + index[labels.output_batch]
    found: set[tuple[Index, Index]] = set()
    for positions in _indices([w.size for w in window]):
        lhs_spatial: list[int] = []
        for k, w in enumerate(window):
            dilated = index[labels.output_spatial[k]] * w.stride
            dilated += positions[k] * w.window_dilation - w.padding_low
            if dilated < 0 or dilated % w.base_dilation != 0:
                break
            if dilated // w.base_dilation >= lhs[labels.input_spatial[k]]:
                break
            lhs_spatial.append(dilated // w.base_dilation)
        else:
            for c in range(group_features):
                lhs_index = [0] * len(lhs)
                lhs_index[labels.input_batch] = lhs_batch
                lhs_index[labels.input_feature] = feature_group * group_features + c
                rhs_index = [0] * len(rhs)
                rhs_index[labels.kernel_input_feature] = c
                rhs_index[labels.kernel_output_feature] = o
                for k, w in enumerate(window):
                    lhs_index[labels.input_spatial[k]] = lhs_spatial[k]
                    flipped = w.size - 1 - positions[k] if w.window_reversal else positions[k]
                    rhs_index[labels.kernel_spatial[k]] = flipped
                found.add((tuple(lhs_index), tuple(rhs_index)))
    return found


def _convolution(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    if "sparsity_config" in instruction.attributes:
        # XLA's evaluator first expands a compressed operand by the values of
        # its metadata operand, which this oracle does not model.
        raise UnsupportedByOracle(f"sparse convolution '{instruction.name}'")
    lhs, rhs = operands[0].shape.dimensions, operands[1].shape.dimensions
    terms = _convolution_terms(instruction, lhs, rhs, instruction.shape.dimensions, index)
    return {(0, x) for x, _ in terms} | {(1, w) for _, w in terms}


def cudnn_convolution(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    """cuDNN's convolutions, from the forward convolution ``Y = conv(X, W)``
    their window and dim_labels describe: forward computes Y from (X, W)
    (bias-activation adds bias[feature] and a side input element), backward
    input X from (Y, W), backward filter W from (X, Y); each result element
    reads the operand elements of every term of the forward sums it is in.
    The workspace (output 1) reads nothing."""
    target = instruction.attributes.word("custom_call_target") or ""
    first, second = operands[0].shape.dimensions, operands[1].shape.dimensions
    result = _outputs(instruction)[0]
    if output != 0:
        return set()
    labels = instruction.convolution_dimension_numbers()
    if target in ("__cudnn$convForward", "__cudnn$convBiasActivationForward"):
        terms = _convolution_terms(instruction, first, second, result, index)
        found = {(0, x) for x, _ in terms} | {(1, w) for _, w in terms}
        if len(operands) > 2:
            found.add((2, (index[labels.output_feature],)))
        if len(operands) > 3:
            found.add((3, index))
        return found
    if target == "__cudnn$convBackwardInput":  # operands (Y, W), result X
        found = set()
        for y in _indices(first):
            for x, w in _convolution_terms(instruction, result, second, first, y):
                if x == index:
                    found |= {(0, y), (1, w)}
        return found
    if target == "__cudnn$convBackwardFilter":  # operands (X, Y), result W
        found = set()
        for y in _indices(second):
            for x, w in _convolution_terms(instruction, first, result, second, y):
                if w == index:
                    found |= {(0, x), (1, y)}
        return found
    raise ValueError(f"no semantics for custom-call target {target}")


# ------------------------------------------------------------------ sort


def _sort(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    (axis,) = instruction.int_list("dimensions")
    found: set[Element] = set()
    for number, operand in enumerate(operands):
        for position in range(operand.shape.dimensions[axis]):
            row = list(index)
            row[axis] = position
            found.add((number, tuple(row)))
    return found


# ------------------------------------------------------------------ scatter


def _scatter(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    # StableHLO: update u's target is full_start_index + full_batching_index
    # + full_window_index; input_batching_dims[i] takes the update's scatter
    # coordinate of indices dim scatter_indices_batching_dims[i].
    numbers = instruction.scatter_dimension_numbers()
    count = (len(operands) - 1) // 2
    operand = operands[0].shape.dimensions
    indices = operands[count].shape.dimensions
    updates = operands[count + 1].shape.dimensions
    batching = list(
        zip(numbers.input_batching_dims, numbers.scatter_indices_batching_dims, strict=True)
    )
    found: set[Element] = {(k, index) for k in range(count)}
    # An index decides whether its update lands on `index` unless its batch differs.
    found |= {(count, i) for i in _indices(indices) if all(i[b] == index[j] for j, b in batching)}
    hidden = numbers.inserted_window_dims + numbers.input_batching_dims
    window_dims = [j for j in range(len(operand)) if j not in hidden]
    sizes = [1] * len(operand)
    for position, j in enumerate(window_dims):
        sizes[j] = updates[numbers.update_window_dims[position]]
    scatter_dims = [k for k in range(len(updates)) if k not in numbers.update_window_dims]
    for update in _indices(updates):
        scatter_index = [update[k] for k in scatter_dims]
        # Every start the index vector may hold: along a scattered dim any
        # value that keeps the window inside the operand, along a batching
        # dim the update's batch coordinate, elsewhere 0.
        start_ranges = [
            range(operand[j] - sizes[j] + 1)
            if j in numbers.scatter_dims_to_operand_dims
            else range(1)
            for j in range(len(operand))
        ]
        for j, b in batching:
            coordinate = scatter_index[b if b < numbers.index_vector_dim else b - 1]
            start_ranges[j] = range(coordinate, coordinate + 1)
        for start in itertools.product(*start_ranges):
            target = list(start)
            for position, j in enumerate(window_dims):
                target[j] += update[numbers.update_window_dims[position]]
            if tuple(target) == index:
                found |= {(count + 1 + k, update) for k in range(count)}
    return found


# ------------------------------------------------------------------ select-and-scatter


def _select_and_scatter(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    window = instruction.window()
    operand = operands[0].shape.dimensions
    source = operands[1].shape.dimensions
    found: set[Element] = {(2, ())}
    for w_index in _indices(source):
        members = []
        for positions in _indices([w.size for w in window]):
            member = tuple(
                w_index[k] * w.stride + positions[k] - w.padding_low for k, w in enumerate(window)
            )
            if all(0 <= m < n for m, n in zip(member, operand, strict=True)):
                members.append(member)
        if index in members:
            found.add((1, w_index))
            found |= {(0, m) for m in members}
    return found


# ------------------------------------------------------------------ collectives


def _same_element(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    return {(output, index)}


def _all_gather(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    (axis,) = instruction.int_list("dimensions")
    chunk = operands[output].shape.dimensions[axis]
    read = list(index)
    read[axis] = index[axis] % chunk  # from the replica at group position index // chunk
    return {(output, tuple(read))}


def _reduce_scatter(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    (axis,) = instruction.int_list("dimensions")
    chunk = _outputs(instruction)[output][axis]
    groups = operands[output].shape.dimensions[axis] // chunk
    found: set[Element] = set()
    for replica in range(groups):
        read = list(index)
        read[axis] = replica * chunk + index[axis]
        found.add((output, tuple(read)))
    return found


def _all_to_all(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    if instruction.attributes.ints("dimensions") is None:
        return _tuple_all_to_all(operands, output, index)
    (axis,) = instruction.int_list("dimensions")
    groups = len(instruction.attributes.get("replica_groups").groups[0])  # type: ignore[union-attr]
    chunk = instruction.shape.dimensions[axis] // groups
    found: set[Element] = set()
    for replica in range(groups):
        # On this replica, output chunk j is chunk `replica` of replica j's operand.
        read = list(index)
        read[axis] = replica * chunk + index[axis] % chunk
        found.add((0, tuple(read)))
    return found


def _tuple_all_to_all(operands: list[Instruction], output: int, index: Index) -> set[Element]:
    # One operand per replica of the group, exchanged whole: replica j sends
    # its operand k to the replica at group position k, which keeps it as
    # its output j.  received[(receiver, output)] = the operand number.
    count = len(operands)
    received = {(k, j): k for j in range(count) for k in range(count)}
    return {(received[(replica, output)], index) for replica in range(count)}


def _all_gather_start(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    # (operand, gathered) for one operand: the first element keeps the operand;
    # written as an array, the start is the gathered array alone.
    if instruction.shape.tuple_shapes is None:
        return _all_gather(instruction, operands, output, index)
    if output == 0:
        return {(0, index)}
    (axis,) = instruction.int_list("dimensions")
    chunk = operands[0].shape.dimensions[axis]
    read = list(index)
    read[axis] = index[axis] % chunk
    return {(0, tuple(read))}


def _collective_permute_start(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    # (operand, result from the source replica, contexts…); of several
    # operands, ((operands…), (results…), contexts…): leaf k and leaf n + k
    # are operand k, as sent and as received from the source replica.
    count = len(operands)
    return {(output % count, index)} if output < 2 * count else set()


# ------------------------------------------------------------------ bitcast


@functools.cache
def _bit_ranges(shape: Shape) -> dict[Index, range]:
    return element_bits(shape)


def bitcast(
    instruction: Instruction, operands: list[Instruction], output: int, index: Index
) -> set[Element]:
    """The operand elements whose bits overlap output element `index`'s."""
    if instruction.shape.tuple_shapes is not None or operands[0].shape.tuple_shapes is not None:
        # A tuple is a table of buffers, not one buffer whose bits it shares.
        raise UnsupportedByOracle(f"bitcast '{instruction.name}' of a tuple")
    bits = _bit_ranges(instruction.shape)[index]
    return {
        (0, element)
        for element, held in _bit_ranges(operands[0].shape).items()
        if held.start < bits.stop and bits.start < held.stop
    }


_SEMANTICS: dict[str, Semantics] = {
    "convolution": _convolution,
    "custom-call": cudnn_convolution,
    "sort": _sort,
    "scatter": _scatter,
    "select-and-scatter": _select_and_scatter,
    "all-reduce": _same_element,
    "all-reduce-start": _same_element,
    "all-gather-start": _all_gather_start,
    "collective-permute-start": _collective_permute_start,
    "collective-permute": _same_element,
    "collective-broadcast": _same_element,
    "all-gather": _all_gather,
    "reduce-scatter": _reduce_scatter,
    "all-to-all": _all_to_all,
    "bitcast": bitcast,
}
# custom-call: only cuDNN's convolution targets; the interpreter judges
# custom-calls and hands those to `cudnn_convolution`.
SUPPORTED_OPCODES = frozenset(_SEMANTICS) - {"custom-call"}


def reads(
    computation: Computation, instruction: Instruction, output: int = 0
) -> dict[Index, set[Element]]:
    """Output `output`'s index → the `(operand_number, operand_index)` it reads."""
    semantics = _SEMANTICS[instruction.opcode]
    operands = list(computation.operand_instructions(instruction))
    return {
        index: semantics(instruction, operands, output, index)
        for index in _indices(_outputs(instruction)[output])
    }


def relation(
    computation: Computation, instruction: Instruction, output: int, operand: int
) -> frozenset[tuple[Index, Index]]:
    """Output→input ``{(output_index, operand_index)}`` for one output and operand."""
    return frozenset(
        (index, element)
        for index, elements in reads(computation, instruction, output).items()
        for number, element in elements
        if number == operand
    )


def inverse_relation(
    computation: Computation, instruction: Instruction, operand: int, output: int
) -> frozenset[tuple[Index, Index]]:
    """Input→output ``{(operand_index, output_index)}``, the inverse of `relation`."""
    return frozenset((e, i) for i, e in relation(computation, instruction, output, operand))
