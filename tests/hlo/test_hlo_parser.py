"""Hand-written and XLA-style modules; the indexing document's op lines; errors with line and column."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.errors import ParseError
from verifier.fusion.graph import users_first_order
from verifier.hlo import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    Metadata,
    PaddingDim,
    RawAttribute,
    ScatterDimensionNumbers,
    SliceDim,
    WindowDim,
    parse_module,
    parse_module_file,
    parse_shape,
)
from verifier.hlo.module import Instruction


def entry(params: dict[str, str], root: str, *others: str) -> str:
    """A module whose ENTRY defines `params` (name -> shape), `others`, then `ROOT root`."""
    lines = [f"  {name} = {shape} parameter({n})" for n, (name, shape) in enumerate(params.items())]
    lines += [f"  {line}" for line in others]
    lines.append(f"  ROOT {root}")
    return "HloModule m\n\nENTRY e {\n" + "\n".join(lines) + "\n}\n"


def root_of(text: str) -> Instruction:
    return parse_module(text).entry.root


# -- the indexing document: every op line of its table---------------------------------------


def test_spec_elementwise() -> None:
    root = root_of(entry({"p0": "f32[10,20]", "p1": "f32[10,20]"}, "add = f32[10,20] add(p0, p1)"))
    assert (root.name, root.opcode, root.operands) == ("add", "add", ("p0", "p1"))
    assert root.shape == parse_shape("f32[10,20]")


def test_spec_broadcast() -> None:
    root = root_of(
        entry({"p0": "f32[20]"}, "bc0 = f32[10,20,30] broadcast(f32[20] p0), dimensions={1}")
    )
    assert root.int_list("dimensions") == (1,)


def test_spec_constant_and_iota() -> None:
    text = entry(
        {},
        "t = (f32[2], s32[3,4]) tuple(c, i)",
        "c = f32[2] constant({1, 2})",
        "i = s32[3,4] iota(), iota_dimension=1",
    )
    computation = parse_module(text).entry
    assert computation.instruction("c").literal == "{1, 2}"
    assert computation.instruction("i").integer("iota_dimension") == 1
    assert computation.instruction("i").operands == ()


def test_spec_dynamic_slice() -> None:
    root = root_of(
        entry(
            {"src": "s32[2,2,258]", "of1": "s32[]", "of2": "s32[]", "of3": "s32[]"},
            "ds = s32[1,2,32] dynamic-slice(s32[2,2,258] src, of1, of2, of3), "
            "dynamic_slice_sizes={1,2,32}",
        )
    )
    assert root.operands == ("src", "of1", "of2", "of3")
    assert root.int_list("dynamic_slice_sizes") == (1, 2, 32)


def test_spec_dynamic_update_slice() -> None:
    root = root_of(
        entry(
            {"src": "s32[20,30]", "upd": "s32[5,10]", "of1": "s32[]", "of2": "s32[]"},
            "dus = s32[20,30] dynamic-update-slice(src, s32[5,10] upd, of1, of2)",
        )
    )
    assert root.operands == ("src", "upd", "of1", "of2")


def test_spec_gather() -> None:
    root = root_of(
        entry(
            {"operand": "f32[33,76,70]", "indices": "s32[1806,2]"},
            "gather = f32[1806,7,8,4] gather(f32[33,76,70] operand, s32[1806,2] indices), "
            "offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1}, "
            "index_vector_dim=1, slice_sizes={7,8,4}",
        )
    )
    assert root.gather_dimension_numbers() == GatherDimensionNumbers((1, 2, 3), (), (0, 1), 1)
    assert root.int_list("slice_sizes") == (7, 8, 4)


def test_spec_transpose_and_reverse() -> None:
    transpose = root_of(
        entry(
            {"p0": "f32[3,12288,6,128]"},
            "transpose = f32[3,6,128,12288] transpose(f32[3,12288,6,128] p0), dimensions={0,2,3,1}",
        )
    )
    assert transpose.int_list("dimensions") == (0, 2, 3, 1)
    reverse = root_of(
        entry({"p0": "f32[1,17,9,9]"}, "reverse = f32[1,17,9,9] reverse(p0), dimensions={1,2}")
    )
    assert reverse.int_list("dimensions") == (1, 2)


def test_spec_variadic_reduce_with_nested_computation() -> None:
    text = """
