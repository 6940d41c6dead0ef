"""Fuzzed questions through the command line, each verdict judged by brute
force: CPU seconds of ``verifier equiv`` (as relations and ``--pointwise``)
and ``verifier simplify --prove`` on random XLA-style maps, with the shipped
``--cross-check`` default and with ``all``; a question past its timeout is a
hang, a verdict brute force contradicts is a wrong verdict.

The maps are what XLA's indexing analysis prints after reshapes of reshapes,
transposes, slices and reductions: a few dims, 4-8 range symbols and
sometimes a runtime variable; results that are ``mod``/``floordiv`` chains
of linear sums with large, coprime and power-of-two constants (20000, 7919,
2^k); constraints such as ``d0 + s1 in [3, 40]`` and ``d0 mod 8 in [0, 0]``;
huge, tiny and empty domains.  Each map ``a`` is paired with a ``b`` that is

* ``rewrite``: equal by a sound rewrite (the simplifier's output, sum terms
  reordered, ``x`` written ``x floordiv c * c + x mod c``, a symbol
  reflected ``s -> hi - s`` — equal as relations only — or a redundant
  constraint added);
* ``constant``: one constant of a result changed by one;
* ``corner``: different at one corner only (``+ d0 floordiv hi`` in a result,
  or the corner of the dims excluded by a constraint).

Every map is generated as a tree that this script renders to text and
evaluates itself (Python's ``//`` and ``%`` are floor division and its
remainder), so brute force is independent of verifier's parser and
evaluator.  Small instances (at most `_BRUTE_FORCE_POINTS` points) are
judged: ``equal``/``different``/``vacuous`` must be right, a counterexample
must re-evaluate; ``unknown`` is accepted only where a budget ran out.
``simplify --prove``'s result text is read back with verifier's parser (the
simplifier is what is judged there).

How it is measured: one child process per category and command times every
question alone through the public API the command calls, with the
command's budget (CPU seconds each, printed as it goes, so a hang names its
question); one ``--batch`` child per category then gives the verdicts users
get; the slowest questions are run again as single command lines.  Every
child runs under ``--timeout`` (default 60 s).  Seeded and deterministic.

Run: ``python benchmarks/fuzz_questions.py [--seed 13] [--maps 40] [--timeout 60]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import resource
import select
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

_BRUTE_FORCE_POINTS = 30_000
_MODULI = (2, 3, 4, 8, 16, 20000, 7919, 1024, 4096, 6, 12, 7, 128)

# ------------------------------------------------------------ expressions
# A tree: ("c", k) | ("v", name) | ("add", (e, ...)) | ("mul", e, k)
#       | ("fd", e, k) | ("mod", e, k)
Tree = tuple[Any, ...]


def render(tree: Tree) -> str:
    match tree[0]:
        case "c":
            return str(tree[1])
        case "v":
            return str(tree[1])
        case "add":
            return "(" + " + ".join(render(t) for t in tree[1]) + ")"
        case "mul":
            return f"{render(tree[1])} * {tree[2]}"
        case "fd":
            return f"({render(tree[1])} floordiv {tree[2]})"
        case "mod":
            return f"({render(tree[1])} mod {tree[2]})"
    raise AssertionError(tree)


def evaluate(tree: Tree, point: dict[str, int]) -> int:
    match tree[0]:
        case "c":
            return int(tree[1])
        case "v":
            return point[tree[1]]
        case "add":
            return sum(evaluate(t, point) for t in tree[1])
        case "mul":
            return evaluate(tree[1], point) * int(tree[2])
        case "fd":
            return evaluate(tree[1], point) // int(tree[2])
        case "mod":
            return evaluate(tree[1], point) % int(tree[2])
    raise AssertionError(tree)


@dataclass(frozen=True)
class FuzzMap:
    """A map as this script knows it: variables with bounds, results and
    constraints as trees."""

    dims: tuple[tuple[str, int, int], ...]
    symbols: tuple[tuple[str, int, int], ...]
    rts: tuple[tuple[str, int, int], ...]
    results: tuple[Tree, ...]
    constraints: tuple[tuple[Tree, int, int], ...]

    def text(self) -> str:
        header = "(" + ", ".join(n for n, _, _ in self.dims) + ")"
        if self.symbols:
            header += "[" + ", ".join(n for n, _, _ in self.symbols) + "]"
        if self.rts:
            header += "{" + ", ".join(n for n, _, _ in self.rts) + "}"
        results = ", ".join(render(r) for r in self.results)
        domain = [f"{n} in [{lo}, {hi}]" for n, lo, hi in (*self.dims, *self.symbols, *self.rts)]
        domain += [f"{render(e)} in [{lo}, {hi}]" for e, lo, hi in self.constraints]
        return f"{header} -> ({results}), domain: " + ", ".join(domain)

    @property
    def variables(self) -> tuple[tuple[str, int, int], ...]:
        return (*self.dims, *self.symbols, *self.rts)

    def size(self) -> int:
        return math.prod(hi - lo + 1 for _, lo, hi in self.variables)

    def points(self) -> Iterator[tuple[dict[str, int], tuple[int, ...]]]:
        """Every domain point with the results there."""
        names = [n for n, _, _ in self.variables]
        for values in itertools.product(*(range(lo, hi + 1) for _, lo, hi in self.variables)):
            point = dict(zip(names, values, strict=True))
            if all(lo <= evaluate(e, point) <= hi for e, lo, hi in self.constraints):
                yield point, tuple(evaluate(r, point) for r in self.results)

    def relation(self) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
        return {(tuple(p[n] for n, _, _ in self.dims), r) for p, r in self.points()}

    def function(self) -> dict[tuple[int, ...], tuple[int, ...]]:
        return {tuple(p.values()): r for p, r in self.points()}


# ------------------------------------------------------------- generation


class Generator:
    """Random XLA-style maps and pairs from one seeded `random.Random`."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def bounds(self, small: bool) -> tuple[int, int]:
        r = self.random
        if small:
            return 0, r.choice((0, 1, 1, 2, 2, 3, 4, 7))
        return 0, r.choice((0, 1, 3, 7, 15, 127, 999, 4095, 7918, 19999, 99999, 1_000_000))

    def linear(self, names: list[str], small: bool) -> Tree:
        r = self.random
        chosen = r.sample(names, k=r.randint(1, min(4, len(names))))
        coefficients = (1, 1, 1, 2, 3, 7, 8, 16, 137, 7919, 20000, 1024) if not small else (1, 2, 3)
        terms: list[Tree] = []
        for name in chosen:
            k = r.choice(coefficients)
            terms.append(("v", name) if k == 1 else ("mul", ("v", name), k))
        if r.random() < 0.3:
            terms.append(("c", r.randint(1, 9)))
        return ("add", tuple(terms)) if len(terms) > 1 else terms[0]

    def chain(self, names: list[str], small: bool) -> Tree:
        """A reshape-of-reshape chain: floordiv and mod of a linear sum, nested."""
        r = self.random
        tree = self.linear(names, small)
        for _ in range(r.choice((0, 1, 1, 2, 3, 4))):
            k = r.choice(_MODULI)
            tree = ("fd", tree, k) if r.random() < 0.5 else ("mod", tree, k)
        if r.random() < 0.3:
            tree = ("add", (tree, self.linear(names, small)))
        return tree

    def fuzz_map(self, small: bool) -> FuzzMap:
        r = self.random
        dims = tuple((f"d{i}", *self.bounds(small)) for i in range(r.randint(1, 3)))
        symbol_count = r.choice((0, 2, 4, 4, 5, 6, 8)) if not small else r.choice((2, 4, 4, 5, 6))
        symbols = tuple((f"s{i}", *self.bounds(small)) for i in range(symbol_count))
        rts = (("rt0", *self.bounds(small)),) if r.random() < 0.2 else ()
        names = [n for n, _, _ in (*dims, *symbols, *rts)]
        results = tuple(self.chain(names, small) for _ in range(r.randint(1, 3)))
        # Constraints hold at an anchor point, so that most domains are not
        # empty; ranges reach from around it.
        anchor = {n: r.randint(lo, hi) for n, lo, hi in (*dims, *symbols, *rts)}
        constraints: list[tuple[Tree, int, int]] = []
        for _ in range(r.choice((0, 1, 2, 3, 5, 8))):
            kind = r.random()
            if kind < 0.35:  # d0 + s1 in [..]
                expr = self.linear(names, small)
            elif kind < 0.7:  # x mod m in [a, b]
                expr = ("mod", self.linear(names, small), r.choice((2, 4, 8, 3, 20000, 7919, 16)))
            elif kind < 0.85:  # x floordiv m in [a, b]
                expr = ("fd", self.linear(names, small), r.choice((2, 4, 7919, 1024)))
            else:  # a chain in a range
                expr = self.chain(names, small)
            value = evaluate(expr, anchor)
            lo = value - r.choice((0, 0, 1, 3, 100, 5000))
            if expr[0] == "mod":
                lo = max(0, lo)
            if r.random() < 0.3:
                lo = value  # a pinned value: `d0 mod 8 in [0, 0]`
            constraints.append((expr, lo, value + r.choice((0, 0, 1, 2, 7, 100, 10000))))
        if r.random() < 0.08:  # an empty domain
            name = r.choice(names)
            constraints += [(("mod", ("v", name), 2), 1, 1), (("mod", ("v", name), 4), 0, 0)]
        return FuzzMap(dims, symbols, rts, results, tuple(constraints))

    # Pairs -----------------------------------------------------------

    def rewrite(self, m: FuzzMap, simplified: Callable[[str], str]) -> FuzzMap | str:
        """`m` rewritten soundly: a tree, or the simplifier's text."""
        r = self.random
        how = r.choice(("simplifier", "reorder", "divmod", "reflect", "redundant"))
        if how == "simplifier":
            return simplified(m.text())
        if how == "reorder":
            return _map_results(m, _reordered)
        if how == "divmod":
            k = r.choice((2, 4, 7919, 20000, 1024))
            index = r.randrange(len(m.results))
            x = m.results[index]
            split = ("add", (("mul", ("fd", x, k), k), ("mod", x, k)))
            results = (*m.results[:index], split, *m.results[index + 1 :])
            return FuzzMap(m.dims, m.symbols, m.rts, results, m.constraints)
        if how == "reflect" and m.symbols:
            name, lo, hi = r.choice(m.symbols)
            image: Tree = ("add", (("c", hi + lo), ("mul", ("v", name), -1)))
            return _substituted(m, name, image)
        name, lo, hi = r.choice(m.variables)
        extra = ((("v", name), lo, hi),)
        return FuzzMap(m.dims, m.symbols, m.rts, m.results, m.constraints + extra)

    def constant(self, m: FuzzMap) -> FuzzMap:
        index = self.random.randrange(len(m.results))
        bumped = ("add", (m.results[index], ("c", self.random.choice((1, -1)))))
        results = (*m.results[:index], bumped, *m.results[index + 1 :])
        return FuzzMap(m.dims, m.symbols, m.rts, results, m.constraints)

    def corner(self, m: FuzzMap) -> FuzzMap:
        name, lo, hi = self.random.choice(m.dims)
        if hi > lo and self.random.random() < 0.5:
            index = self.random.randrange(len(m.results))
            poke = ("add", (m.results[index], ("fd", ("v", name), hi)))
            results = (*m.results[:index], poke, *m.results[index + 1 :])
            return FuzzMap(m.dims, m.symbols, m.rts, results, m.constraints)
        total: Tree = ("add", tuple(("v", n) for n, _, _ in m.dims))
        top = sum(h for _, _, h in m.dims)
        low = sum(lo for _, lo, _ in m.dims)
        cut = ((total, low, top - 1),) if top > low else ((total, low + 1, top),)
        return FuzzMap(m.dims, m.symbols, m.rts, m.results, m.constraints + cut)


