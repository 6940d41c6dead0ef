"""The tiling audit campaign: `--cases` random fusions and tile sizes
(`tests.tiling.simulator`) judged on the public path against the
independent brute force; prints the figures (cases, operands by verdict,
disagreements) and each disagreement's seed, sizes and HLO text.

    python -m tests.tiling.audit --cases 1000 --seed 0
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from tests.tiling.simulator import judge, random_case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    verdicts: Counter[str] = Counter()
    bad = 0
    for seed in range(args.seed, args.seed + args.cases):
        fusion, sizes = random_case(seed)
        try:
            kind, problems = judge(fusion, sizes)
        except Exception as error:
            kind, problems = "crash", [f"{type(error).__name__}: {error}"]
        verdicts.update(kind.split(","))
        if problems:
            bad += 1
            print(f"seed {seed} sizes {sizes}:", *problems, sep="\n  ")
            print(fusion.text())
    print(f"cases {args.cases}, operand tiles {dict(verdicts)}, disagreements {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
