"""Parse errors say where (line, column) and what was expected."""

import pytest

from verifier.errors import ParseError
from verifier.expr.parser import parse_map


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("(d0) -> (d0 +),\ndomain: d0 in [0, 3]", 1, 14, "expected an integer, a variable"),
        ("(d0) -> (d0),\ndomain:\nd0 in [0, 3],\nd1 in [0, 2]", 4, 1, "unknown variable 'd1'"),
        ("(d0) -> (d0),\ndomain:\nd0 in [0 3]", 3, 10, "expected ','"),
        ("(d0) -> (d0 $ 2)", 1, 13, "unexpected character '$'"),
        ("(d0) -> (d0 * d0), domain: d0 in [0, 3]", 1, 13, "'(d0) * (d0)'"),
        ("(d0) -> (d0 mod 0), domain: d0 in [0, 3]", 1, 13, "mod by zero in 'd0 mod 0'"),
    ],
)
def test_parse_errors_carry_line_and_column(text, line, column, message):
    with pytest.raises(ParseError) as caught:
        parse_map(text)
    assert (caught.value.span.line, caught.value.span.column) == (line, column)
    assert message in caught.value.message
    # The rendered message shows the offending line with a caret under the column.
    rendered = str(caught.value).splitlines()
    assert rendered[-1].index("^") - 2 == column - 1
