"""XLA-style map pairs for the equivalence benchmarks: what `verifier equiv
--batch` and the simplification check are asked about real fusions.

Every pair is a map as XLA's indexing analysis composes it (reshape chains,
transposes, slices, pads, reductions and windows with range symbols, strided
windows over padded, dilated inputs, 4+ symbols, ``mod`` and ``floordiv`` of
sums) and either an equal map (the verifier's simplified form, or the same
relation written another way) or a different one (one constant, bound or
modulus off).  Each pair is written twice: XLA text (tab-separated, what ``equiv --batch`` reads) and isl text
(what an islpy script reads).

``python benchmarks/xla_pairs.py --pairs 3000 --seed 0 OUT.tsv`` writes
``OUT.tsv`` and ``OUT.isl.tsv``.
"""

from __future__ import annotations

import argparse
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from verifier.bridges.isl import to_isl_map
from verifier.errors import VerifierError
from verifier.expr.parser import parse_map
from verifier.expr.printer import print_map
from verifier.simplify import simplify

_SIZES = (2, 3, 4, 6, 8, 12, 16, 32, 64, 128, 256, 1024)

Pair = tuple[str, str]


def _header(dims: int, symbols: int = 0) -> str:
    names = "(" + ", ".join(f"d{i}" for i in range(dims)) + ")"
    return names + ("[" + ", ".join(f"s{i}" for i in range(symbols)) + "]" if symbols else "")


def _domain(
    dims: Sequence[int], symbols: Sequence[int] = (), constraints: Sequence[str] = ()
) -> str:
    bounds = [f"d{i} in [0, {n - 1}]" for i, n in enumerate(dims)]
    bounds += [f"s{i} in [0, {n - 1}]" for i, n in enumerate(symbols)]
    return "domain: " + ", ".join([*bounds, *constraints])


def _linear(sizes: Sequence[int], names: Sequence[str]) -> str:
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    return " + ".join(f"{n} * {s}" if s != 1 else n for n, s in zip(names, strides, strict=True))


def _reshape_chain(rng: random.Random) -> str:
    """A collapse then an expand (XLA's reshape o2i maps composed)."""
    sizes = [rng.choice(_SIZES[:8]) for _ in range(rng.randint(2, 4))]
    linear = _linear(sizes, [f"d{i}" for i in range(len(sizes))])
    split = rng.choice([2, 4, 8, 16])
    results = [f"({linear}) floordiv {split}", f"({linear}) mod {split}"]
    return f"{_header(len(sizes))} -> ({', '.join(results)}), {_domain(sizes)}"


def _transpose_reshape(rng: random.Random) -> str:
    """A transpose composed with a delinearising reshape (each dim from the
    linear index, as XLA composes a bitcast)."""
    sizes = [rng.choice(_SIZES[:9]) for _ in range(rng.randint(2, 4))]
    order = list(range(len(sizes)))
    rng.shuffle(order)
    linear = _linear([sizes[i] for i in order], [f"d{i}" for i in order])
    strides = [1] * len(sizes)
    permuted = [sizes[i] for i in order]
    for i in range(len(permuted) - 2, -1, -1):
        strides[i] = strides[i + 1] * permuted[i + 1]
    results = [
        f"(({linear}) floordiv {s}) mod {n}" if s != 1 else f"({linear}) mod {n}"
        for s, n in zip(strides, permuted, strict=True)
    ]
    return f"{_header(len(sizes))} -> ({', '.join(results)}), {_domain(sizes)}"


def _slice_pad(rng: random.Random) -> str:
    """A strided slice of a pad with interior padding (the pad's
    constraints, the slice's stride and offset)."""
    size = rng.choice(_SIZES[2:10])
    low, step = rng.randint(0, 4), rng.randint(1, 3)  # step: interior padding + 1
    stride, offset = step * rng.randint(1, 2), low + step * rng.randint(0, 2)
    other = rng.choice(_SIZES[:8])
    position = f"d0 * {stride} + {offset}"
    results = [f"(({position}) - {low}) floordiv {step}", "d1"]
    constraints = [f"(({position}) - {low}) mod {step} in [0, 0]"] if step > 1 else []
    return f"{_header(2)} -> ({', '.join(results)}), {_domain([size, other], (), constraints)}"


def _reduction(rng: random.Random) -> str:
    """A reduce over 1–3 dims of a reshaped operand: range symbols."""
    count = rng.randint(1, 3)
    kept = [rng.choice(_SIZES[:8]) for _ in range(2)]
    reduced = [rng.choice(_SIZES[:9]) for _ in range(count)]
    names = ["d0", *[f"s{i}" for i in range(count)], "d1"]
    linear = _linear([kept[0], *reduced, kept[1]], names)
    split = rng.choice([4, 8, 16, 32])
    results = [f"({linear}) floordiv {split}", f"({linear}) mod {split}"]
    return f"{_header(2, count)} -> ({', '.join(results)}), {_domain(kept, reduced)}"


