"""Where checks remember answers they have proved: a key → JSON-able answer
store, so that a second run over unchanged modules does not ask the solvers
again.

A key is the canonical text of the question (the check's name and the
canonical text of every map and shape it is about); the store adds the tool
and solver versions, so an upgrade never reuses an old answer.  `MemoryCache`
keeps answers for one process; the gate uses a persistent store with the same
protocol.

A stored answer is only ever a hint: `cached` reads it with the check's
own `decode`, and an answer that does not decode (a row of the wrong shape)
is computed again and stored over, never an error of the run.

>>> cache = MemoryCache()
>>> calls = []
>>> def prove():
...     calls.append(1)
...     return {"outcome": "proved"}
>>> def outcome(answer):
...     return str(answer["outcome"])
>>> question = "in-bounds|(d0) -> (d0), domain: d0 in [0, 3]|[4]"
>>> cached(cache, question, prove, outcome)
'proved'
>>> cached(cache, question, prove, outcome)
'proved'
>>> len(calls)
1
>>> cache.store(question, {"verdict": "proved"})  # not what `outcome` reads
>>> cached(cache, question, prove, outcome), len(calls), cache.lookup(question)
('proved', 2, {'outcome': 'proved'})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

CachedRecord = dict[str, Any]
"""What a proof cache stores for one question: a JSON object (`cached`)."""

_T = TypeVar("_T")


class ProofCache(Protocol):
    """A store of answers by question key."""

    def lookup(self, key: str) -> CachedRecord | None:
        """The stored answer to `key`, or None."""

    def store(self, key: str, answer: CachedRecord) -> None:
        """Remember `answer` for `key`."""


class MemoryCache:
    """A `ProofCache` that lives as long as the object."""

    def __init__(self) -> None:
        self._answers: dict[str, CachedRecord] = {}

    def lookup(self, key: str) -> CachedRecord | None:
        return self._answers.get(key)

    def store(self, key: str, answer: CachedRecord) -> None:
        self._answers[key] = answer


def cached(
    cache: ProofCache,
    key: str,
    compute: Callable[[], CachedRecord],
    decode: Callable[[CachedRecord], _T],
) -> _T:
    """`decode` of the answer to `key` from `cache`; computed and stored when
    absent, or when the stored one does not decode (`decode` raises
    `KeyError`, `TypeError`, `ValueError` or `IndexError`).

    Only settled answers should be worth storing; `compute` decides what it
    returns, and an ``unknown`` is stored like any other answer because the
    budgets are deterministic (the same question gives the same answer).
    """
    answer = cache.lookup(key)
    if answer is not None:
        try:
            return decode(answer)
        except (KeyError, TypeError, ValueError, IndexError):
            pass  # not an answer this check writes: asked again
    answer = compute()
    cache.store(key, answer)
    return decode(answer)
