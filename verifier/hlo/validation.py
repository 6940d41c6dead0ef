"""Module-level rules of XLA's ``HloVerifier`` that the indexing rules rely on.

Each instruction's own shape is checked as it is read (`verifier.hlo.inference`);
what needs more than one instruction is checked here, once the whole module
is read: a call's operands against its computation's parameters, an async
chain against the computation it runs, a ``*-done`` against its start.  A
module that breaks a rule is invalid HLO (XLA rejects it too): an
`InvalidHloError` at the instruction, naming the rule — never a crash of a
rule later.

>>> from verifier.hlo.parser import parse_module
>>> parse_module('''HloModule m
... wrapped {
...   a = f32[2,3] parameter(0)
...   ROOT t = f32[3,2] transpose(a), dimensions={1,0}
... }
... ENTRY e {
...   p = f32[3,2] parameter(0)
...   s = ((f32[3,2]), f32[3,2], s32[]) async-start(p), calls=wrapped
...   ROOT d = f32[3,2] async-done(s)
... }''', "a.hlo")
Traceback (most recent call last):
...
verifier.errors.InvalidHloError: a.hlo:8:3: async-start 's' is not valid HLO: operand 0 is f32[3,2], parameter 0 of 'wrapped' is f32[2,3]
    s = ((f32[3,2]), f32[3,2], s32[]) async-start(p), calls=wrapped
    ^
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.errors import InvalidHloError
from verifier.hlo.module import Computation, Instruction, Module
from verifier.hlo.opcodes import OPCODE_TABLE
from verifier.hlo.shape import Shape


class _Broken(Exception):
    """Why an instruction breaks a rule; `validate` adds its place."""


def validate(module: Module) -> None:
    """Raise `InvalidHloError` at the first instruction of `module` that breaks
    a rule of `RULES`."""
    for computation in module.computations:
        for instruction in computation.instructions:
            rule = RULES.get(instruction.opcode)
            try:
                _names_its_computations(instruction)
                if rule is not None:
                    rule(module, computation, instruction)
            except _Broken as error:
                raise InvalidHloError(
                    f"{instruction.opcode} '{instruction.name}' is not valid HLO: {error}",
                    instruction.span,
                ) from None


def _names_its_computations(instruction: Instruction) -> None:
    """Every computation attribute XLA's parser requires of the opcode is
    written (`Opcode.computations`): a ``reduce`` without ``to_apply`` has
    no reduction, and XLA rejects it."""
    facts = OPCODE_TABLE.get(instruction.opcode)
    for attribute in facts.computations if facts else ():
        if instruction.attribute(attribute) is None:
            raise _Broken(f"it needs the attribute '{attribute}' naming a computation")


def _called(module: Module, instruction: Instruction) -> Computation:
    names = instruction.called_computations
    if not names or not module.has_computation(names[0]):
        raise _Broken("it names no computation to call")
    return module.computation(names[0])


def _operand_shapes(computation: Computation, instruction: Instruction) -> list[Shape]:
    return [operand.shape for operand in computation.operand_instructions(instruction)]


def _elements(shape: Shape, least: int, what: str) -> tuple[Shape, ...]:
    """The tuple elements of an async state `shape`, at least `least` of them."""
    if shape.tuple_shapes is None or len(shape.tuple_shapes) < least:
        raise _Broken(f"{what} is {shape}, not a tuple of at least {least} elements")
    return shape.tuple_shapes


def _call_operands(module: Module, computation: Computation, instruction: Instruction) -> None:
    """A fusion or call passes one operand per parameter of its computation,
    each of the parameter's shape (the composition pairs them by position)."""
    callee = _called(module, instruction)
    if len(instruction.operands) != len(callee.parameters):
        raise _Broken(
            f"it passes {len(instruction.operands)} operands to '{callee.name}', which has "
            f"{len(callee.parameters)} parameters"
        )
    _match_parameters(_operand_shapes(computation, instruction), callee)


def _match_parameters(shapes: list[Shape], callee: Computation) -> None:
    for number, (shape, parameter) in enumerate(zip(shapes, callee.parameters, strict=False)):
        if not shape.compatible(parameter.shape):
            raise _Broken(
                f"operand {number} is {shape}, parameter {number} of '{callee.name}' "
                f"is {parameter.shape}"
            )


def _async_start(module: Module, computation: Computation, instruction: Instruction) -> None:
    """``((operands…), result, context…) async-start(operands…), calls=c``:
    the operands are a prefix of c's parameters (the rest bound later by
    async-updates) of their shapes, element ``{0}`` holds their shapes and
    element ``{1}`` is c's result (or ``()`` until every operand is bound)."""
    callee = _called(module, instruction)
    shapes = _operand_shapes(computation, instruction)
    if len(shapes) > len(callee.parameters):
        raise _Broken(
            f"it passes {len(shapes)} operands to '{callee.name}', which has "
            f"{len(callee.parameters)} parameters"
        )
    _match_parameters(shapes, callee)
    _async_state(instruction.shape, shapes, callee, "its shape")