HloModule m
max_argmax {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  m = f32[] maximum(a, c)
  i = s32[] maximum(b, d)
  ROOT t = (f32[], s32[]) tuple(m, i)
}
ENTRY e {
  p0 = f32[256,10] parameter(0)
  p1 = s32[256,10] parameter(1)
  p0_init = f32[] constant(-inf)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(f32[256,10] p0, s32[256,10] p1, p0_init, p1_init),
      dimensions={0}, to_apply=max_argmax
}
"""
    module = parse_module(text)
    root = module.entry.root
    assert root.shape == parse_shape("(f32[10], s32[10])")
    assert root.called_computations == ("max_argmax",)
    assert module.entry.instruction("p0_init").literal == "-inf"
    reducer = module.computation("max_argmax")
    assert [p.name for p in reducer.parameters] == ["a", "b", "c", "d"]
    assert not reducer.is_entry and module.entry.is_entry


def test_spec_slice() -> None:
    root = root_of(
        entry(
            {"p0": "f32[10,20,50]"},
            "slice = f32[5,3,25] slice(f32[10,20,50] p0), slice={[5:10:1], [3:20:7], [0:50:2]}",
        )
    )
    assert root.slice_dims() == (SliceDim(5, 10, 1), SliceDim(3, 20, 7), SliceDim(0, 50, 2))


@pytest.mark.parametrize(
    ("operand", "result"),
    [
        ("f32[4,8]", "f32[32]"),
        ("f32[32]", "f32[4,8]"),
        ("f32[4,8]", "f32[2,4,4]"),
        ("f32[4,8,12]", "f32[32,3,4]"),
    ],
)
def test_spec_reshapes_and_bitcast(operand: str, result: str) -> None:
    for opcode in ("reshape", "bitcast"):
        root = root_of(entry({"p0": operand}, f"r = {result} {opcode}({operand} p0)"))
        assert (root.opcode, root.shape) == (opcode, parse_shape(result))


def test_spec_concatenate() -> None:
    root = root_of(
        entry(
            {"p0": "f32[2,5,7]", "p1": "f32[2,11,7]", "p2": "f32[2,17,7]"},
            "concat = f32[2,33,7] concatenate(f32[2,5,7] p0, f32[2,11,7] p1, f32[2,17,7] p2), "
            "dimensions={1}",
        )
    )
    assert root.int_list("dimensions") == (1,)


def test_spec_dot() -> None:
    root = root_of(
        entry(
            {"p0": "f32[4,128,256]", "p1": "f32[4,256,64]"},
            "dot = f32[4,128,64] dot(f32[4,128,256] p0, f32[4,256,64] p1), lhs_batch_dims={0}, "
            "rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}",
        )
    )
    assert root.dot_dimension_numbers() == DotDimensionNumbers((0,), (0,), (2,), (1,))


def test_spec_pad() -> None:
    root = root_of(
        entry(
            {"p0": "f32[4,4]", "p1": "f32[]"},
            "pad = f32[12,16] pad(f32[4,4] p0, f32[] p1), padding=1_4_1x4_8_0",
        )
    )
    assert root.padding() == (PaddingDim(1, 4, 1), PaddingDim(4, 8, 0))


def test_spec_reduce_window() -> None:
    text = """HloModule m
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
ENTRY e {
  p0 = f32[1024,514] parameter(0)
  c_inf = f32[] constant(-inf)
  ROOT reduce-window = f32[1024,3] reduce-window(f32[1024,514] p0, c_inf),
      window={size=1x512 pad=0_0x0_0}, to_apply=max
}"""
    root = root_of(text)
    assert root.window() == (WindowDim(1), WindowDim(512))


# -- beyond the table: convolution, scatter, select, while, conditional ------------------


def test_convolution_and_scatter_attributes() -> None:
    text = """HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  img = f32[2,8,8,1] parameter(0)
  k = f32[3,3,1,4] parameter(1)
  idx = s32[3,1] parameter(2)
  upd = f32[3,4] parameter(3)
  tbl = f32[50,4] parameter(4)
  conv = f32[2,8,8,4] convolution(img, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f, feature_group_count=1
  sc = f32[50,4] scatter(tbl, idx, upd), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add,
      indices_are_sorted=true
  ROOT t = (f32[2,8,8,4], f32[50,4]) tuple(conv, sc)
}"""
    entry_computation = parse_module(text).entry
    conv = entry_computation.instruction("conv")
    assert conv.convolution_dimension_numbers() == ConvolutionDimensionNumbers(
        0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2)
    )
    assert conv.window() == (WindowDim(3, 1, 1, 1), WindowDim(3, 1, 1, 1))
    assert conv.integer("feature_group_count") == 1
    scatter = entry_computation.instruction("sc")
    assert scatter.scatter_dimension_numbers() == ScatterDimensionNumbers((1,), (0,), (0,), 1)
    assert scatter.attributes.boolean("indices_are_sorted") is True


def test_while_and_conditional_call_computations() -> None:
    text = """HloModule m
