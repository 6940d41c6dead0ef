"""Tile propagation, proven (XLA's `SymbolicTile` / `SymbolicTileAnalysis`):
for an output tile of symbolic sizes, the strided box of each operand it
reads (`derive`), isl's proof that the box is exactly what it reads
(`proof`), and one instruction's or fusion's tiling with its cost
(`analysis`).  Size and stride maps and the conditions on the sizes are
expressions of the tile sizes (`sizes`).

>>> parse_sizes("8, 16")
(8, 16)
"""

from verifier.errors import UsageError
from verifier.tiling.analysis import InstructionTiling, OperandTiling, tile_instruction
from verifier.tiling.derive import NoTile, SymbolicTile, derive_tile


def parse_sizes(text: str) -> tuple[int, ...]:
    """``N,N,...`` (``""`` for a scalar output) as positive integers."""
    fields = [f.strip() for f in text.split(",") if f.strip()]
    try:
        values = tuple(int(f) for f in fields)
    except ValueError:
        raise UsageError(f"--sizes: expected comma-separated integers, got '{text}'") from None
    if any(v < 1 for v in values):
        raise UsageError(f"--sizes: tile sizes must be positive, got '{text}'")
    return values


__all__ = [
    "InstructionTiling",
    "NoTile",
    "OperandTiling",
    "SymbolicTile",
    "derive_tile",
    "parse_sizes",
    "tile_instruction",
]