def _map_results(m: FuzzMap, change: Callable[[Tree], Tree]) -> FuzzMap:
    return FuzzMap(m.dims, m.symbols, m.rts, tuple(change(t) for t in m.results), m.constraints)


def _reordered(tree: Tree) -> Tree:
    match tree[0]:
        case "add":
            return ("add", tuple(_reordered(t) for t in reversed(tree[1])))
        case "mul" | "fd" | "mod":
            return (tree[0], _reordered(tree[1]), tree[2])
    return tree


def _substitute(tree: Tree, name: str, image: Tree) -> Tree:
    match tree[0]:
        case "v":
            return image if tree[1] == name else tree
        case "add":
            return ("add", tuple(_substitute(t, name, image) for t in tree[1]))
        case "mul" | "fd" | "mod":
            return (tree[0], _substitute(tree[1], name, image), tree[2])
    return tree


def _substituted(m: FuzzMap, name: str, image: Tree) -> FuzzMap:
    return FuzzMap(
        m.dims,
        m.symbols,
        m.rts,
        tuple(_substitute(t, name, image) for t in m.results),
        tuple((_substitute(e, name, image), lo, hi) for e, lo, hi in m.constraints),
    )


# ------------------------------------------------------------- questions


@dataclass
class Question:
    category: str
    a: str
    b: str  # the second map (equiv), or "" (simplify --prove)
    small_a: FuzzMap | None = None  # trees to judge by brute force (small instances)
    small_b: FuzzMap | None = None
    outcomes: dict[str, Any] = field(default_factory=dict)


