"""HLO whose output shape disagrees with its operands and attributes is
rejected (file:line:column) before any map is built, as XLA's verifier
does (`verifier.hlo.check_shape`, the one home of the shape formulas);
consistent HLO, including every committed real dump, passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.errors import ParseError
from verifier.expr import Undefined
from verifier.hlo import check_shape, inference, parse_module, parse_module_file
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

REAL = sorted((Path(__file__).parents[2] / "examples" / "real").glob("*.hlo"))


ADD = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"


def _module(operands: str, root: str) -> str:
    return f"HloModule m\n{ADD}ENTRY e {{\n{operands}\n  ROOT r = {root}\n}}\n"


# (operand declarations, a consistent root, the same root with a wrong output shape)
CASES = {
    "concatenate": (
        "  a = f32[2,5] parameter(0)\n  b = f32[2,11] parameter(1)",
        "f32[2,16] concatenate(a, b), dimensions={1}",
        "f32[2,17] concatenate(a, b), dimensions={1}",
    ),
    "pad": (
        "  a = f32[4] parameter(0)\n  v = f32[] parameter(1)",
        "f32[10] pad(a, v), padding=1_2_1",
        "f32[9] pad(a, v), padding=1_2_1",
    ),
    "negative pad": (
        "  a = f32[4,3] parameter(0)\n  v = f32[] parameter(1)",
        "f32[2,3] pad(a, v), padding=-1_-1x0_0",
        "f32[3,3] pad(a, v), padding=-1_-1x0_0",
    ),
    "slice": (
        "  a = f32[10] parameter(0)",
        "f32[3] slice(a), slice={[1:8:3]}",
        "f32[4] slice(a), slice={[1:8:3]}",
    ),
    "dynamic-update-slice": (
        "  a = f32[8] parameter(0)\n  u = f32[3] parameter(1)\n  i = s32[] parameter(2)",
        "f32[8] dynamic-update-slice(a, u, i)",
        "f32[9] dynamic-update-slice(a, u, i)",
    ),
    "broadcast": (
        "  a = f32[3] parameter(0)",
        "f32[2,3,4] broadcast(a), dimensions={1}",
        "f32[2,4,3] broadcast(a), dimensions={1}",
    ),
    "dynamic-slice": (
        "  a = f32[8,8] parameter(0)\n  i = s32[] parameter(1)",
        "f32[2,8] dynamic-slice(a, i, i), dynamic_slice_sizes={2,8}",
        "f32[2,7] dynamic-slice(a, i, i), dynamic_slice_sizes={2,8}",
    ),
    "gather": (
        "  a = f32[33,76,70] parameter(0)\n  i = s32[1806,2] parameter(1)",
        "f32[1806,7,8,4] gather(a, i), offset_dims={1,2,3}, collapsed_slice_dims={}, "
        "start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}",
        "f32[1806,7,8,5] gather(a, i), offset_dims={1,2,3}, collapsed_slice_dims={}, "
        "start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}",
    ),
    "scatter": (
        "  a = f32[5,4] parameter(0)\n  i = s32[3,1] parameter(1)\n  u = f32[3,4] parameter(2)",
        "f32[5,4] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
        "f32[5,5] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
    ),
    "transpose": (
        "  a = f32[2,3] parameter(0)",
        "f32[3,2] transpose(a), dimensions={1,0}",
        "f32[2,3] transpose(a), dimensions={1,0}",
    ),
    "convolution": (
        "  x = f32[8,28,28,3] parameter(0)\n  k = f32[5,5,3,16] parameter(1)",
        "f32[8,12,12,16] convolution(x, k), window={size=5x5 stride=2x2}, "
        "dim_labels=b01f_01io->b01f",
        "f32[8,13,13,16] convolution(x, k), window={size=5x5 stride=2x2}, "
        "dim_labels=b01f_01io->b01f",
    ),
    "convolution with dilations (XLA gives f32[1,7,7,1])": (
        "  x = f32[1,5,5,1] parameter(0)\n  k = f32[3,3,1,1] parameter(1)",
        "f32[1,7,7,1] convolution(x, k), window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2 "
        "rhs_dilate=2x2}, dim_labels=b01f_01io->b01f",
        "f32[1,9,9,1] convolution(x, k), window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2 "
        "rhs_dilate=2x2}, dim_labels=b01f_01io->b01f",
    ),
    "convolution with feature groups": (
        "  x = f32[1,6,6,4] parameter(0)\n  k = f32[3,3,2,6] parameter(1)",
        "f32[1,4,4,6] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, "
        "feature_group_count=2",
        "f32[1,4,4,3] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, "
        "feature_group_count=2",
    ),
    "convolution with batch groups (XLA gives f32[2,4,4,6])": (
        "  x = f32[4,6,6,3] parameter(0)\n  k = f32[3,3,3,6] parameter(1)",
        "f32[2,4,4,6] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, "
        "batch_group_count=2",
        "f32[4,4,4,6] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, "
        "batch_group_count=2",
    ),
    "convolution of zero features": (
        "  x = f32[1,4,4,0] parameter(0)\n  k = f32[3,3,0,2] parameter(1)",
        "f32[1,2,2,2] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f",
        "f32[1,2,2,0] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f",
    ),
    "convolution, labels in another order": (
        "  x = f32[3,10,2] parameter(0)\n  k = f32[4,3,2] parameter(1)",
        "f32[2,2,7] convolution(x, k), window={size=4}, dim_labels=f0b_0io->bf0",
        "f32[2,7,2] convolution(x, k), window={size=4}, dim_labels=f0b_0io->bf0",
    ),
    "fft": (
        "  a = f32[4,8] parameter(0)",
        "c64[4,5] fft(a), fft_type=RFFT, fft_length={8}",
        "c64[4,8] fft(a), fft_type=RFFT, fft_length={8}",
    ),
    "elementwise": (
        "  a = f32[2,3] parameter(0)\n  b = f32[2,3] parameter(1)",
        "f32[2,3] add(a, b)",
        "f32[3,2] add(a, b)",
    ),
    # A bitcast between laid-out buffers keeps bytes, a pred and an unpacked
    # s4 taking one each as in XLA's ShapeUtil::ByteSizeOf; by bit widths
    # pred[8] was 8 bits against f64's 64 and s4[16] fitted s8[8]
    # (tests/fuzz/semantic.py).  With no layout written, XLA's verifier
    # lets the size change (examples/syntax/27_unlaid_bitcast.hlo).
    "bitcast to bytes": (
        "  a = f64[]{} parameter(0)",
        "pred[8]{0} bitcast(a)",
        "pred[1]{0} bitcast(a)",
    ),
    "bitcast of an unpacked s4": (
        "  a = s4[16]{0} parameter(0)",
        "s8[16]{0} bitcast(a)",
        "s8[8]{0} bitcast(a)",
    ),
    "select with a scalar predicate": (
        "  p = pred[] parameter(0)\n  a = f32[4] parameter(1)\n  b = f32[4] parameter(2)",
        "f32[4] select(p, a, b)",
        "f32[5] select(p, a, b)",
    ),
}


def _analyse(text: str) -> None:
    module = parse_module(text, "case.hlo")
    entry = module.entry
    own_output_to_input(entry, entry.root)
    for operand in range(len(entry.root.operands)):
        own_input_to_output(entry, entry.root, operand)


@pytest.mark.parametrize("case", CASES)
def test_a_consistent_output_is_analysed(case: str) -> None:
    operands, good, _ = CASES[case]
    _analyse(_module(operands, good))


@pytest.mark.parametrize("case", CASES)
def test_an_inconsistent_output_is_rejected_at_the_instruction(case: str) -> None:
    operands, _, bad = CASES[case]
    text = _module(operands, bad)
    with pytest.raises(ParseError, match="is not valid HLO") as error:
        _analyse(text)
    line = text.splitlines().index(f"  ROOT r = {bad}") + 1
    assert (error.value.span.filename, error.value.span.line) == ("case.hlo", line)


@pytest.mark.parametrize("case", CASES)
def test_a_check_that_passed_does_not_pass_an_inconsistent_twin(case: str) -> None:
    """The same opcode, operands and attributes (annotations too) as a
    consistent instruction checked just before, a wrong output shape: rejected."""
    operands, good, bad = CASES[case]
    note = ', metadata={op_name="x"}'
    text = _module(f"{operands}\n  g = {good}{note}", bad + note)
    with pytest.raises(ParseError, match="is not valid HLO") as error:
        parse_module(text, "case.hlo")
    line = text.splitlines().index(f"  ROOT r = {bad}{note}") + 1
    assert (error.value.span.line, error.value.span.column) == (line, 8)


def test_a_check_that_passed_does_not_pass_other_attribute_values() -> None:
    text = _module(
        "  a = f32[2,3] parameter(0)\n  t = f32[3,2] transpose(a), dimensions={1,0}",
        "f32[3,2] transpose(a), dimensions={0,1}",
    )
    with pytest.raises(ParseError, match=r"give f32\[2,3\]"):
        parse_module(text, "case.hlo")


def test_no_shape_rule_reads_an_annotation() -> None:
    """The annotations are left out of the key of the checks that passed."""
    source = Path(inference.__file__).read_text()
    definition = source.index("ANNOTATIONS = frozenset(")
    rules = source[:definition] + source[source.index('"""Attributes no', definition) :]
    assert [name for name in inference.ANNOTATIONS if f'"{name}"' in rules] == []


