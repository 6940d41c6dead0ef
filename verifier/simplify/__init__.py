"""The range-aware simplifier: range evaluation, rules as data, a fixpoint driver.

>>> from verifier.expr import parse_map
>>> str(simplify(parse_map("(d0) -> (d0 mod 8), domain: d0 in [0, 7]")).map)
'(d0) -> (d0),\\ndomain:\\nd0 in [0, 7]'
"""

from verifier.expr import Ranges
from verifier.simplify.driver import (
    SimplificationResult,
    SymbolChange,
    simplify,
    simplify_expr,
    simplify_relation,
)

__all__ = [
    "Ranges",
    "SimplificationResult",
    "SymbolChange",
    "simplify",
    "simplify_expr",
    "simplify_relation",
]