def _async_state(state: Shape, bound: list[Shape], callee: Computation, what: str) -> None:
    """An async state holds the operands bound so far in ``{0}`` and a prefix
    of the callee's result in ``{1}``: the result, ``()``, or the first
    elements of a tuple result (``(f32[4])`` of ``(f32[4], f32[4])``), as
    XLA's verifier has it."""
    held, result = _elements(state, 2, what)[:2]
    if not Shape.tuple_of(*bound).compatible(held):
        raise _Broken(f"{what} holds the operands {held}, they are {Shape.tuple_of(*bound)}")
    if not _is_prefix(result, callee.root.shape):
        raise _Broken(
            f"{what} holds the result {result}, '{callee.name}' returns {callee.root.shape}"
        )


def _is_prefix(prefix: Shape, shape: Shape) -> bool:
    """Whether `prefix` is `shape`, ``()``, or a tuple of prefixes of the
    first elements of the tuple `shape`."""
    if prefix.compatible(shape) or prefix.tuple_shapes == ():
        return True
    if prefix.tuple_shapes is None or shape.tuple_shapes is None:
        return False
    return len(prefix.tuple_shapes) <= len(shape.tuple_shapes) and all(
        map(_is_prefix, prefix.tuple_shapes, shape.tuple_shapes)
    )


def _chain_callee(
    module: Module, computation: Computation, instruction: Instruction
) -> Computation | None:
    """The computation the async chain of `instruction` (an async-update or
    async-done) runs: that of the async-start heading it, found through
    async-updates, or the one it names itself; None when its state comes
    from elsewhere (a loop's parameter, a tuple element) and it names none."""
    if instruction.called_computations:
        return _called(module, instruction)
    producer = instruction
    for _ in range(len(computation.instructions)):
        if not producer.operands:
            return None
        producer = computation.instruction(producer.operands[0])
        match producer.opcode:
            case "async-start":
                return _called(module, producer)
            case "async-done":
                raise _Broken("its operand 0 is an async-done: the chain is over")
            case "async-update":
                continue
            case _:
                return None
    return None


def _async_update(module: Module, computation: Computation, instruction: Instruction) -> None:
    """``async-update(state, new…)``: the state's operands and the new ones
    are bound, the callee's parameters of their shapes."""
    if not instruction.operands:
        raise _Broken("it takes its async state as operand 0")
    state = _operand_shapes(computation, instruction)
    held = _elements(state[0], 2, "operand 0")[0].tuple_shapes or ()
    callee = _chain_callee(module, computation, instruction)
    if callee is None:
        return
    bound = [*held, *state[1:]]
    if len(bound) > len(callee.parameters):
        raise _Broken(
            f"it binds {len(bound)} operands of '{callee.name}', which has "
            f"{len(callee.parameters)} parameters"
        )
    _match_parameters(bound, callee)
    _async_state(instruction.shape, bound, callee, "its shape")


def _async_done(module: Module, computation: Computation, instruction: Instruction) -> None:
    """``async-done(state)`` is the callee's result, every operand bound."""
    if len(instruction.operands) != 1:
        raise _Broken(f"it takes 1 operand, not {len(instruction.operands)}")
    (state,) = _operand_shapes(computation, instruction)
    held = _elements(state, 2, "operand 0")[0].tuple_shapes or ()
    callee = _chain_callee(module, computation, instruction)
    if callee is None:
        return
    if len(held) != len(callee.parameters):
        raise _Broken(
            f"operand 0 has bound {len(held)} of the {len(callee.parameters)} operands "
            f"of '{callee.name}'"
        )
    if not instruction.shape.compatible(callee.root.shape):
        raise _Broken(
            f"it is written {instruction.shape}, '{callee.name}' returns {callee.root.shape}"
        )


def _one_parameter(callee: Computation, shape: Shape, what: str) -> None:
    """`callee` takes one parameter, of `shape` (what `what` passes it)."""
    if len(callee.parameters) != 1:
        raise _Broken(f"'{callee.name}' has {len(callee.parameters)} parameters, not 1")
    if not callee.parameters[0].shape.compatible(shape):
        raise _Broken(
            f"{what} is {shape}, the parameter of '{callee.name}' is {callee.parameters[0].shape}"
        )


def _returns(callee: Computation, shape: Shape) -> None:
    if not callee.root.shape.compatible(shape):
        raise _Broken(f"'{callee.name}' returns {callee.root.shape}, not {shape}")


