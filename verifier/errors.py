"""One error tree for the whole tool.

Every error the tool raises on purpose is a `VerifierError`; anything else
escaping to the CLI is a bug.  Messages name the object, where it is
(``file:line:column`` for text), and what would fix it.
"""

from __future__ import annotations

from dataclasses import dataclass


class VerifierError(Exception):
    """Base of every error the tool raises on purpose."""


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A position in a text: 1-based line and column, and the line itself.

    >>> str(SourceSpan("m.hlo", 3, 7, "  add = f32[] add(p0 p1)"))
    'm.hlo:3:7'
    """

    filename: str
    line: int
    column: int
    line_text: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


def span_at(text: str, offset: int, filename: str = "<input>") -> SourceSpan:
    """The span of character `offset` in `text` (offset may be len(text))."""
    offset = max(0, min(offset, len(text)))
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    if line_end == -1:
        line_end = len(text)
    line = text.count("\n", 0, offset) + 1
    return SourceSpan(filename, line, offset - line_start + 1, text[line_start:line_end])


class ParseError(VerifierError):
    """Text that does not follow its grammar; carries where and what was expected."""

    def __init__(self, message: str, span: SourceSpan) -> None:
        self.message = message
        self.span = span
        caret = " " * (span.column - 1) + "^"
        detail = f"\n  {span.line_text}\n  {caret}" if span.line_text else ""
        super().__init__(f"{span}: {message}{detail}")


class NotQuasiAffineError(VerifierError):
    """An expression outside the quasi-affine fragment (e.g. `d0 * d1`, `d0 mod s0`)."""


class InvalidMapError(VerifierError):
    """An indexing map whose parts do not fit together (arity, unknown variable, bounds)."""


class UnsupportedError(VerifierError):
    """An op or construct the analysis has no exact rule for."""


class SolverError(VerifierError):
    """A solver failed in a way that is not a verdict (not `unknown`, which is a result)."""


class UsageError(VerifierError):
    """A user argument that is not valid (bad flag combination, missing file)."""


class InvalidHloError(ParseError):
    """HLO that reads well but that XLA would reject: shapes that do not follow
    from the operands and attributes, an operand count a computation does not
    take; carries the instruction's place.  Only shape inference and
    validation raise it: an error inside an indexing rule is a bug, never
    "your HLO is invalid"."""


class InternalError(VerifierError):
    """A bug in `verifier` caught at one instruction (never a verdict): the
    exception that escaped, with the file and instruction it escaped from."""

    def __init__(self, message: str, span: SourceSpan, instruction: str) -> None:
        self.message = message
        self.span = span
        self.instruction = instruction
        super().__init__(f"{span}: internal error at instruction '{instruction}': {message}")
