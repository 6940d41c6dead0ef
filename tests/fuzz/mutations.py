"""Mutations of valid inputs into hostile ones, and the seeds they start from.

A mutation is what an adversarial user, a truncated download or a broken
generator does to a file: cut it, delete or duplicate a span, swap two
spans, flip bytes, and splice in what breaks parsers — integers of thousands
of digits or just past int64, absurd nesting, control characters, bytes that
are not UTF-8, very long runs of blanks.  Every mutation is a function of a
`random.Random`, so an input is reproducible from its seed; Hypothesis
strategies draw the seed (and the seed text) so it can shrink them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

# Real modules (the largest dump aside: a mutant of it takes a second to
# parse), the indexing document's cases and the fusion cases.
HLO_SEEDS: tuple[bytes, ...] = tuple(
    path.read_bytes()
    for directory in ("real", "spec", "fusion")
    for path in sorted((ROOT / "examples" / directory).glob("*.hlo"))
    if path.stat().st_size < 100_000
)


def _map_seeds() -> tuple[str, ...]:
    """The simplifier's golden maps and the maps the analysis prints for the
    bundled examples (corpus/maps.txt)."""
    cases = (ROOT / "examples" / "maps" / "simplifier_cases.tsv").read_text(encoding="utf-8")
    corpus = (Path(__file__).parent / "corpus" / "maps.txt").read_text(encoding="utf-8")
    maps = [
        field
        for line in [*cases.splitlines(), *corpus.splitlines()]
        if line.strip() and not line.startswith("#")
        for field in line.split("\t")
    ]
    return tuple(dict.fromkeys(maps))


MAP_SEEDS: tuple[str, ...] = _map_seeds()

# What breaks parsers, spliced in at random places.
_HOSTILE_SPLICES: tuple[Callable[[random.Random], bytes], ...] = (
    lambda r: b"9" * r.choice([19, 20, 400, 5000]),  # past int64, past int()'s digit limit
    lambda r: b"9223372036854775808",  # int64 max + 1
    lambda r: b"-9223372036854775809",
    lambda r: b"(" * r.choice([100, 1000, 20_000]),
    lambda r: b"[" * r.choice([100, 20_000]),
    lambda r: b"{" * r.choice([100, 20_000]),
    lambda r: b"min(" * r.choice([200, 3000]),
    lambda r: b"-" * r.choice([100, 10_000]),
    lambda r: b" " * r.choice([1000, 30_000]),
    lambda r: b"\n" * r.choice([10, 10_000]),
    lambda r: bytes([r.randrange(0x80, 0x100) for _ in range(r.randint(1, 4))]),  # not UTF-8
    lambda r: b"\x1b[31m",
    lambda r: b"\x00",
    lambda r: "\u200b\ufeff\u00a0\u0661".encode(),
    lambda r: b'"' if r.random() < 0.5 else b"'",
    lambda r: b"/*",
    lambda r: b"0x" + b"f" * r.choice([8, 17, 40]),
    lambda r: b"1e309",
    lambda r: r.choice([b"f32[", b"s32[", b"pred[", b"(", b"{1,0}", b"}", b"->", b","]),
)


def mutate(data: bytes, r: random.Random, *, rounds: int | None = None) -> bytes:
    """`data` after 1–4 random mutations."""
    for _ in range(r.randint(1, 4) if rounds is None else rounds):
        if not data:
            data = b"" if r.random() < 0.5 else r.choice(_HOSTILE_SPLICES)(r)
            continue
        at = r.randrange(len(data))
        length = r.randint(1, 16)
        match r.randrange(8):
            case 0:
                data = data[:at]
            case 1:
                data = data[:at] + data[at + length :]
            case 2:
                data = data[:at] + data[at : at + length] * r.randint(2, 50) + data[at:]
            case 3:
                other = r.randrange(len(data))
                data = data[:at] + data[other : other + length] + data[at + length :]
            case 4:
                data = data[:at] + bytes([r.randrange(256)]) + data[at + 1 :]
            case 5:
                # Replace a number by a hostile one: where most limits live.
                digits = data.find(b"1", at)
                at = digits if digits >= 0 else at
                data = data[:at] + r.choice(_HOSTILE_SPLICES[:3])(r) + data[at + 1 :]
            case _:
                data = data[:at] + r.choice(_HOSTILE_SPLICES)(r) + data[at:]
    return data


_NUMBER = re.compile(rb"(?<![A-Za-z_.\d])\d+(?![\d.])")
_NUMBERS = (0, 1, 2, 3, 7, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 10**30)


def renumber(data: bytes, r: random.Random) -> bytes:
    """`data` with one integer (a dimension, an index, an attribute) replaced
    by another: still well-formed text, so the mutant reaches shape checks,
    the analysis and the solvers."""
    numbers = list(_NUMBER.finditer(data))
    if not numbers:
        return data
    match = r.choice(numbers)
    value = r.choice(_NUMBERS) if r.random() < 0.5 else int(match.group()) + r.choice([-1, 1])
    return data[: match.start()] + str(value).encode() + data[match.end() :]


def mutated_hlo(seed: int, *, gentle: bool = False) -> bytes:
    """Mutant `seed` of a seed module: 1–4 mutations, or (`gentle`) one
    renumbering or one mutation, which leave more modules parseable so that
    the CLI reaches the analysis."""
    r = random.Random(seed)
    data = r.choice(HLO_SEEDS)
    if not gentle:
        return mutate(data, r)
    return renumber(data, r) if r.random() < 0.7 else mutate(data, r, rounds=1)


def mutated_map(seed: int, *, gentle: bool = False) -> bytes:
    """Mutant `seed` of a seed map (`gentle`: as for `mutated_hlo`)."""
    r = random.Random(seed)
    data = r.choice(MAP_SEEDS).encode()
    if not gentle:
        return mutate(data, r)
    return renumber(data, r) if r.random() < 0.7 else mutate(data, r, rounds=1)


def hlo_inputs() -> st.SearchStrategy[bytes]:
    """Mutants of the real modules, the indexing document's and the fusion cases."""
    return st.integers(0, 2**32).map(mutated_hlo)


def map_inputs() -> st.SearchStrategy[bytes]:
    """Mutants of the simplifier's golden maps."""
    return st.integers(0, 2**32).map(mutated_map)