cond { p = (s32[], f32[4]) parameter(0)  i = s32[] get-tuple-element(p), index=0
       n = s32[] constant(4)  ROOT lt = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[4]) parameter(0)  ROOT q = (s32[], f32[4]) copy(p) }
yes { p = f32[4] parameter(0)  ROOT r = f32[4] negate(p) }
no { p = f32[4] parameter(0)  ROOT r = f32[4] abs(p) }
ENTRY e {
  init = (s32[], f32[4]) parameter(0)
  b = pred[] parameter(1)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  x = f32[4] get-tuple-element(w), index=1
  ROOT c = f32[4] conditional(b, x, x), true_computation=yes, false_computation=no
}"""
    module = parse_module(text)
    entry_computation = module.entry
    assert entry_computation.instruction("w").called_computations == ("cond", "body")
    assert entry_computation.root.called_computations == ("yes", "no")
    assert module.computation("cond").root.attribute("direction") == "LT"
    assert entry_computation.instruction("x").integer("index") == 1


# -- XLA dump features -----------------------------------------------------------------

XLA_STYLE = (Path(__file__).parent / "xla_style.hlo").read_text(encoding="utf-8")


def test_xla_dump_features() -> None:
    module = parse_module(XLA_STYLE)
    assert module.name == "jit_f"
    assert [c.name for c in module.computations] == ["fused_computation", "main.4"]
    assert (
        module.attributes.raw("entry_computation_layout")
        == "{(f32[10]{0}, f32[10]{0})->f32[10]{0}}"
    )
    assert module.attributes.raw("is_scheduled") == "true"
    fusion = module.entry.root
    assert fusion.is_root and fusion.opcode == "fusion"
    assert fusion.operands == ("x.1", "gte")
    assert fusion.attribute("kind") == "kLoop"
    assert fusion.called_computations == ("fused_computation",)
    assert fusion.control_predecessors == ("t",)
    assert fusion.attribute("custom_attr") == RawAttribute("{x=[1,{2}]}")
    add = module.computation("fused_computation").root
    assert add.attribute("metadata") == Metadata("add", "jit(f)/add", "/tmp/x.py", 3)
    assert module.entry.instruction("gte").integer("index") == 5
    assert [str(i.shape) for i in module.entry.operand_instructions(fusion)] == ["f32[10]{0}"] * 2
    assert module.entry.instruction("fusion").span.line == 26


def test_without_entry_keyword_the_last_computation_is_entry_and_last_line_is_root() -> None:
    module = parse_module("HloModule m\nc {\n  p = f32[] parameter(0)\n  n = f32[] negate(p)\n}\n")
    assert module.entry.name == "c" and module.entry.is_entry
    assert module.entry.root.name == "n" and module.entry.root.is_root


def test_forward_references_resolve_and_order_by_use() -> None:
    text = entry(
        {"p": "f32[2]"}, "r = f32[2] add(a, b)", "a = f32[2] negate(b)", "b = f32[2] abs(p)"
    )
    computation = parse_module(text).entry
    order = users_first_order(computation)
    assert [i.name for i in reversed(order)] == ["p", "b", "a", "r"]
    assert computation.root.operands == ("a", "b")


def test_parameters_are_ordered_by_number() -> None:
    text = "HloModule m\nENTRY e {\n  b = f32[] parameter(1)\n  a = f32[] parameter(0)\n  ROOT s = f32[] add(a, b)\n}"
    computation = parse_module(text).entry
    assert [p.name for p in computation.parameters] == ["a", "b"]
    assert [p.parameter_number for p in computation.parameters] == [0, 1]


def test_constants() -> None:
    text = entry(
        {},
        "t = (f32[], pred[], f32[2,2], s32[3], f32[]) tuple(a, b, c, d, e)",
        "a = f32[] constant(-inf)",
        "b = pred[] constant(true)",
        "c = f32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })",
        "d = s32[3] constant({...})",
        "e = f32[] constant(1e-05)",
    )
    computation = parse_module(text).entry
    literals = [computation.instruction(n).literal for n in "abcde"]
    assert literals == ["-inf", "true", "{ { 1, 2 }, { 3, 4 } }", "{...}", "1e-05"]


def test_names_with_and_without_percent_and_dashes() -> None:
    text = entry({"%p.0": "f32[2]"}, "%get-tuple-element.1 = f32[2] copy(%p.0)")
    root = root_of(text)
    assert (root.name, root.operands) == ("get-tuple-element.1", ("p.0",))


def test_instruction_named_root_and_line_comments() -> None:
    text = "HloModule m // header\nENTRY e {\n  ROOT = f32[] parameter(0) // the root\n}"
    assert root_of(text).name == "ROOT"


def test_module_equality_ignores_spans_and_formatting() -> None:
    compact = "HloModule m ENTRY e { p = f32[2] parameter(0) ROOT n = f32[2] negate(p) }"
    spread = (
        "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n\n  ROOT n = f32[2] negate(p)\n}\n"
    )
    assert parse_module(compact) == parse_module(spread)
    assert hash(parse_module(compact)) == hash(parse_module(spread))


def test_parse_module_file_reports_the_path(tmp_path: Path) -> None:
    path = tmp_path / "bad.hlo"
    path.write_text("HloModule m\nENTRY e {\n  ROOT r = f32[] negate(q)\n}\n", encoding="utf-8")
    with pytest.raises(ParseError) as info:
        parse_module_file(path)
    assert info.value.span.filename == str(path)
    good = tmp_path / "good.hlo"
    good.write_text(entry({"p": "f32[]"}, "r = f32[] negate(p)"), encoding="utf-8")
    assert parse_module_file(good).entry.root.name == "r"


# -- errors ------------------------------------------------------------------------------

P = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("", 1, 1, "expected 'HloModule'"),
        ("HloModule m\n", 2, 1, "or a computation"),
        (P + "  ROOT r = f32[2] negate(q)\n}", 4, 26, "operand 'q' of 'r' is not defined"),
        (
            P + "  ROOT r = f32[2] negate(f32[3] p)\n}",
            4,
            33,
            "written with shape f32[3] but is defined with shape f32[2]",
        ),
        (P + "  ROOT r = f32[2] negate(p\n}", 5, 1, "expected ',' or ')' between operands"),
        (P + "  ROOT r = f32[2] negate(p)\n", 5, 1, "expected '}' to close computation 'e'"),
        (P + "  p = f32[2] negate(p)\n}", 4, 3, "defined twice"),
        (P + "  a = f32[2] negate(b)\n  b = f32[2] negate(a)\n}", 5, 3, "depends on itself"),
        (
            P + "  ROOT a = f32[2] negate(p)\n  ROOT b = f32[2] negate(p)\n}",
            5,
            8,
            "more than one ROOT",
        ),
        (P + "  q = f32[2] parameter(2)\n}", 2, 7, "no parameter(1)"),
        (
            P + "  ROOT r = f32[] reduce(p, p), to_apply=nowhere, dimensions={0}\n}",
            4,
            41,
            "computation 'nowhere' called from 'e' is not defined",
        ),
        (P + "  ROOT r = f32[2] transpose(p)\n}", 4, 8, "needs the attribute 'dimensions'"),
        (P + "  ROOT r = f32[2] negate(p), kind=kLoop, kind=kInput\n}", 4, 42, "given twice"),
        (
            P + "  ROOT r = f32[2] negate(p), window={size=2 /*unterminated\n}",
            4,
            45,
            "unterminated comment",
        ),
        (P + "  ROOT r = f32[2] constant()\n}", 4, 28, "expected a literal"),
        (P + "  ROOT r = f32[2] parameter(x)\n}", 4, 29, "parameter number"),
        (
            "HloModule m\nENTRY e () -> f32[3] {\n  a = f32[2] constant({1,2})\n}",
            2,
            15,
            "returns f32[3] but its ROOT 'a' has shape f32[2]",
        ),
        (
            "HloModule m\nc {\n p = f32[] parameter(0)\n}\nc {\n p = f32[] parameter(0)\n}",
            5,
            1,
            "computation 'c' is defined twice",
        ),
        (
            "HloModule m\nENTRY a {\n p = f32[] parameter(0)\n}\nENTRY b {\n p = f32[] parameter(0)\n}",
            5,
            7,
            "more than one ENTRY",
        ),
        ("HloModule m\nENTRY e {\n}", 2, 7, "has no instructions"),
        ("HloModule m\nENTRY e {\n  p = f32[2 parameter(0)\n}", 3, 13, "expected ',' or ']'"),
        (
            "HloModule m\nENTRY e {\n  p = f32[2] parameter(0) junk\n}",
            4,
            1,
            "expected '=' after instruction name 'junk'",
        ),
    ],
)
def test_errors_give_line_column_and_expectation(
    text: str, line: int, column: int, fragment: str
) -> None:
    with pytest.raises(ParseError, match=re.escape(fragment)) as info:
        parse_module(text, "t.hlo")
    span = info.value.span
    assert (span.filename, span.line, span.column) == ("t.hlo", line, column)
    assert str(info.value).startswith(f"t.hlo:{line}:{column}: ")


_AS_XLA_PRINTS = """HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add.1 = f32[] add(%x, %y)
}

