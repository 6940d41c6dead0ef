"""Which memory limit a run that ran out of memory hit, in words.

Python raises `MemoryError` when an allocation fails: under a limit of the
process (``ulimit -v``, the address space ``RLIMIT_AS``; ``ulimit -d``, the
data segment ``RLIMIT_DATA``), or when the machine, or the control group
the process runs in, has no more to give.  The message names the limits
that are set, so the user knows which one to raise:

>>> "limit" in memory_limits()
True
>>> _size(3 * 2**30), _size(1536 * 2**20), _size(2048)
('3.0 GiB', '1.5 GiB', '0.0 MiB')
"""

from __future__ import annotations

from pathlib import Path

_CGROUP_LIMIT = Path("/sys/fs/cgroup/memory.max")  # cgroup v2: the container's memory


def _size(count: int) -> str:
    if count >= 2**30:
        return f"{count / 2**30:.1f} GiB"
    return f"{count / 2**20:.1f} MiB"


def memory_limits() -> str:
    """The memory limits on this process, or that none is set.

    Reads the limits only (the caller is out of memory: nothing large is
    allocated here)."""
    found = []
    try:
        import resource
    except ImportError:  # not on POSIX: no limits to name
        return "no memory limit of the process is known here"
    for name, flag, limit in (
        ("address space", "ulimit -v", resource.RLIMIT_AS),
        ("data segment", "ulimit -d", resource.RLIMIT_DATA),
    ):
        soft, _ = resource.getrlimit(limit)
        if soft != resource.RLIM_INFINITY:
            found.append(f"the {name} limit is {_size(soft)} ({flag})")
    try:
        group = _CGROUP_LIMIT.read_text().strip()
    except OSError:
        group = "max"
    if group != "max":
        found.append(f"the control group's memory limit is {_size(int(group))}")
    if not found:
        return "no memory limit is set on the process: the machine's memory ran out"
    return "; ".join(found)
