"""HLO parsing against a minimal regular-expression tokenizer, and peak memory per instruction.

Speed (issue #34: parse ≤ 3× the tokenizer): CPU seconds of
`parse_module_file` (the path every command takes: read, decode, lex,
parse, resolve names, infer and check shapes) against one pass of a
minimal tokenizer over the same text (one `re.finditer` producing names,
numbers, strings, comments and punctuation, every token consumed: the
least work any HLO reader must do), least of `--repeats`, sides
interleaved.  The inputs: the committed real dumps (examples/real/ and
examples/corpus/), the ~95,000-instruction module of
`benchmarks/large_module.py`, and the `--xla-largest N` largest files of
`--xla DIR` (XLA's extracted test modules), one row each.

Memory (issue #34: ≤ 4 KB per instruction): a chain of `--instructions N`
elementwise instructions is written to a temporary file, then parsed (the
API, `verifier.hlo.parse_module_file`) and checked (`verifier check
--no-cache --jobs 1`, and with a new proof cache, the CLI: one process,
whose peak is the run's, then again in JSON with that cache: the module's
answers read back from it) each in a fresh process; the peak resident set of
each, less that of the same process on a one-instruction module (the
interpreter and the imports), divided by N.

    python -m benchmarks.parse                       # speed and memory (N = 1,000,000)
    python -m benchmarks.parse --instructions 100000 --xla /tmp/xla-test-hlo
    python -m benchmarks.parse --no-memory --repeats 1
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.large_module import module_text
from verifier.hlo.parser import parse_module_file

ROOT = Path(__file__).parents[1] / "examples"
DIRECTORIES = ("real", "corpus")

_TOKEN = re.compile(
    r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\]|\\.)*"|%?[A-Za-z_][\w.-]*|-?\d+|->|<=|.', re.S
)


def _tokens(path: Path) -> int:
    """Read, decode and tokenize the file at `path`; the number of tokens."""
    text = path.read_bytes().decode("utf-8")
    return sum(1 for _ in _TOKEN.finditer(text))


def _cpu(actions: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The least CPU seconds of each action over `repeats` rounds, interleaved."""
    best = dict.fromkeys(actions, float("inf"))
    for _ in range(repeats):
        for name, action in actions.items():
            start = time.process_time()
            action()
            best[name] = min(best[name], time.process_time() - start)
    return best


def _speed_row(label: str, paths: list[Path], repeats: int) -> tuple[float, float]:
    def parse() -> None:
        for path in paths:
            parse_module_file(path)

    def tokenize() -> None:
        for path in paths:
            _tokens(path)

    size = sum(p.stat().st_size for p in paths) / 1e6
    times = _cpu({"parse": parse, "tokenize": tokenize}, repeats)
    ratio = times["parse"] / times["tokenize"]
    print(
        f"{label:<28}{len(paths):>6}{size:>7.2f}{times['parse']:>10.3f}"
        f"{times['tokenize']:>10.3f}{ratio:>8.2f}",
        flush=True,
    )
    return times["parse"], times["tokenize"]


def speed(args: argparse.Namespace, scratch: Path) -> None:
    print(f"{'input':<28}{'files':>6}{'MB':>7}{'parse s':>10}{'regex s':>10}{'ratio':>8}")
    rows: list[tuple[str, list[Path]]] = [
        (name, sorted((ROOT / name).rglob("*.hlo"))) for name in DIRECTORIES
    ]
    large = scratch / "large.hlo"
    large.write_text(module_text(args.layers))
    rows.append((f"large_module ({args.layers} layers)", [large]))
    if args.xla is not None:
        files = sorted(Path(args.xla).glob("*.hlo"), key=lambda p: -p.stat().st_size)
        rows += [(f"xla {p.name}", [p]) for p in files[: args.xla_largest]]
    total_parse = total_regex = 0.0
    worst = 0.0
    for label, paths in rows:
        parse, regex = _speed_row(label, paths, args.repeats)
        total_parse += parse
        total_regex += regex
        worst = max(worst, parse / regex)
    print(
        f"{'total':<41}{total_parse:>10.3f}{total_regex:>10.3f}"
        f"{total_parse / total_regex:>8.2f}   (worst row {worst:.2f})"
    )


