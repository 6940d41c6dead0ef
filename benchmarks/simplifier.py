"""The simplifier's power and speed: our simplified maps against isl's own
simplification and against the previous release, on one corpus in one run.

Run: ``python benchmarks/simplifier.py [--maps N] [--seed S] [--previous REV]``.

Corpus (deterministic): the simplifier's four golden cases (docs/ARCHITECTURE.md); reshape chains ``A -> B -> A``
(odd factors included, and ``[128, 3072] -> [256, 3, 512] -> [128, 3072]``)
and ``A -> B -> C`` composed unsimplified (collapse/expand formulas of the
indexing document) over random shapes; random quasi-affine maps with range variables and
constraints; and every distinct raw output→input map of every instruction of
the real dumps in ``examples/real``.

Measured on the path users run (`verifier.simplify.simplify`, shipped
defaults: pointwise equal to the input):

* CPU seconds per simplification, ours and the previous release's;
* A→B→A chains that reach the identity, ours and the previous release's;
* per corpus part, the mean size (node count, `verifier.simplify.size.map_size`)
  of the input, of our output, of the previous release's output, and of isl's
  own simplification of the same map — isl's ``coalesce`` of the graph
  (symbols as inputs, so pointwise like ours), read back with
  `verifier.bridges.isl_to_map.from_isl_map` and measured the same way; maps whose
  isl form is not one quasi-affine piece are counted apart;
* the share of maps where our size is ≤ isl's and ≤ the previous release's.

The previous release is the simplifier at `PREVIOUS` (the commit issue #15
started from), run from a temporary ``git worktree`` in a subprocess on the
same map texts.  It rescaled and removed symbols by default, so on maps with
such symbols its output is smaller than ours only because it is not pointwise
equal; ``simplify_relation`` (ours, every rule) is shown beside it.

No assertion: this prints measurements from one run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.bridges.isl import to_isl_map  # noqa: E402
from verifier.bridges.isl_to_map import from_isl_map  # noqa: E402
from verifier.errors import VerifierError  # noqa: E402
from verifier.expr.indexing_map import IndexingMap, compose  # noqa: E402
from verifier.expr.interval import Interval  # noqa: E402
from verifier.expr.nodes import (  # noqa: E402
    Expr,
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
from verifier.expr.parser import parse_map  # noqa: E402
from verifier.simplify import simplify, simplify_relation  # noqa: E402
from verifier.simplify.size import map_size  # noqa: E402

PREVIOUS = "3997621d85540f854e6e0e877e396eb81ca12fee"

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
    """Random quasi-affine maps with up to two range variables and constraints."""
    for _ in range(count):
        n_dims, n_symbols = rng.randint(1, 3), rng.randint(0, 2)
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


def real_dump_maps() -> list[IndexingMap]:
    """Every distinct raw output→input map of every entry instruction of the
    modules in ``examples/real`` (fusions composed, nothing simplified)."""
    from verifier.analysis import ModuleMaps
    from verifier.hlo.parser import parse_module_file
    from verifier.report.maps import MapsOptions, module_json

    texts: dict[str, None] = {}
    for path in sorted((ROOT / "examples" / "real").glob("*.hlo")):
        module = parse_module_file(str(path))
        instructions = [i for i in module.entry.instructions if i.opcode != "parameter"]
        report = module_json(ModuleMaps(module), instructions, MapsOptions("o2i", simplified=False))
        for instruction in report["instructions"]:
            for operand in instruction.get("output_to_input", []):
                if isinstance(operand["maps"], list):
                    texts.update(dict.fromkeys(operand["maps"]))
    return [parse_map(text) for text in texts]


# ---------------------------------------------------------------- measures


def is_identity(m: IndexingMap) -> bool:
    return len(m.results) == m.num_dims and all(r is dim(i) for i, r in enumerate(m.results))


def isl_size(m: IndexingMap) -> int | None:
    """The size of isl's own simplification of `m`'s graph, read back as a
    map (None when it is not one quasi-affine piece on a convex domain)."""
    try:
        return map_size(from_isl_map(to_isl_map(m, existential_symbols=False).coalesce()))
    except VerifierError:
        return None


_PREVIOUS_SCRIPT = """
import json, sys, time
from verifier.expr.parser import parse_map
from verifier.simplify import simplify
from verifier.simplify.size import map_size
texts = json.load(sys.stdin)
maps = [parse_map(t) for t in texts]
start = time.process_time()
outs = [simplify(m).map for m in maps]
seconds = time.process_time() - start
print(json.dumps({"seconds": seconds, "sizes": [map_size(o) for o in outs],
                  "identity": [len(o.results) == o.num_dims and all(str(r) == f"d{i}"
                               for i, r in enumerate(o.results)) for o in outs]}))
"""


@dataclass(frozen=True)
class Previous:
    seconds: float
    sizes: list[int]
    identity: list[bool]


def previous_release(texts: list[str], revision: str) -> Previous:
    """The previous release's simplifier on `texts`, from a temporary worktree."""
    with tempfile.TemporaryDirectory() as directory:
        tree = Path(directory) / "previous"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), revision],
            check=True,
        )
        try:
            answer = subprocess.run(
                [sys.executable, "-c", _PREVIOUS_SCRIPT],
                input=json.dumps(texts),
                capture_output=True,
                text=True,
                check=True,
                cwd=tree,
                env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
            )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True
            )
    data: dict[str, Any] = json.loads(answer.stdout)
    return Previous(data["seconds"], data["sizes"], data["identity"])


