"""Which files under a directory are HLO modules: `.hlo` files, and the
`.txt` files XLA's `--xla_dump_to` writes that hold a module.

A dump directory holds many other files beside the modules
(`module_0006.jit_f.cpu_after_optimizations.txt` is one): `.dot` graphs,
`-buffer-assignment.txt`, `-memory-usage-report.txt`, `.pb` protos, object
code.  A `.txt` file is a module when its text starts with `HloModule`
(after blank lines and comments), which skips every other dump text.
With a glob pattern, the files it matches are taken as they are.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "module_0001.jit_f.after_optimizations.txt").write_text("HloModule jit_f\\n")
>>> _ = (root / "module_0001.jit_f.after_optimizations-memory-usage-report.txt").write_text("Total")
>>> _ = (root / "module_0001.jit_f.after_optimizations.dot").write_text("digraph {}")
>>> [p.name for p in hlo_files_under(root)]
['module_0001.jit_f.after_optimizations.txt']
"""

from __future__ import annotations

import re
from pathlib import Path

from verifier.inputs import NotRegularFileError, open_regular_file

_SNIFF_BYTES = 4096
_MODULE_START = re.compile(rb"\A(?:\s|//[^\n]*\n|/\*.*?\*/)*HloModule\b", re.S)


def is_hlo_text_file(path: Path) -> bool:
    """Whether the file at `path` starts like an HLO module (`HloModule ...`)."""
    try:  # a FIFO named *.txt would block a plain open
        with open_regular_file(path) as stream:
            head = stream.read(_SNIFF_BYTES)
    except (OSError, NotRegularFileError):
        return False
    return _MODULE_START.match(head) is not None


def hlo_files_under(directory: Path, pattern: str | None = None) -> list[Path]:
    """The HLO modules under `directory` (recursively, sorted): `.hlo` files
    and `.txt` modules, or with `pattern` every file matching that glob."""
    if pattern is not None:
        return sorted(path for path in directory.rglob(pattern) if path.is_file())
    found = [path for path in directory.rglob("*.hlo") if path.is_file()]
    found += [path for path in directory.rglob("*.txt") if is_hlo_text_file(path)]
    return sorted(found)
