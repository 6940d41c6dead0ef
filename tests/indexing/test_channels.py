"""recv: the received buffer is UNDEFINED with its channel named (its elements
come from another program); its context and token read nothing.  send,
send-done and recv-done are judged by the oracle (test_rules_vs_oracle)."""

from __future__ import annotations

import pytest

from tests.oracle import UnsupportedByOracle, reads
from verifier.expr import Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import input_to_output, output_to_input


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
    (received,) = output_to_input(computation, recv, 0)
    assert isinstance(received, Undefined)
    assert "channel 7" in received.reason and sender in received.reason
    assert output_to_input(computation, recv, 1) == ((),)
    assert output_to_input(computation, recv, 2) == ((),)
    to_data, to_context, to_token = input_to_output(computation, recv, 0)
    assert isinstance(to_data, Undefined) and "channel 7" in to_data.reason
    assert (to_context, to_token) == ((), ())
