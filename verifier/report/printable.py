"""Text any report can carry, from names and messages that may hold anything.

A file name is bytes: one that is not UTF-8 reaches Python with each bad
byte as a lone surrogate (``os.fsdecode``'s surrogate escapes), which UTF-8
cannot encode.  A directory or an instruction name may hold control
characters — an ANSI escape, a NUL — that XML 1.0 forbids and that a
terminal obeys.  `printable` shows each of these as a backslash escape, so
the report stays valid and the reader sees what the name holds:

>>> printable("dir\\x1b[31m/m\\udcff.hlo")
'dir\\\\x1b[31m/m\\\\xff.hlo'
>>> printable("line 1\\n\\tline 2")
'line 1\\n\\tline 2'

Tabs and newlines are kept (messages span lines); everything else that is
not a printable XML 1.0 character is escaped.
"""

from __future__ import annotations

import json
import re

# C0 controls but tab and newline, DEL and the C1 controls, surrogates, and
# the two non-characters XML 1.0 excludes.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")

# os.fsdecode turns an undecodable byte b into the lone surrogate U+DC00 + b.
_SURROGATE_ESCAPES = range(0xDC80, 0xDD00)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code in _SURROGATE_ESCAPES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with undecodable bytes and control characters as backslash escapes."""
    return _UNPRINTABLE.sub(_escape, text)


# What JSON's ASCII escaping (``json.dumps``'s default) writes for a character
# `printable` changes: a C0 control but tab and newline (``\u001b``, ``\b``,
# ``\f``, ``\r``), DEL and the C1 controls, a surrogate, U+FFFE or U+FFFF.
# (An escaped backslash before ``b``, ``f``, ``r`` or ``u00…`` matches too:
# the slow path then finds nothing.)
_UNPRINTABLE_ESCAPE = re.compile(r"\\(?:u00[01]|u007f|u00[89]|ud[89a-f]|ufff[ef]|[bfr])")


def has_unprintable(json_text: str) -> bool:
    r"""Whether the JSON text (written with ASCII escaping) may hold a string
    that `printable` would change; `False` is certain.

    >>> has_unprintable('{"name": "caf\\u00e9"}'), has_unprintable('["\\u001b[31m"]')
    (False, True)
    """
    return _UNPRINTABLE_ESCAPE.search(json_text) is not None


def printable_json(value: object) -> object:
    """`value` (JSON-able data, string keys) with `printable` applied to every
    string in it, keys included: `value` itself when no string needs it
    (told from its JSON text, which the C encoder writes at a fraction of
    the cost of visiting every string in Python)."""
    if not has_unprintable(json.dumps(value)):
        return value
    return _printable_strings(value)


def _printable_strings(value: object) -> object:
    match value:
        case str():
            return printable(value)
        case dict():
            return {printable(str(k)): _printable_strings(v) for k, v in value.items()}
        case list() | tuple():
            return [_printable_strings(item) for item in value]
        case _:
            return value
