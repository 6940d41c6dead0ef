"""Control flow: call, conditional, while and async-start, whose element
relation is that of the computations they run.

No single-op rule states it: the composer (`verifier.fusion.compose`)
composes through the called computations.  What this module decides is
the one fact about a loop that the composition needs, its trip count:
a ``while`` is composed through its body exactly that many times, or not
at all (its maps stay UNDEFINED, the reason naming the loop and why).

The trip count is known when XLA wrote it
(``backend_config={"known_trip_count":{"n":"5"}}``) or when the loop is a
counted loop: the init tuple's element ``i`` is a constant ``c0``, the
condition is ``compare(get-tuple-element(state, i), constant n),
direction=LT`` and the body's root tuple has ``add(get-tuple-element(state,
i), constant 1)`` at ``i``: ``max(0, n - c0)`` iterations.

``w = (s32[], f32[4]) while((s32[], f32[4]) t), condition=cond, body=body``
with ``t = tuple(s32[] constant(0), p0)``, ``cond``: ``i < 10``, ``body``:
``(i + 1, negate(x))`` runs 10 times; output ``{1}`` reads operand leaf
``{1}`` through ``(d0) -> (d0)`` (ten negations of the same element).
"""

from __future__ import annotations

import json

from verifier.expr import Undefined
from verifier.hlo import BackendConfig, Computation, Instruction, Module
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import scalar_constant

UNROLL_LIMIT = 64
"""The largest trip count composed through: the body's maps are composed
once per iteration (until they stop changing)."""

LOOP_MAP_LIMIT = 64
"""The most maps a loop's union between two state arrays may hold: a
dynamic-update-slice of the state splits what survives it into pieces per
iteration (2 per sliced dim), so a union can double with every iteration."""

LOOP_DISTINCT_MAP_LIMIT = 2048
"""The most distinct maps a loop's unions may hold over all its iterations
together: each new one is simplified and compared (isl) with the others of
its union, milliseconds each."""

LOOP_WORK_LIMIT = 8192
"""The most maps a loop's unions may hold over all its iterations together,
counted again in every iteration that holds them: each is composed and
merged into its union, tens of microseconds when it was made before.  Both
bounds keep a loop with many state arrays within a second or so, while a
loop whose state cycles (a roll by one row of three repeats every third
iteration) or whose maps only gain use paths runs every trip."""


def loop_trip_count(module: Module, computation: Computation, loop: Instruction) -> int | Undefined:
    """How many times `loop` (a ``while`` of `computation`) runs its body,
    or why its maps are not composed through it."""
    body = loop_body(module, loop)
    (state,) = body.parameters
    if not body.root.shape.compatible(state.shape):
        return Undefined(
            f"{_describe(loop)}: its body returns {body.root.shape} for a state of "
            f"{state.shape}, so no iteration takes what the one before it gave"
        )
    count = _known_trip_count(loop)
    if count is None:
        count = _counted_loop_trip_count(module, computation, loop)
    if count is None:
        return Undefined(
            f"{_describe(loop)}: its trip count is not a known constant (no "
            "known_trip_count in backend_config, not a counter from a constant "
            "to a constant bound), so which iteration's state an element holds "
            "is only known at run time"
        )
    if count > UNROLL_LIMIT:
        return Undefined(
            f"{_describe(loop)}: its trip count {count} is above the {UNROLL_LIMIT} "
            "iterations the body is composed through"
        )
    return count


def loop_body(module: Module, loop: Instruction) -> Computation:
    """The body computation of the ``while`` `loop`."""
    return module.computation(_computation_name(loop, "body"))


def _describe(loop: Instruction) -> str:
    condition = loop.attributes.word("condition")
    body = loop.attributes.word("body")
    return f"while loop '{loop.name}' (condition {condition}, body {body})"


def _computation_name(loop: Instruction, attribute: str) -> str:
    name = loop.attributes.word(attribute)
    if name is None:
        raise ValueError(f"while '{loop.name}' has no {attribute}= computation")
    return name


def _known_trip_count(loop: Instruction) -> int | None:
    """``known_trip_count.n`` of the loop's backend_config, when written."""
    config_text = loop.attributes.get("backend_config")
    if not isinstance(config_text, BackendConfig):
        return None
    try:
        config = json.loads(config_text.text)
        count = int(config["known_trip_count"]["n"])
    except (ValueError, KeyError, TypeError):
        return None
    return count if count >= 0 else None


def _counted_loop_trip_count(
    module: Module, computation: Computation, loop: Instruction
) -> int | None:
    """The trip count of a counter loop (module doc), or None."""
    (init,) = computation.operand_instructions(loop)
    condition = module.computation(_computation_name(loop, "condition"))
    compare = condition.root
    if compare.opcode != "compare" or compare.attributes.word("direction") != "LT":
        return None
    counter, bound = condition.operand_instructions(compare)
    element = _state_element(condition, counter)
    limit = scalar_constant(bound)
    if element is None or limit is None or init.opcode != "tuple":
        return None
    start = scalar_constant(computation.operand_instructions(init)[element])
    body = loop_body(module, loop)
    if start is None or body.root.opcode != "tuple" or not _increments(body, element):
        return None
    return max(0, limit - start)


def _state_element(computation: Computation, value: Instruction) -> int | None:
    """``i`` when `value` is ``get-tuple-element(parameter(0)), index=i``."""
    if value.opcode != "get-tuple-element":
        return None
    (state,) = computation.operand_instructions(value)
    if state.opcode != "parameter" or state is not computation.parameters[0]:
        return None
    return value.integer("index")


def _increments(body: Computation, element: int) -> bool:
    """Whether the body's root tuple holds ``state[element] + 1`` at `element`."""
    next_value = body.operand_instructions(body.root)[element]
    if next_value.opcode != "add":
        return False
    lhs, rhs = body.operand_instructions(next_value)
    return any(
        _state_element(body, counter) == element and scalar_constant(one) == 1
        for counter, one in ((lhs, rhs), (rhs, lhs))
    )


# ---------------------------------------------------------------- the single-op rule


def _composed_reason(ctx: OpContext) -> str:
    """Why a call-like op has no single-op rule."""
    instruction = ctx.instruction
    called = (
        f"its body {instruction.attributes.word('body')}, once per iteration"
        if instruction.opcode == "while"
        else "the called computation(s)"
    )
    return (
        f"{instruction.opcode} '{instruction.name}': the relation is that of {called}, "
        "composed through them (not by a single-op rule)"
    )


def _composed_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    return (Undefined(_composed_reason(ctx)),) * len(ctx.operand_leaves)


def _composed_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    return (Undefined(_composed_reason(ctx)),) * len(ctx.output_shapes)


register("call", "while", "conditional", "async-start")(
    OpRule(_composed_o2i, _composed_i2o, whole_tuples=True)
)