def test_an_update_larger_than_its_operand_is_rejected() -> None:
    text = _module(
        "  a = f32[2] parameter(0)\n  u = f32[3] parameter(1)\n  i = s32[] parameter(2)",
        "f32[2] dynamic-update-slice(a, u, i)",
    )
    with pytest.raises(ParseError, match=r"the update \[3\] does not fit in the operand \[2\]"):
        _analyse(text)


GATHER = (
    "  a = f32[33,76,70] parameter(0)\n  i = s32[1806,2] parameter(1)",
    "f32[1806,7,8,4] gather(a, i), offset_dims={offsets}, collapsed_slice_dims={{}}, "
    "start_index_map={{0,1}}, index_vector_dim={vector}, slice_sizes={sizes}",
)


@pytest.mark.parametrize(
    ("offsets", "vector", "sizes", "message"),
    [
        ("{1,3,3}", 1, "{7,8,4}", "offset_dims=.* must be distinct"),
        ("{1,2,3}", 7, "{7,8,4}", "index_vector_dim=7 is not a dim"),
        ("{1,2,3}", 1, "{7,80,4}", "slice_sizes .* do not fit"),
        ("{1,2,3}", 2, "{7,8,4}", "start_index_map has 2 dims, the index vectors 1"),
    ],
)
def test_gather_dimension_numbers_are_validated(
    offsets: str, vector: int, sizes: str, message: str
) -> None:
    operands, root = GATHER
    text = _module(operands, root.format(offsets=offsets, vector=vector, sizes=sizes))
    with pytest.raises(ParseError, match=message):
        _analyse(text)


