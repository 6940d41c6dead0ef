"""The tile sizes XLA chose for a block-level (Triton) fusion, as its GPU
dumps print them: ``backend_config={..., "fusion_backend_config": {...,
"block_level_fusion_config": {"output_tiles": [{"sizes": ["4", "256"]}],
...}}}`` — one entry per output of the fusion, each size an integer or its
decimal string (protobuf's JSON writes 64-bit integers as strings).

`chosen_tiles` is None where the instruction carries no such config (the
tiling check then has nothing to judge), a tuple of size vectors where it
does, and a `str` saying what is malformed where the config is there but
unreadable (a finding, not a crash: the module itself is valid HLO).

>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... f {
...   p = f32[8,16] parameter(0)
...   ROOT n = f32[8,16] negate(p)
... }
... ENTRY e {
...   x = f32[8,16] parameter(0)
...   ROOT t = f32[8,16] fusion(x), kind=kCustom, calls=f, backend_config={"fusion_backend_config":
...     {"kind":"__triton","block_level_fusion_config":{"output_tiles":[{"sizes":["2","16"]}]}}}
... }''')
>>> chosen_tiles(module.entry.root)
((2, 16),)
>>> chosen_tiles(module.entry.instruction("x")) is None
True
"""

from __future__ import annotations

import json

from verifier.hlo import BackendConfig, Instruction


def chosen_tiles(instruction: Instruction) -> tuple[tuple[int, ...], ...] | str | None:
    """The output tile sizes of `instruction`'s block-level fusion config."""
    value = instruction.attributes.get("backend_config")
    if not isinstance(value, BackendConfig):
        return None
    try:
        config = json.loads(value.text)
    except json.JSONDecodeError:
        return None
    if not isinstance(config, dict):
        return None
    fusion = config.get("fusion_backend_config", config)
    block = fusion.get("block_level_fusion_config") if isinstance(fusion, dict) else None
    if block is None:
        return None
    tiles = block.get("output_tiles") if isinstance(block, dict) else None
    if not isinstance(tiles, list) or not tiles:
        return "block_level_fusion_config has no output_tiles list"
    found = []
    for number, tile in enumerate(tiles):
        sizes = tile.get("sizes") if isinstance(tile, dict) else None
        if not isinstance(sizes, list):
            return f"output_tiles[{number}] has no sizes list"
        try:
            found.append(tuple(int(size) for size in sizes))
        except (TypeError, ValueError):
            return f"output_tiles[{number}].sizes {sizes} are not integers"
    return tuple(found)
