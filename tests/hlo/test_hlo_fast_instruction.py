"""The parser's one-match paths (an instruction line, a computation's
signature, section entries; `_ModuleParser.fast_instruction`) read exactly
what the general, token-by-token path reads, or leave the text to it.

Each case is parsed twice: as users parse it, and with every one-match path
switched off.  The two must give the same module, down to each instruction's
span, or the same error at the same place.  The instructions are drawn with
random spacing, layouts, tuple shapes, comments, operand shapes, nested
operands, attributes of every kind (plain, bracketed, metadata, quoted,
computation names, inline computations, repeated, misspelt), several to a
line, and each is written twice, so that the second reads what the first
remembered (shapes, attribute values, passed checks: the general path
checks every instruction afresh).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hlo.test_hlo_fuzz import mutated
from verifier.errors import ParseError
from verifier.hlo import Module, parse_module
from verifier.hlo import parser as hlo_parser

_NEVER = re.compile(r"(?!)")


@contextmanager
def general_path_only() -> Iterator[None]:
    """Parse with every one-match path of `verifier.hlo.parser` off, and
    every shape, value and instruction read and checked afresh (nothing
    taken from what earlier modules or instructions left remembered)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hlo_parser._ModuleParser, "fast_instruction", lambda *_: False)
        patch.setattr(hlo_parser._ModuleParser, "passed_key", lambda *_: None)
        patch.setattr(hlo_parser, "_SHAPES", {})
        patch.setattr(hlo_parser, "_VALUES", {})
        patch.setattr(hlo_parser, "_FAST_SIGNATURE", _NEVER)
        patch.setattr(hlo_parser, "_FAST_SECTION", re.compile(""))
        yield


def printout(module: Module) -> str:
    """Every computation and instruction of `module`, spans included."""
    lines = [repr((module.name, module.attributes, module.entry.name))]
    for computation in module.computations:
        parameters = [p.name for p in computation.parameters]
        lines.append(repr((computation.name, computation.is_entry, computation.span)))
        lines.append(repr((computation.root.name, parameters)))
        lines += [repr(instruction) for instruction in computation.instructions]
    return "\n".join(lines)


def outcome(text: str) -> str:
    """The printout of `text`'s module, or its error with its place."""
    try:
        return printout(parse_module(text, "case.hlo"))
    except ParseError as error:
        return f"{type(error).__name__}: {error}\n{error.span!r}"


def assert_same_reading(text: str) -> str:
    fast = outcome(text)
    with general_path_only():
        general = outcome(text)
    assert fast == general, text
    return fast


Choices = tuple[list[str], list[str]]
"""What a valid module writes, and what only an odd one (a likely error)."""


def choose(draw: st.DrawFn, odd: bool, choices: Choices) -> str:
    usual, unusual = choices
    return draw(st.sampled_from(usual + unusual if odd else usual))


SPACE: Choices = (["", " ", "  ", "\t"], [])
GAP: Choices = ([" ", "  ", "\t"], [" /* c */ ", "\n    "])
SHAPES: Choices = (
    ["f32[4]", "f32[4]{0}", "f32[4]{0} "],
    [
        *("f32[4]{1}", "s32[4]{0}", "f32[]", "(f32[4]{0}, f32[])", "(f32[4], /*c*/f32[])"),
        *("f32[4]{0:T(4)}", "f32[2,2]{1,0}"),
    ],
)
VALUES = {
    "metadata": ['{op_name="a" source_line=3}', '{op_name="a\\"b"}', "{}", '{op_type="t"}'],
    "sharding": ["{replicated}", "{devices=[2]0,1}", "{maximal device=0}"],
    "frontend_attributes": ['{k="v"}', '{a="b", c="d"}'],
    "backend_config": ['{"x":1}', '"text"'],
    "custom": ["word", "{a b}", "1 2", "[2,2]<=[4]", "{[0:4], [0:2]}"],
}
ODD_VALUES = {
    "dimensions": ["{0}", "{ 0 }", "{}", "{1,0}", "{0"],
    "slice": ["{[0:4]}", "{[0:4:2]}", "{[0:2], [0:2]}"],
    "to_apply": ["%add", "add", "%missing", "{ ROOT %r = f32[] add(%a, %a) }"],
    "replica_groups": ["[2,2]<=[4]", "{{0,1},{2,3}}", "{}"],
    "direction": ["LT", "XX"],
    "index": ["0", "1", "x"],
    "window_bounds": ["{4}"],
    "metadata": ['{op_name="a" op_name="b"}', "{source_line=x}", "{a=1, b=2}"],
}


@st.composite
def attribute(draw: st.DrawFn, odd: bool) -> str:
    pool = draw(st.sampled_from([VALUES, ODD_VALUES] if odd else [VALUES]))
    name = draw(st.sampled_from(sorted(pool)))
    value = draw(st.sampled_from(pool[name]))
    space = [choose(draw, odd, SPACE) for _ in range(4)]
    return f"{space[0]},{space[1]}{name}{space[2]}={space[3]}{value}"


@st.composite
def operand(draw: st.DrawFn, odd: bool, defined: list[str]) -> str:
    kind = choose(draw, odd, (["name"], ["shaped", "nested", "undefined"]))
    name = draw(st.sampled_from(defined))
    percent = draw(st.sampled_from(["%", ""]))
    if kind == "shaped":
        return f"{choose(draw, odd, SHAPES)} {percent}{name}"
    if kind == "nested":
        return f"f32[4] negate({percent}{name})"
    if kind == "undefined":
        return "%nowhere"
    return f"{percent}{name}"


