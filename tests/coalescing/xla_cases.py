"""XLA's coalescing_analysis_test cases, each rewritten as a module of our
own (same shapes, layouts and ops; names and text ours) with the
per-operand verdicts XLA expects on the RTX A6000.  `HEURISTIC` holds the
three cases that ask ``IsReadCoalescedHeuristic`` instead."""

from __future__ import annotations

_ADD = "sum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }"
_MAX2 = (
    "max2 { a = s32[] parameter(0)\n b = s32[] parameter(1)\n c = s32[] parameter(2)\n"
    " d = s32[] parameter(3)\n x = s32[] maximum(a, b)\n y = s32[] maximum(c, d)\n"
    " ROOT t = (s32[], s32[]) tuple(x, y) }"
)


def _loop(params: list[str], body: str, root: str, kind: str = "kLoop", extra: str = "") -> str:
    """A module whose entry calls fused computation `fc` on its parameters."""
    inner = "\n".join(f" q{i} = {t} parameter({i})" for i, t in enumerate(params))
    outer = "\n".join(f" q{i} = {t} parameter({i})" for i, t in enumerate(params))
    args = ", ".join(f"q{i}" for i in range(len(params)))
    return (
        f"HloModule case\n{extra}\nfc {{\n{inner}\n{body}\n}}\n"
        f"ENTRY main {{\n{outer}\n ROOT fu = {root} fusion({args}), kind={kind}, calls=fc\n}}"
    )


CASES: dict[str, tuple[str, tuple[bool, ...]]] = {
    "identity_layout": (
        _loop(["f32[100,200]"] * 2, " ROOT o = f32[100,200] add(q0, q1)", "f32[100,200]", "kInput"),
        (True, True),
    ),
    "rhs_transposed_layout": (
        _loop(
            ["f32[100,200]{1,0}", "f32[100,200]{0,1}"],
            " ROOT o = f32[100,200]{1,0} add(q0, q1)",
            "f32[100,200]{1,0}",
            "kInput",
        ),
        (True, False),
    ),
    "output_transposed_layout": (
        _loop(
            ["f32[100,200]{1,0}"] * 2,
            " ROOT o = f32[100,200]{0,1} add(q0, q1)",
            "f32[100,200]{0,1}",
            "kInput",
        ),
        (False, False),
    ),
    "output_and_lhs_transposed_layout": (
        _loop(
            ["f32[100,200]{1,0}", "f32[100,200]{0,1}"],
            " ROOT o = f32[100,200]{1,0} add(q0, q1)",
            "f32[100,200]{1,0}",
            "kInput",
        ),
        (True, False),
    ),
    "transpose": (
        _loop(
            ["f32[100,64,32]"],
            " ROOT o = f32[32,100,64] transpose(q0), dimensions={2,0,1}",
            "f32[32,100,64]",
        ),
        (True,),
    ),
    "concatenate_in_loop_emitter": (
        _loop(
            ["bf16[42]"] * 4 + ["bf16[44]"] * 2 + ["bf16[256]"],
            " c = bf16[256] concatenate(q0, q1, q2, q3, q4, q5), dimensions={0}\n"
            " ROOT o = bf16[256] multiply(c, q6)",
            "bf16[256]",
        ),
        (True,) * 7,
    ),
    "concatenate_with_bitcast_in_loop_emitter": (
        _loop(
            ["bf16[42]"] * 4 + ["bf16[44]"] * 2 + ["bf16[256]"],
            " c = bf16[256] concatenate(q0, q1, q2, q3, q4, q5), dimensions={0}\n"
            " m = bf16[256] multiply(c, q6)\n ROOT o = bf16[16,16] bitcast(m)",
            "bf16[16,16]",
        ),
        (True,) * 7,
    ),
    "transpose_only_outer_dims": (
        _loop(
            ["f32[100,32,64]"],
            " ROOT o = f32[32,100,64] transpose(q0), dimensions={1,0,2}",
            "f32[32,100,64]",
        ),
        (True,),
    ),
    "pad": (
        _loop(
            ["f32[997,436]", "f32[]"],
            " ROOT o = f32[1024,512] pad(q0, q1), padding=10_17x24_52",
            "f32[1024,512]",
        ),
        (True, True),
    ),
    "row_reduction": (
        _loop(
            ["f32[100,64,512]"],
            " z = f32[] constant(0)\n ROOT o = f32[100,64] reduce(q0, z), dimensions={2}, "
            "to_apply=sum",
            "f32[100,64]",
            "kInput",
            _ADD,
        ),
        (True,),
    ),
    "multi_row_reduction": (
        _loop(
            ["f32[100,64,4]"],
            " z = f32[] constant(0)\n ROOT o = f32[100,64] reduce(q0, z), dimensions={2}, "
            "to_apply=sum",
            "f32[100,64]",
            "kInput",
            _ADD,
        ),
        (True,),
    ),
    "column_reduction": (
        _loop(
            ["f32[100,64,32]"],
            " z = f32[] constant(0)\n ROOT o = f32[100,32] reduce(q0, z), dimensions={1}, "
            "to_apply=sum",
            "f32[100,32]",
            "kInput",
            _ADD,
        ),
        (True,),
    ),
    "variadic_reduce_via_loop_emitter": (
        _loop(
            ["s32[5696,10,4]"] * 2 + ["s32[]"] * 2,
            " ROOT o = (s32[5696,4], s32[5696,4]) reduce(q0, q1, q2, q3), dimensions={1}, "
            "to_apply=max2",
            "(s32[5696,4], s32[5696,4])",
            "kInput",
            _MAX2,
        ),
        (False, False, True, True),
    ),
    "variadic_reduce_via_reduction_emitter": (
        _loop(
            ["s32[32,40]"] * 2 + ["s32[]"] * 2,
            " ROOT o = (s32[32], s32[32]) reduce(q0, q1, q2, q3), dimensions={1}, to_apply=max2",
            "(s32[32], s32[32])",
            "kInput",
            _MAX2,
        ),
        (True, True, True, True),
    ),
    "gather": (
        _loop(
            ["f32[33,76,70]", "s32[1806,2]"],
            " ROOT o = f32[1806,7,8,4] gather(q0, q1), offset_dims={1,2,3}, "
            "collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, "
            "slice_sizes={7,8,4}",
            "f32[1806,7,8,4]",
        ),
        (False, True),
    ),
    "dynamic_slice": (
        _loop(
            ["s32[2,2,258]", "s32[]", "s32[]", "s32[]"],
            " ROOT o = s32[1,2,32] dynamic-slice(q0, q1, q2, q3), dynamic_slice_sizes={1,2,32}",
            "s32[1,2,32]",
        ),
        (True, True, True, True),
    ),
    "unused_parameter": (
        _loop(["f32[100000]"] * 2, " ROOT o = f32[100000] negate(q0)", "f32[100000]"),
        (True, True),
    ),
    "param": (
        _loop(
            ["u32[48,2,1280]", "u32[48,1,1280]", "u32[48,1,1280]"],
            " c = u32[48,2,1280] concatenate(q1, q2), dimensions={1}\n"
            " ROOT o = u32[48,2,1280] shift-right-logical(c, q0)",
            "u32[48,2,1280]",
        ),
        (True, True, True),
    ),
}
"""Case → (module, XLA's expected verdict per operand)."""


