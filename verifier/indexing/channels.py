"""Point-to-point channels: ``send``, ``recv`` and their ``-done`` halves,
and the host's ``infeed`` / ``outfeed``.

What a ``recv`` returns was sent by another program (another device, or the
host) over its channel: which element it is depends on that program, so the
received buffer is UNDEFINED, with the channel named.  Everything else is
static plumbing, leaf by leaf:

- ``s = (f32[4], u32[], token[]) send(f32[4] x, token[] t), channel_id=1``:
  ``{0}`` is the buffer being sent, x itself (``(d0) -> (d0)``); the context
  and the token read nothing;
- ``send-done(s)`` returns a token: it reads nothing;
- ``r = (f32[4], u32[], token[]) recv(token[] t), channel_id=2``: ``{0}`` is
  UNDEFINED (received over channel 2); the context and token read nothing;
- ``d = (f32[4], token[]) recv-done(r), channel_id=2``: ``{0}`` is ``{0}`` of
  the recv (``(d0) -> (d0)``); the token reads nothing;
- ``i = ((f32[2,2], s32[]), token[]) infeed(token[] t)``: every leaf of
  ``{0}`` is UNDEFINED (the host feeds it); the token reads nothing;
- ``outfeed(f32[2,2] x, token[] t)`` returns a token: it reads nothing (the
  host reads x);
- ``after-all(token[] a, token[] b)`` joins the tokens that order these
  ops into one: a token holds no element, it reads nothing.
"""

from __future__ import annotations

from verifier.expr import Undefined
from verifier.hlo import ShapeIndex
from verifier.indexing.forwarding import forwarding_rule
from verifier.indexing.registry import Indexing, OpContext, OpRule, register


def _send(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex] | None:
    return (0, index[1:]) if index[0] == 0 else None


def _nothing(ctx: OpContext, index: ShapeIndex) -> None:
    return None


def _recv_done(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex] | None:
    return (0, index) if index[0] == 0 else None


register("send")(forwarding_rule(_send))
register("send-done")(forwarding_rule(_nothing))
register("recv-done")(forwarding_rule(_recv_done))


def _received(ctx: OpContext) -> Undefined:
    channel = ctx.instruction.attributes.integer("channel_id")
    host = ctx.instruction.attributes.boolean("is_host_transfer") is True
    where = "the host" if host else "a peer"
    return Undefined(
        f"recv over channel {channel}: its elements are sent by {where} at run time, "
        "from a buffer of another program"
    )


def _recv_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """The received buffer (output 0) is unknown; the context and token read nothing."""
    found: Indexing = _received(ctx) if output == 0 else ()
    return (found,) * len(ctx.operand_leaves)


def _recv_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    return tuple(_received(ctx) if k == 0 else () for k in range(len(ctx.output_shapes)))


register("recv")(OpRule(_recv_o2i, _recv_i2o, whole_tuples=True))


def _fed(ctx: OpContext) -> Undefined:
    return Undefined("infeed: its elements are fed by the host at run time")


def _infeed_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """The fed leaves (under ``{0}``) are unknown; the token reads nothing."""
    index, _ = ctx.shape.leaves[output]
    found: Indexing = _fed(ctx) if index[0] == 0 else ()
    return (found,) * len(ctx.operand_leaves)


def _infeed_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    return tuple(_fed(ctx) if index[0] == 0 else () for index, _ in ctx.shape.leaves)


register("infeed")(OpRule(_infeed_o2i, _infeed_i2o, whole_tuples=True))
register("outfeed", "after-all")(forwarding_rule(_nothing))
