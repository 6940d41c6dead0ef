"""Writing a file the user named (a report, a figure): whole, or not at all.

The text goes to a temporary file beside the target (same directory, so
the same file system), is flushed to the disk, and only then renamed over
the target.  A full disk, a killed run or a writer that fails half-way
leaves the previous file as it was, and no reader ever sees half of one.

A symbolic link at the target is refused: ``--output`` following a link
planted at the report's path would overwrite whatever it points to.  (The
rename itself replaces the directory entry and never writes through a
link, so a link planted after the check is replaced, not followed.)  A
target that exists and is not a regular file — a directory, a FIFO, a
device — is refused too: renaming over ``/dev/null`` would replace the
device.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> report = os.path.join(folder, "report.json")
>>> write_text(report, ['{"status": ', '"ok"}'])
>>> open(report).read()
'{"status": "ok"}'
>>> os.symlink(report, os.path.join(folder, "link.json"))
>>> try:
...     write_text(os.path.join(folder, "link.json"), ["{}"])
... except OutputError as error:
...     print(str(error).removeprefix(folder))
/link.json: is a symbolic link; refusing to write through it (name the file itself)
>>> sorted(os.listdir(folder)), open(report).read()
(['link.json', 'report.json'], '{"status": "ok"}')
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from verifier.errors import VerifierError
from verifier.inputs import file_kind


class OutputError(VerifierError):
    """A file that cannot be written where the user asked (any earlier file
    there is unchanged)."""


def check_output_target(path: str | Path) -> None:
    """Raise `OutputError` unless `path` can be replaced by a new file: its
    folder exists, and nothing, or a regular file, is there (not a link)."""
    name = os.fspath(path)
    try:
        mode = os.lstat(name).st_mode
    except FileNotFoundError:
        folder = os.path.dirname(name) or "."
        if not os.path.isdir(folder):
            raise OutputError(f"{name}: the folder {folder} does not exist") from None
        return
    if stat.S_ISLNK(mode):
        raise OutputError(
            f"{name}: is a symbolic link; refusing to write through it (name the file itself)"
        )
    if not stat.S_ISREG(mode):
        raise OutputError(f"{name}: is {file_kind(mode)}, not a file to write")


def _new_file_mode(path: str) -> int:
    """The permissions the target gets: its own when it exists, else what
    ``open`` would give a new file (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[BinaryIO]:
    """A binary stream whose bytes replace the file at `path` when the
    block ends without an error (see the module docstring); on any error
    the temporary file is removed and `path` is left as it was."""
    name = os.fspath(path)
    check_output_target(name)
    folder, base = os.path.split(name)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{base}.", dir=folder or ".")
    except OSError as error:
        raise OutputError(f"{name}: cannot write beside it: {error.strerror}") from error
    try:
        with os.fdopen(descriptor, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, _new_file_mode(name))
        check_output_target(name)
        os.replace(temporary, name)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            reason = error.strerror or str(error)
            message = f"{name}: not written ({reason}); an earlier file there is unchanged"
            raise OutputError(message) from error
        raise


def write_text(path: str | Path, chunks: Iterable[str]) -> None:
    """Replace the file at `path` by the UTF-8 text of `chunks`, whole or
    not at all (`replacing`)."""
    with replacing(path) as stream:
        for chunk in chunks:
            stream.write(chunk.encode("utf-8"))
