"""Equivalence proofs per second, against SPEC §8's targets, from one run.

Generates simplifier-like map pairs (2–4 dims; delinearise/relinearise with
``floordiv``/``mod``, split-and-rejoin, reversed range variables — equal —
and the same with a bound or a constant off by one — different), writes
them as tab-separated text, then measures on the same pairs:

* the isl path (`check_equivalence_batch` without the z3 cross-check), map
  text parsing included, on 1 and 2 worker processes (target ≥ 2,000/s);
* the z3 path (the same question put to z3 alone), parsing included, on 2
  workers (target ≥ 500/s);
* the full check (isl, z3 cross-check, re-evaluated counterexamples);
* brute-force enumeration (``IndexingMap.relation()``) on a sample of the
  pairs, and the speed-up of the isl path over it.

Run: ``python benchmarks/equivalence.py [--pairs 2000] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from verifier.bridges import z3 as z3_bridge
from verifier.checks import BatchFailure, EquivalenceResult, Verdict, check_equivalence_batch
from verifier.expr.indexing_map import IndexingMap
from verifier.expr.parser import parse_map

ISL_TARGET = 2000.0
Z3_TARGET = 500.0
_SIZES = [2, 3, 4, 5, 8, 10, 16, 32, 64, 128]
_BRUTE_FORCE_BOX = 20_000
T = TypeVar("T")


def _domain(sizes: Sequence[int], symbol_sizes: Sequence[int] = ()) -> str:
    bounds = [f"d{i} in [0, {n - 1}]" for i, n in enumerate(sizes)]
    bounds += [f"s{i} in [0, {n - 1}]" for i, n in enumerate(symbol_sizes)]
    return "domain: " + ", ".join(bounds)


def _header(n: int, symbols: int = 0) -> str:
    dims = "(" + ", ".join(f"d{i}" for i in range(n)) + ")"
    return dims + ("[" + ", ".join(f"s{i}" for i in range(symbols)) + "]" if symbols else "")


def _pair(rng: random.Random) -> tuple[str, str, bool]:
    """One (a, b, pointwise) pair; `b` is equal to `a` or off by a little."""
    n = rng.randint(2, 4)
    sizes = [rng.choice(_SIZES) for _ in range(n)]
    strides = [1] * n
    for i in range(n - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    linear = " + ".join(f"d{i} * {s}" if s != 1 else f"d{i}" for i, s in enumerate(strides))
    near = rng.random() < 0.3
    kind = rng.choice(["delinearize", "split", "reverse"])
    if kind == "delinearize":
        # XLA's reshape pattern: each dim recovered from the linear index.
        results = [
            f"(({linear}) floordiv {s}) mod {n_}" for s, n_ in zip(strides, sizes, strict=True)
        ]
        a = f"{_header(n)} -> ({', '.join(results)}), {_domain(sizes)}"
        identity = ", ".join(f"d{i}" for i in range(n))
        wider = list(sizes)
        if near:
            wider[-1] += 1  # the SPEC case-1 mistake: a bound one too wide
            a = f"{_header(n)} -> ({', '.join(results)}), {_domain(wider)}"
        return a, f"{_header(n)} -> ({identity}), {_domain(wider)}", True
    if kind == "split":
        k = rng.choice([2, 4, 8, 16])
        off = " + 1" if near else ""
        a = f"{_header(n)} -> (({linear}) floordiv {k}, ({linear}) mod {k}), {_domain(sizes)}"
        b = (
            f"{_header(n)} -> ((({linear}) floordiv {k} * {k} + ({linear}) mod {k}) floordiv {k}{off}, "
            f"({linear}) mod {k}), {_domain(sizes)}"
        )
        return a, b, True
    window = rng.choice([2, 3, 4, 8])
    flipped = window if near else window - 1
    a = f"{_header(n, 1)} -> ({linear} + s0, d0), {_domain(sizes, [window])}"
    b = f"{_header(n, 1)} -> ({linear} + {flipped} - s0, d0), {_domain(sizes, [window])}"
    return a, b, False


def generate(count: int, seed: int) -> list[tuple[str, str, bool]]:
    rng = random.Random(seed)
    return [_pair(rng) for _ in range(count)]


def _timed(run: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


def _isl_batch(
    pairs: list[tuple[str, str, bool]], workers: int, cross_check: bool
) -> list[EquivalenceResult | BatchFailure]:
    results: list[EquivalenceResult | BatchFailure] = []
    for pointwise in (True, False):
        chosen = [(a, b) for a, b, p in pairs if p is pointwise]
        results += check_equivalence_batch(
            chosen, pointwise=pointwise, workers=workers, cross_check=cross_check
        )
    return results


def _z3_one(pair: tuple[str, str, bool]) -> bool | None:
    a, b, pointwise = pair
    compare = z3_bridge.compare_pointwise if pointwise else z3_bridge.compare_relations
    return compare(parse_map(a), parse_map(b)).differs


def _z3_batch(pairs: list[tuple[str, str, bool]], workers: int) -> list[bool | None]:
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        return pool.map(_z3_one, pairs, chunksize=max(1, len(pairs) // (workers * 8)))


def _brute_force(pair: tuple[str, str, bool]) -> bool:
    a, b, pointwise = (parse_map(pair[0]), parse_map(pair[1]), pair[2])
    if pointwise:
        return _points(a) != _points(b)
    return a.relation() != b.relation()


def _points(m: IndexingMap) -> dict[tuple[int, ...], tuple[int, ...]]:
    return {tuple(p.values()): m.evaluate(p) for p in m.domain_points()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--brute-force-seconds", type=float, default=10.0)
    options = parser.parse_args()

    pairs = generate(options.pairs, options.seed)
    text = Path(tempfile.gettempdir()) / "verifier_equivalence_pairs.tsv"
    text.write_text("".join(f"{a}\t{b}\t{'pointwise' if p else 'relation'}\n" for a, b, p in pairs))
    pairs = [
        (a, b, mode == "pointwise")
        for a, b, mode in (line.split("\t") for line in text.read_text().splitlines())
    ]
    rows: list[tuple[str, int, float, float | None]] = []

    for workers in (1, 2):
        seconds, results = _timed(functools.partial(_isl_batch, pairs, workers, False))
        assert not any(isinstance(r, BatchFailure) for r in results)
        rows.append((f"isl, {workers} worker(s), parse included", len(pairs), seconds, ISL_TARGET))
    isl_seconds = rows[-1][2]
    verdicts = [r.verdict for r in results if isinstance(r, EquivalenceResult)]
    seconds, z3_answers = _timed(functools.partial(_z3_batch, pairs, 2))
    rows.append(("z3, 2 workers, parse included", len(pairs), seconds, Z3_TARGET))
    seconds, _ = _timed(functools.partial(_isl_batch, pairs, 2, True))
    rows.append(("isl + z3 cross-check + counterexamples, 2 workers", len(pairs), seconds, None))

    # Brute force (one worker) costs one evaluation per point of the box,
    # so it is measured on the pairs small enough to enumerate and
    # extrapolated to all pairs by their box sizes.
    def box(pair: tuple[str, str, bool]) -> int:
        return sum(parse_map(m).domain_size_bound() for m in pair[:2])

    small = [p for p in pairs if box(p) <= _BRUTE_FORCE_BOX]
    start = time.perf_counter()
    enumerated = 0
    for pair in small:
        if time.perf_counter() - start > options.brute_force_seconds:
            break
        _brute_force(pair)
        enumerated += 1
    brute_seconds = time.perf_counter() - start
    points_per_second = sum(box(p) for p in small[:enumerated]) / brute_seconds
    all_points = sum(box(p) for p in pairs)
    rows.append(
        (
            f"brute force, 1 worker ({enumerated} pairs of <= {_BRUTE_FORCE_BOX} points)",
            enumerated,
            brute_seconds,
            None,
        )
    )
    rows.append(
        (
            "brute force, all pairs (extrapolated by points)",
            len(pairs),
            all_points / points_per_second,
            None,
        )
    )

    print(
        f"{len(pairs)} pairs written to {text}; "
        f"{sum(v is Verdict.EQUAL for v in verdicts)} equal, "
        f"{sum(v is Verdict.DIFFERENT for v in verdicts)} different, "
        f"{sum(v is Verdict.UNKNOWN for v in verdicts)} unknown; "
        f"z3 unknown on {sum(a is None for a in z3_answers)}"
    )
    print(f"{'what':52} {'pairs':>6} {'seconds':>8} {'pairs/s':>9} {'target':>7} {'ratio':>6}")
    for name, count, seconds, target in rows:
        rate = count / seconds if seconds else float("inf")
        ratio = f"{rate / target:6.2f}" if target else ""
        shown_target = f"{target:7.0f}" if target else ""
        print(f"{name:52} {count:6d} {seconds:8.3f} {rate:9.1f} {shown_target:>7} {ratio:>6}")
    brute_rate = len(pairs) / rows[-1][2]
    isl_rate = len(pairs) / isl_seconds
    print(
        f"isl (2 workers) / brute force (1 worker, extrapolated): {isl_rate / brute_rate:.0f}x; "
        f"brute force enumerates {points_per_second:.0f} points/s"
    )


if __name__ == "__main__":
    main()