def chain_text(instructions: int) -> str:
    """A module of one parameter and `instructions - 1` elementwise ops, each
    reading the previous one (a negate, then alternately an add and a multiply).

    >>> print(chain_text(3))
    HloModule chain_3
    <BLANKLINE>
    ENTRY %main (p: f32[8]) -> f32[8] {
      %v0 = f32[8]{0} parameter(0)
      %v1 = f32[8]{0} negate(%v0)
      ROOT %v2 = f32[8]{0} add(%v1, %v0)
    }
    <BLANKLINE>
    """
    lines = [f"HloModule chain_{instructions}", "", "ENTRY %main (p: f32[8]) -> f32[8] {"]
    lines.append("  %v0 = f32[8]{0} parameter(0)")
    for i in range(1, instructions):
        root = "ROOT " if i == instructions - 1 else ""
        op = "negate" if i == 1 else ("add", "multiply")[i % 2]
        operands = f"%v{i - 1}" if op == "negate" else f"%v{i - 1}, %v0"
        lines.append(f"  {root}%v{i} = f32[8]{{0}} {op}({operands})")
    lines += ["}", ""]
    return "\n".join(lines)


_PARSE = "from verifier.hlo import parse_module_file; parse_module_file(sys.argv[1])"
_CHECK = "import runpy; sys.argv[0] = 'verifier'; runpy.run_module('verifier', run_name='__main__')"
# The child reports its own peak: Linux keeps a process's `ru_maxrss` across
# exec, so the parent's would count; a new process image's VmHWM starts afresh.
_PEAK = """import sys
try:
    {body}
finally:
    sys.stderr.write([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0])
"""


def _peak_kb(body: str, arguments: list[str]) -> tuple[int, float]:
    """The peak resident set (KB) and CPU seconds of Python running `body` with `arguments`."""
    command = [sys.executable, "-c", _PEAK.format(body=body), *arguments]
    start = os.times()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    end = os.times()
    if done.returncode not in (0, 1, 3, 4):  # the gate's verdicts; 2 and 70 are failures
        raise SystemExit(f"{arguments} exited {done.returncode}: {done.stderr}")
    peak = int(done.stderr.rsplit("VmHWM:", 1)[1].split()[0])
    cpu = end.children_user + end.children_system - start.children_user - start.children_system
    return peak, cpu


def memory(args: argparse.Namespace, scratch: Path) -> None:
    count = args.instructions
    chain = scratch / "chain.hlo"
    chain.write_text(chain_text(count))
    small = scratch / "one.hlo"
    small.write_text(chain_text(2))
    check = ["check", "--jobs", "1"]
    commands = {
        "parse (API)": (_PARSE, []),
        "check --no-cache (CLI)": (_CHECK, [*check, "--no-cache"]),
        "check, new cache (CLI)": (_CHECK, [*check, "--cache-dir"]),
        # The cache of the run before: the module's answers are read back.
        "check --format json, warm": (_CHECK, [*check, "--format", "json", "--cache-dir"]),
    }
    print(f"\nchain of {count:,} instructions ({chain.stat().st_size / 1e6:.1f} MB)")
    print(f"{'path':<26}{'peak MiB':>10}{'base MiB':>10}{'KB/instr':>10}{'CPU s':>8}")
    caches: dict[Path, list[str]] = {}
    for label, (body, arguments) in commands.items():
        peaks = []
        for module in (small, chain):
            cache = []
            if arguments[-1:] == ["--cache-dir"]:
                # A new directory (a cold run), or the one the run before wrote.
                warm = label.endswith("warm")
                cache = caches[module] if warm else [tempfile.mkdtemp(dir=scratch)]
                caches[module] = cache
            peaks.append(_peak_kb(body, [*arguments, *cache, str(module)]))
        (base, _), (peak, cpu) = peaks
        per = (peak - base) / count
        print(f"{label:<26}{peak / 1024:>10.0f}{base / 1024:>10.0f}{per:>10.2f}{cpu:>8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds per speed row (least)")
    parser.add_argument("--layers", type=int, default=5000, help="blocks of large_module.py")
    parser.add_argument("--xla", metavar="DIR", help="XLA's extracted test modules")
    parser.add_argument("--xla-largest", type=int, default=3, metavar="N")
    parser.add_argument("--instructions", type=int, default=1_000_000, metavar="N")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        if not args.no_speed:
            speed(args, Path(directory))
        if not args.no_memory:
            memory(args, Path(directory))


if __name__ == "__main__":
    main()
