"""The instructions a `maps` or `utilization` report could not analyse, as
plain data and as text, in the shape `check` reports its errors::

    "errors": [{"file": "m.hlo", "line": 10, "column": 97, "message": "..."}]

(``"internal": true`` when the cause is a bug in verifier, not the input).
The key is there only when some instruction failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.gate.run import InputError


def errors_json(errors: Sequence[InputError]) -> dict[str, Any]:
    """``{"errors": [...]}`` to merge into a report, or nothing."""
    return {"errors": [error.to_json() for error in errors]} if errors else {}


def errors_text(report: dict[str, Any]) -> list[str]:
    """The lines that list `report`'s errors, after a blank line; none
    when every instruction was analysed.

    >>> errors_text({"errors": [{"file": "m.hlo", "line": 3, "column": 7, "message": "bad"}]})
    ['', 'could not be analysed (1):', '  m.hlo:3:7: bad']
    """
    errors = report.get("errors", [])
    if not errors:
        return []
    lines = ["", f"could not be analysed ({len(errors)}):"]
    for error in errors:
        prefix = "internal error: " if error.get("internal") else ""
        where = f"{error['file']}:{error['line']}:{error['column']}"
        lines.append(f"  {where}: {prefix}{error['message']}")
    return lines
