"""Exact utilization counting against numpy brute force (docs/ARCHITECTURE.md, targets: ≥ 1,000×
faster at 10⁷ elements for every common shape; 10¹² elements in ≤ 50 ms), by the counting call and
on the user's paths (the Python API, the CLI), whose fixed cost — parse, maps, start-up — numpy's
time passes only from some size on: those sizes are printed.

Every kind reads a ``[n, 2n]`` operand (about ``2 n²`` elements) through the
output→input maps XLA's ops give it (`verifier maps` prints the same ones):

* **strided box** — a slice with strides, ``(d0 * 2, d1 * 3 + 1)``;
* **union** — a stride-2 slice beside a pooling window reading two of every
  three columns, ``(d0, d1 * 2)`` ∪ ``(d0, d1 * 3 + s0)``;
* **pad** — a pad cutting the first row and putting one element between
  columns, ``(d0 + 1, d1 floordiv 2)`` where ``d1 mod 2 = 0``;
* **reshape of slice** — a stride-2 slice flattened,
  ``((d0 floordiv H) * 2 + 1, (d0 mod H) * 2)``;
* **slice of reshape** — the operand flattened, every third element,
  ``((d0 * 3) floordiv 2n, (d0 * 3) mod 2n)``;
* **strided window** — a reduce-window of stride 3 and window dilation 2,
  ``(d0 * 2 + s0, d1 * 3 + s1 * 2)``;
* **dilated window** — a window over the input dilated by 2 and padded
  (a transposed convolution's read), ``(d0, (d1 * 2 + s1 - 2) floordiv 2)``
  where ``(d1 * 2 + s1 - 2) mod 2 = 0``.

Our answer is `verifier.counting.exact.count_image` on the maps (its caches
cleared before every call, so each call does the whole work).  numpy
evaluates the same maps on every point of their domains, a block of rows at
a time, and marks a boolean array of the operand's size (the best numpy
brute force); both must agree.  CPU seconds (the machine is shared), the
two sides interleaved, least of ``--rounds`` rounds.

The same kinds as a user runs them, each an HLO module (only what the
instruction needs) whose instruction reads the operand through those maps
(a slice; a fusion of a slice and a reduce-window; a pad; fusions of a
slice and a reshape; reduce-windows), at 10⁷, 10⁸ and 10⁹ elements:

* **api** — `verifier.loads(text).utilization(name)`: parse, maps, counts,
  in the calling process;
* **cli** — ``verifier utilization --format json --instruction NAME
  FILE.hlo`` in a child process, end to end (interpreter start and imports
  included; ``verifier --version``, the start-up every command pays, is
  printed apart);
* **numpy** — the boolean mask of the same maps (above), the alternative a
  user writes, measured at the same size in the same run (least of
  ``--rounds`` up to 10⁸ elements, once at 10⁹: a gigabyte mask and tens of
  CPU seconds per kind).

All three must agree.  Then, per kind, the sizes where numpy's time meets
ours and where ours is 1,000× faster: interpolated between the sizes
measured, or extrapolated (``~``) with numpy's time linear in the elements
(its mask and its points are; past 10⁸ it grows faster), and
our time and method at 10¹⁰ and 10¹² elements, where numpy cannot go.

    python benchmarks/utilization.py [--max-elements 1e9] [--rounds 3] [--no-cli]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from verifier.api import loads
from verifier.counting.exact import Count, count_image, image_boxes
from verifier.errors import VerifierError
from verifier.expr import IndexingMap, parse_map
from verifier.expr.evaluate import evaluate


def kind_maps(n: int) -> dict[str, list[str]]:
    """Each kind's maps (text) reading a ``[n, 2n]`` operand."""
    w = 2 * n
    half = n // 2
    return {
        "strided box": [
            f"(d0, d1) -> (d0 * 2, d1 * 3 + 1), domain: d0 in [0, {half - 1}], "
            f"d1 in [0, {(w - 2) // 3}]"
        ],
        "union": [
            f"(d0, d1) -> (d0, d1 * 2), domain: d0 in [0, {n - 1}], d1 in [0, {n - 1}]",
            f"(d0, d1)[s0] -> (d0, d1 * 3 + s0), domain: d0 in [0, {n - 1}], "
            f"d1 in [0, {(w - 2) // 3}], s0 in [0, 1]",
        ],
        "pad": [
            f"(d0, d1) -> (d0 + 1, d1 floordiv 2), domain: d0 in [0, {n - 2}], "
            f"d1 in [0, {2 * w - 2}], d1 mod 2 in [0, 0]"
        ],
        "reshape of slice": [
            f"(d0) -> ((d0 floordiv {n}) * 2 + 1, (d0 mod {n}) * 2), "
            f"domain: d0 in [0, {half * n - 1}]"
        ],
        "slice of reshape": [
            f"(d0) -> ((d0 * 3) floordiv {w}, (d0 * 3) mod {w}), "
            f"domain: d0 in [0, {(n * w - 1) // 3}]"
        ],
        "strided window": [
            f"(d0, d1)[s0, s1] -> (d0 * 2 + s0, d1 * 3 + s1 * 2), domain: "
            f"d0 in [0, {half - 1}], d1 in [0, {(w - 5) // 3}], s0 in [0, 1], s1 in [0, 2]"
        ],
        "dilated window": [
            f"(d0, d1)[s0] -> (d0, (d1 * 2 + s0 - 2) floordiv 2), domain: "
            f"d0 in [0, {n - 1}], d1 in [0, {w}], s0 in [0, 2], "
            f"d1 * 2 + s0 - 2 in [0, {2 * w - 2}], (d1 * 2 + s0 - 2) mod 2 in [0, 0]"
        ],
    }


