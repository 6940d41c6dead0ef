"""Simplifier throughput, and our simplified maps against isl's own simplification.

Run: ``python benchmarks/simplifier.py [--maps N] [--seed S]``.

Corpus (deterministic): SPEC §4's four cases, reshape chains
``A -> B -> C`` composed (collapse/expand formulas of SPEC §2) over random
shapes, and random quasi-affine maps with constraints.

Printed:

* simplifications per second (parse excluded; one core);
* per corpus part, the mean size of the input and of our output (node count,
  `verifier.simplify.size.map_size`), and — the comparable figure across both
  tools — the number of integer divisions (`floordiv`/`ceildiv`/`mod` nodes for
  us, ``floor(`` terms for isl) and the length of the printed text, for our
  simplified map vs isl's ``coalesce`` (then ``as_pw_multi_aff`` when the map
  is single-valued) and isl's ``gist`` against the variable box;
* ratios ours / isl (below 1 means ours is smaller).

No assertion: this prints measurements from one run.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import islpy as isl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier.bridges.isl import to_isl_map
from verifier.expr.indexing_map import IndexingMap, compose
from verifier.expr.interval import Interval
from verifier.expr.nodes import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    Max,
    Min,
    Mod,
    Mul,
    Var,
    ceildiv,
    const,
    dim,
    floordiv,
    max_,
    min_,
    mod,
    range_var,
)
from verifier.expr.parser import parse_map
from verifier.simplify import simplify
from verifier.simplify.size import map_size

SPEC_4 = [
    "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
    "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, ((d0 * 100 + d1 * 10 + d2)"
    " mod 100) floordiv 10, d2 mod 10), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    "(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8, (d0 * 16 + d1 * 4 + d2) mod 8),"
    " domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    "(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9), domain: d0 in [0, 9], d1 in [0, 10]",
]


# ---------------------------------------------------------------- corpus


def reshape_map(output_shape: list[int], input_shape: list[int]) -> IndexingMap:
    """The output→input map of ``reshape(input) -> output`` (row-major)."""
    linear: Expr = const(0)
    for i, size in enumerate(output_shape):
        linear = linear * size + dim(i)
    results: list[Expr] = []
    stride = math.prod(input_shape)
    for size in input_shape:
        stride //= size
        results.append(mod(floordiv(linear, stride), size) if stride else linear)
    # The outermost index needs no mod: it is already below its size.
    results[0] = floordiv(linear, math.prod(input_shape[1:]))
    return IndexingMap.create([(0, n - 1) for n in output_shape], results)


def _factorisation(total: int, rng: random.Random) -> list[int]:
    factors: list[int] = []
    rest = total
    for p in (2, 3, 5):
        while rest % p == 0:
            factors.append(p)
            rest //= p
    rng.shuffle(factors)
    shape: list[int] = []
    for f in factors:
        if shape and rng.random() < 0.5:
            shape[-1] *= f
        else:
            shape.append(f)
    return shape or [1]


def reshape_chains(count: int, rng: random.Random, *, cancelling: bool) -> Iterator[IndexingMap]:
    """``reshape(reshape(x: A) -> B) -> C`` composed; ``C = A`` when `cancelling`."""
    for _ in range(count):
        total = rng.choice([24, 60, 64, 120, 240, 360, 1000, 1024])
        a, b, c = (_factorisation(total, rng) for _ in range(3))
        if cancelling:
            c = a
        yield compose(reshape_map(c, b), reshape_map(b, a))


def _expr(variables: list[Var], rng: random.Random, depth: int) -> Expr:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(variables) if rng.random() < 0.8 else const(rng.randint(-8, 8))
    kind = rng.randrange(8)
    a = _expr(variables, rng, depth - 1)
    if kind <= 1:
        return a + _expr(variables, rng, depth - 1)
    if kind == 2:
        return a * rng.choice([-2, -1, 2, 3, 4, 8])
    divisor = rng.choice([2, 3, 4, 8, 16])
    if kind == 3:
        return floordiv(a, divisor)
    if kind == 4:
        return mod(a, divisor)
    if kind == 5:
        return ceildiv(a, divisor)
    b = _expr(variables, rng, depth - 1)
    return min_(a, b) if kind == 6 else max_(a, b)


def random_maps(count: int, rng: random.Random) -> Iterator[IndexingMap]:
    for _ in range(count):
        n_dims, n_symbols = rng.randint(1, 3), rng.randint(0, 1)
        variables = [dim(i) for i in range(n_dims)] + [range_var(i) for i in range(n_symbols)]
        box = [(0, rng.choice([3, 7, 15, 31, 63])) for _ in variables]
        results = [_expr(variables, rng, 3) for _ in range(rng.randint(1, 2))]
        constraints = []
        for _ in range(rng.randint(0, 2)):
            lower = rng.randint(-4, 20)
            constraints.append(
                (_expr(variables, rng, 2), Interval(lower, lower + rng.randint(0, 40)))
            )
        yield IndexingMap.create(
            box[:n_dims], results, range_vars=box[n_dims:], constraints=constraints
        )


# ---------------------------------------------------------------- measures


def divisions(expr: Expr) -> int:
    match expr:
        case Const() | Var():
            return 0
        case Add(operands):
            return sum(divisions(o) for o in operands)
        case Mul(operand):
            return divisions(operand)
        case FloorDiv(operand) | CeilDiv(operand) | Mod(operand):
            return 1 + divisions(operand)
        case Min(lhs, rhs) | Max(lhs, rhs):
            return divisions(lhs) + divisions(rhs)
    raise TypeError(expr)


def map_divisions(m: IndexingMap) -> int:
    return sum(divisions(r) for r in m.results) + sum(divisions(e) for e, _ in m.constraints)


@dataclass(frozen=True)
class IslForm:
    text: str

    @property
    def divisions(self) -> int:
        return self.text.count("floor(") + self.text.count(" mod ")


def isl_simplified(m: IndexingMap) -> tuple[IslForm, IslForm]:
    """isl's ``coalesce`` (as a piecewise multi-aff when single-valued) and
    its ``gist`` against the variables' box."""
    relation: Any = to_isl_map(m).coalesce()
    if relation.is_single_valued():
        coalesced = IslForm(str(relation.as_pw_multi_aff()))
    else:
        coalesced = IslForm(str(relation))
    box = isl.Set.from_basic_set(relation.domain().simple_hull())
    gisted = IslForm(str(relation.gist_domain(box).coalesce()))
    return coalesced, gisted