def questions(seed: int, count: int) -> list[Question]:
    from verifier.expr import parse_map, print_map
    from verifier.simplify import simplify

    def simplified(text: str) -> str:
        return print_map(simplify(parse_map(text)).map, one_line=True)

    gen = Generator(seed)
    found: list[Question] = []
    for index in range(count):
        small = index % 2 == 0
        m = gen.fuzz_map(small)
        judged = small and m.size() <= _BRUTE_FORCE_POINTS
        pairs: list[tuple[str, FuzzMap | str]] = [
            ("rewrite", gen.rewrite(m, simplified)),
            ("constant", gen.constant(m)),
            ("corner", gen.corner(m)),
        ]
        for category, b in pairs:
            b_text = b if isinstance(b, str) else b.text()
            b_tree = b if judged and isinstance(b, FuzzMap) else None
            found.append(Question(category, m.text(), b_text, m if judged else None, b_tree))
        found.append(Question("simplify", m.text(), "", m if judged else None))
    return found


# ------------------------------------------------------------- judging


def _brute(a: FuzzMap | Any, b: FuzzMap | Any, pointwise: bool) -> str:
    if pointwise:
        fa, fb = _function(a), _function(b)
        if not fa and not fb:
            return "vacuous"
        return "equal" if fa == fb else "different"
    ra, rb = _relation(a), _relation(b)
    if not ra and not rb:
        return "vacuous"
    return "equal" if ra == rb else "different"


