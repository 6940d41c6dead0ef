"""The `equiv` answer as text: the verdict, and where the maps differ.

The answer is `EquivalenceResult.to_json()`; a counterexample is either a
point where both maps are functions of the same variables, or a result one
relation relates to the dims and the other does not:

>>> equiv_text({"verdict": "equal"})
'equal'
>>> equiv_text({"verdict": "different",
...             "counterexample": {"point": {"d0": 0, "s0": 1}, "a": [1], "b": [0]}})
'different: at d0 = 0, s0 = 1: map a gives (1), map b gives (0)'
>>> equiv_text({"verdict": "different", "compared_as": "relations",
...             "counterexample": {"dims": {"d0": 2}, "symbols": {}, "only_in": "b",
...                                "result": [5]}})
'different (as relations: the maps have other variables): at d0 = 2, the result (5) is related by map b and not by map a'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _values(values: Sequence[int] | None, name: str) -> str:
    """What map `name` gives at a point: ``map a gives (7, 1)``."""
    if values is None:
        return f"map {name} is not defined there"
    return f"map {name} gives ({', '.join(map(str, values))})"


def assignments(values: dict[str, int]) -> str:
    """``d0 = 1, s0 = 2``.

    >>> assignments({"d0": 1, "s0": 2})
    'd0 = 1, s0 = 2'
    """
    return ", ".join(f"{name} = {value}" for name, value in values.items())


def equiv_text(answer: dict[str, Any]) -> str:
    """``different: at d0 = 0, s0 = 1: map a gives (1), map b gives (0)``."""
    verdict = answer["verdict"]
    if answer.get("compared_as") == "relations":
        verdict = f"{verdict} (as relations: the maps have other variables)"
    witness = answer.get("counterexample")
    if not witness:
        return str(verdict)
    if "point" in witness:
        a, b = _values(witness["a"], "a"), _values(witness["b"], "b")
        return f"{verdict}: at {assignments(witness['point'])}: {a}, {b}"
    symbols = witness.get("symbols") or {}
    via = f" (with {assignments(symbols)})" if symbols else ""
    other = "b" if witness["only_in"] == "a" else "a"
    result = ", ".join(map(str, witness["result"]))
    return (
        f"{verdict}: at {assignments(witness['dims'])}, the result ({result}) is related "
        f"by map {witness['only_in']}{via} and not by map {other}"
    )