# ---------------------------------------------------------------- report


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def run(count: int, seed: int) -> None:
    rng = random.Random(seed)
    parts = {
        "SPEC §4": [parse_map(t) for t in SPEC_4],
        "A->B->A chains": list(reshape_chains(count // 4, rng, cancelling=True)),
        "A->B->C chains": list(reshape_chains(count // 4, rng, cancelling=False)),
        "random maps": list(random_maps(count // 2, rng)),
    }
    corpus = [m for maps in parts.values() for m in maps]

    start = time.perf_counter()
    for m in corpus:
        simplify(m)
    elapsed = time.perf_counter() - start
    print(
        f"corpus: {len(corpus)} maps; {len(corpus) / elapsed:,.0f} simplifications/s"
        f" ({elapsed * 1e3 / len(corpus):.2f} ms each)"
    )
    cancelling = parts["A->B->A chains"]
    identity = sum(
        1 for m in cancelling if all(r is dim(i) for i, r in enumerate(simplify(m).map.results))
    )
    print(f"A->B->A reshape chains simplified to the identity: {identity}/{len(cancelling)}")
    print()
    header = (
        f"{'part':<15} {'size in':>8} {'size out':>8} {'div in':>7} {'div ours':>8}"
        f" {'div isl':>7} {'ratio':>6} {'chars ours':>10} {'chars isl':>9} {'ratio':>6}"
        f" {'chars gist':>10} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, maps in parts.items():
        sizes_in, sizes_out, div_in, div_ours, div_isl = [], [], [], [], []
        chars_ours, chars_isl, chars_gist = [], [], []
        for m in maps:
            out = simplify(m).map
            coalesced, gisted = isl_simplified(m)
            sizes_in.append(map_size(m))
            sizes_out.append(map_size(out))
            div_in.append(map_divisions(m))
            div_ours.append(map_divisions(out))
            div_isl.append(coalesced.divisions)
            chars_ours.append(len(" ".join(str(out).split())))
            chars_isl.append(len(coalesced.text))
            chars_gist.append(len(gisted.text))
        print(
            f"{name:<15} {_mean(sizes_in):>8.1f} {_mean(sizes_out):>8.1f} {_mean(div_in):>7.2f}"
            f" {_mean(div_ours):>8.2f} {_mean(div_isl):>7.2f}"
            f" {sum(div_ours) / max(1, sum(div_isl)):>6.2f}"
            f" {_mean(chars_ours):>10.1f} {_mean(chars_isl):>9.1f}"
            f" {sum(chars_ours) / sum(chars_isl):>6.2f}"
            f" {_mean(chars_gist):>10.1f} {sum(chars_ours) / sum(chars_gist):>6.2f}"
        )
    print()
    print("size: our node count (results + constraints + variables), before and after.")
    print("div: floordiv/ceildiv/mod nodes (ours) vs floor( and mod terms of isl's coalesce")
    print("(as_pw_multi_aff when single-valued).  chars: printed length (XLA text vs isl")
    print("text; gist = isl's gist_domain against the domain's hull).  ratios: ours / isl.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", type=int, default=400, help="size of the generated corpus")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    run(args.maps, args.seed)


if __name__ == "__main__":
    main()
