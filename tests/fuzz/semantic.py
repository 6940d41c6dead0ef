"""The differential campaign: valid, semantically mutated HLO (`variants`)
through the verifier's public path, judged by the reference interpreters.

For variant ``n`` (a pure function of ``n``):

1. **maps** — `verifier.api` ``maps`` of the ENTRY root, both directions,
   ``maps --to-parameters``, and `ModuleMaps`' raw maps (which partition
   proves on) and reads maps (which utilization counts): the union of
   each output→input relation equals the oracle's (`tests.oracle`,
   `tests.oracle.compound`), each input→output union its inverse (an
   input→output that says ``UNDEFINED`` is explicit, counted, not wrong);
2. **verdicts** — every ``proved`` or ``refuted`` finding of the gate
   (`Analysis.checks`) is judged by brute force: in-bounds on the maps'
   images, inverse on the maps' two relations, partition on the pieces'
   images, bitcast by `tests.oracle_layout.bitcast_verdict`.  On valid HLO
   the op's own claims hold, so a ``refuted`` where the maps agree with the
   oracle is a false alarm; a ``proved`` that brute force contradicts is
   the critical kind.

A `VerifierError` on a variant means the tool rejects HLO that XLA
accepts: counted and listed (``rejected``), like a traceback (``crash``).
::

    python -m tests.fuzz.semantic --variants 5000        # counts, every mismatch
    python -m tests.fuzz.semantic --replay 1234          # one variant, its HLO
    python -m tests.fuzz.semantic --variants 2000 --heldout /tmp/h13l_heldout
    python -m tests.fuzz.semantic --fusions examples     # every small real fusion
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests import oracle
from tests.fuzz.variants import REAL_SOURCES, Variant, variant
from tests.oracle import compound
from tests.oracle.computations import ComputationOracle
from tests.oracle_layout import bitcast_verdict
from verifier.analysis import ModuleMaps
from verifier.api import Analysis, loads
from verifier.checks.verdict import Outcome
from verifier.errors import VerifierError
from verifier.expr import IndexingMap, Undefined
from verifier.fusion.composed import CountedMap
from verifier.hlo import Computation, Instruction, Module, parse_module_file

Index = tuple[int, ...]
Pair = tuple[Index, Index]
Relation = frozenset[Pair]


@dataclass(frozen=True)
class Mismatch:
    """Something the verifier said about variant `number` that brute force contradicts."""

    number: int
    opcode: str
    # "o2i", "i2o", "o2i raw", "o2i reads", "to-parameters", "proved <check>", "refuted <check>",
    # "crash", "rejected"
    kind: str
    detail: str

    @property
    def critical(self) -> bool:
        """A wrong map or a wrong ``proved``: what must never ship."""
        wrong_map = self.kind in ("o2i", "i2o", "o2i raw", "o2i reads", "to-parameters")
        return wrong_map or self.kind.startswith("proved")


@dataclass
class Judgement:
    """What was compared on one variant."""

    variant: Variant
    status: str = "judged"  # "judged", "oracle unsupported", "rejected", "crash"
    compared: int = 0  # relations compared with the oracle
    verdicts: int = 0  # proved/refuted findings judged
    undefined: int = 0  # input→output relations the verifier leaves UNDEFINED
    mismatches: list[Mismatch] = field(default_factory=list)

    def add(self, kind: str, detail: str) -> None:
        v = self.variant
        self.mismatches.append(Mismatch(v.number, v.opcode, kind, f"{detail}\n{v.text}"))


# ------------------------------------------------------------------ brute force


def _union(maps: Iterable[IndexingMap]) -> Relation:
    return frozenset(itertools.chain.from_iterable(m.relation() for m in maps))


def _inverse(pairs: Relation) -> Relation:
    return frozenset((b, a) for a, b in pairs)


def _outside(pairs: Relation, dims: Sequence[int]) -> Pair | None:
    for source, image in sorted(pairs):
        if len(image) != len(dims) or not all(0 <= e < n for e, n in zip(image, dims, strict=True)):
            return source, image
    return None


def _describe(got: Relation, want: Relation) -> str:
    def some(pairs: Relation) -> str:
        shown = ", ".join(f"{a}->{b}" for a, b in sorted(pairs)[:4])
        return shown + (f" … (+{len(pairs) - 4})" if len(pairs) > 4 else "")

    return f"only in the maps: {some(got - want)}; only in the oracle: {some(want - got)}"


def oracle_relations(module: Module, instruction: Instruction) -> list[list[Relation]]:
    """Per output, per operand: the oracle's output→input relation of an
    instruction of the entry (a fusion's through its fused computation)."""
    computation = module.entry
    outputs = len(instruction.shape.leaves)
    operands = len(instruction.operands)
    if instruction.opcode == "fusion":
        return _fusion_relations(ComputationOracle(module), computation, instruction)
    if instruction.opcode in compound.SUPPORTED_OPCODES:
        return [
            [compound.relation(computation, instruction, o, k) for k in range(operands)]
            for o in range(outputs)
        ]
    return [oracle.relations(computation, instruction, o) for o in range(outputs)]


# ------------------------------------------------------------------ judging


@dataclass
class _Maps:
    """The verifier's relations of the root: (output, operand) → union, or None (UNDEFINED)."""

    o2i: dict[tuple[int, int], Relation | None] = field(default_factory=dict)
    i2o: dict[tuple[int, int], Relation | None] = field(default_factory=dict)
    runtime: set[tuple[int, int]] = field(default_factory=set)  # i2o maps with runtime offsets


def _public_maps(analysis: Analysis, root: str) -> _Maps:
    found = _Maps()
    for row in analysis.maps(root, "o2i"):
        found.o2i[row.output, row.operand] = (
            None if isinstance(row.maps, Undefined) else _union(row.maps)
        )
    for row in analysis.maps(root, "i2o"):
        key = (row.output, row.operand)
        if isinstance(row.maps, Undefined):
            found.i2o[key] = None
            continue
        found.i2o[key] = _union(row.maps)
        if any(m.rt_vars for m in row.maps):
            found.runtime.add(key)
    return found


def _compare_maps(
    judgement: Judgement,
    maps: _Maps,
    want: list[list[Relation]],
    other: dict[str, list[list[Relation | None]]],
) -> None:
    for (output, operand), got in sorted(maps.o2i.items()):
        where = f"output {output} operand {operand}"
        if got is None:
            judgement.add("o2i", f"{where}: UNDEFINED output→input")
            continue
        judgement.compared += 1
        if got != want[output][operand]:
            judgement.add("o2i", f"{where}: {_describe(got, want[output][operand])}")
        for kind, relations in other.items():
            also = relations[output][operand]
            if also is not None and also != want[output][operand]:
                judgement.add(kind, f"{where}: {_describe(also, want[output][operand])}")
    for (output, operand), got in sorted(maps.i2o.items()):
        if got is None:
            judgement.undefined += 1
            continue
        judgement.compared += 1
        expected = _inverse(want[output][operand])
        if got != expected:
            where = f"operand {operand} output {output}"
            judgement.add("i2o", f"{where}: {_describe(got, expected)}")


def _compare_to_parameters(judgement: Judgement, analysis: Analysis) -> None:
    """``maps --to-parameters``: the entry's maps to its parameters against
    the computation oracle (when it reads every op of the entry)."""
    module = analysis.module
    reads = ComputationOracle(module)
    for output in range(len(module.entry.root.shape.leaves)):
        try:
            oracle_reads = reads.computation_reads(module.entry, output)
        except oracle.UnsupportedByOracle:
            return
        want: dict[int, set[Pair]] = {}
        for index, elements in oracle_reads.items():
            for parameter, element in elements:
                want.setdefault(parameter, set()).add((index, element))
        for row in analysis.to_parameters():
            if row.output != output:
                continue
            where = f"to-parameters output {output} parameter {row.operand}"
            if isinstance(row.maps, Undefined):
                judgement.add("to-parameters", f"{where}: UNDEFINED")
                continue
            got, expected = _union(row.maps), frozenset(want.get(row.operand, ()))
            judgement.compared += 1
            if got != expected:
                judgement.add("to-parameters", f"{where}: {_describe(got, expected)}")


def _other_maps(
    analysis: Analysis, instruction: Instruction
) -> dict[str, list[list[Relation | None]]]:
    """`ModuleMaps`' other output→input maps, per output and operand: the
    rules' own (``o2i raw``, which partition proves on) and the pointwise
    simplified ones that count reads (``o2i reads``, for utilization)."""
    view = ModuleMaps(analysis.module).instruction(analysis.module.entry, instruction)
    found: dict[str, list[list[Relation | None]]] = {"o2i raw": [], "o2i reads": []}
    for output in view.outputs:
        raw = view.o2i(output, simplified=False)
        reads = view.reads(output)
        for kind, pairs in (("o2i raw", raw), ("o2i reads", reads)):
            found[kind].append(
                [
                    None
                    if isinstance(composed.maps, Undefined)
                    else _union(counted.map for counted in composed.maps)
                    for _, composed in pairs
                ]
            )
    return found


def _truths(
    analysis: Analysis, instruction: Instruction, maps: _Maps, want: list[list[Relation]]
) -> dict[tuple[str, str], tuple[bool, bool] | None]:
    """(check, subject) → (whether the claim holds of the maps, whether it
    holds of the op), for the findings brute force can judge."""
    entry = analysis.module.entry
    operands = entry.operand_instructions(instruction)
    leaves = [shape for _, shape in instruction.shape.leaves]
    truths: dict[tuple[str, str], tuple[bool, bool] | None] = {}
    for k, operand in enumerate(operands):
        label = f"operand {k} ({operand.name})"
        for o, leaf in enumerate(leaves):
            out = f"output {o}"
            forward, backward = maps.o2i.get((o, k)), maps.i2o.get((o, k))
            if forward is not None:
                inside = _outside(forward, operand.shape.dimensions) is None
                truths["in-bounds", f"{out} -> {label}"] = (inside, True)
            if backward is not None:
                inside = _outside(backward, leaf.dimensions) is None
                truths["in-bounds", f"{label} -> {out}"] = (inside, True)
            if forward is not None and backward is not None:
                truths["inverse", f"{label} <-> {out}"] = (forward == _inverse(backward), True)
    if instruction.opcode == "bitcast":
        verdict = bitcast_verdict(operands[0].shape, instruction.shape).outcome
        holds = verdict != "refuted"
        truths["bitcast", f"operand 0 ({operands[0].name})"] = (holds, holds)
    pieces = {"concatenate": range(len(operands)), "pad": (0, 1), "dynamic-update-slice": (0, 1)}
    if instruction.opcode in pieces:
        truths["partition", "output 0"] = _partition_truth(
            maps, pieces[instruction.opcode], leaves[0].dimensions
        )
    return truths


def _partition_truth(
    maps: _Maps, pieces: Iterable[int], dims: Sequence[int]
) -> tuple[bool, bool] | None:
    """Whether the pieces' input→output images tile the output exactly once
    (None when a piece has runtime offsets: the images are unions over
    them)."""
    seen: Counter[Index] = Counter()
    for k in pieces:
        relation = maps.i2o.get((0, k))
        if relation is None or (0, k) in maps.runtime:
            return None
        seen.update({image for _, image in relation})
    every = set(itertools.product(*(range(n) for n in dims)))
    return set(seen) == every and all(c == 1 for c in seen.values()), True


def _judge_verdicts(judgement: Judgement, analysis: Analysis, truths: dict) -> None:  # type: ignore[type-arg]
    maps_agree = not judgement.mismatches
    for finding in analysis.checks(only=["in-bounds", "inverse", "partition", "bitcast"]):
        if finding.outcome not in (Outcome.PROVED, Outcome.REFUTED):
            continue
        truth = truths.get((finding.check, finding.subject))
        if truth is None:
            continue
        of_maps, of_op = truth
        judgement.verdicts += 1
        where = f"{finding.subject}: {finding.message}"
        if finding.outcome is Outcome.PROVED and not of_maps:
            judgement.add(f"proved {finding.check}", f"{where} (brute force: it does not hold)")
        if finding.outcome is Outcome.REFUTED and of_op and (of_maps or maps_agree):
            judgement.add(f"refuted {finding.check}", f"{where} (brute force: it holds)")


def judge(v: Variant) -> Judgement:
    """Variant `v` through the public path, against the oracle."""
    judgement = Judgement(v)
    try:
        analysis = loads(v.text, f"variant-{v.number}.hlo")
        root = analysis.module.entry.root
        try:
            want = oracle_relations(analysis.module, root)
        except oracle.UnsupportedByOracle:
            judgement.status = "oracle unsupported"
            return judgement
        maps = _public_maps(analysis, root.name)
        _compare_maps(judgement, maps, want, _other_maps(analysis, root))
        _compare_to_parameters(judgement, analysis)
        _judge_verdicts(judgement, analysis, _truths(analysis, root, maps, want))
    except VerifierError as error:
        judgement.status = "rejected"
        judgement.add("rejected", f"{type(error).__name__}: {error}")
    except Exception as error:  # any other exception is a finding
        judgement.status = "crash"
        frames = traceback.format_exception(error)
        judgement.add("crash", "".join(frames[-3:]))
    return judgement


# ------------------------------------------------------------------ real fusions

# A fusion is judged when its operands and outputs hold at most this many
# elements and no instruction of its computation more than `_INSIDE`.
_FUSION_ELEMENTS, _INSIDE = 600, 2000


def _elements(instruction: Instruction) -> int:
    return sum(math.prod(leaf.dimensions) for _, leaf in instruction.shape.leaves)


def judge_fusions(path: Path) -> Iterator[Judgement]:
    """Every small fusion of the module in `path`, unchanged: its
    `ModuleMaps` (composed, simplified) in both directions against the
    computation oracle."""
    module = parse_module_file(path)
    maps, reads = ModuleMaps(module), ComputationOracle(module)
    for computation in module.computations:
        for fusion in computation.instructions:
            if fusion.opcode != "fusion":
                continue
            operands = computation.operand_instructions(fusion)
            called = module.computation(fusion.called_computations[0])
            size = _elements(fusion) + sum(_elements(o) for o in operands)
            inside = max(_elements(i) for i in called.instructions)
            tuples = any(o.shape.tuple_shapes is not None for o in operands)
            if size > _FUSION_ELEMENTS or inside > _INSIDE or tuples:
                continue
            where = f"{path.name}: {computation.name}/{fusion.name}"
            judgement = Judgement(Variant(-1, "fusion", where, where))
            try:
                want = _fusion_relations(reads, computation, fusion)
                found = _Maps()
                view = maps.instruction(computation, fusion)
                for output in view.outputs:
                    for leaf, composed in view.o2i(output):
                        found.o2i[output.number, leaf.number] = _counted_union(composed.maps)
                for leaf in view.operands:
                    for output, composed in view.i2o(leaf):
                        found.i2o[output.number, leaf.number] = _counted_union(composed.maps)
                _compare_maps(judgement, found, want, {})
            except oracle.UnsupportedByOracle:
                judgement.status = "oracle unsupported"
            yield judgement


def _counted_union(maps: tuple[CountedMap, ...] | Undefined) -> Relation | None:
    if isinstance(maps, Undefined):
        return None
    return _union(counted.map for counted in maps)


def _fusion_relations(
    reads: ComputationOracle, computation: Computation, fusion: Instruction
) -> list[list[Relation]]:
    """Per output, per operand: what the fusion reads, walking its computation."""
    found = []
    for output in range(len(fusion.shape.leaves)):
        pairs: list[set[Pair]] = [set() for _ in fusion.operands]
        for index, elements in reads.instruction_reads(computation, fusion, output).items():
            for operand, element in elements:
                pairs[operand].add((index, element))
        found.append([frozenset(p) for p in pairs])
    return found


# ------------------------------------------------------------------ the campaign


@dataclass
class Tally:
    """Per opcode and status, how many variants; every mismatch."""

    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    compared: int = 0
    verdicts: int = 0
    undefined: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    def add(self, judgement: Judgement) -> None:
        self.statuses[judgement.variant.opcode, judgement.status] += 1
        self.compared += judgement.compared
        self.verdicts += judgement.verdicts
        self.undefined += judgement.undefined
        self.mismatches += judgement.mismatches

    def report(self, *, full: bool = True) -> Iterator[str]:
        statuses = ("judged", "oracle unsupported", "rejected", "crash")
        yield f"{'opcode':<22}" + "".join(f"{s:>20}" for s in statuses)
        for opcode in sorted({o for o, _ in self.statuses}):
            yield f"{opcode:<22}" + "".join(f"{self.statuses[opcode, s]:>20}" for s in statuses)
        critical = sum(m.critical for m in self.mismatches)
        yield (
            f"variants {sum(self.statuses.values())}, relations compared {self.compared}, "
            f"verdicts judged {self.verdicts}, i2o UNDEFINED {self.undefined}, "
            f"mismatches {len(self.mismatches)} (critical {critical})"
        )
        kinds = Counter((m.opcode, m.kind) for m in self.mismatches)
        for (opcode, kind), count in sorted(kinds.items()):
            first = next(m for m in self.mismatches if (m.opcode, m.kind) == (opcode, kind))
            yield f"  {count}× {opcode}: {kind} (replay {first.number})"
        if full:
            for m in self.mismatches:
                detail = m.detail if m.kind not in ("rejected",) else m.detail.splitlines()[0]
                yield f"--- variant {m.number} ({m.opcode}): {m.kind}: {detail}"


def run(numbers: Iterable[int], sources: tuple[Path, ...] = REAL_SOURCES) -> Tally:
    tally = Tally()
    for number in numbers:
        tally.add(judge(variant(number, sources)))
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0, help="first variant number")
    parser.add_argument("--replay", type=int, metavar="N", help="judge variant N alone, print it")
    parser.add_argument(
        "--heldout", type=Path, action="append", default=[],
        help="also re-lay out the instructions of the modules in this directory",
    )  # fmt: skip
    parser.add_argument(
        "--fusions", type=Path, metavar="DIR",
        help="judge every small fusion of the modules under DIR, unchanged, instead",
    )  # fmt: skip
    args = parser.parse_args()
    sources = (*REAL_SOURCES, *args.heldout)
    start = time.process_time()
    if args.fusions is not None:
        tally = Tally()
        for path in sorted(args.fusions.rglob("*.hlo")):
            if "checks" not in path.parts:
                for judgement in judge_fusions(path):
                    tally.add(judgement)
    elif args.replay is not None:
        v = variant(args.replay, sources)
        print(f"variant {v.number} ({v.opcode}, {v.origin}):\n{v.text}")
        tally = run([args.replay], sources)
    else:
        tally = run(range(args.start, args.start + args.variants), sources)
    for line in tally.report():
        print(line)
    print(f"{time.process_time() - start:.1f} CPU seconds")


if __name__ == "__main__":
    main()
