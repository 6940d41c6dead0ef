"""The JSON the command line writes for every bundled example: `maps --all`,
`check` and `utilization`.  These outputs are goldens — a change of code that
is not meant to change behaviour (a refactor) must leave them byte-identical,
and a change that is meant to must update them in the same commit, so that a
reviewer sees the new answers:

    python -m tests.golden.cli_outputs          # rewrite tests/golden/outputs/

An output up to `FULL_TEXT_LIMIT` bytes is kept whole (its diff is readable);
a larger one is kept as its SHA-256 and size in ``digests.json``.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from verifier.cli import main

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = Path(__file__).resolve().parent / "outputs"
DIGESTS = OUTPUTS / "digests.json"
FULL_TEXT_LIMIT = 100_000

# Modules too large for the default test tier (their outputs are checked in
# the slow tier).
LARGE = frozenset(
    {
        "examples/real/transformer_train_step.hlo",
        "examples/benchmarks/convnet_3conv_3pool.hlo",
        # Its fusion's inverse check is the costliest question of the examples (4 s).
        "examples/real_ops/random_bits.hlo",
        # A loop of dynamic-update-slices composed per iteration (1.2-1.5 s each).
        "examples/real_ops/fori_tile_updates.hlo",
        "examples/real_ops/fori_tile_updates.before.hlo",
    }
)

_COMMANDS: dict[str, tuple[str, ...]] = {
    "maps": ("maps", "--all", "--format", "json"),
    "check": ("check", "--no-cache", "--format", "json"),
    "utilization": ("utilization", "--format", "json"),
}


@dataclass(frozen=True)
class Case:
    """One command on one example file."""

    command: str
    path: str  # relative to the repository root

    @property
    def name(self) -> str:
        return f"{self.command}__{self.path.replace('/', '__')}.json"

    def run(self) -> str:
        out = io.StringIO()
        main([*_COMMANDS[self.command], str(ROOT / self.path)], out)
        # Paths in the output are the repository-relative ones, whatever the checkout.
        return out.getvalue().replace(str(ROOT) + "/", "")


def cases() -> list[Case]:
    """Every example module, each with the commands that apply to it."""
    modules = sorted(
        str(path.relative_to(ROOT))
        for pattern in ("examples/*.hlo", "examples/*/*.hlo")
        for path in ROOT.glob(pattern)
    )
    return [
        Case(command, module)
        for module in modules
        for command in _COMMANDS
        if command != "utilization" or module.startswith("examples/real/")
    ]


def digest(text: str) -> dict[str, object]:
    data = text.encode()
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def update() -> None:
    """Rewrite every golden from the current code."""
    OUTPUTS.mkdir(exist_ok=True)
    for stale in OUTPUTS.glob("*.json"):
        stale.unlink()
    digests: dict[str, object] = {}
    for case in cases():
        text = case.run()
        if len(text.encode()) <= FULL_TEXT_LIMIT:
            (OUTPUTS / case.name).write_text(text)
        else:
            digests[case.name] = digest(text)
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    update()
