"""The GPUs the command line names, in the order its help lists them; the
first is the default (XLA's coalescing tests use the RTX A6000).  Names
only, importing nothing, so that building the argument parser loads no
analysis: `verifier.coalescing.devices` gives each name its launch facts.

>>> ", ".join(DEVICE_NAMES), DEFAULT_DEVICE
('rtx-a6000, a100, h100', 'rtx-a6000')
"""

DEVICE_NAMES = ("rtx-a6000", "a100", "h100")
DEFAULT_DEVICE = DEVICE_NAMES[0]
