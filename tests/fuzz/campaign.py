"""The fuzz campaign: numbered hostile inputs through both parsers and the
CLI, each under a time guard; prints how many ended how, and every distinct
traceback or hang with the number of an input that reproduces it.

Input ``i`` is a pure function of ``i`` (its target and its mutation seed),
so a campaign can be split into chunks run in parallel, and any input
replayed::

    python -m tests.fuzz.campaign --inputs 100000 --chunk 1/4   # parsers
    python -m tests.fuzz.campaign --inputs 0 --cli-inputs 2500  # the CLI
    python -m tests.fuzz.campaign --replay 31337                # one input

The slow test tier (tests/fuzz/test_fuzz_slow.py) runs the same campaign.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.harness import (
    Ending,
    Result,
    cli_on_map,
    cli_on_module,
    parse_hlo_file,
    parse_map_text,
    scratch,
)
from tests.fuzz.mutations import mutated_hlo, mutated_map

PARSER_TARGETS = ("map-parser", "map-parser", "map-parser", "hlo-parser", "hlo-parser")
CLI_TARGETS = ("maps", "check", "utilization", "simplify", "equiv")
# CLI inputs are numbered apart from parser inputs, so both can grow alone.
CLI_BASE = 10**9


def target_of(number: int) -> str:
    if number >= CLI_BASE:
        return CLI_TARGETS[(number - CLI_BASE) % len(CLI_TARGETS)]
    return PARSER_TARGETS[number % len(PARSER_TARGETS)]


def run_input(number: int, directory: Path) -> tuple[str, Result]:
    """Input `number`: its target and how it ended."""
    target = target_of(number)
    match target:
        case "map-parser":
            return target, parse_map_text(mutated_map(number))
        case "hlo-parser":
            return target, parse_hlo_file(mutated_hlo(number), directory)
        case "simplify" | "equiv":
            return target, cli_on_map(target, mutated_map(number, gentle=True))
        case _:
            return target, cli_on_module(target, mutated_hlo(number, gentle=True), directory)


@dataclass
class Tally:
    """How many inputs of each target ended how, and a reproducer per
    distinct failure."""

    endings: Counter[tuple[str, Ending]] = field(default_factory=Counter)
    # "target: kind" -> (inputs, the first input, its message)
    failures: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    def add(self, number: int, target: str, result: Result) -> None:
        self.endings[target, result.ending] += 1
        if result.ending in (Ending.TRACEBACK, Ending.HANG, Ending.WRONG_EXIT):
            kind = f"{target}: {result.ending.value}: {result.kind}"
            count, first, detail = self.failures.get(kind, (0, number, result.detail))
            self.failures[kind] = (count + 1, first, detail)

    def count(self, ending: Ending) -> int:
        return sum(n for (_, e), n in self.endings.items() if e is ending)

    @property
    def inputs(self) -> int:
        return sum(self.endings.values())

    def report(self) -> Iterator[str]:
        targets = sorted({t for t, _ in self.endings})
        header = f"{'target':<12}" + "".join(f"{e.value:>17}" for e in Ending)
        yield header
        for target in targets:
            yield f"{target:<12}" + "".join(f"{self.endings[target, e]:>17}" for e in Ending)
        yield (
            f"inputs {self.inputs}, tracebacks {self.count(Ending.TRACEBACK)}, "
            f"hangs {self.count(Ending.HANG)}, wrong exit codes {self.count(Ending.WRONG_EXIT)}"
        )
        for kind, (count, first, detail) in sorted(self.failures.items()):
            yield f"  {count}× {kind} (first: input {first}: {detail})"


def run_campaign(numbers: Iterator[int] | range) -> Tally:
    tally = Tally()
    with scratch() as directory:
        for number in numbers:
            tally.add(number, *run_input(number, directory))
    return tally


def chunk(total: int, index: int, chunks: int, base: int = 0) -> range:
    """The `index`-th (1-based) of `chunks` slices of ``range(total)``."""
    size = -(-total // chunks)
    return range(base + (index - 1) * size, base + min(total, index * size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="parser inputs")
    parser.add_argument("--cli-inputs", type=int, default=0, help="CLI inputs")
    parser.add_argument("--chunk", default="1/1", metavar="I/K", help="run the I-th of K chunks")
    parser.add_argument("--replay", type=int, metavar="N", help="run input N alone")
    args = parser.parse_args()
    start = time.process_time()
    if args.replay is not None:
        tally = run_campaign(range(args.replay, args.replay + 1))
    else:
        index, chunks = (int(part) for part in args.chunk.split("/"))
        parsers = chunk(args.inputs, index, chunks)
        commands = chunk(args.cli_inputs, index, chunks, CLI_BASE)
        tally = run_campaign(iter([*parsers, *commands]))
    for line in tally.report():
        print(line)
    print(f"{time.process_time() - start:.1f} CPU seconds")


if __name__ == "__main__":
    main()
