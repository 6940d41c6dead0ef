"""Reading a file named by the user: only a regular file, never blocking.

A FIFO with no writer blocks an ``open`` for reading forever, a device
reads without end (``/dev/zero``) or not at all, and neither is a module or
a list of maps anyone meant to give.  A named input is opened without
blocking (``O_NONBLOCK``, which a regular file ignores) and its kind is
read from the open descriptor (``fstat``), so that a file swapped for a
FIFO between a look and the open is refused all the same:

>>> import os, tempfile
>>> fifo = os.path.join(tempfile.mkdtemp(), "pipe.hlo")
>>> os.mkfifo(fifo)
>>> try:
...     read_regular_file(fifo)
... except NotRegularFileError as error:
...     print(str(error).removeprefix(os.path.dirname(fifo)))
/pipe.hlo: not a regular file (a FIFO); give a file

Standard input (``-`` where a command takes it) is read by the command as
a stream, which a pipe is meant to be.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from verifier.errors import VerifierError

_NON_BLOCKING = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFileError(VerifierError):
    """A named input that is a FIFO, a device, a socket or a directory."""


def file_kind(mode: int) -> str:
    """What a file of `mode` (``st_mode``) is, in words.

    >>> file_kind(stat.S_IFIFO), file_kind(stat.S_IFCHR), file_kind(stat.S_IFREG)
    ('a FIFO', 'a character device', 'a regular file')
    """
    kinds = (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def open_regular_file(path: str | Path) -> BinaryIO:
    """The regular file at `path`, open for reading in binary; a
    `NotRegularFileError` naming it for anything else (an `OSError` when
    it cannot be opened)."""
    descriptor = os.open(path, os.O_RDONLY | _NON_BLOCKING)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(
                f"{os.fspath(path)}: not a regular file ({file_kind(mode)}); give a file"
            )
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_regular_file(path: str | Path) -> bytes:
    """The bytes of the regular file at `path` (see `open_regular_file`)."""
    with open_regular_file(path) as stream:
        return stream.read()