def _conditional(module: Module, computation: Computation, instruction: Instruction) -> None:
    """``conditional(index, operand…)``: the index is a scalar ``pred`` (two
    branches) or ``s32``; branch ``b`` takes operand ``b + 1`` and returns
    the conditional's shape."""
    names = instruction.attributes.names("branch_computations")
    if names is None:
        names = tuple(
            name
            for name in (
                instruction.attributes.word("true_computation"),
                instruction.attributes.word("false_computation"),
            )
            if name is not None
        )
    shapes = _operand_shapes(computation, instruction)
    if not shapes:
        raise _Broken("it takes a branch index")
    index = shapes[0]
    if index.tuple_shapes is not None or index.rank or index.element_type not in ("pred", "s32"):
        raise _Broken(f"its branch index is {index}, not a scalar pred or s32")
    if index.element_type == "pred" and len(names) != 2:
        raise _Broken(f"a pred branch index selects 2 branches, not {len(names)}")
    if len(names) != len(shapes) - 1:
        raise _Broken(f"it has {len(names)} branches and {len(shapes) - 1} branch operands")
    for number, (name, shape) in enumerate(zip(names, shapes[1:], strict=True)):
        if not module.has_computation(name):
            raise _Broken(f"branch '{name}' is not defined")
        branch = module.computation(name)
        _one_parameter(branch, shape, f"operand {number + 1}")
        _returns(branch, instruction.shape)


def _while(module: Module, computation: Computation, instruction: Instruction) -> None:
    """``while(init)``: condition and body take the loop state, of the init's
    shape; the while has the shape the body returns.  As in XLA's verifier,
    the body's result is not compared with the loop state (a loop whose body
    changes the state's shape is valid, its maps not composed)."""
    shapes = _operand_shapes(computation, instruction)
    if len(shapes) != 1:
        raise _Broken(f"it takes 1 operand, the loop state, not {len(shapes)}")
    for attribute in ("condition", "body"):
        name = instruction.attributes.word(attribute)
        if name is None or not module.has_computation(name):
            raise _Broken(f"its {attribute} is not a defined computation")
        _one_parameter(module.computation(name), shapes[0], "the loop state")
    body = instruction.attributes.word("body") or ""
    _returns(module.computation(body), instruction.shape)


def _collective_permute_start(
    module: Module, computation: Computation, instruction: Instruction
) -> None:
    """``(operand, result, context…)``: the operand and the permuted result
    have the operand's shape (a tuple of them for several operands); of
    one operand it may be written as the result alone (XLA's importer
    reads that form as the pair)."""
    shapes = _operand_shapes(computation, instruction)
    if "slice_sizes" in instruction.attributes:
        return  # the in-place form writes into a buffer of its own
    operand = shapes[0] if len(shapes) == 1 else Shape.tuple_of(*shapes)
    if instruction.shape.tuple_shapes is None and len(shapes) == 1:
        if not instruction.shape.compatible(operand):
            raise _Broken(f"it is written {instruction.shape}, its operand is {operand}")
        return
    for k, element in enumerate(_elements(instruction.shape, 2, "its shape")[:2]):
        if not element.compatible(operand):
            raise _Broken(f"element {k} of its shape is {element}, its operands are {operand}")


_ARRAY_STARTS = frozenset({"all-gather-start", "collective-permute-start"})
"""Async starts of one operand XLA's parser reads written as their result."""


def _done_of(
    element: int, *, array_start: bool = False
) -> Callable[[Module, Computation, Instruction], None]:
    """``*-done(start)``: element `element` of the start's shape, or, when
    `array_start`, the shape of a start written as its result alone (an
    all-gather-start or collective-permute-start of one operand)."""

    def rule(module: Module, computation: Computation, instruction: Instruction) -> None:
        if len(instruction.operands) != 1:
            raise _Broken(f"it takes 1 operand, not {len(instruction.operands)}")
        (start,) = computation.operand_instructions(instruction)
        state = start.shape
        held = (
            state
            if array_start and state.tuple_shapes is None and start.opcode in _ARRAY_STARTS
            else _elements(state, element + 1, "operand 0")[element]
        )
        if not instruction.shape.compatible(held):
            raise _Broken(f"it is written {instruction.shape}, its start holds {held}")

    return rule


RULES: dict[str, Callable[[Module, Computation, Instruction], None]] = {
    "call": _call_operands,
    "fusion": _call_operands,
    "conditional": _conditional,
    "while": _while,
    "async-start": _async_start,
    "async-update": _async_update,
    "async-done": _async_done,
    "collective-permute-start": _collective_permute_start,
    "collective-permute-done": _done_of(1, array_start=True),
    "all-gather-done": _done_of(1, array_start=True),
    "copy-done": _done_of(0),
}
"""Per opcode: the rule relating it to its operands' producers and callees."""