def _heuristic_case(producer: str, fused_param: str = "f32[32,100,64]") -> str:
    return (
        "HloModule case\nfc {\n"
        f" q0 = {fused_param} parameter(0)\n"
        " ROOT o = f32[32,100,1] slice(q0), slice={[0:32:1], [0:100:1], [0:1:1]}\n}\n"
        f"ENTRY main {{\n{producer}\n"
        " ROOT fu = f32[32,100,1] fusion(tr), kind=kLoop, calls=fc\n}"
    )


HEURISTIC: dict[str, tuple[str, bool]] = {
    "transpose_of_broadcast": (
        _heuristic_case(
            " v = f32[32] parameter(0)\n b = f32[100,64,32] broadcast(v), dimensions={2}\n"
            " tr = f32[32,100,64] transpose(b), dimensions={2,0,1}"
        ),
        True,
    ),
    "transpose_of_iota": (
        _heuristic_case(
            " i = f32[100,64,32] iota(), iota_dimension=1\n"
            " tr = f32[32,100,64] transpose(i), dimensions={2,0,1}"
        ),
        True,
    ),
    "transpose_of_add": (
        _heuristic_case(
            " v = f32[100,64,32] parameter(0)\n a = f32[100,64,32] add(v, v)\n"
            " tr = f32[32,100,64] transpose(a), dimensions={2,0,1}"
        ),
        False,
    ),
}
"""Case → (module, XLA's expected heuristic verdict for the ROOT fusion with
its producer)."""
