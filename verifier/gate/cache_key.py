"""The secret key that authenticates the proof cache's rows (`sqlite_cache`).

Every row of the cache carries an HMAC-SHA256 of its question and answer
under this key, which the cache file does not contain: whoever can write
the file but does not hold the key cannot add a row the cache accepts.

The key is the text of ``$VERIFIER_CACHE_KEY`` when it is set (CI gives
every trusted job the same secret), else the content of the key file
``$XDG_CONFIG_HOME/verifier/cache-key`` (``~/.config/verifier/cache-key``
when it is unset): 32 random bytes in hex, created on first use, readable
and writable by its owner only (0600).  A key file that is not a regular
file, that belongs to another user, or that others may read or write, is
refused (`KeyUnavailable`), as is an empty key: the cache is then not used.

>>> import tempfile
>>> key_file = Path(tempfile.mkdtemp()) / "verifier" / "cache-key"
>>> key = cache_key(key_file, environment={})
>>> len(key), oct(key_file.stat().st_mode & 0o777)
(64, '0o600')
>>> cache_key(key_file, environment={}) == key
True
>>> cache_key(key_file, environment={"VERIFIER_CACHE_KEY": "ci secret"})
b'ci secret'
>>> key_file.chmod(0o644)
>>> cache_key(key_file, environment={})  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
verifier.gate.cache_key.KeyUnavailable: the key file ... may be read or written by others (mode 0o644; chmod 600 it)
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

KEY_VARIABLE = "VERIFIER_CACHE_KEY"
KEY_FILE_NAME = "cache-key"


class KeyUnavailable(Exception):
    """Why there is no key to authenticate the cache with (internal: it
    becomes one of `SqliteCache.problems`, never an error of the run)."""


def default_key_file() -> Path:
    """``$XDG_CONFIG_HOME/verifier/cache-key``, or ``~/.config/verifier/cache-key``."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "verifier" / KEY_FILE_NAME


def cache_key(key_file: Path | None = None, environment: Mapping[str, str] | None = None) -> bytes:
    """The key: ``$VERIFIER_CACHE_KEY``, else the private key file (created
    when there is none).  Raises `KeyUnavailable`."""
    variables = os.environ if environment is None else environment
    text = variables.get(KEY_VARIABLE)
    if text is not None:
        if not text:
            raise KeyUnavailable(f"{KEY_VARIABLE} is set but empty")
        return os.fsencode(text)
    path = default_key_file() if key_file is None else key_file
    try:
        return _read_private(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise KeyUnavailable(f"cannot read the key file {path}: {error}") from None
    try:
        _create(path)
        return _read_private(path)
    except OSError as error:
        raise KeyUnavailable(f"cannot create the key file {path}: {error}") from None


def _read_private(path: Path) -> bytes:
    """The key in `path`, which must be a regular file of this user that
    nobody else may read or write."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise KeyUnavailable(f"the key file {path} is not a regular file")
        if status.st_uid != os.geteuid():
            raise KeyUnavailable(
                f"the key file {path} belongs to another user (uid {status.st_uid})"
            )
        mode = stat.S_IMODE(status.st_mode)
        if mode & 0o077:
            raise KeyUnavailable(
                f"the key file {path} may be read or written by others "
                f"(mode {oct(mode)}; chmod 600 it)"
            )
        with os.fdopen(os.dup(descriptor), "rb") as stream:
            key = stream.read().strip()
    finally:
        os.close(descriptor)
    if not key:
        raise KeyUnavailable(f"the key file {path} is empty")
    return key


def _create(path: Path) -> None:
    """A new random key in `path`, written whole to a private temporary file
    and linked into place, so that processes starting at once all read the
    one key that won (a reader never sees half of one)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(descriptor, "w") as stream:
            stream.write(secrets.token_hex(32) + "\n")
            stream.flush()
            os.fsync(stream.fileno())
        # Another process made the key first: everyone uses that one.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
