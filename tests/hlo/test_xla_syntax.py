"""Every HLO syntax form XLA accepts is read (examples/syntax/, one module
per form of issue #12), and every module is checked with no crash: each
instruction gets findings, or an error of its own at its line."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from tests.indexing.compound_checks import check_instruction
from verifier.analysis import ModuleMaps
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.errors import InternalError, InvalidHloError, ParseError
from verifier.expr import Undefined, dim
from verifier.gate.suite import run_checks
from verifier.hlo import Module, ReplicaGroups, parse_module, parse_module_file
from verifier.hlo.attributes import Metadata, RawAttribute
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

SYNTAX = Path(__file__).parents[2] / "examples" / "syntax"
FORMS = sorted(SYNTAX.glob("*.hlo"))


def _errors(module: Module) -> list[ParseError | InternalError]:
    errors: list[ParseError | InternalError] = []
    list(run_checks(module, MemoryCache(), on_error=errors.append))
    return errors


@pytest.mark.parametrize("path", FORMS, ids=lambda p: p.stem)
def test_every_form_is_read_and_checked_without_an_internal_error(path: Path) -> None:
    errors = _errors(parse_module_file(path))
    assert not [e for e in errors if isinstance(e, InternalError)]


def _read(name: str) -> Module:
    return parse_module_file(SYNTAX / name)


def test_1_omitted_shapes_are_inferred() -> None:
    entry = _read("01_omitted_shapes.hlo").entry
    shapes = {i.name: str(i.shape) for i in entry.instructions}
    assert shapes == {
        "p0": "f32[4,8]",
        "p1": "f32[4,8]",
        "s": "f32[4,8]",
        "c": "pred[4,8]",
        "t": "(f32[4,8], pred[4,8])",
        "x": "f32[4,8]",
        "tr": "f32[8,4]",
        "sl": "f32[4,2]",
        "d": "f32[2,8]",
    }


def test_2_nested_instructions_become_instructions_of_their_own() -> None:
    entry = _read("02_nested_operands.hlo").entry
    assert entry.instruction("lt").operands == ("g", "lt.1")
    assert entry.instruction("lt.1").literal == "10"
    assert [p.name for p in entry.parameters] == ["g", "m.0", "m.1"]


def test_3_a_scalar_broadcast_gets_empty_dimensions() -> None:
    assert _read("03_scalar_broadcast.hlo").entry.root.int_list("dimensions") == ()


def test_4_buffer_shapes_print_back() -> None:
    assert str(_read("04_buffer_shapes.hlo").entry.instruction("pin").shape) == "b(f32[16])"


def test_5_the_signature_parameter_list_is_ignored() -> None:
    assert len(_read("05_signature.hlo").entry.parameters) == 1


def test_6_a_nested_integer_list_is_kept_raw() -> None:
    root = _read("06_nested_int_lists.hlo").entry.root
    value = root.attribute("slice_sizes")
    assert isinstance(value, RawAttribute)
    assert value.text == "{{2,4,128},{2,4,128}}"


def test_7_an_inline_body_becomes_a_computation() -> None:
    module = _read("07_inline_computation.hlo")
    assert module.entry.root.called_computations == ("r.to_apply",)
    assert module.computation("r.to_apply").root.opcode == "add"


def test_8_headerless_and_colon_headers() -> None:
    module = _read("08_no_header.hlo")
    assert (module.name, module.entry.name) == ("08_no_header", "main")
    assert _read("08_colon_header.hlo").name == "colon_header"


def test_9_metadata_with_commas() -> None:
    metadata = _read("09_metadata_commas.hlo").entry.root.attribute("metadata")
    assert metadata == Metadata(None, "a", "b.py", 3)


def test_10_the_legacy_dynamic_slice_is_a_named_unsupported_result() -> None:
    module = _read("10_legacy_dynamic_slice.hlo")
    findings = list(run_checks(module, MemoryCache(), only=["in-bounds"]))
    assert {f.outcome.value for f in findings if f.instruction in ("ds", "dus")} >= {"unsupported"}
    assert any("legacy" in f.message for f in findings)


def test_11_operands_compare_ignoring_layout_and_dynamic_ness() -> None:
    assert str(_read("11_operand_layouts.hlo").entry.root.shape) == "s32[7]{0:T(128)}"


def test_12_unbounded_dims_parse_and_are_unsupported_by_name() -> None:
    module = _read("12_dynamic_dims.hlo")
    findings = list(run_checks(module, MemoryCache(), only=["in-bounds"]))
    by_name = {f.instruction: f for f in findings}
    assert by_name["nb"].outcome.value == "proved"
    assert "unbounded" in by_name["nu"].message


def test_13_mesh_and_iota_groups_and_unknown_attributes() -> None:
    entry = _read("13_replica_groups.hlo").entry
    assert entry.instruction("m").attribute("replica_groups") == ReplicaGroups(((0, 1), (2, 3)))
    assert entry.instruction("i").attribute("replica_groups") == ReplicaGroups(((0, 1), (2, 3)))
    raw = entry.instruction("i").attribute("some_future_attribute")
    assert raw == RawAttribute("{a=[1 2] b='c'}")


def test_14_a_label_we_cannot_read_rejects_only_its_instruction() -> None:
    module = _read("14_literal_labels_tiles.hlo")
    assert str(module.entry.instruction("one").shape) == "s32[]{:T(128)}"
    assert module.entry.instruction("cc").attribute("literal") == RawAttribute("s32[] 1")
    errors = _errors(module)
    assert len(errors) == 1
    assert "dim_labels" in errors[0].message
    assert (errors[0].span.line, errors[0].span.column) == (10, 97)


# -- shape validation: what XLA rejects, with the instruction's place ------------


def _module(body: str) -> str:
    return f"HloModule m\nENTRY e {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("  p = f32[4] parameter(0)\n  ROOT s = f32[5] slice(p), slice={[0:5]}", "slice"),
        ("  p = f32[4] parameter(0)\n  ROOT t = (f32[4], f32[5]) tuple(p, p)", "tuple"),
        ("  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p)", "add takes 2 operands"),
        ("  p = f32[4] parameter(0)\n  ROOT a = add(p, p, p)", "add takes 2 operands"),
        ("  p = f32[4] parameter(0)\n  ROOT r = reshape(p)", "XLA infers no shape for reshape"),
    ],
)
def test_shapes_xla_rejects_are_invalid_hlo_at_the_instruction(body: str, message: str) -> None:
    with pytest.raises(InvalidHloError, match=message) as error:
        parse_module(_module(body), "v.hlo")
    assert error.value.span.line == 4


def test_a_fusion_with_the_wrong_operand_count_is_invalid() -> None:
    text = (
        "HloModule m\nf {\n  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)\n"
        "  ROOT s = f32[2] add(a, b)\n}\nENTRY e {\n  p = f32[2] parameter(0)\n"
        "  ROOT x = f32[2] fusion(p), kind=kLoop, calls=f\n}\n"
    )
    with pytest.raises(InvalidHloError, match="passes 1 operands to 'f', which has 2") as error:
        parse_module(text, "f.hlo")
    assert error.value.span.line == 9


def test_an_unknown_opcode_names_the_nearest() -> None:
    with pytest.raises(
        ParseError, match="unknown opcode 'dynamic_slice'; did you mean 'dynamic-slice'"
    ):
        parse_module(_module("  ROOT p = f32[4] dynamic_slice()"))


def test_a_sparse_convolution_is_unsupported_not_dense() -> None:
    body = (
        "  x = f32[1,4,4,2] parameter(0)\n  k = f32[3,3,2,2] parameter(1)\n"
        "  ROOT c = f32[1,4,4,2] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
        "dim_labels=b01f_01io->b01f, sparsity_config={L.0:2:4}"
    )
    findings = list(run_checks(parse_module(_module(body)), MemoryCache(), only=["in-bounds"]))
    assert findings and all("sparse" in f.message for f in findings)


def test_a_convolution_with_no_features_reads_nothing() -> None:
    body = (
        "  x = f32[1,4,4,0] parameter(0)\n  k = f32[3,3,0,2] parameter(1)\n"
        "  ROOT c = f32[1,4,4,2] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
        "dim_labels=b01f_01io->b01f"
    )
    assert _errors(parse_module(_module(body))) == []


def test_a_gather_of_zero_size_slices_is_never_refuted() -> None:
    body = (
        "  p = f32[5,3] parameter(0)\n  i = s32[2,1] parameter(1)\n"
        "  ROOT g = f32[2,0] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, "
        "start_index_map={0}, index_vector_dim=1, slice_sizes={1,0}"
    )
    findings = list(run_checks(parse_module(_module(body)), MemoryCache()))
    assert all(f.outcome.value != "refuted" for f in findings)


# -- hardening: hostile input is a located error --------------------------------


def test_bytes_that_are_not_utf8_are_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.hlo"
    path.write_bytes(b"HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0) \xff\n}")
    with pytest.raises(ParseError, match="0xff is not UTF-8") as error:
        parse_module_file(path)
    assert (error.value.span.line, error.value.span.column) == (3, 32)


def test_an_integer_past_int64_says_xla_indices_are_int64() -> None:
    with pytest.raises(ParseError, match="XLA sizes and indices are int64") as error:
        parse_module(_module("  ROOT p = f32[99999999999999999999] parameter(0)"))
    assert error.value.span.line == 3


def test_absurd_nesting_is_a_located_error() -> None:
    deep = "(" * 100_000 + ")" * 100_000
    with pytest.raises(ParseError, match="nested deeper"):
        parse_module(_module(f"  ROOT p = f32[2] parameter(0), x={deep}"))
    nested = "f32[] negate(" * 200 + "f32[] parameter(0)" + ")" * 200
    with pytest.raises(ParseError, match="nested deeper"):
        parse_module(_module(f"  ROOT n = f32[] negate({nested})"))


def test_an_overlong_line_is_read() -> None:
    wide = ", ".join(f"k{n}=v" for n in range(20_000))
    module = parse_module(_module(f"  ROOT p = f32[2] parameter(0), metadata={{{wide}}}"))
    assert module.entry.root.opcode == "parameter"


def test_mlir_text_says_how_to_get_hlo() -> None:
    with pytest.raises(ParseError, match=r"MLIR .*compile\(\)\.as_text\(\).*dialect='hlo'"):
        parse_module("module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n}")


def test_opcodes_are_spelled_as_xla_prints_them() -> None:
    # XLA prints kOptimizationBarrier as "opt-barrier"; an omitted shape is
    # inferred from its operand like any pass-through op.
    module = parse_module(
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  t = (f32[4]) tuple(p)\n"
        "  ROOT b = opt-barrier(t)\n}\n"
    )
    assert str(module.entry.root.shape) == str(module.entry.instruction("t").shape)
    with pytest.raises(ParseError, match="did you mean 'opt-barrier'"):
        parse_module(
            "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
            "  ROOT b = f32[4] optimization-barrier(p)\n}\n"
        )


@pytest.mark.parametrize(
    ("root", "attribute"),
    [
        (
            "f32[4,128,64] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, "
            "lhs_contracting_dims={2}, rhs_contracting_dims={99999999999999999999}",
            "rhs_contracting_dims",
        ),
        (
            "f32[4,128,256] convolution(p0, p0), window={size=1}, dim_labels=b0f_0io->b0f, "
            "feature_group_count=99999999999999999999",
            "feature_group_count",
        ),
    ],
)
def test_an_optional_attribute_that_cannot_be_read_is_never_taken_as_absent(
    root: str, attribute: str
) -> None:
    # Found by the fuzz campaign: the dot's unreadable contracting dims were
    # read as none, and its maps named a dimension the output does not have.
    text = _module(
        f"  p0 = f32[4,128,256] parameter(0)\n  p1 = f32[4,256,64] parameter(1)\n  ROOT r = {root}"
    )
    errors = _errors(parse_module(text, "a.hlo"))
    assert len(errors) == 1
    assert f"needs the attribute '{attribute}', which could not be read" in errors[0].message
    assert "64 bits" in errors[0].message


# -- forms of issue #31 ------------------------------------------------------------


def test_15_async_sugar_is_the_explicit_async_start_of_a_one_op_computation() -> None:
    sugar = parse_module(
        "HloModule m\nENTRY e {\n  q = f32[4,8] parameter(0)\n"
        "  t = ((f32[4,8]), f32[8,4], s32[]) transpose-start(q), dimensions={1,0}, "
        'async_execution_thread="side"\n'
        "  u = ((f32[4,8]), f32[8,4], s32[]) transpose-update(t)\n"
        "  ROOT d = f32[8,4] transpose-done(u)\n}\n"
    )
    explicit = parse_module(
        "HloModule m\nt.async_wrapped {\n  param.0 = f32[4,8] parameter(0)\n"
        "  ROOT t = f32[8,4] transpose(param.0), dimensions={1,0}\n}\n"
        "ENTRY e {\n  q = f32[4,8] parameter(0)\n"
        "  t = ((f32[4,8]), f32[8,4], s32[]) async-start(q), calls=t.async_wrapped, "
        'async_execution_thread="side"\n'
        "  u = ((f32[4,8]), f32[8,4], s32[]) async-update(t)\n"
        "  ROOT d = f32[8,4] async-done(u)\n}\n"
    )
    assert sugar == explicit


def test_15_every_sugared_op_is_wrapped_with_its_attributes() -> None:
    module = _read("15_async_sugar.hlo")
    wrapped = {
        name: module.computation(module.entry.instruction(name).attributes.word("calls") or "")
        for name in ("a2a", "rs", "t", "d")
    }
    assert {n: c.root.opcode for n, c in wrapped.items()} == {
        "a2a": "all-to-all",
        "rs": "reduce-scatter",
        "t": "transpose",
        "d": "dot",
    }
    assert wrapped["rs"].root.called_computations == ("add",)
    assert [str(p.shape) for p in wrapped["d"].parameters] == ["f32[8,4]", "f32[4,8]"]
    assert {module.entry.instruction(n).opcode for n in ("a2a.done", "t.update", "d.done")} == {
        "async-done",
        "async-update",
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("ROOT s = f32[4] negate-start(p)", "needs its shape written as"),
        ("ROOT s = ((f32[4]), f32[4]) send-update(p)", "unknown opcode 'send-update'"),
        ("ROOT s = ((f32[4]), f32[4]) all-gather-update(p)", "unknown opcode"),
    ],
)
def test_15_what_xla_does_not_read_as_async_sugar_is_an_error(line: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_module(_module(f"  p = f32[4] parameter(0)\n  {line}"))


def test_16_nested_operands_without_shapes_and_tuple_elements_by_hash() -> None:
    entry = _read("16_nested_operands_without_shapes.hlo").entry
    assert entry.instruction("m").operands == ("m.0", "t#0")
    assert (entry.instruction("m.0").opcode, str(entry.instruction("m.0").shape)) == (
        "multiply",
        "f32[4]",
    )
    element = entry.instruction("t#1#0")
    assert (element.opcode, element.operands, element.integer("index")) == (
        "get-tuple-element",
        ("t#1",),
        0,
    )
    assert str(entry.instruction("t#1").shape) == "(f32[4], s32[])"
    with pytest.raises(ParseError, match="written with shape f32"):
        parse_module(_module("  t = (f32[4], s32[]) parameter(0)\n  ROOT n = negate(f32[4] t#1)"))


def test_17_shapes_xla_infers() -> None:
    entry = _read("17_inferred_shapes.hlo").entry
    shapes = {i.name: str(i.shape) for i in entry.instructions}
    assert {k: shapes[k] for k in ("token.0", "token.1", "id", "rid", "size", "dep", "c")} == {
        "token.0": "token[]",
        "token.1": "token[]",
        "id": "u32[]",
        "rid": "u32[]",
        "size": "s32[]",
        "dep": "f32[4,3]",
        "c": "f32[4,3]",
    }


def test_18_several_instructions_on_one_line() -> None:
    module = _read("18_several_instructions_per_line.hlo")
    assert [i.name for i in module.entry.instructions] == ["p", "zero", "r", "n", "e"]
    assert module.entry.instruction("r").called_computations == ("add",)
    assert module.computation("add").root.name == "s"
    assert module.entry.root.name == "e"


def test_19_nested_inline_computations_get_names_of_their_own() -> None:
    module = _read("19_nested_inline_computations.hlo")
    outer = module.entry.root.called_computations[0]
    inner = module.computation(outer).root.called_computations[0]
    assert outer != inner
    assert module.computation(inner).root.opcode == "add"


def test_25_a_while_has_its_bodys_shape_and_no_composed_maps() -> None:
    module = _read("25_while_shape_of_body.hlo")
    loop = module.entry.root
    assert str(loop.shape) == "(s32[], f32[3], f32[3])"
    view = ModuleMaps(module).instruction(module.entry, loop)
    for output in view.outputs:
        for _, composed in view.o2i(output):
            assert isinstance(composed.maps, Undefined)
            assert "returns (s32[], f32[3], f32[3]) for a state of (s32[], f32[3])" in (
                composed.maps.reason
            )
    # XLA compares the while's shape with the body's result: the init's is wrong.
    text = (SYNTAX / "25_while_shape_of_body.hlo").read_text()
    wrong = text.replace("ROOT w = (s32[], f32[3], f32[3]) while", "ROOT w = (s32[], f32[3]) while")
    with pytest.raises(InvalidHloError, match=r"give \(s32\[\], f32\[3\], f32\[3\]\)\n"):
        parse_module(wrong, "w.hlo")


@pytest.mark.parametrize(
    "form", ["26_array_all_gather_start.hlo", "29_array_collective_permute_start.hlo"]
)
def test_26_29_an_array_collective_start_is_its_collective(form: str) -> None:
    text = (SYNTAX / form).read_text()
    module = parse_module(text)
    start = module.entry.instruction("start")
    # Against the oracle: the all-gather's output (i, j) holds column j mod 2
    # of the operand of the replica at group position j // 2; the permute's
    # holds the source replica's element (i, j).  The done passes it on.
    assert check_instruction(module.entry, start, text) == []
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    ((_, composed),) = view.o2i(view.outputs[0])
    assert not isinstance(composed.maps, Undefined)
    ((read,),) = [[counted.map for counted in composed.maps]]
    rows, columns = start.shape.dimensions
    assert read.relation() == {((i, j), (i, j)) for i in range(rows) for j in range(columns)}


def test_27_a_bitcast_with_no_layout_may_change_its_size() -> None:
    module = _read("27_unlaid_bitcast.hlo")
    findings = list(run_checks(module, MemoryCache()))
    (bitcast,) = [f for f in findings if f.check == "bitcast"]
    assert bitcast.outcome is Outcome.UNSUPPORTED
    assert not [f for f in findings if f.outcome is Outcome.REFUTED]


def test_28_a_legacy_sparse_dot_has_the_dense_shape_and_unknown_maps() -> None:
    module = _read("28_legacy_sparse_dot.hlo")
    assert str(module.entry.root.shape) == "f32[3,5]"  # 8 stored of 16, times [16,5]
    findings = list(run_checks(module, MemoryCache()))
    assert findings and {f.outcome for f in findings} == {Outcome.UNSUPPORTED}
    assert all("sparse dot" in f.message for f in findings)
    text = (SYNTAX / "28_legacy_sparse_dot.hlo").read_text()
    for original, broken in (
        ("sparsity=L.1@2:4", "sparsity=L.1@1:4"),  # 8 stored of 32: not the rhs's 16
        ("dot(lhs, rhs, meta)", "dot(lhs, rhs, meta, meta)"),
    ):
        with pytest.raises(InvalidHloError):
            parse_module(text.replace(original, broken), "s.hlo")


def test_30_a_batching_dim_also_indexed_is_read_at_the_batch_coordinate() -> None:
    text = (SYNTAX / "30_gather_batching_dim_indexed.hlo").read_text()
    # Constant indices, some far out of range: XLA's evaluator writes the
    # batch index over the start on the batching dim, so they change nothing.
    starts = "{ {{2},{0},{-5},{9}}, {{1},{1},{0},{2}}, {{0},{7},{2},{1}} }"
    text = text.replace(
        "indices = s32[3,4,1] parameter(1)", f"indices = s32[3,4,1] constant({starts})"
    )
    module = parse_module(text)
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    ((_, operand), _) = view.o2i(view.outputs[0])
    assert isinstance(operand.indexing, tuple)
    pairs = {
        (
            tuple(point[dim(k)] for k in range(3)),
            indexing_map.evaluate(point),
        )
        for indexing_map in operand.indexing
        for point in indexing_map.domain_points()
    }
    truth = {((b, k, o), (b, o)) for b in range(3) for k in range(4) for o in range(2)}
    assert pairs == truth


def test_31_an_async_state_holds_a_prefix_of_the_result() -> None:
    text = (SYNTAX / "31_async_result_prefix.hlo").read_text()
    module = parse_module(text)
    assert str(module.entry.instruction("first").shape) == "((f32[4]), (f32[4]), s32[])"
    # Not a prefix: the first element of the result is f32[4].
    wrong = text.replace("((f32[4]), (f32[4]), s32[])", "((f32[4]), (f32[5]), s32[])")
    with pytest.raises(InvalidHloError, match=r"holds the result \(f32\[5\]\)"):
        parse_module(wrong, "p.hlo")


def test_33_a_root_ending_a_line_marks_the_instruction_on_the_next() -> None:
    module = _read("33_root_ending_a_line.hlo")
    entry = module.entry
    assert [i.name for i in entry.instructions] == ["x", "zero", "init", "w", "last"]
    assert entry.root.name == "last"
    assert entry.instruction("w").attributes["body"] == "step"
    assert [i.name for i in module.computation("step").instructions][:3] == ["s", "v", "n"]


def test_34_tuple_select_reads_the_same_leaf_of_either_branch() -> None:
    text = (SYNTAX / "34_tuple_select.hlo").read_text()
    module = parse_module(text)
    entry, root = module.entry, module.entry.root
    assert str(root.shape) == "(f32[4], s32[2,3])"
    # Operand leaves: 0 the predicate, 1-2 the true branch's, 3-4 the false one's.
    outputs = [shape.dimensions for _, shape in root.shape.leaves]
    truth = {
        (k, leaf): (
            {(i, ()) for i in product(*map(range, dims))}
            if leaf == 0
            else {(i, i) for i in product(*map(range, dims))}
            if leaf in (1 + k, 3 + k)
            else set()
        )
        for k, dims in enumerate(outputs)
        for leaf in range(5)
    }
    for k in range(len(outputs)):
        for leaf, maps in enumerate(own_output_to_input(entry, root, k)):
            assert isinstance(maps, tuple)
            assert set().union(*(m.relation() for m in maps)) == truth[k, leaf], (k, leaf)
    for leaf in range(5):
        for k, maps in enumerate(own_input_to_output(entry, root, leaf)):
            assert isinstance(maps, tuple)
            inverse = {(e, i) for i, e in truth[k, leaf]}
            assert set().union(*(m.relation() for m in maps)) == inverse, (leaf, k)


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        ("p = pred[] parameter(0)", "p = pred[2] parameter(0)", r"predicate is pred\[2\]"),
        ("b = (f32[4], s32[2,3])", "b = (f32[4], s32[3,2])", r"branches are .* not one shape"),
    ],
)
def test_34_an_invalid_tuple_select_is_refused_at_its_line(old: str, new: str, rule: str) -> None:
    text = (SYNTAX / "34_tuple_select.hlo").read_text().replace(old, new)
    with pytest.raises(InvalidHloError, match=rf"^p\.hlo:10:8: .*{rule}"):
        parse_module(text, "p.hlo")


def test_35_update_and_done_repeating_the_wrapped_attributes_call_nothing() -> None:
    module = _read("35_async_sugar_repeating_attributes.hlo")
    entry = module.entry
    assert entry.instruction("rs.update").called_computations == ()
    assert entry.instruction("rs.done").called_computations == ()
    # The start's result {1} is the reduce-scatter's: over the group {0,1},
    # replica r's row i is the sum of row 6r + i of every replica's operand.
    view = ModuleMaps(module).instruction(entry, entry.instruction("rs"))
    ((_, composed),) = view.o2i(view.outputs[1])
    assert not isinstance(composed.maps, Undefined)
    read = set().union(*(counted.map.relation() for counted in composed.maps))
    assert read == {((i, j), (6 * r + i, j)) for r in range(2) for i in range(6) for j in range(2)}
