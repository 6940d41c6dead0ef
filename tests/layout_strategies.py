"""Hypothesis strategies: shapes with layouts XLA writes (permutations,
nested tiles with ``*``/``-1``, tiles with more dims than the shape, scalars,
``L(n)``, ``E(n)``, sub-byte types) and bitcasts between them."""

from __future__ import annotations

import math

from hypothesis import strategies as st

# type -> bits, and the E(n) values a layout may give it
_TYPES = {"f32": 32, "bf16": 16, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "s2": 2, "pred": 1}


def _layout_text(minor_to_major: list[int], tiles: str, tail: int, size: int) -> str:
    fields = (f"T{tiles}" if tiles else "") + (f"L({tail})" if tail > 1 else "")
    fields += f"E({size})" if size else ""
    return "{" + ",".join(map(str, minor_to_major)) + (f":{fields}" if fields else "") + "}"


@st.composite
def tiles(draw: st.DrawFn, rank: int, max_tilings: int = 2, min_tilings: int = 0) -> str:
    """Up to `max_tilings` tilings, each seeing the dims the previous one made."""
    text = ""
    for _ in range(draw(st.integers(min_tilings, max_tilings))):
        tile_rank = draw(st.integers(1, rank + 1))
        sizes = [draw(st.sampled_from(["1", "2", "3", "2", "*", "-1"])) for _ in range(tile_rank)]
        sizes[-1] = str(draw(st.integers(1, 4)))  # the most minor tile dim combines with nothing
        text += "(" + ",".join(sizes) + ")"
        groups = sum(1 for size in sizes if size not in ("*", "-1"))
        rank = max(rank, tile_rank) - tile_rank + 2 * groups
    return text


@st.composite
def layout_shape(draw: st.DrawFn, element_type: str | None = None, min_tilings: int = 0) -> str:
    """A small shape of rank 0 to 3 with a random layout."""
    element_type = element_type or draw(st.sampled_from(sorted(_TYPES)))
    dims = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    order = draw(st.permutations(range(len(dims))))
    tiled = draw(tiles(len(dims), min_tilings=min_tilings))
    tail = draw(st.sampled_from([1, 1, 1, 2, 4, 16]))
    bits = _TYPES[element_type]
    size = draw(st.sampled_from(sorted({0, bits, max(8, bits)})))
    return f"{element_type}[{','.join(map(str, dims))}]{_layout_text(order, tiled, tail, size)}"


@st.composite
def untiled_of_bytes(draw: st.DrawFn, total_bytes: int) -> str:
    """An untiled shape of `total_bytes` bytes: some type that fills them
    exactly, a random factorisation of the count, a random dim order."""
    choices = [
        (t, s)
        for t, bits in _TYPES.items()
        for s in {0, bits}
        if (total_bytes * 8) % (s or math.ceil(bits / 8) * 8) == 0
    ]
    element_type, size = draw(st.sampled_from(sorted(choices)))
    count = total_bytes * 8 // (size or math.ceil(_TYPES[element_type] / 8) * 8)
    dims: list[int] = []
    while count > 1 and len(dims) < 2:
        factor = draw(st.sampled_from([d for d in range(1, count + 1) if count % d == 0]))
        dims.append(factor)
        count //= factor
    dims.append(count)
    order = draw(st.permutations(range(len(dims))))
    return f"{element_type}[{','.join(map(str, dims))}]{_layout_text(order, '', 1, size)}"


@st.composite
def bitcast_pair(draw: st.DrawFn) -> tuple[str, str]:
    """(operand, output): a tiled shape and an untiled one of the same bytes,
    the same tiled shape with a leading 1-dim, or two unrelated shapes."""
    from tests.oracle_layout import buffer_bytes
    from verifier.hlo.shape import parse_shape

    tiled = draw(layout_shape(min_tilings=1))
    kind = draw(st.sampled_from(["same bytes", "same bytes", "leading one", "any"]))
    if kind == "same bytes":
        other = draw(untiled_of_bytes(buffer_bytes(parse_shape(tiled))))
    elif kind == "leading one":
        element_type, rest = tiled.split("[", 1)
        dims, layout = rest.split("]", 1)
        body, _, fields = layout[1:-1].partition(":")
        order = [str(int(k) + 1) for k in body.split(",") if k] + ["0"]
        other = f"{element_type}[{','.join(['1', *([dims] if dims else [])])}]"
        other += "{" + ",".join(order) + (f":{fields}" if fields else "") + "}"
    else:
        other = draw(layout_shape())
    return (tiled, other) if draw(st.booleans()) else (other, tiled)
