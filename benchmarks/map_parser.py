"""Map-text parsing stays linear in the length of the line (issue #14).

For each shape of long line (a sum of many terms, a long run of blanks, many
domain constraints), `verifier simplify`'s parser (`parse_map`) on a line of
n and of 10·n characters, in CPU seconds, and the ratio: about 10 for a
linear parser, about 100 for a quadratic one.

    python benchmarks/map_parser.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

from verifier.expr.parser import parse_map

BOUND = ", domain: d0 in [0, 9]"
SHAPES: dict[str, Callable[[int], str]] = {
    "sum of terms": lambda n: "(d0) -> (" + " + ".join(["d0 mod 3"] * (n // 11)) + ")" + BOUND,
    "trailing blanks": lambda n: "(d0) -> (d0)" + BOUND + " " * n,
    "constraints": lambda n: "(d0) -> (d0)" + BOUND + ", d0 mod 3 in [0, 2]" * (n // 20),
}


def _cpu_seconds(text: str) -> float:
    start = time.process_time()
    parse_map(text)
    return time.process_time() - start


def main() -> None:
    print(f"{'shape':<18}{'chars':>9}{'seconds':>10}{'chars':>10}{'seconds':>10}{'ratio':>8}")
    for name, make in SHAPES.items():
        small, large = make(10_000), make(100_000)
        small_seconds, large_seconds = _cpu_seconds(small), _cpu_seconds(large)
        ratio = large_seconds / max(small_seconds, 1e-9)
        print(
            f"{name:<18}{len(small):>9}{small_seconds:>10.4f}"
            f"{len(large):>10}{large_seconds:>10.4f}{ratio:>8.1f}"
        )


if __name__ == "__main__":
    main()
