"""HLO parsing against a minimal regular-expression tokenizer (issue #13: ≤ 5×).

For the committed real dumps (examples/real/ and examples/corpus/): CPU
seconds of `parse_module_file` (the path every command takes: read, decode,
lex, parse, resolve names, infer omitted shapes) against one pass of a
minimal tokenizer over the same text (one `re.finditer` producing names,
numbers, strings, comments and punctuation: the least work any HLO reader
must do).  Prints one row per directory and the total ratio.

    python benchmarks/parse.py
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from verifier.hlo.parser import parse_module_file

ROOT = Path(__file__).parents[1] / "examples"
DIRECTORIES = ("real", "corpus")
REPEATS = 3

_TOKEN = re.compile(
    r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\]|\\.)*"|%?[A-Za-z_][\w.-]*|-?\d+|->|<=|.', re.S
)


def _tokens(text: str) -> int:
    return sum(1 for _ in _TOKEN.finditer(text))


def _cpu(action: object, paths: list[Path]) -> float:
    assert callable(action)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        for path in paths:
            action(path)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    print(f"{'directory':<12}{'files':>7}{'MB':>7}{'parse s':>10}{'regex s':>10}{'ratio':>8}")
    total_parse = total_regex = 0.0
    for name in DIRECTORIES:
        paths = sorted((ROOT / name).rglob("*.hlo"))
        size = sum(p.stat().st_size for p in paths) / 1e6
        parse = _cpu(parse_module_file, paths)
        regex = _cpu(lambda p: _tokens(p.read_text(encoding="utf-8")), paths)
        total_parse += parse
        total_regex += regex
        print(
            f"{name:<12}{len(paths):>7}{size:>7.2f}{parse:>10.3f}{regex:>10.3f}{parse / regex:>8.1f}"
        )
    print(f"{'total':<26}{total_parse:>10.3f}{total_regex:>10.3f}{total_parse / total_regex:>8.1f}")


if __name__ == "__main__":
    main()