def _function(m: FuzzMap | Any) -> dict[tuple[int, ...], tuple[int, ...]]:
    if isinstance(m, FuzzMap):
        return m.function()
    return {tuple(p.values()): m.evaluate(p) for p in m.domain_points()}


def _relation(m: FuzzMap | Any) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    if isinstance(m, FuzzMap):
        return m.relation()
    return set(m.relation())


# ------------------------------------------------------------- children


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_TIMER = r"""
import json, sys, time
import contextlib, io
from verifier.cli import main
mode, policy = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    fields = line.rstrip("\n").split("\t")
    argv = {"equiv": ["equiv", *fields], "pointwise": ["equiv", "--pointwise", *fields],
            "simplify": ["simplify", "--prove", fields[0]]}[mode]
    argv += ["--format", "json"] + ([] if policy == "default" else ["--cross-check", policy])
    out = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(argv)
        except SystemExit:
            pass
    print(json.dumps([time.process_time() - start, out.getvalue()]), flush=True)
"""


def time_each(lines: list[str], mode: str, policy: str, timeout: float) -> list[Any]:
    """Per question: ``[CPU s, stdout of the command]`` run in one child by
    `verifier.cli.main` (what the command line runs, without the start-up);
    a question still running `timeout` seconds after the previous answer is
    a hang: the child is killed, the question marked ``HANG`` and the rest
    go to a new child."""
    results: list[Any] = []
    remaining = list(lines)
    while remaining:
        with tempfile.TemporaryFile("w+") as stdin:
            stdin.write("".join(line + "\n" for line in remaining))
            stdin.seek(0)
            child = subprocess.Popen(
                [sys.executable, "-c", _TIMER, mode, policy],
                stdin=stdin,
                stdout=subprocess.PIPE,
                cwd=ROOT,
            )
            assert child.stdout is not None
            done, pending = 0, b""
            while done < len(remaining):
                ready, _, _ = select.select([child.stdout], [], [], timeout)
                chunk = os.read(child.stdout.fileno(), 1 << 16) if ready else b""
                if not chunk:
                    break
                *lines_out, pending = (pending + chunk).split(b"\n")
                results += [json.loads(x) for x in lines_out]
                done += len(lines_out)
            child.kill()
            child.wait()
            child.stdout.close()
        if done < len(remaining):
            results.append([timeout, "HANG"])
            done += 1
        remaining = remaining[done:]
    return results


