"""Simplifier-like map pairs: the pair set of the first equivalence
benchmark (issue #2's, the "turn-2 pairs"), each pair with the semantics it
is asked under.

* **pointwise** pairs: a delinearising reshape (each dim recovered from the
  linear index by ``floordiv`` and ``mod``) against the identity, and a
  split ``(x floordiv k, x mod k)`` against the same split rejoined and
  split again; the different ones have a bound one too wide or a ``+ 1``.
* **relation** pairs: a window with a range symbol, ``linear + s0`` against
  the symbol reversed, ``linear + (w - 1) - s0`` (equal as relations); the
  different ones reverse it by ``w`` instead.

About 70 % are equal.  ``generate(3, 0, pointwise=False)[0]`` is
``(d0, d1, d2)[s0] -> (d0 * 16 + d1 * 8 + d2 + s0, d0)`` beside
``(d0, d1, d2)[s0] -> (d0 * 16 + d1 * 8 + d2 + 7 - s0, d0)``, both with
``s0 in [0, 7]``: equal as relations.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

_SIZES = (2, 3, 4, 5, 8, 10, 16, 32, 64, 128)

Pair = tuple[str, str]


def _domain(sizes: Sequence[int], symbol_sizes: Sequence[int] = ()) -> str:
    bounds = [f"d{i} in [0, {n - 1}]" for i, n in enumerate(sizes)]
    bounds += [f"s{i} in [0, {n - 1}]" for i, n in enumerate(symbol_sizes)]
    return "domain: " + ", ".join(bounds)


def _header(dims: int, symbols: int = 0) -> str:
    names = "(" + ", ".join(f"d{i}" for i in range(dims)) + ")"
    return names + ("[" + ", ".join(f"s{i}" for i in range(symbols)) + "]" if symbols else "")


def _linear(sizes: Sequence[int]) -> tuple[str, list[int]]:
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    text = " + ".join(f"d{i} * {s}" if s != 1 else f"d{i}" for i, s in enumerate(strides))
    return text, strides


def _pointwise_pair(rng: random.Random) -> Pair:
    n = rng.randint(2, 4)
    sizes = [rng.choice(_SIZES) for _ in range(n)]
    linear, strides = _linear(sizes)
    near = rng.random() < 0.3
    if rng.random() < 0.5:
        results = [
            f"(({linear}) floordiv {s}) mod {k}" for s, k in zip(strides, sizes, strict=True)
        ]
        wider = [*sizes[:-1], sizes[-1] + near]  # a bound one too wide
        identity = ", ".join(f"d{i}" for i in range(n))
        return (
            f"{_header(n)} -> ({', '.join(results)}), {_domain(wider)}",
            f"{_header(n)} -> ({identity}), {_domain(wider)}",
        )
    k = rng.choice([2, 4, 8, 16])
    off = " + 1" if near else ""
    return (
        f"{_header(n)} -> (({linear}) floordiv {k}, ({linear}) mod {k}), {_domain(sizes)}",
        f"{_header(n)} -> ((({linear}) floordiv {k} * {k} + ({linear}) mod {k}) floordiv {k}"
        f"{off}, ({linear}) mod {k}), {_domain(sizes)}",
    )


def _relation_pair(rng: random.Random) -> Pair:
    n = rng.randint(2, 4)
    sizes = [rng.choice(_SIZES) for _ in range(n)]
    linear, _ = _linear(sizes)
    window = rng.choice([2, 3, 4, 8])
    reversal = window if rng.random() < 0.3 else window - 1
    domain = _domain(sizes, [window])
    return (
        f"{_header(n, 1)} -> ({linear} + s0, d0), {domain}",
        f"{_header(n, 1)} -> ({linear} + {reversal} - s0, d0), {domain}",
    )


def generate(count: int, seed: int, *, pointwise: bool) -> list[Pair]:
    """`count` pairs of one semantics; deterministic in `seed`."""
    rng = random.Random(seed)
    draw = _pointwise_pair if pointwise else _relation_pair
    return [draw(rng) for _ in range(count)]
