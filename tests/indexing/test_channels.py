"""recv: the received buffer is UNDEFINED with its channel named (its elements
come from another program); its context and token read nothing; infeed's
fed arrays likewise (the host feeds them).  send, send-done, recv-done and
outfeed are judged by the oracle (test_rules_vs_oracle, the golden cases)."""

from __future__ import annotations

import pytest

from tests.oracle import UnsupportedByOracle, reads
from verifier.expr import Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input


@pytest.mark.parametrize(
    ("host", "sender"), [("", "a peer"), (", is_host_transfer=true", "the host")]
)
def test_received_buffer_is_undefined_naming_the_channel(host: str, sender: str) -> None:
    module = parse_module(
        "HloModule m\nENTRY e {\n  t = token[] after-all()\n"
        f"  ROOT r = (f32[4,2], u32[], token[]) recv(t), channel_id=7{host}\n}}\n"
    )
    computation, recv = module.entry, module.entry.root
    with pytest.raises(UnsupportedByOracle):
        reads(computation, recv)
    (received,) = own_output_to_input(computation, recv, 0)
    assert isinstance(received, Undefined)
    assert "channel 7" in received.reason and sender in received.reason
    assert own_output_to_input(computation, recv, 1) == ((),)
    assert own_output_to_input(computation, recv, 2) == ((),)
    to_data, to_context, to_token = own_input_to_output(computation, recv, 0)
    assert isinstance(to_data, Undefined) and "channel 7" in to_data.reason
    assert (to_context, to_token) == ((), ())


def test_every_fed_array_of_an_infeed_is_undefined_and_its_token_reads_nothing() -> None:
    module = parse_module(
        "HloModule m\nENTRY e {\n  t = token[] after-all()\n"
        "  ROOT i = ((f32[4,2], s32[]), token[]) infeed(t)\n}\n"
    )
    computation, infeed = module.entry, module.entry.root
    for fed in (0, 1):
        (indexing,) = own_output_to_input(computation, infeed, fed)
        assert isinstance(indexing, Undefined) and "host" in indexing.reason
    assert own_output_to_input(computation, infeed, 2) == ((),)
    first, second, token = own_input_to_output(computation, infeed, 0)
    assert isinstance(first, Undefined) and isinstance(second, Undefined) and token == ()


def test_an_after_all_joins_tokens_and_reads_nothing() -> None:
    module = parse_module(
        "HloModule m\nENTRY e {\n  t = token[] after-all()\n  ROOT j = token[] after-all(t, t)\n}\n"
    )
    computation, join = module.entry, module.entry.root
    assert own_output_to_input(computation, join, 0) == ((), ())
    assert own_input_to_output(computation, join, 0) == ((),)
    assert own_input_to_output(computation, join, 1) == ((),)
