"""Pathological map pairs (many symbols, large moduli, many constraints, deep
nesting) whose true verdict is known by construction: every solver question
about them must end within its budget, answering that verdict or `unknown`.

Each case is ``(name, a, b, truth)`` in XLA map text; `truth` is
``"equal"``, ``"different"``, or ``None`` when only "an answer, not a hang"
is known.  `scale` shrinks the cases for the fast tier.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    a: str
    b: str
    truth: str | None


def _symbols(count: int, *, offset: int = 0, reversed_: bool = False) -> str:
    """``d0 + Σ (i+1)·s_i (+ offset)``, s_i in [0, 3 + i]; with `reversed_`
    each s_i replaced by ``(3 + i) - s_i`` — the same relation."""
    header = "(d0)[" + ", ".join(f"s{i}" for i in range(count)) + "]"
    terms = [
        f"({3 + i} - s{i}) * {i + 1}" if reversed_ else f"s{i} * {i + 1}" for i in range(count)
    ]
    domain = ", ".join(f"s{i} in [0, {3 + i}]" for i in range(count))
    return f"{header} -> (d0 + {' + '.join(terms)} + {offset}), domain: d0 in [0, 99], {domain}"


def _large_modulus(modulus: int, *, shift: int) -> str:
    """A constrained 4-symbol map with ``mod modulus`` of sums (XLA's
    flattened indices); `shift` is added inside the mod."""
    header = "(d0, d1)[s0, s1, s2, s3]"
    top = modulus - 1
    domain = (
        f"domain: d0 in [0, 999], d1 in [0, {5 * modulus - 1}], s0 in [0, {top}], "
        f"s1 in [0, {top}], s2 in [0, {top}], s3 in [0, {top}], "
        f"(s0 + s1 * 3 + s2 * 7 + s3 * 11) mod {modulus} in [0, {modulus // 2 - 1}], "
        f"(d1 + s0 - s2) mod {modulus} in [5, {modulus - 1000 if modulus > 2000 else modulus - 5}]"
    )
    linear = f"d0 * {modulus} + s0 * 137 + s1 * 7919 + s2 + s3 * 3 + {shift}"
    return f"{header} -> (({linear}) mod {modulus}, (d1 + s0 + s1) floordiv {modulus}), {domain}"


def _nested(depth: int, *, swapped: bool) -> str:
    """``d0`` through `depth` alternating floordivs and mods, plus ``d0``."""
    expr = "d0"
    for i in range(depth):
        expr = f"({expr} floordiv {2 + i % 3})" if i % 2 == 0 else f"({expr} mod {5 + i % 7})"
    result = f"d0 + {expr}" if swapped else f"{expr} + d0"
    return f"(d0) -> ({result}), domain: d0 in [0, 1000000]"


def _many_mods(count: int, *, swapped: bool) -> str:
    """A 2-dim map constrained by `count` mod constraints."""
    constraints = ", ".join(
        f"(d0 + d1 * {k + 1}) mod {7 + k} in [0, {3 + k}]" for k in range(count)
    )
    result = "d1 + d0" if swapped else "d0 + d1"
    return f"(d0, d1) -> ({result}, d1), domain: d0 in [0, 99999], d1 in [0, 99999], {constraints}"


def _wide_values(*, reflected: bool) -> str:
    """A fuzzed 4-symbol map (benchmarks/fuzz_questions.py) whose values
    reach 30 bits (``s3 * 1024``): floordiv chains and ``mod 20000`` of
    sums, constrained; with `reflected` the symbol s2 is replaced by
    ``19999 - s2`` — the same relation.  isl spends its whole budget on it
    (``unknown``): 2.1 CPU-seconds on 50,000 operations, 0.8 s on 40,000.
    Shrinking it (`scale`) keeps the cost, so only the slow tier has it."""
    s2 = "(19999 - s2)" if reflected else "s2"
    return (
        f"(d0)[s0, s1, s2, s3] -> ((((s1 + s0 * 3 + s3 * 137 + {s2} * 2) floordiv 1024) "
        f"floordiv 7) floordiv 7 + d0 * 16 + {s2} + s3 * 1024 + 5), domain: d0 in [0, 0], "
        "s0 in [0, 0], s1 in [0, 99999], s2 in [0, 19999], s3 in [0, 1000000], "
        "((s0 * 16 + s1 + d0 * 20000 + s3 + 9) floordiv 4) in [240160, 240261], "
        f"((s0 * 8 + d0 * 20000 + {s2} + s3) mod 20000) in [6582, 11582]"
    )


def cases(scale: int = 1) -> list[Case]:
    """The pathological cases; `scale` 1 is full size (seconds each at
    most), larger values shrink them (the fast tier uses 4)."""
    symbols_small, symbols_large = max(4, 12 // scale), max(5, 30 // scale)
    modulus = 20000 // scale**4 if scale > 1 else 20000
    depth, mods = max(6, 60 // scale), max(4, 20 // scale)
    wide = [
        Case(
            "values of 30 bits, 4 symbols, one reflected, equal",
            _wide_values(reflected=False),
            _wide_values(reflected=True),
            "equal",
        )
    ]
    return [
        *(wide if scale == 1 else []),
        Case(
            f"{symbols_small}-symbol pair, different",
            _symbols(symbols_small),
            _symbols(symbols_small, offset=1),
            "different",
        ),
        Case(
            f"{symbols_small}-symbol pair, equal",
            _symbols(symbols_small),
            _symbols(symbols_small, reversed_=True),
            "equal",
        ),
        Case(
            f"{symbols_large}-symbol pair, different",
            _symbols(symbols_large),
            _symbols(symbols_large, offset=1),
            "different",
        ),
        Case(
            f"mod {modulus}, 4 symbols, constrained, equal",
            _large_modulus(modulus, shift=0),
            _large_modulus(modulus, shift=modulus),
            "equal",
        ),
        Case(
            f"mod {modulus}, 4 symbols, constrained, shifted by one",
            _large_modulus(modulus, shift=0),
            _large_modulus(modulus, shift=1),
            None,
        ),
        Case(
            f"{depth} nested floordiv/mod, equal",
            _nested(depth, swapped=False),
            _nested(depth, swapped=True),
            "equal",
        ),
        Case(
            f"{mods} mod constraints, equal",
            _many_mods(mods, swapped=False),
            _many_mods(mods, swapped=True),
            "equal",
        ),
    ]