def test_scatter_updates_must_match_the_indices() -> None:
    text = _module(
        "  a = f32[5,4] parameter(0)\n  i = s32[3,1] parameter(1)\n  u = f32[2,4] parameter(2)",
        "f32[5,4] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
    )
    with pytest.raises(ParseError, match=r"scatter dims \[2\] are not the indices' batch dims"):
        _analyse(text)


def test_concatenated_operands_must_agree_off_the_axis() -> None:
    text = _module(
        "  a = f32[2,5] parameter(0)\n  b = f32[3,5] parameter(1)",
        "f32[5,5] concatenate(a, b), dimensions={1}",
    )
    with pytest.raises(ParseError, match="differ from operand 0's"):
        _analyse(text)


LESS = "less {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT c = pred[] compare(x, y), direction=LT\n}\n"


@pytest.mark.parametrize(
    ("operands", "root", "message"),
    [
        ("  a = f32[6] parameter(0)", "f32[6] sort(a), dimensions={1}", "not one dimension"),
        (
            "  a = f32[2,3] parameter(0)\n  b = s32[3,2] parameter(1)",
            "(f32[2,3], s32[3,2]) sort(a, b), dimensions={1}",
            "sort's operands have the same dimensions",
        ),
    ],
)
def test_sort_dimension_and_operands_are_validated(operands: str, root: str, message: str) -> None:
    text = f"HloModule m\n{LESS}ENTRY e {{\n{operands}\n  ROOT r = {root}, to_apply=less\n}}\n"
    with pytest.raises(ParseError, match=message):
        _analyse(text)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_every_real_dump_is_consistent(path: Path) -> None:
    module = parse_module(path.read_text(), str(path))
    for computation in module.computations:
        for instruction in computation.instructions:
            own_output_to_input(computation, instruction)