def _name(attribute: str) -> str:
    return attribute.split("=")[0].strip(" ,\t")


_ARITY = {"add": 2, "multiply": 2, "negate": 1, "copy": 1, "broadcast": 1}


@st.composite
def instruction(draw: st.DrawFn, odd: bool, name: str, defined: list[str]) -> str:
    opcode = choose(
        draw,
        odd,
        ([*_ARITY, "constant", "parameter"], ["tuple", "reduce", "greater-than", "nonsense"]),
    )
    if opcode == "constant":
        inside = choose(draw, odd, (["{1, 2, 3, 4}", "{1,2,3,4}"], ["1", " 2.5 ", "", "-inf"]))
    elif opcode == "parameter":
        number = len([name for name in defined if name.startswith("q")]) + 2
        inside = choose(draw, odd, ([f"{number}", f"0{number}", f" {number}"], ["-1", "", "x"]))
    else:
        count = _ARITY.get(opcode, 2) + (draw(st.integers(-1, 1)) if odd else 0)
        separators = [f",{choose(draw, odd, SPACE)}" for _ in range(count)]
        operands = [draw(operand(odd, defined)) for _ in range(count)]
        inside = "".join((separators[i - 1] if i else "") + operands[i] for i in range(count))
    twice = odd and draw(st.booleans())
    attributes = draw(st.lists(attribute(odd), max_size=3, unique_by=None if twice else _name))
    if opcode == "broadcast":
        attributes.insert(0, ", dimensions={0}")
    shape = choose(draw, odd, SHAPES)
    percent = draw(st.sampled_from(["%", "%", ""]))
    head = f"{percent}{name}{choose(draw, odd, SPACE)}={choose(draw, odd, SPACE)}"
    return f"{head}{shape}{choose(draw, odd, GAP)}{opcode}({inside}){''.join(attributes)}"


HEADER = """HloModule m
FileNames
1 "a.py"
2 "b.py"

%add{space}({a}a: f32[], b:{space}f32[]){space}->{space}f32[] {{
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}}

ENTRY %main (p0: f32[4], p1: f32[4]) -> f32[4] {{
  %p0 = f32[4]{{0}} parameter(0)
  %p1 = f32[4]{{0}} parameter(1)
"""


@st.composite
def module(draw: st.DrawFn) -> str:
    odd = draw(st.booleans())
    space = choose(draw, odd, SPACE)
    text = HEADER.format(space=space, a=draw(st.sampled_from(["%", ""])))
    defined = ["p0", "p1"]
    lines = []
    for number in range(draw(st.integers(1, 3))):
        written = draw(instruction(odd, f"i{number}", defined))
        if re.search(r"\sparameter\(", written):  # numbered in turn, written once
            lines.append(written.replace(f"i{number}", f"q{number}", 1))
            defined.append(f"q{number}")
            continue
        lines.append(written)
        again = written.replace(f"i{number}", f"j{number}", 1)  # read from what is remembered
        lines.append(again)
        defined += [f"i{number}", f"j{number}"]
    root = draw(st.integers(-1, len(lines) - 1))
    if root >= 0:
        lines[root] = re.sub(r"^(\s*)", r"\1ROOT ", lines[root])
    separator = choose(draw, odd, (["\n  ", "  ", "\n\n  "], ["\n  /* c */ ", "\n  , "]))
    return f"{text}  {separator.join(lines)}\n}}\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module())
def test_fast_and_general_paths_read_the_same(text: str) -> None:
    assert_same_reading(text)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module())
def test_fast_and_general_paths_read_the_same_at_length(text: str) -> None:
    assert_same_reading(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_fast_and_general_paths_fail_alike_on_mutated_modules(text: str) -> None:
    assert_same_reading(text)


def test_the_cases_reach_modules_and_errors() -> None:
    """The drawn cases are not all errors (nor all modules): a few fixed ones."""
    readings = [
        assert_same_reading(
            HEADER.format(space=" ", a="%") + f"  ROOT %r = f32[4]{{0}} {body}\n}}\n"
        )
        for body in (
            'add(%p0, %p1), metadata={op_name="x"}, sharding={replicated}',
            "add(%p0, %p1), dimensions={0}, dimensions={0}",
            "multiply(%p0, %nowhere)",
            "add(%p0, %q), metadata={}\n  %q = f32[4] parameter(02)",
        )
    ]
    assert readings[0].startswith("('m'")
    assert readings[1].startswith(
        "ParseError: case.hlo:15:54: attribute 'dimensions' is given twice"
    )
    assert "nowhere" in readings[2]
    assert "literal='2'" in readings[3]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("f32[4]{0} add(%p0, %p1)", "f32[2,2]{1,0} add(%p0, %p1)"),
        ("f32[4]{0} add(%p0, %p1)", "f32[4]{0} add(%p0, %s)"),
        (
            "f32[4,2]{1,0} broadcast(%p0), dimensions={0}",
            "f32[4,2]{1,0} broadcast(%p0), dimensions={1}",
        ),
    ],
)
def test_a_remembered_check_is_not_taken_for_another_instruction(first: str, second: str) -> None:
    """The second instruction differs from the first, which passed, in a
    shape or an attribute: it fails (the general path checks it afresh)."""
    text = HEADER.format(space=" ", a="%") + (
        f"  %s = f32[2]{{0}} parameter(2)\n  %i = {first}\n  ROOT %j = {second}\n}}\n"
    )
    reading = assert_same_reading(text)
    assert reading.startswith("InvalidHloError: case.hlo:17:8: "), reading
