"""The text of a JSON report: exactly ``json.dumps(value, indent=2)``, at
about half its cost.

With ``indent`` set, the standard library leaves its C encoder for a general
Python one (``default`` hooks, circular-reference checks, key sorting and
coercion); a gate report of 20,000 findings spent a quarter of a warm
`verifier check` there.  A report holds only dicts with string keys, lists,
strings, integers, booleans and None, and this encoder handles just those
(strings through the standard library's C escaping, ASCII only):

>>> print(indented({"status": "ok", "witness": {"d0": 3}, "files": [], "é": [True, None]}))
{
  "status": "ok",
  "witness": {
    "d0": 3
  },
  "files": [],
  "\\u00e9": [
    true,
    null
  ]
}
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii

_STEP = "  "


def indented(value: object, margin: str = "") -> str:
    """``json.dumps(value, indent=2)`` of a value made of dicts with string
    keys, lists, tuples, strings, integers, booleans and None (`margin`:
    the indentation of the line it starts on)."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = margin + _STEP
        # encode_basestring_ascii refuses a key that is not a string.
        items = [
            f"{encode_basestring_ascii(key)}: {indented(item, inner)}"
            for key, item in value.items()
        ]
        return "{\n" + inner + (",\n" + inner).join(items) + "\n" + margin + "}"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = margin + _STEP
        items = [indented(item, inner) for item in value]
        return "[\n" + inner + (",\n" + inner).join(items) + "\n" + margin + "]"
    if value is None:
        return "null"
    raise TypeError(f"a report holds no {type(value).__name__}: {value!r}")
