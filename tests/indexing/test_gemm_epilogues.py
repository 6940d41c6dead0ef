"""cuBLAS gemms outside the modelled epilogues stay UNDEFINED, naming the
target and why (the modelled ones are judged by the oracle in
`test_rules_vs_oracle` and the golden case ``examples/ops/cublas_gemm_bias``)."""

from __future__ import annotations

import pytest

from verifier.expr.indexing_map import Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

_NUMBERS = (
    '"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],'
    '"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}'
)


def _gemm(target: str, epilogue: str, bias: str, outputs: str) -> str:
    config = f'{{"gemm_backend_config":{{"beta":0,{_NUMBERS},"epilogue":"{epilogue}"}}}}'
    return (
        "HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  w = f32[3,5] parameter(1)\n"
        f"  b = {bias} parameter(2)\n  ROOT r = ({outputs}) custom-call(a, w, b), "
        f'custom_call_target="{target}", backend_config={config}\n}}\n'
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            _gemm("__cublas$lt$matmul", "BIAS_GELU_AUX", "f32[5]", "f32[2,5], f32[2,5], s8[8]"),
            "the epilogue BIAS_GELU_AUX (auxiliary outputs) is not modelled",
        ),
        (
            _gemm("__cublas$lt$matmul", "BIAS", "f32[2]", "f32[2,5], s8[8]"),
            "the bias [2] is not one element per column (5)",
        ),
        (
            _gemm("__cublas$lt$matmul", "DEFAULT", "f32[5]", "f32[2,5], s8[8]"),
            "3 operands where A, B are expected",
        ),
        (_gemm("__cublas$lt$matmul$f8", "BIAS", "f32[5]", "f32[2,5], s8[8]"), "opaque"),
    ],
)
def test_unmodelled_gemm_is_undefined_naming_the_target(text: str, reason: str) -> None:
    module = parse_module(text)
    computation, root = module.entry, module.entry.root
    target = root.attributes.word("custom_call_target")
    found = [*own_output_to_input(computation, root)]
    found += [i for k in range(3) for i in own_input_to_output(computation, root, k)]
    for indexing in found:
        assert isinstance(indexing, Undefined)
        assert f"custom-call target {target}" in indexing.reason
        assert reason in indexing.reason
