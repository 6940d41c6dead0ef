"""The parser reads what XLA prints through one-match paths (an instruction's
head and shape, a list of plain operand names, an attribute and its plain
value, shared per module); anything else takes the token-by-token paths.
Both must read the same module: every real dump, rewritten so that no
one-match path applies, parses to a module equal to the dump's own (spans,
which move with the rewriting, are not part of equality)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.hlo import Module, parse_module

DUMPS = sorted((Path(__file__).resolve().parents[2] / "examples" / "real").glob("*.hlo"))
# The largest dump takes a second each way: in the slow tier.
CASES = [
    pytest.param(path, marks=pytest.mark.slow) if path.stat().st_size > 100_000 else path
    for path in DUMPS
]

_INSTRUCTION = re.compile(r"(\s*(?:ROOT\s+)?%?[\w.-]+)\s*=\s*(.*)")
_ATTRIBUTE = re.compile(r",\s*([a-z_][\w-]*)=")


def _top_level(line: str, at: int) -> bool:
    """Whether `at` in `line` is outside brackets and quotes."""
    depth, quoted = 0, False
    for char in line[:at]:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "([{":
            depth += 1
        elif not quoted and char in ")]}":
            depth -= 1
    return depth == 0 and not quoted


def general_form(text: str) -> str:
    """`text` with a line break after each instruction's `=`, a comment at
    the start of each operand list of `%` names and after each top-level
    attribute's `=`.

    >>> print(general_form("  ROOT %a = f32[2] add(%p, %q), dimensions={0}"))
      ROOT %a =
        f32[2] add( /* o */ %p, %q), dimensions= /* a */ {0}
    """
    lines = []
    for line in text.splitlines():
        match = _INSTRUCTION.fullmatch(line)
        if match is None:
            lines.append(line)
            continue
        rest = match.group(2)
        cut = [m.end() for m in _ATTRIBUTE.finditer(rest) if _top_level(rest, m.start())]
        for end in reversed(cut):
            rest = f"{rest[:end]} /* a */ {rest[end:]}"
        rest = rest.replace("(%", "( /* o */ %", 1)
        lines.append(f"{match.group(1)} =\n    {rest}")
    return "\n".join(lines)


def test_the_rewriting_leaves_no_plain_instruction() -> None:
    text = general_form(DUMPS[0].read_text())
    assert re.search(r"^\s*(ROOT\s+)?%?[\w.-]+ = \S", text, re.M) is None


@pytest.mark.parametrize("path", CASES, ids=lambda path: path.stem)
def test_general_paths_read_the_same_module(path: Path) -> None:
    text = path.read_text()
    plain: Module = parse_module(text, str(path))
    general = parse_module(general_form(text), str(path))
    assert general == plain
    assert [c.name for c in general.computations] == [c.name for c in plain.computations]