def _window(rng: random.Random) -> str:
    """A convolution: ``d * stride + s - pad`` per spatial dim, in-bounds
    constraints, a feature dim as a sum, the input feature contracted: 4–5
    symbols."""
    spatial = rng.randint(2, 3)
    sizes = [rng.choice((7, 14, 28, 56, 112)) for _ in range(spatial)]
    windows = [rng.choice((2, 3, 5, 7)) for _ in range(spatial)]
    strides = [rng.choice((1, 2)) for _ in range(spatial)]
    pads = [w // 2 for w in windows]
    extra, channels = rng.choice((2, 4, 8)), rng.choice((3, 16, 64))
    symbols = [*windows, extra, channels]
    results, constraints = [], []
    for i in range(spatial):
        term = (
            f"d{i} * {strides[i]} + s{i} - {pads[i]}"
            if strides[i] != 1
            else f"d{i} + s{i} - {pads[i]}"
        )
        results.append(term)
        constraints.append(f"{term} in [0, {sizes[i] * strides[i] - 1}]")
    features = rng.choice((16, 32, 64))
    results.append(f"(d{spatial} * {extra} + s{spatial}) floordiv {features}")
    results.append(f"(d{spatial} * {extra} + s{spatial}) mod {features}")
    results.append(f"s{spatial + 1}")  # the input feature: a contracting symbol
    dims = [*sizes, features]
    return f"{_header(spatial + 1, spatial + 2)} -> ({', '.join(results)}), {_domain(dims, symbols, constraints)}"


def _dilated_window(rng: random.Random) -> Pair:
    """A strided window over a padded, base-dilated input (a pooling
    gradient): per spatial dim the position ``d * stride + s - pad`` in the
    dilated input, kept where it lands on an input element (``mod`` and an
    in-bounds constraint) and divided by the dilation, then a feature dim
    read through a reshape of two symbols — 4 symbols; and the same
    relation written with a symbol per input position (``position - k * s
    in [0, 0]``), 6 symbols, as a simplifier that names the quotient
    writes it."""
    sizes = [rng.choice((8, 16, 32, 33)) for _ in range(2)]
    windows = [rng.choice((2, 3)) for _ in range(2)]
    stride, dilation, pad = rng.choice((1, 2)), rng.choice((2, 3)), rng.choice((1, 2))
    inputs = [(n * stride + dilation - 1) // dilation for n in sizes]
    blocks, block = rng.choice((2, 4)), rng.choice((2, 4))
    scaled = [f"d{i} * {stride}" if stride > 1 else f"d{i}" for i in range(2)]
    positions = [f"{d} + s{i} - {pad}" for i, d in enumerate(scaled)]
    feature = f"s2 * {block} + s3"
    bounds = [f"{p} in [0, {(n - 1) * dilation}]" for p, n in zip(positions, inputs, strict=True)]
    divided = [f"({p}) floordiv {dilation}" for p in positions]
    dims, symbols = [*sizes, blocks * block], [*windows, blocks, block]
    a = f"{_header(3, 4)} -> ({', '.join(divided)}, {feature}), " + _domain(
        dims, symbols, [*bounds, *(f"({p}) mod {dilation} in [0, 0]" for p in positions)]
    )
    quotients = [f"{p} - s{4 + i} * {dilation} in [0, 0]" for i, p in enumerate(positions)]
    b = f"{_header(3, 6)} -> (s4, s5, {feature}), " + _domain(dims, [*symbols, *inputs], quotients)
    return a, b


_KINDS: tuple[Callable[[random.Random], str], ...] = (
    _reshape_chain,
    _transpose_reshape,
    _slice_pad,
    _reduction,
    _window,
)


def _rewritten(text: str) -> str:
    """The same relation written another way: the verifier's simplified form,
    or (when it changes nothing) every sum with its terms reversed."""
    indexing_map = parse_map(text)
    simplified = simplify(indexing_map).map
    if simplified != indexing_map:
        return print_map(simplified, one_line=True)
    return print_map(indexing_map, one_line=True).replace("d0 + ", "0 + d0 + ")


def _broken(rng: random.Random, text: str) -> str:
    """`text` with one number changed by one (a bound, an offset, a modulus,
    a stride): usually a different relation."""
    numbers = list(re.finditer(r"\b\d+\b", text))
    chosen = rng.choice([m for m in numbers if int(m.group()) > 1] or numbers)
    changed = int(chosen.group()) + rng.choice((-1, 1))
    return f"{text[: chosen.start()]}{changed}{text[chosen.end() :]}"


def generate(count: int, seed: int) -> list[Pair]:
    """`count` pairs, about 70 % equal; deterministic in `seed`."""
    rng = random.Random(seed)
    pairs: list[Pair] = []
    while len(pairs) < count:
        kind = rng.randrange(len(_KINDS) + 1)
        if kind == len(_KINDS):
            a, rewritten = _dilated_window(rng)
        else:
            a = _KINDS[kind](rng)
            rewritten = _rewritten(a)
        b = _broken(rng, rewritten) if rng.random() < 0.3 else rewritten
        try:
            parse_map(b)
        except VerifierError:  # the changed number made the map invalid: draw again
            continue
        pairs.append((print_map(parse_map(a), one_line=True), b))
    return pairs


def isl_text(xla_text: str) -> str:
    """The map as isl text (symbols existential): what a user converting
    XLA's maps for islpy writes."""
    return str(to_isl_map(parse_map(xla_text)))


def write(pairs: Sequence[Pair], path: Path) -> Path:
    """Write `path` (XLA text) and ``path.isl.tsv`` (isl text); return the latter."""
    path.write_text("".join(f"{a}\t{b}\n" for a, b in pairs))
    isl_path = path.with_suffix(".isl.tsv")
    isl_path.write_text("".join(f"{isl_text(a)}\t{isl_text(b)}\n" for a, b in pairs))
    return isl_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    write(generate(options.pairs, options.seed), options.output)


if __name__ == "__main__":
    main()
