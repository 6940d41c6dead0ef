"""Reading the indexing document's golden cases (`examples/spec/*.expected`) and comparing
indexing results with them as relations.

The format is documented in `examples/spec/README.md`.  Comparison is exact
with isl (`verifier.bridges.isl.to_isl_map`, symbols existential) and, when
the relations are small, also by brute force.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import islpy as isl

from verifier.bridges.isl import to_isl_map
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.parser import parse_map
from verifier.indexing.registry import Indexing

from .relations import union_relation

SPEC_DIR = Path(__file__).resolve().parents[2] / "examples" / "spec"
OPS_DIR = SPEC_DIR.parent / "ops"
# Largest number of points (dims × symbols boxes, both sides) compared by brute force.
BRUTE_FORCE_LIMIT = 200_000

_HEADER = re.compile(r"\[(o2i) output (\d+) operand (\d+)\]|\[(i2o) operand (\d+) output (\d+)\]")
_SOURCE = re.compile(r"source rt(\d+): (\S+) (.*)")


@dataclass(frozen=True)
class Source:
    """``source rtK: INSTRUCTION (d…) -> (…)``."""

    rt_index: int
    instruction: str
    index_map: IndexingMap


@dataclass(frozen=True)
class ExpectedMap:
    indexing_map: IndexingMap
    sources: tuple[Source, ...] = ()


@dataclass(frozen=True)
class Section:
    """What one direction/operand/output must be."""

    direction: Literal["o2i", "i2o"]
    operand: int
    output: int
    kind: Literal["maps", "none", "undefined"]
    maps: tuple[ExpectedMap, ...] = ()


@dataclass
class GoldenCase:
    name: str
    hlo: Path
    no_operands: bool = False
    sections: list[Section] = field(default_factory=list)


def _dims_domain(indexing_map: IndexingMap) -> str:
    return ", ".join(
        f"d{i} in [{v.bounds.lower}, {v.bounds.upper}]" for i, v in enumerate(indexing_map.dims)
    )


def _parse_body(
    lines: list[str],
) -> tuple[Literal["maps", "none", "undefined"], tuple[ExpectedMap, ...]]:
    text = [line for line in lines if line.strip()]
    if [line.strip() for line in text] == ["NONE"]:
        return "none", ()
    if [line.strip() for line in text] == ["UNDEFINED"]:
        return "undefined", ()
    chunks: list[list[str]] = [[]]
    for line in text:
        if line.strip() == "----":
            chunks.append([])
        else:
            chunks[-1].append(line)
    maps: list[ExpectedMap] = []
    for chunk in chunks:
        map_lines = [line for line in chunk if not line.startswith("source ")]
        indexing_map = parse_map("\n".join(map_lines))
        sources = []
        for line in chunk:
            if line.startswith("source "):
                match = _SOURCE.fullmatch(line.strip())
                if match is None:
                    raise ValueError(f"bad source line: {line!r}")
                domain = _dims_domain(indexing_map)
                source_text = match.group(3) + (f", domain: {domain}" if domain else "")
                sources.append(Source(int(match.group(1)), match.group(2), parse_map(source_text)))
        maps.append(ExpectedMap(indexing_map, tuple(sources)))
    return "maps", tuple(maps)


def load_case(expected: Path) -> GoldenCase:
    """Parse `NAME.expected` (next to `NAME.hlo`)."""
    case = GoldenCase(expected.stem, expected.with_suffix(".hlo"))
    header: re.Match[str] | None = None
    body: list[str] = []

    def flush() -> None:
        if header is None:
            return
        kind, maps = _parse_body(body)
        if header.group(1):
            direction, output, operand = "o2i", int(header.group(2)), int(header.group(3))
        else:
            direction, operand, output = "i2o", int(header.group(5)), int(header.group(6))
        case.sections.append(Section(direction, operand, output, kind, maps))  # type: ignore[arg-type]

    for line in expected.read_text().splitlines():
        if line.startswith("#"):
            continue
        if line.strip() == "no operands":
            case.no_operands = True
            continue
        match = _HEADER.fullmatch(line.strip())
        if match is not None:
            flush()
            header, body = match, []
        elif line.strip():
            if header is None:
                raise ValueError(f"{expected}: text before the first section: {line!r}")
            body.append(line)
    flush()
    return case


def all_cases() -> list[GoldenCase]:
    """The indexing document's cases, then those of the ops beyond it (examples/ops)."""
    paths = [*sorted(SPEC_DIR.glob("*.expected")), *sorted(OPS_DIR.glob("*.expected"))]
    return [load_case(path) for path in paths]