def run_cli(argv: list[str], timeout: float, stdin: str | None = None) -> tuple[str, float]:
    start = _children_cpu()
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "verifier", *argv],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "HANG", timeout
    return completed.stdout, _children_cpu() - start


def judge(question: Question, mode: str, output: str) -> str | None:
    """What is wrong with the command's `output` for `question`, or `None`."""
    if output == "HANG":
        return "hang"
    try:
        answer = json.loads(output)
    except ValueError:
        return f"no JSON answer: {output[:200]!r}"
    if "error" in answer:
        usage = "pointwise comparison needs the same variables" in answer["error"]
        return None if usage else f"error: {answer['error']}"
    verdict = answer["verdict"]
    if verdict == "unknown" and mode != "simplify" and "budget" not in answer.get("reason", ""):
        return f"unknown without an exhausted budget: {answer}"
    if question.small_a is None:
        if question.category == "rewrite" and verdict not in ("equal", "unknown", "vacuous"):
            pointwise_only = mode == "pointwise"  # a reflected symbol is equal as a relation only
            return None if pointwise_only else f"{verdict} on a pair equal by construction"
        if mode == "simplify" and verdict not in ("equal", "unknown", "vacuous"):
            return f"simplify --prove: {verdict}"
        return None
    from verifier.expr import parse_map

    a = question.small_a
    if mode == "simplify":
        simplified = parse_map(answer["simplified"])
        same = (len(a.dims), len(a.symbols), len(a.rts)) == (
            len(simplified.dims),
            len(simplified.range_vars),
            len(simplified.rt_vars),
        )
        truth = _brute(a, simplified, pointwise=same)
        if verdict in ("unknown", truth):
            return None
        return f"simplify --prove says {verdict}, brute force {truth}: {answer['simplified']}"
    b = question.small_b if question.small_b is not None else parse_map(question.b)
    if verdict == "unknown":
        return None
    truth = _brute(a, b, pointwise=mode == "pointwise")
    if verdict != truth:
        return f"verdict {verdict}, brute force {truth}"
    if verdict == "different":
        return _counterexample_problem(a, b, answer["counterexample"], mode)
    return None


def _counterexample_problem(a: FuzzMap, b: Any, witness: dict[str, Any], mode: str) -> str | None:
    if mode == "pointwise":
        point = witness["point"]
        names = [n for n, _, _ in a.variables]
        in_a = dict(zip(names, [point.get(n) for n in names], strict=True))
        fa = a.function()
        fb = _function(b)
        key = tuple(in_a[n] for n in names)
        if fa.get(key) == fb.get(key):
            return f"pointwise counterexample {point} does not re-evaluate to a difference"
        expected_a = None if witness["a"] is None else tuple(witness["a"])
        if fa.get(key) != expected_a:
            return f"pointwise counterexample {point}: a is {fa.get(key)}, said {witness['a']}"
        return None
    dims = tuple(witness["dims"][f"d{i}"] for i in range(len(a.dims)))
    row = (dims, tuple(witness["result"]))
    ra, rb = _relation(a), _relation(b)
    shown, other = (ra, rb) if witness["only_in"] == "a" else (rb, ra)
    if row not in shown or row in other:
        return f"relation counterexample {row} only in {witness['only_in']} does not re-evaluate"
    return None


