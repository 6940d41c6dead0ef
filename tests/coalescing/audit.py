"""The coalescing audit campaign: `--cases` random loop fusions
(`tests.coalescing.simulator`), every device, judged on the public path
against the independent brute force; prints the figures (cases, loop
fusions judged, other emitters, disagreements) and each disagreement's
seed and HLO text.

    python -m tests.coalescing.audit --cases 300 --seed 0
    python -m tests.coalescing.audit --replay 17      # one case, its text and verdict
    python -m tests.coalescing.audit --transpose --cases 200   # the tiled transpose emitter
    python -m tests.coalescing.audit --reduction --cases 200   # the four reduction emitters
    python -m tests.coalescing.audit --concatenate --cases 100 # the concatenate emitter
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

from tests.coalescing.reduction_simulator import judge as judge_shared
from tests.coalescing.reduction_simulator import (
    random_concatenate_fusion,
    random_reduction_fusion,
)
from tests.coalescing.simulator import DEVICES, Fusion, random_fusion
from tests.coalescing.simulator import judge as judge_fusion
from tests.coalescing.transpose_simulator import judge as judge_transpose
from tests.coalescing.transpose_simulator import random_transpose_fusion


def case(seed: int, large_every: int) -> tuple[Fusion, str]:
    rng = random.Random(seed)
    large = large_every > 0 and seed % large_every == large_every - 1
    fusion = random_fusion(rng, large=large)
    return fusion, rng.choice(sorted(DEVICES))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--large-every", type=int, default=20)
    parser.add_argument("--replay", type=int)
    parser.add_argument("--transpose", action="store_true", help="transpose-emitter fusions")
    parser.add_argument("--reduction", action="store_true", help="reduction-emitter fusions")
    parser.add_argument("--concatenate", action="store_true", help="concatenate-emitter fusions")
    args = parser.parse_args(argv)
    seeds = [args.replay] if args.replay is not None else range(args.seed, args.seed + args.cases)
    kinds: Counter[str] = Counter()
    bad = 0
    for seed in seeds:
        hero, shared = None, args.reduction or args.concatenate
        if shared:
            rng = random.Random(seed)
            maker = random_reduction_fusion if args.reduction else random_concatenate_fusion
            fusion = maker(rng)
            device = rng.choice(sorted(DEVICES))
        elif args.transpose:
            rng = random.Random(seed)
            fusion, hero = random_transpose_fusion(rng)
            device = rng.choice(sorted(DEVICES))
        else:
            fusion, device = case(seed, args.large_every)
        try:
            if shared:
                kind, problems = judge_shared(fusion, device)
            elif hero is not None:
                kind, problems = judge_transpose(fusion, hero, device)
            else:
                kind, problems = judge_fusion(fusion, device)
        except Exception as error:
            kind, problems = "crash", [f"{type(error).__name__}: {error}"]
        kinds[kind.split(":")[0]] += 1
        print(f"seed {seed}: {kind}, {len(problems)} disagreements", file=sys.stderr)
        if problems or args.replay is not None:
            bad += bool(problems)
            print(f"seed {seed} ({device}): {kind}", *problems, sep="\n  ")
            print(fusion.text())
        sys.stdout.flush()
    print(f"cases {len(seeds)}, {dict(kinds)}, disagreements {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
