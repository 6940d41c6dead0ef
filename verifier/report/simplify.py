"""The `simplify` answer as text: the simplified map, the rules that fired,
what changed about symbols, and the verdict of ``--prove``.

>>> print(simplify_text({"simplified": "(d0) -> (d0), domain: d0 in [0, 3]",
...                      "rules": [], "verdict": "proved"}))
(d0) -> (d0),
domain: d0 in [0, 3]
rules: (none)
verdict: proved (proved from the text as typed)
"""

from __future__ import annotations

from typing import Any

from verifier.report.equiv import assignments


def simplify_text(answer: dict[str, Any]) -> str:
    """The lines of a `simplify` answer (the JSON form), for a terminal."""
    lines = [answer["simplified"].replace(", domain: ", ",\ndomain: ")]
    lines.append("rules: " + (", ".join(answer["rules"]) or "(none)"))
    if "symbols" in answer:
        changes = (
            f"{c['symbol']} removed"
            if c["becomes"] is None
            else f"input {c['symbol']} is {c['becomes']} of the output"
            for c in answer["symbols"]
        )
        lines.append("symbols changed (equal as relations only): " + "; ".join(changes))
    for folding in answer.get("construction", []):
        lines.append(f"construction folded: {folding['typed']} -> {folding['read_as']}")
    if "typed_counterexample" in answer:
        lines.append(
            f"differs from the text as typed at {assignments(answer['typed_counterexample'])}"
        )
    if "verdict" in answer:
        lines.append(f"verdict: {answer['verdict']} (proved from the text as typed)")
    return "\n".join(lines)
