"""The partition check: the operands of a concatenate, a pad or a
dynamic-update-slice each write their own part of the output, and together
all of it — the images of their input→output maps are pairwise disjoint and
cover the output exactly.  A witness is an output point covered twice, or
not at all, or reached outside the output.

Runtime variables (a dynamic-update-slice's offsets) are held fixed: the
pieces must partition the output for *every* feasible offset, so the update
window and the rest of the operand are compared at the same offsets.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr import parse_map
>>> low = parse_map("(d0) -> (d0), domain: d0 in [0, 4]")
>>> high = parse_map("(d0) -> (d0 + 4), domain: d0 in [0, 11]")
>>> result = check_partition([("operand 0", (low,)), ("operand 1", (high,))], (16,), MemoryCache())
>>> result.outcome.value, result.message
('refuted', 'output point o0 = 4 is written by operand 0 and by operand 1')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from verifier.analysis.instruction_maps import Indexing
from verifier.checks.budget import Budget
from verifier.checks.cache import CachedRecord, ProofCache, cached
from verifier.checks.result import DEFAULT_BUDGET, CheckResult, point_text, union_key
from verifier.checks.verdict import Outcome
from verifier.expr import IndexingMap, Interval, Undefined

if TYPE_CHECKING:
    from verifier.bridges.isl_sets import PartitionDefect

CHECK = "partition"

# The ops whose operands partition the output, and which operands are the
# pieces (a dynamic-update-slice's offsets and a pad's value are read by
# many points but written only where the op puts them).
PIECES: dict[str, tuple[int, ...] | None] = {
    "concatenate": None,  # every operand
    "pad": (0, 1),
    "dynamic-update-slice": (0, 1),
}

Piece = tuple[str, Indexing]


def check_partition(
    pieces: Sequence[Piece],
    box: Sequence[int],
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
) -> CheckResult:
    """Whether the images of the `pieces` (a label and the input→output maps
    of one operand) partition the box ``[0, box_i - 1]``."""
    answer = partition_answer([indexing for _, indexing in pieces], box, cache, budget=budget)
    return answer.result([label for label, _ in pieces])


@dataclass(frozen=True)
class PartitionAnswer:
    """The partition check's answer before the pieces are named: a function
    of their maps and the box alone, so one answer serves every place with
    the same maps (a model's layers), each naming its own operands
    (`result`).  `defect` is None when the check does not apply: then
    `reason`, about piece `undefined` when it is an unknown indexing."""

    box: tuple[int, ...]
    defect: PartitionDefect | None = None
    parameters: int = 0
    reason: str = ""
    undefined: int | None = None

    def result(self, labels: Sequence[str]) -> CheckResult:
        """The answer with piece ``k`` called ``labels[k]``."""
        if self.defect is not None:
            return _result(self.defect, list(labels), list(self.box), self.parameters)
        if self.undefined is not None:
            return CheckResult(
                Outcome.UNSUPPORTED, f"{labels[self.undefined]}: unknown indexing: {self.reason}"
            )
        return CheckResult(Outcome.UNSUPPORTED, self.reason)


def partition_answer(
    pieces: Sequence[Indexing],
    box: Sequence[int],
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
) -> PartitionAnswer:
    """`check_partition` of the `pieces`' maps, the pieces not named yet:
    the isl question is asked (and cached) once for all places it is about."""
    shape = tuple(box)
    groups: list[tuple[IndexingMap, ...]] = []
    for number, indexing in enumerate(pieces):
        if isinstance(indexing, Undefined):
            return PartitionAnswer(shape, reason=indexing.reason, undefined=number)
        groups.append(tuple(indexing))
    counts = {len(m.rt_vars) for group in groups for m in group}
    if len(counts) > 1:
        return PartitionAnswer(shape, reason="the pieces' maps have different runtime variables")
    parameters = _parameters([m for group in groups for m in group], counts.pop() if counts else 0)
    key = f"{CHECK}-defect|{list(box)}|" + " | ".join(
        f"{number}: " + union_key(group) for number, group in enumerate(groups)
    )

    def ask() -> dict[str, object]:
        from verifier.bridges import isl_sets  # islpy: only for a question it decides

        defect = isl_sets.partition_defect(
            groups, box, parameters, max_operations=budget.isl_operations
        )
        return {
            "decided": defect.decided,
            "kind": defect.kind,
            "groups": list(defect.groups),
            "point": list(defect.point),
        }

    defect = cached(cache, key, ask, _defect)
    return PartitionAnswer(shape, defect, len(parameters))


def _defect(answer: CachedRecord) -> PartitionDefect:
    """The defect a cached answer stands for."""
    from verifier.bridges.isl_sets import PartitionDefect  # with the question's islpy

    kind = answer["kind"]
    if kind not in (None, "overlap", "uncovered", "outside"):
        raise ValueError(f"no partition defect is {kind!r}")
    return PartitionDefect(
        bool(answer["decided"]),
        kind,
        tuple(int(g) for g in answer["groups"]),
        tuple(int(v) for v in answer["point"]),
    )


def _parameters(maps: Sequence[IndexingMap], count: int) -> list[Interval]:
    """The feasible values of each runtime variable (the hull over the maps)."""
    hulls = [Interval(0, -1)] * count
    for indexing_map in maps:
        for index, variable in enumerate(indexing_map.rt_vars):
            hulls[index] = hulls[index].hull(variable.bounds)
    return hulls


def _result(defect: PartitionDefect, labels: list[str], box: list[int], count: int) -> CheckResult:
    if not defect.decided:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted")
    if defect.kind is None:
        return CheckResult(Outcome.PROVED, f"{', '.join(labels)} partition the output {box}")
    names = [f"o{i}" for i in range(len(box))] + [f"rt{i}" for i in range(count)]
    witness = tuple(zip(names, defect.point, strict=True))
    point = point_text(witness[: len(box)])
    offsets = f" (with {point_text(witness[len(box) :])})" if count else ""
    if defect.kind == "overlap":
        first, second = (labels[g] for g in defect.groups)
        message = f"output point {point}{offsets} is written by {first} and by {second}"
    elif defect.kind == "uncovered":
        message = f"output point {point}{offsets} is written by no operand"
    else:
        message = f"{labels[defect.groups[0]]} writes {point}{offsets}, outside the output {box}"
    return CheckResult(Outcome.REFUTED, message, witness)