# ------------------------------------------------------------------ main


_MODES = (
    ("equiv", "rewrite constant corner"),
    ("pointwise", "rewrite constant corner"),
    ("simplify", "simplify"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--maps", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--slowest", type=int, default=5)
    parser.add_argument("--dump", help="write every question, its CPU s and verdicts as JSON")
    options = parser.parse_args()
    all_questions = questions(options.seed, options.maps)
    timed: list[tuple[float, str, str, Question]] = []
    problems: list[str] = []
    hangs = 0
    print(
        f"{'command':30} {'category':10} {'pairs':>5} {'batch CPU s':>11} {'max CPU s':>9}  verdicts"
    )
    with tempfile.TemporaryDirectory() as directory:
        for mode, categories in _MODES:
            for category in categories.split():
                chosen = [q for q in all_questions if q.category == category]
                lines = [q.a + ("\t" + q.b if q.b else "") for q in chosen]
                for policy in ("default", "all"):
                    each = time_each(lines, mode, policy, options.timeout)
                    batch = Path(directory) / f"{mode}_{category}.tsv"
                    batch.write_text("".join(line + "\n" for line in lines))
                    argv = {
                        "equiv": ["equiv"],
                        "pointwise": ["equiv", "--pointwise"],
                        "simplify": ["simplify", "--prove"],
                    }[mode]
                    argv += ["--batch", str(batch)] + (
                        [] if policy == "default" else ["--cross-check", policy]
                    )
                    out, batch_cpu = run_cli(argv, options.timeout * len(lines))
                    outputs = out.splitlines() if out != "HANG" else ["HANG"] * len(lines)
                    verdicts: dict[str, int] = {}
                    for question, (cpu, single), line in zip(chosen, each, outputs, strict=False):
                        name = f"{mode} --cross-check {policy}"
                        hangs += single == "HANG"
                        timed.append((cpu, name, category, question))
                        for text in (single, line):
                            problem = judge(question, mode, text)
                            if problem:
                                problems.append(
                                    f"{name} [{category}] {problem}\n  a: {question.a}\n  b: {question.b}"
                                )
                        verdict = (
                            json.loads(line)["verdict"]
                            if line.startswith("{") and "verdict" in line
                            else line[:20]
                        )
                        verdicts[verdict] = verdicts.get(verdict, 0) + 1
                        question.outcomes[f"{mode}/{policy}"] = [cpu, verdict]
                    label = " ".join(argv[:2] if mode != "equiv" else argv[:1]) + f" ({policy})"
                    slowest = max(cpu for cpu, _ in each)
                    summary = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
                    print(
                        f"{label:30} {category:10} {len(lines):5} {batch_cpu:11.2f} {slowest:9.2f}  {summary}",
                        flush=True,
                    )
    timed.sort(key=lambda t: -t[0])
    print("\nslowest questions (CPU s in-process; then the single command line's CPU s):")
    for cpu, name, category, question in timed[: options.slowest]:
        mode = name.split()[0]
        policy = name.split()[-1]
        argv = {
            "equiv": ["equiv", question.a, question.b],
            "pointwise": ["equiv", "--pointwise", question.a, question.b],
            "simplify": ["simplify", "--prove", question.a],
        }[mode]
        argv += ["--format", "json"] + ([] if policy == "default" else ["--cross-check", policy])
        out, single_cpu = run_cli(argv, options.timeout)
        verdict = (
            out
            if out == "HANG"
            else json.loads(out).get("verdict", "?")
            if out.startswith("{")
            else out[:40]
        )
        print(
            f"{cpu:7.2f} {single_cpu:7.2f}  {name} [{category}] -> {verdict}\n    a: {question.a}\n    b: {question.b}"
        )
    print(
        f"\n{len(all_questions)} questions x 2 policies, {hangs} hang(s), {len(problems)} wrong verdict(s)"
    )
    for problem in problems:
        print(problem)
    if options.dump:
        Path(options.dump).write_text(
            json.dumps(
                [{"category": q.category, "a": q.a, "b": q.b, **q.outcomes} for q in all_questions],
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
