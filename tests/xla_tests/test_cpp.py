"""The C++ reader: tests, statements, literals of every kind, at their lines."""

from verifier.xla_tests.cpp import (
    Binary,
    Call,
    Literal,
    Member,
    Name,
    Opaque,
    literals,
    read_tests,
    tokens,
)

SOURCE = """#include "x.h"
namespace {
// TEST_F(Commented, Out) { }
TEST_F(Fixture, First) {
  /* a block
     comment */ auto m = Parse(R"(
    (d0) -> (d0),
    domain: d0 in [0, 3]
  )");
  IndexingMap n(ParseAffineMap("(d0) -> (d0)", &ctx), {IndexingMap::Variable{0, 3}}, {}, {});
  EXPECT_THAT(ToString(m), MatchIndexingString("(d0) -> "
                                               "(d0), domain: d0 in [0, 3]"));
  for (int i = 0; i < 2; ++i) {
    m.Simplify();
  }
}
TEST_P(Other, Second) { auto text = R"hlo(a ")" b)hlo"; }
}  // namespace
"""


def test_tests_are_found_with_their_names_and_lines():
    first, second = read_tests(SOURCE)
    assert (first.fixture, first.name, first.line) == ("Fixture", "First", 4)
    assert (second.name, second.line) == ("Second", 17)


def test_statements_keep_their_first_line_and_target():
    first = read_tests(SOURCE)[0]
    summary = [(s.line, s.target) for s in first.statements]
    assert summary[:3] == [(6, "m"), (10, "n"), (11, None)]
    assert (14, None) in summary  # the loop's body, flattened


def test_raw_and_adjacent_literals_are_joined_with_their_values():
    first, second = read_tests(SOURCE)
    (parsed,) = literals(first.statements[0].value)
    assert parsed.value.split() == ["(d0)", "->", "(d0),", "domain:", "d0", "in", "[0,", "3]"]
    expect = first.statements[2].value
    assert isinstance(expect, Call) and expect.callee == Name("EXPECT_THAT")
    (matched,) = literals(expect)
    assert matched == Literal("(d0) -> (d0), domain: d0 in [0, 3]", 11)
    (raw,) = literals(second.statements[0].value)
    assert raw.value == 'a ")" b'  # a delimiter of its own


def test_a_constructor_declaration_is_a_call_of_the_type():
    value = read_tests(SOURCE)[0].statements[1].value
    assert isinstance(value, Call) and value.callee == Name("IndexingMap")
    assert len(value.args) == 4


def test_what_is_not_parsed_is_opaque_with_its_literals():
    (test,) = read_tests('TEST(A, B) { auto f = [&](int x) { return "s"; }; }')
    assert any(isinstance(s.value, Opaque | Member | Call) for s in test.statements)
    assert [t.kind for t in tokens("a::b->c 'x' 1'000")] == [
        "name",
        "punct",
        "name",
        "punct",
        "name",
        "number",
        "number",
    ]


def test_arithmetic_has_cpps_precedence():
    (test,) = read_tests("TEST(A, B) { auto e = a + b * c - d % 2; }")
    value = test.statements[0].value
    # ((a + (b * c)) - (d % 2))
    assert isinstance(value, Binary) and value.op == "-"
    assert isinstance(value.lhs, Binary) and value.lhs.op == "+"
    assert isinstance(value.lhs.rhs, Binary) and value.lhs.rhs.op == "*"
    assert isinstance(value.rhs, Binary) and value.rhs.op == "%"