ENTRY %e (p: f32[4,8]) -> f32[4] {
  %p = f32[4,8]{1,0} parameter(0)
  %zero = f32[] constant(0)
  %neg = f32[4,8]{1,0} negate(%p), metadata={op_name="jit(f)/neg" stack_frame_id=2}
  ROOT %sum = f32[4]{0} reduce(%twice, %zero), dimensions={1}, to_apply=%add
  %twice = f32[4,8]{1,0} add(%neg, %neg)
}
"""

# The same module with trivia where the one-match readings accept none (a
# line break after `=`, comments between tokens, a space before `(`), so
# every instruction is read token by token.
_WITH_TRIVIA = """HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x =
    f32[] parameter(0)
  %y = f32[] /* y */ parameter(1)
  ROOT %add.1 = f32[] add (%x, /* */ %y)
}

ENTRY %e (p: f32[4,8]) -> f32[4] {
  %p /* p */ = f32[4,8]{1,0} parameter(0)
  %zero = f32[] constant (0)
  %neg = f32[4,8]{1,0} negate(%p) , metadata=
    {op_name="jit(f)/neg" stack_frame_id=2}
  ROOT
    %sum = f32[4]{0} reduce( %twice,%zero ), dimensions= {1}, // end
    to_apply=%add
  %twice = f32[4,8]{1,0}
    add(%neg, %neg)
}
"""


def test_what_xla_prints_reads_as_the_token_by_token_reading() -> None:
    # The parser reads the common forms in one match each (instruction head,
    # shape, `opcode(`, plain operands, `, name=`); anything else goes token
    # by token.  Both readings must give the same module.
    plain = parse_module(_AS_XLA_PRINTS)
    general = parse_module(_WITH_TRIVIA)
    assert plain == general
    assert [i.is_root for i in plain.entry.instructions] == [False, False, False, True, False]
    assert plain.entry.root.attributes["dimensions"] == (1,)


@pytest.mark.parametrize(
    ("line", "at", "fragment"),
    [
        ("  ROOT %r = f32[2] add(%p, %q)", "%q", "operand 'q' of 'r' is not defined"),
        ("  %r = f32[2] negate(%p), kind=kLoop,  kind=kInput", "kind=kI", "given twice"),
        ("  %r = f32[2] negite(%p)", "negite", "unknown opcode 'negite'"),
    ],
)
def test_one_match_readings_keep_error_places(line: str, at: str, fragment: str) -> None:
    module = f"HloModule m\nENTRY e {{\n  %p = f32[2] parameter(0)\n{line}\n}}"
    with pytest.raises(ParseError, match=re.escape(fragment)) as info:
        parse_module(module, "t.hlo")
    span = info.value.span
    assert (span.line, span.column) == (4, line.index(at) + 1)


def test_root_is_a_name_when_the_equals_sign_follows() -> None:
    text = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT = f32[2] negate(p)\n"
    module = parse_module(text + "  ROOT\tr = f32[2] negate(ROOT)\n}")
    assert [(i.name, i.is_root) for i in module.entry.instructions] == [
        ("p", False),
        ("ROOT", False),
        ("r", True),
    ]
