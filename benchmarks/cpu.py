"""CPU seconds (user + system) of this process and of its finished
children: what the benchmarks quote on a shared machine."""

from __future__ import annotations

import resource


def children_cpu() -> float:
    """The CPU seconds of the children this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu() -> float:
    """The CPU seconds of this process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