# ------------------------------------------------------------------ comparison


def isl_union(maps: tuple[IndexingMap, ...]) -> Any:
    """The union of the maps' relations as one `isl.Map` (None for no maps)."""
    union: Any = None
    for indexing_map in maps:
        relation = to_isl_map(indexing_map)
        union = relation if union is None else union.union(relation)
    return union


def isl_in_bounds(indexing_map: IndexingMap, dims: tuple[int, ...]) -> bool:
    """Whether the image of `indexing_map` lies inside the box `dims` (exact, isl)."""
    if indexing_map.num_results != len(dims):
        return False
    image = to_isl_map(indexing_map).range()
    space = image.get_space()
    box = isl.Set.universe(space)
    for position, size in enumerate(dims):
        at_least_zero = isl.Constraint.alloc_inequality(space).set_coefficient_val(
            isl.dim_type.set, position, 1
        )
        below_size = (
            isl.Constraint.alloc_inequality(space)
            .set_coefficient_val(isl.dim_type.set, position, -1)
            .set_constant_val(size - 1)
        )
        box = box.add_constraint(at_least_zero).add_constraint(below_size)
    return bool(image.is_subset(box))


def _brute_force_size(maps: tuple[IndexingMap, ...]) -> int:
    return sum(m.domain_size_bound() for m in maps)


def relation_mismatch(
    actual: tuple[IndexingMap, ...], expected: tuple[IndexingMap, ...]
) -> str | None:
    """None when the unions are the same relation; otherwise a description."""
    if not actual and not expected:
        return None
    actual_isl, expected_isl = isl_union(actual), isl_union(expected)
    if actual_isl is None or expected_isl is None:
        present = actual_isl if expected_isl is None else expected_isl
        if present.is_empty():
            return None
        return f"one side is empty: actual {actual_isl}, expected {expected_isl}"
    if not actual_isl.is_equal(expected_isl):
        return (
            f"isl: actual {actual_isl}\n  expected {expected_isl}\n"
            f"  only actual: {actual_isl.subtract(expected_isl)}\n"
            f"  only expected: {expected_isl.subtract(actual_isl)}"
        )
    small = _brute_force_size(actual) + _brute_force_size(expected) <= BRUTE_FORCE_LIMIT
    if small and union_relation(actual) != union_relation(expected):
        return "isl says equal but the brute-force relations differ"
    return None


def compare_section(section: Section, actual: Indexing) -> list[str]:
    """Every difference between `actual` and the expected section (empty: equal)."""
    problems: list[str] = []
    if section.kind == "undefined":
        if not isinstance(actual, Undefined):
            problems.append(f"expected UNDEFINED, got {len(actual)} map(s)")
        return problems
    if isinstance(actual, Undefined):
        return [f"got UNDEFINED ({actual.reason})"]
    expected = tuple(m.indexing_map for m in section.maps)
    mismatch = relation_mismatch(actual, expected)
    if mismatch is not None:
        problems.append(mismatch)
    expected_sources = [s for m in section.maps for s in m.sources]
    if not expected_sources:  # the document gives no sources for this section
        return problems
    needed = {
        id(s)
        for m in section.maps
        for s in m.sources
        if not m.indexing_map.rt_vars[s.rt_index].bounds.is_point
    }
    for indexing_map in actual:
        for variable in indexing_map.rt_vars:
            source = variable.source
            if source is None:
                problems.append(f"a runtime variable without source in {indexing_map}")
                continue
            matches = [
                s
                for s in expected_sources
                if s.instruction == source.instruction
                and relation_mismatch((source.index_map,), (s.index_map,)) is None
            ]
            if not matches:
                problems.append(
                    f"runtime source {source.instruction} at {source.index_map} is not expected"
                )
            needed -= {id(s) for s in matches}
    for s in expected_sources:
        if id(s) in needed:
            problems.append(f"no runtime variable reads {s.instruction} at {s.index_map}")
    return problems
