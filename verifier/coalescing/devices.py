"""GPU launch facts: the parts of a device description the emitters'
launch mappings and the memory model read, as data.

The numbers are those of XLA's test device descriptions
(``TestGpuDeviceInfo``) for the three devices users name: the warp (32
threads), the 32-byte sector a load is served in, the block limits and the
number of resident threads per SM times the SM count, which decides whether
XLA's loop emitter unrolls (it unrolls fusions with at least that many
elements).

>>> DEVICES["rtx-a6000"].resident_threads  # 1536 threads per SM, 84 SMs
129024
>>> device("h100").sector_bytes
32
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.device_names import DEVICE_NAMES
from verifier.errors import UsageError


@dataclass(frozen=True)
class Device:
    """One GPU as the emitters see it."""

    name: str
    warp_size: int
    sector_bytes: int
    threads_per_block_limit: int
    threads_per_sm_limit: int
    sm_count: int
    block_dim_limit: tuple[int, int, int]

    @property
    def resident_threads(self) -> int:
        """Threads the whole device holds at once (XLA's ``n_threads_max``)."""
        return self.threads_per_sm_limit * self.sm_count


_BLOCK_LIMIT = (2_147_483_647, 65_535, 65_535)

# Resident threads per SM and SMs, in the order of `DEVICE_NAMES`.
_RESIDENT = ((1536, 84), (2048, 108), (2048, 132))

DEVICES = {
    name: Device(name, 32, 32, 1024, per_sm, sms, _BLOCK_LIMIT)
    for name, (per_sm, sms) in zip(DEVICE_NAMES, _RESIDENT, strict=True)
}
"""The devices by the name the command line takes (`DEVICE_NAMES`)."""


def device(name: str) -> Device:
    """The device called `name`; `UsageError` for an unknown one."""
    if name not in DEVICES:
        raise UsageError(f"unknown device '{name}' (known: {', '.join(DEVICES)})")
    return DEVICES[name]