# ---------------------------------------------------------------- report


def _mean(values: list[int]) -> float:
    return statistics.fmean(values) if values else float("nan")


def _share(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / max(1, total):.1f} %)"


def run(count: int, seed: int, revision: str) -> None:
    rng = random.Random(seed)
    odd = compose(reshape_map([128, 3072], [256, 3, 512]), reshape_map([256, 3, 512], [128, 3072]))
    parts = {
        "simplifier golden cases": [parse_map(t) for t in SPEC_4],
        "A->B->A chains": [odd, *reshape_chains(count // 4, rng, cancelling=True)],
        "A->B->C chains": list(reshape_chains(count // 4, rng, cancelling=False)),
        "random maps": list(random_maps(count // 2, rng)),
        "real dumps": real_dump_maps(),
    }
    corpus = [m for maps in parts.values() for m in maps]
    texts = [" ".join(str(m).split()) for m in corpus]

    start = time.process_time()
    ours = [simplify(m).map for m in corpus]
    seconds = time.process_time() - start
    relation = [simplify_relation(m) for m in corpus]
    previous = previous_release(texts, revision)
    print(
        f"corpus: {len(corpus)} maps; CPU ms per simplification: ours"
        f" {seconds * 1e3 / len(corpus):.2f}, previous release"
        f" {previous.seconds * 1e3 / len(corpus):.2f}"
        f" (ours / previous = {seconds / previous.seconds:.2f})"
    )

    offset = 0
    rows = []
    totals = {
        "isl_hits": 0,
        "isl_total": 0,
        "isl_apart": 0,
        "prev_hits": 0,
        "maps": 0,
        "relation_hits": 0,
    }
    for name, maps in parts.items():
        indices = range(offset, offset + len(maps))
        offset += len(maps)
        sizes_in = [map_size(corpus[i]) for i in indices]
        sizes_ours = [map_size(ours[i]) for i in indices]
        sizes_relation = [map_size(relation[i]) for i in indices]
        sizes_prev = [previous.sizes[i] for i in indices]
        sizes_isl = [isl_size(corpus[i]) for i in indices]
        comparable = [(o, s) for o, s in zip(sizes_ours, sizes_isl, strict=True) if s is not None]
        isl_hits = sum(1 for o, s in comparable if o <= s)
        prev_hits = sum(1 for o, p in zip(sizes_ours, sizes_prev, strict=True) if o <= p)
        relation_hits = sum(1 for o, p in zip(sizes_relation, sizes_prev, strict=True) if o <= p)
        totals["relation_hits"] += relation_hits
        totals["isl_hits"] += isl_hits
        totals["isl_total"] += len(comparable)
        totals["isl_apart"] += len(maps) - len(comparable)
        totals["prev_hits"] += prev_hits
        totals["maps"] += len(maps)
        rows.append(
            (
                name,
                len(maps),
                _mean(sizes_in),
                _mean(sizes_ours),
                _mean(sizes_relation),
                _mean(sizes_prev),
                _mean([s for _, s in comparable]),
                _mean([o for o, _ in comparable]),
                _share(isl_hits, len(comparable)),
                len(maps) - len(comparable),
                _share(prev_hits, len(maps)),
            )
        )
        if name == "A->B->A chains":
            ours_identity = sum(1 for i in indices if is_identity(ours[i]))
            prev_identity = sum(1 for i in indices if previous.identity[i])
            print(
                f"A->B->A reshape chains reaching the identity: ours"
                f" {_share(ours_identity, len(maps))}, previous release"
                f" {_share(prev_identity, len(maps))}"
            )
    print()
    header = (
        f"{'part':<15} {'maps':>5} {'in':>7} {'ours':>7} {'ours rel':>8} {'prev':>7}"
        f" {'isl*':>7} {'ours*':>7} {'ours<=isl*':>18} {'isl n/a':>7} {'ours<=prev':>18}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row[0]:<15} {row[1]:>5} {row[2]:>7.1f} {row[3]:>7.1f} {row[4]:>8.1f}"
            f" {row[5]:>7.1f} {row[6]:>7.1f} {row[7]:>7.1f} {row[8]:>18} {row[9]:>7}"
            f" {row[10]:>18}"
        )
    print()
    print(
        "all parts: ours <= isl on"
        f" {_share(totals['isl_hits'], totals['isl_total'])} of the maps isl gives as one"
        f" piece ({totals['isl_apart']} maps apart); ours <= previous release on"
        f" {_share(totals['prev_hits'], totals['maps'])}; ours rel <= previous release on"
        f" {_share(totals['relation_hits'], totals['maps'])}"
    )
    print()
    print("sizes are means of map_size (result and constraint nodes + variables).")
    print("ours: simplify (pointwise, the default); ours rel: simplify_relation (symbols")
    print("rescaled and removed, as composition uses it); prev: the previous release, which")
    print("did that by default; isl*/ours*: on the maps isl gives as one quasi-affine piece.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", type=int, default=400, help="size of the generated corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--previous", default=PREVIOUS, help="the previous release's revision")
    args = parser.parse_args()
    run(args.maps, args.seed, args.previous)


if __name__ == "__main__":
    main()
