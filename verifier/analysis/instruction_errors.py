"""One instruction never sinks a module: the work done for one instruction,
or its error handed on so that the other instructions still get theirs.

`check`, `maps` and `utilization` all walk a module instruction by
instruction; each wraps its per-instruction work in `isolated`.  An
instruction that is not valid HLO (a `ParseError` raised at it, e.g. a
convolution whose ``dim_labels=b01f_01io->b01?`` its rule cannot read) is
passed on as it is; any other exception is a bug in verifier, passed on as
an `InternalError` naming the instruction and where it is written.

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... ENTRY e {
...   ROOT p0 = f32[4] parameter(0)
... }''')
>>> errors = []
>>> isolated(module.entry.root, lambda: 1 // 0, errors.append) is None
True
>>> str(errors[0])
"<input>:4:8: internal error at instruction 'p0': ZeroDivisionError: integer division or modulo by zero"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from verifier.errors import InternalError, ParseError

if TYPE_CHECKING:  # `verifier --version` and a run answered from the cache parse nothing
    from verifier.hlo import Instruction

InstructionError = ParseError | InternalError

T = TypeVar("T")


def isolated(
    instruction: Instruction,
    work: Callable[[], T],
    on_error: Callable[[InstructionError], None] | None,
) -> T | None:
    """`work()`'s answer, or None after passing its error to `on_error`
    (with no `on_error`, the error propagates)."""
    if on_error is None:
        return work()
    try:
        return work()
    except ParseError as error:
        on_error(error)
    except MemoryError:  # not the instruction's fault: the run is out of memory
        raise
    except Exception as error:  # a bug, reported at its instruction
        message = f"{type(error).__name__}: {error}"
        on_error(InternalError(message, instruction.span, instruction.name))
    return None
