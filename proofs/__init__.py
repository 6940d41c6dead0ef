"""Machine-checked lemmas for every simplifier rule, one module per family.

Each module's `LEMMAS` holds one `Lemma` per rule of that family, named after
the rule.  `prove_all()` proves them all with z3 (see `proofs.lemma` for the
encodings and budget); `known_wrong` holds rules that are wrong elsewhere and
must be *refuted*.

>>> result = prove(lemma_named("mod_drop_when_no_wrap"))
>>> result.verdict
'proved'
"""

from __future__ import annotations

from proofs import by_range, constraints, construction, floordiv, known_wrong, mod, sums, symbols
from proofs.lemma import Lemma, LemmaResult, prove

# The families of `verifier.simplify.rules`, each proved by its namesake here.
FAMILIES: dict[str, tuple[Lemma, ...]] = {
    "construction": construction.LEMMAS,
    "range": by_range.LEMMAS[:1],
    "minmax": by_range.LEMMAS[1:],
    "mod": mod.LEMMAS,
    "floordiv": floordiv.LEMMAS,
    "sums": sums.LEMMAS,
    "constraints": constraints.LEMMAS,
    "symbols": symbols.LEMMAS,
}
LEMMAS: tuple[Lemma, ...] = tuple(lemma for family in FAMILIES.values() for lemma in family)
KNOWN_WRONG: tuple[Lemma, ...] = known_wrong.LEMMAS


def lemma_named(name: str) -> Lemma:
    """The lemma of the rule called `name` (KeyError when there is none)."""
    for lemma in LEMMAS + KNOWN_WRONG:
        if lemma.name == name:
            return lemma
    raise KeyError(f"no lemma named {name!r}")


def prove_all() -> list[LemmaResult]:
    """Every rule's lemma proved (or not), in registry order."""
    return [prove(lemma) for lemma in LEMMAS]


def refute_known_wrong() -> list[LemmaResult]:
    """The known-wrong rules' lemmas, each expected to be refuted."""
    return [prove(lemma) for lemma in KNOWN_WRONG]


__all__ = [
    "FAMILIES",
    "KNOWN_WRONG",
    "LEMMAS",
    "Lemma",
    "LemmaResult",
    "lemma_named",
    "prove",
    "prove_all",
    "refute_known_wrong",
]
