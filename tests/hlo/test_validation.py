"""Modules XLA's verifier rejects are invalid HLO — exit 2 with the rule at
the instruction's file:line:column — never a crash of an indexing rule
later (issue #31); the valid forms next to them are read and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.checks.cache import MemoryCache
from verifier.cli import main
from verifier.errors import InternalError, InvalidHloError, ParseError
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module, parse_module_file

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize(
    ("name", "place", "rule"),
    [
        ("async_start_signature.hlo", (12, 3), "operand 0 is f32[3,2], parameter 0 of 'wrapped'"),
        ("async_done_result.hlo", (13, 8), "written f32[2,3], 'wrapped' returns f32[3,2]"),
        ("async_update_operands.hlo", (13, 3), "binds 2 operands of 'wrapped', which has 1"),
        ("collective_done_shape.hlo", (7, 8), "operand 0 is f32[4,8], not a tuple"),
        ("all_reduce_start_shape.hlo", (12, 3), "operands and attributes give f32[2,3]"),
        ("infeed_not_tuple.hlo", (7, 8), "not the non-empty tuple XLA requires"),
        ("reduce_scatter_dimension.hlo", (12, 8), "dimensions=[1] is not one dimension of f32[8]"),
        ("all_gather_scalar.hlo", (6, 8), "dimensions=[0] is not one dimension of f32[]"),
        ("conditional_branch_parameter.hlo", (18, 8), "the parameter of 'yes' is (s32[], f32[4])"),
        ("conditional_index_not_scalar.hlo", (18, 8), "branch index is s32[2], not a scalar"),
        ("fusion_kind_missing.hlo", (12, 8), "fusion needs the attribute 'kind'"),
    ],
)
def test_invalid_hlo_is_refused_at_the_instruction_with_its_rule(
    name: str, place: tuple[int, int], rule: str
) -> None:
    with pytest.raises(InvalidHloError, match="is not valid HLO") as error:
        parse_module_file(EXAMPLES / "checks" / name)
    assert (error.value.span.line, error.value.span.column) == place
    assert rule in error.value.message
    assert main(["check", "--no-cache", str(EXAMPLES / "checks" / name)]) == 2


def _checked(module_text: str) -> list[ParseError | InternalError]:
    errors: list[ParseError | InternalError] = []
    list(run_checks(parse_module(module_text), MemoryCache(), on_error=errors.append))
    return errors


def test_a_late_bound_async_chain_is_read_and_checked() -> None:
    module = parse_module_file(EXAMPLES / "syntax" / "20_late_bound_async.hlo")
    entry = module.entry
    assert [str(entry.instruction(n).shape) for n in ("first", "both")] == [
        "((f32[4]), (), s32[])",
        "((f32[4], f32[4]), (), (s32[8], s32[]))",
    ]
    # XLA builds the shapes of send and send-done itself.
    assert str(entry.instruction("sent").shape) == "(f32[4], u32[], token[])"
    assert str(entry.instruction("done").shape) == "token[]"
    findings = list(run_checks(module, MemoryCache()))
    refuted = [f for f in findings if f.outcome.value == "refuted"]
    assert findings and not refuted
    late = [f for f in findings if f.instruction == "sum" and f.outcome.value == "unsupported"]
    assert late and all("bound late" in f.message for f in late)


def test_several_permuted_operands_and_a_tuple_bitcast_never_crash() -> None:
    module = parse_module_file(EXAMPLES / "syntax" / "21_combined_permute_tuple_bitcast.hlo")
    errors: list[ParseError | InternalError] = []
    findings = list(run_checks(module, MemoryCache(), on_error=errors.append))
    assert errors == []
    assert (
        main(["maps", "--all", str(EXAMPLES / "syntax" / "21_combined_permute_tuple_bitcast.hlo")])
        == 0
    )
    pair = [f for f in findings if f.instruction == "pair"]
    assert pair and all(f.outcome.value == "unsupported" for f in pair)
    start = [f for f in findings if f.instruction == "start" and f.check == "in-bounds"]
    assert start and all(f.outcome.value == "proved" for f in start)


def test_an_async_state_through_a_loop_is_not_required_to_come_from_a_start() -> None:
    text = (
        "HloModule m\nbody {\n  s = ((f32[2]), f32[2], s32[]) parameter(0)\n"
        "  ROOT u = ((f32[2]), f32[2], s32[]) negate-update(s)\n}\n"
        "cond {\n  s = ((f32[2]), f32[2], s32[]) parameter(0)\n"
        "  ROOT c = pred[] constant(false)\n}\n"
        "ENTRY e {\n  p = f32[2] parameter(0)\n"
        "  a = ((f32[2]), f32[2], s32[]) negate-start(p)\n"
        "  w = ((f32[2]), f32[2], s32[]) while(a), condition=cond, body=body\n"
        "  ROOT d = f32[2] negate-done(w)\n}\n"
    )
    assert not [e for e in _checked(text) if isinstance(e, InternalError)]


def test_annotate_device_placement_reads_its_operand_element_by_element() -> None:
    module = parse_module_file(EXAMPLES / "syntax" / "22_device_placement.hlo")
    findings = [f for f in run_checks(module, MemoryCache()) if f.instruction == "placed"]
    assert findings and all(f.outcome.value == "proved" for f in findings)


def test_a_sparse_convolution_may_take_its_metadata_as_a_third_operand() -> None:
    module = parse_module_file(EXAMPLES / "syntax" / "23_sparse_convolution_metadata.hlo")
    findings = list(run_checks(module, MemoryCache(), only=["in-bounds"]))
    assert findings and all("sparse" in f.message for f in findings)
    with pytest.raises(InvalidHloError, match="convolution takes 2 operands, not 3"):
        parse_module(
            "HloModule m\nENTRY e {\n  x = f32[1,8] parameter(0)\n  k = f32[8,1] parameter(1)\n"
            "  ROOT c = f32[1,1] convolution(x, k, k), dim_labels=bf_io->bf\n}\n"
        )


def test_a_late_bound_call_start_wraps_its_computations_signature() -> None:
    module = parse_module_file(EXAMPLES / "syntax" / "24_late_bound_call_sugar.hlo")
    start = module.entry.instruction("start")
    wrapped = module.computation(start.attributes.word("calls") or "")
    assert [str(p.shape) for p in wrapped.parameters] == ["f32[2,3]", "f32[2,3]"]
    assert (wrapped.root.opcode, str(wrapped.root.shape)) == ("call", "f32[2,3]")
    errors: list[ParseError | InternalError] = []
    list(run_checks(module, MemoryCache(), on_error=errors.append))
    assert errors == []


_ADD = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"
_LESS = (
    "less {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT l = pred[] compare(x, y), direction=LT\n}\n"
)
_WITHOUT_ITS_COMPUTATION = {
    # instruction written without the computation attribute, and the attribute
    "reduce": ("f32[] reduce(p, c), dimensions={0}", "to_apply"),
    "all-reduce": ("f32[4] all-reduce(p), replica_groups={}", "to_apply"),
    "reduce-scatter": (
        "f32[2] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}",
        "to_apply",
    ),
    "sort": ("f32[4] sort(p), dimensions={0}", "to_apply"),
    "reduce-window": ("f32[4] reduce-window(p, c), window={size=1}", "to_apply"),
    "map": ("f32[4] map(p), dimensions={0}", "to_apply"),
    "select-and-scatter": (
        "f32[4] select-and-scatter(p, p, c), window={size=1}, scatter=add",
        "select",
    ),
}


@pytest.mark.parametrize("opcode", sorted(_WITHOUT_ITS_COMPUTATION))
def test_an_op_without_the_computation_xla_requires_is_refused(opcode: str) -> None:
    written, attribute = _WITHOUT_ITS_COMPUTATION[opcode]
    head = f"HloModule m\n{_ADD}{_LESS}ENTRY e {{\n  p = f32[4] parameter(0)\n  c = f32[] constant(0)\n"
    with pytest.raises(InvalidHloError, match=f"needs the attribute '{attribute}'") as error:
        parse_module(f"{head}  ROOT r = {written}\n}}\n", "m.hlo")
    assert (error.value.span.line, error.value.span.column) == (15, 8)  # the instruction's name
    # Given its computation, the same instruction is read.
    given = "select=less" if attribute == "select" else "to_apply=add"
    parse_module(f"{head}  ROOT r = {written}, {given}\n}}\n", "m.hlo")


@pytest.mark.parametrize("kind", ["kLoop", "kOutput", "kConvBackwardFilter", "kFast"])
def test_a_fusion_kind_is_one_xla_printed(kind: str) -> None:
    text = (EXAMPLES / "checks" / "fusion_kind_missing.hlo").read_text()
    text = text.replace("fusion(p), calls=fused", f"fusion(p), kind={kind}, calls=fused")
    if kind == "kFast":
        with pytest.raises(
            InvalidHloError, match=r"f\.hlo:12:8: .*kind=kFast is not a fusion kind"
        ):
            parse_module(text, "f.hlo")
    else:
        assert parse_module(text, "f.hlo").entry.root.attributes["kind"] == kind