def _numpy_marks(maps: list[IndexingMap], dims: tuple[int, int]) -> int:
    """Every point of every map's domain evaluated (numpy, open grids,
    blocks of the first variable), its element marked."""
    marked = np.zeros(dims[0] * dims[1], dtype=bool)
    for indexing_map in maps:
        variables = [*indexing_map.dims, *indexing_map.range_vars]
        names = indexing_map.all_variables
        per_point = max(1, int(np.prod([v.bounds.size for v in variables[1:]])))
        block = max(1, 4_000_000 // per_point)
        first = variables[0].bounds
        for start in range(first.lower, first.upper + 1, block):
            stop = min(first.upper + 1, start + block)
            grids = np.ix_(
                np.arange(start, stop),
                *(np.arange(v.bounds.lower, v.bounds.upper + 1) for v in variables[1:]),
            )
            values = dict(zip(names, grids, strict=True))
            keep = np.ones(np.broadcast_shapes(*(g.shape for g in grids)), dtype=bool)
            for expr, interval in indexing_map.constraints:
                value = evaluate(expr, values)  # type: ignore[arg-type]
                keep &= (value >= interval.lower) & (value <= interval.upper)
            rows, columns = (
                np.broadcast_to(evaluate(r, values), keep.shape)  # type: ignore[arg-type]
                for r in indexing_map.results
            )
            keep &= (rows >= 0) & (rows < dims[0]) & (columns >= 0) & (columns < dims[1])
            marked[(rows * dims[1] + columns)[keep]] = True
    return int(np.count_nonzero(marked))


def _hlo(kind: str, n: int) -> tuple[str, str]:
    """An HLO module whose instruction (the name returned) reads its ``[n,
    2n]`` parameter through `kind_maps`'s maps for `kind` (n even)."""
    w, half = 2 * n, n // 2
    computations = {
        "strided box": f"ROOT i = f32[{half},{(w - 2) // 3 + 1}] slice(p0), "
        f"slice={{[0:{n}:2], [1:{w}:3]}}",
        "union": f"ROOT i = (f32[{n},{n}], f32[{n},{(w - 2) // 3 + 1}]) fusion(p0), "
        "kind=kLoop, calls=union",
        "pad": f"ROOT i = f32[{n - 1},{2 * w - 1}] pad(p0, z), padding=-1_0x0_0_1",
        "reshape of slice": f"ROOT i = f32[{half * n}] fusion(p0), kind=kLoop, "
        "calls=reshape_of_slice",
        "slice of reshape": f"ROOT i = f32[{(n * w - 1) // 3 + 1}] fusion(p0), kind=kLoop, "
        "calls=slice_of_reshape",
        "strided window": f"ROOT i = f32[{half},{(w - 5) // 3 + 1}] reduce-window(p0, z), "
        "window={size=2x3 stride=2x3 rhs_dilate=1x2}, to_apply=add",
        "dilated window": f"ROOT i = f32[{n},{w + 1}] reduce-window(p0, z), "
        "window={size=1x3 stride=1x2 pad=0_0x2_2 lhs_dilate=1x2}, to_apply=add",
    }
    called = {
        "add": """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}""",
        "union": f"""union {{
  p = f32[{n},{w}] parameter(0)
  z = f32[] constant(0)
  a = f32[{n},{n}] slice(p), slice={{[0:{n}], [0:{w}:2]}}
  b = f32[{n},{(w - 2) // 3 + 1}] reduce-window(p, z), window={{size=1x2 stride=1x3}}, to_apply=add
  ROOT t = (f32[{n},{n}], f32[{n},{(w - 2) // 3 + 1}]) tuple(a, b)
}}""",
        "reshape_of_slice": f"""reshape_of_slice {{
  p = f32[{n},{w}] parameter(0)
  s = f32[{half},{n}] slice(p), slice={{[1:{n}:2], [0:{w}:2]}}
  ROOT r = f32[{half * n}] reshape(s)
}}""",
        "slice_of_reshape": f"""slice_of_reshape {{
  p = f32[{n},{w}] parameter(0)
  r = f32[{n * w}] reshape(p)
  ROOT s = f32[{(n * w - 1) // 3 + 1}] slice(r), slice={{[0:{n * w}:3]}}
}}""",
    }
    # Only the computations the instruction calls: a user's module is parsed
    # whole, and parse is most of the fixed cost.
    needs = {"union": ["add", "union"], "strided window": ["add"], "dilated window": ["add"]}
    needs |= {k: [k.replace(" ", "_")] for k in ("reshape of slice", "slice of reshape")}
    text = f"""HloModule {kind.replace(" ", "_")}
{"".join(called[name] + chr(10) for name in needs.get(kind, []))}
ENTRY e {{
  p0 = f32[{n},{w}] parameter(0)
  z = f32[] constant(0)
  {computations[kind]}
}}
"""
    return text, "i"


def _api(text: str, name: str) -> int:
    """Distinct elements of parameter 0 that `name` reads, by the public API."""
    (result,) = loads(text).utilization(name)
    distinct = result.operands[0].distinct_read
    assert distinct is not None
    return distinct


_VERIFIER = (sys.executable, "-m", "verifier")


def _child_cpu(command: list[str]) -> tuple[float, str]:
    """CPU seconds of a child process (user + system) and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return spent, done.stdout


def _cli_seconds(path: str, name: str) -> float:
    return _cli(path, name)[0]


def _cli(path: str, name: str) -> tuple[float, int]:
    """CPU seconds of `verifier utilization` on `path` and its distinct count."""
    spent, output = _child_cpu(
        [*_VERIFIER, "utilization", "--format", "json", "--instruction", name, path]
    )
    (instruction,) = json.loads(output)["instructions"]
    return spent, instruction["operands"][0]["distinct_read"]


def _ours(maps: list[IndexingMap], dims: tuple[int, int]) -> Count:
    image_boxes.cache_clear()
    return count_image(maps, dims)


def _cpu_seconds(function: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def _per_call(function: Callable[[], object], calls: int = 200) -> float:
    """CPU seconds of one call, from `calls` in a row (least of 3)."""
    return _cpu_seconds(lambda: [function() for _ in range(calls)], 3) / calls


def _interleaved(measures: list[Callable[[], float]], rounds: int) -> list[float]:
    """Each measure's least over `rounds` rounds, the measures taking turns."""
    best = [float("inf")] * len(measures)
    for _ in range(rounds):
        for k, measure in enumerate(measures):
            best[k] = min(best[k], measure())
    return best


def _numpy_once(maps: list[IndexingMap], dims: tuple[int, int], rounds: int) -> float:
    """numpy's CPU seconds, least of `rounds` (once past 10⁸ elements: a
    10⁹-element mask is a gigabyte and tens of seconds)."""
    repeat = rounds if dims[0] * dims[1] <= 2e8 else 1
    return _cpu_seconds(functools.partial(_numpy_marks, maps, dims), repeat)


class _UserRow(NamedTuple):
    kind: str
    elements: int
    numpy_s: float
    api_s: float
    cli_s: float | None


def _user_paths(sizes: list[float], rounds: int, cli: bool) -> list[_UserRow]:
    """Each kind's HLO through the api (and the cli) beside numpy's mask of
    the same maps, at every size in `sizes`: all three must agree."""
    print(
        f"\n{'kind':<18}{'elements':>15}{'numpy ms':>11}{'api ms':>8}{'cli ms':>8}"
        f"{'numpy/api':>11}{'numpy/cli':>11}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for kind in kind_maps(4):
            for elements in sizes:
                maps, dims = _setup(kind, elements)
                text, name = _hlo(kind, dims[0])
                path = f"{directory}/{kind.replace(' ', '_')}.hlo"
                with open(path, "w") as file:
                    file.write(text)
                expected = _numpy_marks(maps, dims)
                assert _api(text, name) == expected, kind
                measures: list[Callable[[], float]] = [
                    functools.partial(_per_call, functools.partial(_api, text, name), 20),
                ]
                if cli:
                    assert _cli(path, name)[1] == expected, kind
                    measures.append(functools.partial(_cli_seconds, path, name))
                timed = _interleaved(measures, rounds)
                mask = _numpy_once(maps, dims, rounds)
                row = _UserRow(kind, dims[0] * dims[1], mask, timed[0], timed[1] if cli else None)
                rows.append(row)
                cli_ms = f"{row.cli_s * 1e3:>8.0f}" if row.cli_s else f"{'-':>8}"
                cli_ratio = f"{mask / row.cli_s:>11,.2f}" if row.cli_s else f"{'-':>11}"
                print(
                    f"{kind:<18}{row.elements:>15,}{mask * 1e3:>11.1f}{row.api_s * 1e3:>8.2f}"
                    f"{cli_ms}{mask / row.api_s:>11,.0f}{cli_ratio}",
                    flush=True,
                )
    return rows


def _size_at(rows: list[_UserRow], ratio: Callable[[_UserRow], float], target: float) -> str:
    """The size where `ratio` reaches `target`: interpolated (log-log)
    between the sizes measured around it, else extrapolated (``~``) with
    numpy's time linear in the elements from the nearest size measured."""
    points = [(row.elements, ratio(row)) for row in sorted(rows, key=lambda r: r.elements)]
    first, last = points[0], points[-1]
    if first[1] >= target:
        return f"~{first[0] * target / first[1]:.1e}"
    for (n0, r0), (n1, r1) in itertools.pairwise(points):
        if r0 < target <= r1:
            return f"{n0 * (n1 / n0) ** (math.log(target / r0) / math.log(r1 / r0)):.1e}"
    return f"~{last[0] * target / last[1]:.1e}"


def _crossovers(rows: list[_UserRow]) -> None:
    """Per kind: the sizes where numpy's time meets ours on each path and
    where ours is 1,000× faster (`_size_at`)."""
    cli = all(row.cli_s for row in rows)
    print(
        f"\n{'kind':<18}{'api = numpy':>13}{'api 1,000×':>12}{'cli = numpy':>13}"
        f"{'cli 1,000×':>12}   (elements; ~ extrapolated, numpy linear in the elements)"
    )
    for kind in kind_maps(4):
        own = [row for row in rows if row.kind == kind]
        api = [_size_at(own, lambda r: r.numpy_s / r.api_s, t) for t in (1, 1000)]
        child = (
            [_size_at(own, lambda r: r.numpy_s / (r.cli_s or math.inf), t) for t in (1, 1000)]
            if cli
            else ["-", "-"]
        )
        print(f"{kind:<18}{api[0]:>13}{api[1]:>12}{child[0]:>13}{child[1]:>12}")


def _setup(kind: str, elements: float) -> tuple[list[IndexingMap], tuple[int, int]]:
    n = int((elements / 2) ** 0.5) // 2 * 2  # even: the HLO of every kind has these maps
    return [parse_map(text) for text in kind_maps(n)[kind]], (n, 2 * n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--max-elements", type=float, default=1e9, help="largest size numpy is run at (1e9)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="least of this many (default 3)")
    parser.add_argument("--no-cli", action="store_true", help="skip the cli column")
    args = parser.parse_args()
    print(
        f"{'kind':<18}{'elements':>12}{'count_image µs':>16}{'numpy ms':>10}{'ratio':>8}"
        f"  {'method':<12}count"
    )
    for kind in kind_maps(4):
        for elements in (1e6, 1e7):
            maps, dims = _setup(kind, elements)
            ours = _ours(maps, dims)
            expected = _numpy_marks(maps, dims)
            assert ours.value == expected, (kind, ours.value, expected)
            calls = 2 if ours.method == "isl" else 200
            ours_s, numpy_s = _interleaved(
                [
                    functools.partial(_per_call, functools.partial(_ours, maps, dims), calls),
                    functools.partial(_cpu_seconds, functools.partial(_numpy_marks, maps, dims), 1),
                ],
                args.rounds,
            )
            print(
                f"{kind:<18}{dims[0] * dims[1]:>12,}{ours_s * 1e6:>16.1f}{numpy_s * 1e3:>10.1f}"
                f"{numpy_s / ours_s:>8,.0f}  {ours.method:<12}{expected:,}",
                flush=True,
            )
    if not args.no_cli:
        start = min(_child_cpu([*_VERIFIER, "--version"])[0] for _ in range(args.rounds))
        print(f"\ncli start-up (verifier --version): {start * 1e3:.0f} ms")
    sizes = [elements for elements in (1e7, 1e8, 1e9) if elements <= args.max_elements]
    _crossovers(_user_paths(sizes, args.rounds, not args.no_cli))
    print(f"\n{'kind':<18}{'elements':>20}{'ours ms':>10}  {'method':<12}count")
    for kind in kind_maps(4):
        for elements in (1e10, 1e12):
            maps, dims = _setup(kind, elements)
            try:
                ours = _ours(maps, dims)
            except VerifierError as error:  # counting's unknown, with its reason
                print(f"{kind:<18}{dims[0] * dims[1]:>20,}{'':>10}  unknown ({error})")
                continue
            ours_s = _per_call(functools.partial(_ours, maps, dims), 20)
            print(
                f"{kind:<18}{dims[0] * dims[1]:>20,}{ours_s * 1e3:>10.3f}  "
                f"{ours.method:<12}{ours.value:,}"
            )


if __name__ == "__main__":
    main()