CONVOLUTION = (
    "  x = f32[1,6,6,4] parameter(0)\n  k = f32[{kernel}] parameter(1)",
    "f32[1,4,4,6] convolution(x, k), window={window}, dim_labels=b01f_01io->b01f, {groups}",
)


@pytest.mark.parametrize(
    ("kernel", "window", "groups", "message"),
    [
        ("3,3,2,6", "{size=3x3}", "feature_group_count=3", "4 input features in 3 groups"),
        ("3,3,4,6", "{size=2x3}", "feature_group_count=1", "window size 2 of spatial dim 0"),
        ("3,3,4,6", "{size=3}", "feature_group_count=1", "one dimension per spatial"),
        ("3,3,4,5", "{size=3x3}", "batch_group_count=1, feature_group_count=1", None),
        ("3,3,2,6", "{size=3x3}", "feature_group_count=2, batch_group_count=2", "both exceed"),
        ("3,3,4,6", "{size=3x3}", "batch_group_count=4", "do not split into 4 groups"),
        ("3,3,4,6", "{size=3x3}", "feature_group_count=0", "at least 1"),
    ],
)
def test_convolution_attributes_are_validated(
    kernel: str, window: str, groups: str, message: str | None
) -> None:
    operands, root = CONVOLUTION
    text = _module(operands.format(kernel=kernel), root.format(window=window, groups=groups))
    with pytest.raises(ParseError, match=message or "written f32.* give f32.1,4,4,5."):
        _analyse(text)


def test_an_omitted_convolution_shape_is_inferred() -> None:
    text = _module(
        "  x = f32[4,6,6,3] parameter(0)\n  k = f32[3,3,3,6] parameter(1)",
        "convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
        "batch_group_count=2",
    )
    assert str(parse_module(text).entry.root.shape) == "f32[2,6,6,6]"


def test_a_sparse_convolution_is_not_checked_as_dense() -> None:
    # Its kernel is compressed (half the input features here): the dense
    # formula does not apply, and no rule pretends to know its reads.
    text = _module(
        "  x = f32[1,6,6,4] parameter(0)\n  k = f32[3,3,2,6] parameter(1)",
        "f32[1,4,4,6] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, "
        "sparsity_config={dimension=2 n=2 m=4}",
    )
    module = parse_module(text)
    (lhs, _) = own_output_to_input(module.entry, module.entry.root)
    assert isinstance(lhs, Undefined) and "sparse convolution" in lhs.reason


EXAMPLES = sorted((Path(__file__).parents[2] / "examples").rglob("*.hlo"))


def test_every_parsed_instruction_passes_the_shape_check() -> None:
    # The indexing rules check no shape: they rely on the parser, the only
    # builder of a module, having run `check_shape` (with the callees' ROOT
    # shapes) or inferred the shape.  Here the check runs again, without
    # them, on every instruction of every committed example that parses.
    checked = 0
    for path in EXAMPLES:
        try:
            module = parse_module_file(path)
        except ParseError:
            continue  # an example of an error
        for computation in module.computations:
            for instruction in computation.instructions:
                operands = computation.operand_instructions(instruction)
                check_shape(
                    instruction.shape,
                    instruction.opcode,
                    tuple(operand.shape for operand in operands),
                    instruction.attributes,
                    {},
                    instruction.span,
                    instruction.name,
                )
                checked += 1
    assert checked > 5000


def test_a_while_whose_body_returns_another_shape_is_refused_after_a_valid_one() -> None:
    # The same while (opcode, shapes, attributes) in two modules whose bodies
    # differ: the shape check reads the body's ROOT, so a pass remembered
    # from the first module must not pass the second.
    def module(root: str) -> str:
        return (
            "HloModule m\n"
            "cond {\n  c = f32[4] parameter(0)\n  ROOT t = pred[] constant(false)\n}\n"
            f"body {{\n  b = f32[4] parameter(0)\n  ROOT r = {root}\n}}\n"
            "ENTRY e {\n  p = f32[4] parameter(0)\n"
            "  ROOT w = f32[4] while(p), condition=cond, body=body\n}\n"
        )

    parse_module(module("f32[4] negate(b)"))
    with pytest.raises(ParseError) as error:
        parse_module(module("f32[2] slice(b), slice={[0:2]}"), "w.hlo")
    assert (error.value.span.line, error.value.span.column) == (12, 8)
