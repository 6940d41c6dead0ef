"""`benchmarks/jax_gpt.py`, the GPT training step of the large-module
benchmark: without jax it says how to install it (exit 2, never a
traceback); with jax, a one-layer step is a module `verifier` reads, holding
the operations of the model it describes."""

from __future__ import annotations

import importlib.util

import pytest

from benchmarks import jax_gpt


def test_without_jax_it_exits_2_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(SystemExit) as exit:
        jax_gpt.require_jax()
    assert exit.value.code == 2
    assert "pip install -e '.[jax]'" in capsys.readouterr().err


@pytest.mark.slow  # imports jax and compiles a model: about 4 CPU-s
def test_one_layer_is_a_training_step_verifier_reads() -> None:
    pytest.importorskip("jax")
    from verifier.api import loads

    module = loads(jax_gpt.module_text(1), "gpt_1.hlo").module
    opcodes = {
        instruction.opcode
        for computation in module.computations
        for instruction in computation.instructions
    }
    # Matrix products, the softmax's exponential, the layer norm's rsqrt,
    # the (tanh-approximated) GELU, and the embedding's gather / its
    # gradient's scatter.
    assert {"dot", "exponential", "rsqrt", "tanh", "gather", "scatter", "fusion"} <= opcodes
