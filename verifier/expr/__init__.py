"""Quasi-affine expressions and indexing maps (L1, pure Python): nodes in
canonical form, intervals and range evaluation, `IndexingMap`, and XLA's
map text (parser and printer, exact inverses).  Code outside this package
imports from here, never from its modules (ruff bans the deep imports).

>>> from verifier.expr import parse_map
>>> str(parse_map("(d0) -> (d0 * 2), domain: d0 in [0, 3]")).splitlines()[0]
'(d0) -> (d0 * 2),'
"""

from verifier.expr.evaluate import (
    interval_of,
    point_predicate,
    point_value,
    substitute,
    subterms,
    variables_of,
)
from verifier.expr.indexing_map import (
    Constraint,
    IndexingMap,
    RuntimeSource,
    Undefined,
    Variable,
    compose,
)
from verifier.expr.interval import (
    Interval,
)
from verifier.expr.nodes import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    Max,
    Min,
    Mod,
    Mul,
    Var,
    VarKind,
    add,
    ceildiv,
    const,
    dim,
    floordiv,
    from_linear_terms,
    linear_terms,
    max_,
    min_,
    mod,
    mul,
    range_var,
    rt_var,
    split_term,
    var,
)
from verifier.expr.parser import (
    MapReader,
    parse_map,
    parse_typed_map,
)
from verifier.expr.printer import (
    print_map,
)
from verifier.expr.progressions import (
    Progression,
    StridedBox,
    count_union,
)
from verifier.expr.ranges import (
    Ranges,
)
from verifier.expr.syntax import (
    Syntax,
    SyntaxBinary,
    SyntaxInt,
    SyntaxNeg,
    SyntaxSum,
    SyntaxVar,
    TypedMap,
    canonical,
    constant_value,
    print_syntax,
)
from verifier.expr.translator import (
    ExprTranslator,
)

__all__ = [
    "Add",
    "CeilDiv",
    "Const",
    "Constraint",
    "Expr",
    "ExprTranslator",
    "FloorDiv",
    "IndexingMap",
    "Interval",
    "MapReader",
    "Max",
    "Min",
    "Mod",
    "Mul",
    "Progression",
    "Ranges",
    "RuntimeSource",
    "StridedBox",
    "Syntax",
    "SyntaxBinary",
    "SyntaxInt",
    "SyntaxNeg",
    "SyntaxSum",
    "SyntaxVar",
    "TypedMap",
    "Undefined",
    "Var",
    "VarKind",
    "Variable",
    "add",
    "canonical",
    "ceildiv",
    "compose",
    "const",
    "constant_value",
    "count_union",
    "dim",
    "floordiv",
    "from_linear_terms",
    "interval_of",
    "linear_terms",
    "max_",
    "min_",
    "mod",
    "mul",
    "parse_map",
    "parse_typed_map",
    "point_predicate",
    "point_value",
    "print_map",
    "print_syntax",
    "range_var",
    "rt_var",
    "split_term",
    "substitute",
    "subterms",
    "var",
    "variables_of",
]
