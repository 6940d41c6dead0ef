"""The research workflow: a module's maps, utilization and checks as plain
data, in a few lines of a notebook.

::

    import verifier
    m = verifier.load("examples/real/cnn_step.hlo")
    m.fusions()                          # names of the entry's fusions
    m.maps("wrapped_reduce-window")      # [OperandMaps(...)], maps as IndexingMap
    m.utilization_rows()                 # one dict per operand (a DataFrame's rows)
    [f.to_json() for f in m.checks()]    # every check's findings

Every value is a frozen dataclass, a dict, an int or a `Fraction`; maps are
`IndexingMap` objects (``str(map)`` is XLA's text).

>>> m = loads('''
... HloModule m
... ENTRY e {
...   p0 = f32[10,20] parameter(0)
...   ROOT s = f32[5,20] slice(p0), slice={[0:10:2], [0:20]}
... }''')
>>> [str(x).splitlines()[0] for x in m.maps("s")[0].maps]
['(d0, d1) -> (d0 * 2, d1),']
>>> row = m.utilization_rows()[0]
>>> row["distinct_read"], row["utilization"], row["xla_heuristic"]
(100, Fraction(1, 2), Fraction(1, 2))
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.analysis import ModuleMaps
from verifier.checks.cache import MemoryCache, ProofCache
from verifier.counting.utilization import InstructionUtilization, module_utilization
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.gate.finding import Finding
from verifier.gate.suite import run_checks
from verifier.hlo.module import Module
from verifier.hlo.parser import parse_module, parse_module_file
from verifier.indexing.analysis import output_count
from verifier.indexing.leaves import instruction_operand_leaves


@dataclass(frozen=True)
class OperandMaps:
    """Output `output` → operand `operand`: the maps (simplified, equal ones
    merged) and how many use paths read through each; `maps` is `Undefined`
    (with its reason) when the indexing is unknown.  `output` is an output
    leaf number; a tuple-shaped operand has one row per leaf, at
    `operand_index`."""

    output: int
    operand: int
    operand_name: str
    maps: tuple[IndexingMap, ...] | Undefined
    multiplicities: tuple[int, ...] = ()
    operand_index: tuple[int, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """One HLO module, analysed on demand."""

    module: Module

    @functools.cached_property
    def _maps(self) -> ModuleMaps:
        return ModuleMaps(self.module)

    def instructions(self) -> list[str]:
        """Names of the entry computation's instructions, in order."""
        return [i.name for i in self.module.entry.instructions]

    def fusions(self) -> list[str]:
        return [i.name for i in self.module.entry.instructions if i.opcode == "fusion"]

    def maps(self, name: str) -> list[OperandMaps]:
        """Output→input maps of entry instruction `name`, per output and
        operand (a fusion's composed through its computation)."""
        entry = self.module.entry
        instruction = entry.instruction(name)
        rows = []
        operands = instruction_operand_leaves(entry, instruction)
        for output in range(output_count(instruction)):
            per_operand = self._maps.output_to_input(entry, instruction, output)
            for operand, composed in zip(operands, per_operand, strict=True):
                place = (output, operand.operand, operand.name)
                if isinstance(composed.maps, Undefined):
                    rows.append(OperandMaps(*place, composed.maps, operand_index=operand.index))
                    continue
                rows.append(
                    OperandMaps(
                        *place,
                        tuple(c.map for c in composed.maps),
                        tuple(c.multiplicity for c in composed.maps),
                        operand_index=operand.index,
                    )
                )
        return rows

    def utilization(self, name: str | None = None) -> tuple[InstructionUtilization, ...]:
        """Exact counts beside XLA's heuristic for entry instruction `name`
        (default: every instruction that reads elements), largest
        disagreement first."""
        chosen = None if name is None else [self.module.entry.instruction(name)]
        return module_utilization(self._maps, chosen)

    def utilization_rows(self, name: str | None = None) -> list[dict[str, Any]]:
        """`utilization` flattened: one dict per operand, exact numbers as
        ints and `Fraction`s (None where there is no single exact number)."""
        rows = []
        for result in self.utilization(name):
            for row in result.operands:
                rows.append(
                    {
                        "instruction": result.name,
                        "opcode": result.opcode,
                        "operand": row.operand,
                        "operand_name": row.operand_name,
                        "elements": row.elements,
                        "distinct_read": row.distinct_read,
                        "may_read": row.may_read if isinstance(row.may_read, int) else None,
                        "per_execution": row.per_execution,
                        "reads": row.reads,
                        "utilization": row.utilization,
                        "xla_heuristic": row.xla_heuristic,
                        "xla_heuristic_elements": row.heuristic_elements,
                        "heuristic_vs_exact": row.heuristic_vs_exact,
                    }
                )
        return rows

    def checks(
        self, only: Collection[str] | None = None, cache: ProofCache | None = None
    ) -> list[Finding]:
        """Every check's findings on every instruction (`verifier check`'s
        answers for this module); `only` selects checks by name."""
        return list(run_checks(self.module, cache or MemoryCache(), only=only))


def load(path: str | Path) -> Analysis:
    """The module of an HLO text file."""
    return Analysis(parse_module_file(str(path)))


def loads(text: str) -> Analysis:
    """The module of HLO text."""
    return Analysis(parse_module(text))


__all__ = ["Analysis", "OperandMaps", "load", "loads"]
