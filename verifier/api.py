"""The research workflow: a module's maps, utilization and checks as plain
data, in a few lines of a notebook.

::

    import verifier
    m = verifier.load("examples/real/cnn_step.hlo")
    m.fusions()                          # names of the entry's fusions
    m.maps("wrapped_reduce-window")      # [OperandMaps(...)], maps as IndexingMap
    m.maps("wrapped_reduce-window", direction="i2o")  # operand -> output maps
    m.to_parameters()                    # entry ROOT composed to each entry parameter
    m.fusion_graph("fused_computation")  # its dataflow as a networkx MultiDiGraph
    m.tile("fusion.1", sizes=[16, 64])   # each operand's tile for a 16x64 output tile, proved
    m.utilization_rows()                 # one dict per operand (a DataFrame's rows)
    m.to_pandas()                        # the same as `verifier corpus`'s operand table
    [f.to_json() for f in m.checks()]    # every check's findings

    m = verifier.from_jax(lambda x: x[::2] * 2.0, jnp.ones((16,)))  # jax.jit's optimized HLO
    modules, operands = verifier.read_corpus("out/")   # `verifier corpus` tables, DataFrames

Every value is a frozen dataclass, a dict, an int or a `Fraction`; maps are
`IndexingMap` objects (``str(map)`` is XLA's text).

>>> m = loads('''
... HloModule m
... ENTRY e {
...   p0 = f32[10,20] parameter(0)
...   ROOT s = f32[5,20] slice(p0), slice={[0:10:2], [0:20]}
... }''')
>>> m
<Analysis of <input>: <Module 'm': 1 computations, 2 instructions, ENTRY 'e'>>
>>> [str(x).splitlines()[0] for x in m.maps("s")[0].maps]
['(d0, d1) -> (d0 * 2, d1),']
>>> row = m.utilization_rows()[0]
>>> row["distinct_read"], row["utilization"], row["xla_heuristic"]
(100, Fraction(1, 2), Fraction(1, 2))
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from verifier.analysis import ModuleMaps
from verifier.analysis.dataflow import computation_graph
from verifier.analysis.instruction_maps import ComposedIndexing, OperandLeaf
from verifier.checks.cache import MemoryCache, ProofCache
from verifier.counting.utilization import InstructionUtilization, module_utilization
from verifier.device_names import DEFAULT_DEVICE
from verifier.errors import UnsupportedError, UsageError
from verifier.expr import IndexingMap, Undefined
from verifier.gate.finding import Finding
from verifier.gate.suite import run_checks
from verifier.hlo import Computation, Module, parse_module, parse_module_file

if TYPE_CHECKING:
    import pandas as pd

Direction = Literal["o2i", "i2o"]


@dataclass(frozen=True)
class OperandMaps:
    """Output `output` → operand `operand` (``o2i``; ``i2o``: operand →
    output): the maps (simplified, equal ones merged) and how many use paths
    read through each; `maps` is `Undefined` (with its reason) when the
    indexing is unknown.  `output` is an output leaf number; a tuple-shaped
    operand has one row per leaf, at `operand_index`."""

    output: int
    operand: int
    operand_name: str
    maps: tuple[IndexingMap, ...] | Undefined
    multiplicities: tuple[int, ...] = ()
    operand_index: tuple[int, ...] = ()


@dataclass(frozen=True, repr=False)
class Analysis:
    """One HLO module, analysed on demand; printed as a summary."""

    module: Module
    file: str = "<input>"

    def __repr__(self) -> str:
        return f"<Analysis of {self.file}: {self.module!r}>"

    @functools.cached_property
    def _maps(self) -> ModuleMaps:
        return ModuleMaps(self.module)

    def computations(self) -> list[str]:
        """Names of every computation, the entry's included, in order."""
        return [c.name for c in self.module.computations]

    def instructions(self, computation: str | None = None) -> list[str]:
        """Names of the instructions of `computation` (default: the entry), in order."""
        return [i.name for i in self._computation(computation).instructions]

    def fusions(self) -> list[str]:
        return [i.name for i in self.module.entry.instructions if i.opcode == "fusion"]

    def fusion_graph(self, computation: str | None = None) -> Any:
        """The dataflow of `computation` (default: the entry) as a networkx
        ``MultiDiGraph``: an edge ``producer -> user`` per operand use,
        labelled ``operand``; nodes carry ``opcode``, ``shape`` and
        ``position`` (`verifier.fusion.graph.computation_graph`)."""
        return computation_graph(self._computation(computation))

    def maps(
        self, name: str, direction: Direction = "o2i", computation: str | None = None
    ) -> list[OperandMaps]:
        """The maps of instruction `name` of `computation` (default: the
        entry), per output and operand: output→input (``o2i``) or
        input→output (``i2o``); a fusion's composed through its computation
        (``verifier maps``)."""
        chosen = self._computation(computation)
        view = self._maps.instruction(chosen, chosen.instruction(name))
        rows = []
        if direction == "o2i":
            for output in view.outputs:
                for operand, composed in view.o2i(output):
                    rows.append(_operand_maps(output.number, operand, composed))
        else:
            for operand in view.operands:
                for output, composed in view.i2o(operand):
                    rows.append(_operand_maps(output.number, operand, composed))
        return rows

    def to_parameters(self) -> list[OperandMaps]:
        """The entry ROOT's output→input maps composed through the whole
        entry computation to each entry parameter (``verifier maps
        --to-parameters``); `operand` numbers the parameters."""
        entry = self.module.entry
        rows = []
        for output in self._maps.instruction(entry, entry.root).outputs:
            for parameter, indexing in self._maps.to_parameters(output):
                rows.append(_operand_maps(output.number, parameter, indexing))
        return rows

    def _computation(self, name: str | None) -> Computation:
        if name is None:
            return self.module.entry
        for computation in self.module.computations:
            if computation.name == name:
                return computation
        raise UsageError(f"{self.file}: no computation '{name}'; there are {self.computations()}")

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

    def to_pandas(self) -> pd.DataFrame:
        """`utilization` as a DataFrame: the rows `verifier corpus` writes
        to ``operands.parquet`` for this module, with its columns and
        nullable numeric dtypes (needs the ``research`` extra)."""
        from verifier.corpus.rows import operand_row
        from verifier.corpus.tables import OPERAND_SCHEMA, frame

        rows = [
            operand_row(self.file, result.name, result.opcode, row)
            for result in self.utilization()
            for row in result.operands
        ]
        return frame(rows, OPERAND_SCHEMA)

    def tile(self, name: str | None = None, sizes: Sequence[int] | None = None) -> dict[str, Any]:
        """The symbolic tile of each operand of entry instruction `name`
        (default: the ROOT) for an output tile, proved for `sizes` or over
        the tiling space: ``verifier tile``'s JSON answer as a dict."""
        from verifier.report.tiling import tiling_json
        from verifier.tiling import tile_instruction

        entry = self.module.entry
        instruction = entry.root if name is None else entry.instruction(name)
        result = tile_instruction(self._maps.instruction(entry, instruction), sizes)
        return tiling_json(self.module.name, result)

    def checks(
        self, only: Collection[str] | None = None, cache: ProofCache | None = None
    ) -> list[Finding]:
        """Every check's findings on every instruction (`verifier check`'s
        answers for this module); `only` selects checks by name."""
        return list(run_checks(self._maps, cache or MemoryCache(), only=only))

    def coalescing(
        self, name: str | None = None, device: str = DEFAULT_DEVICE
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """`verifier coalescing`'s JSON: fusion `name` (default: every fusion
        of the entry) on `device`: exact sectors per warp request beside
        XLA's verdicts."""
        from verifier.coalescing.analysis import module_coalescing
        from verifier.coalescing.devices import device as device_named
        from verifier.report.coalescing import module_json

        answers = module_coalescing(self._maps, name, device_named(device))
        return module_json(self.module.name, answers, single=name is not None)


def _operand_maps(output: int, operand: OperandLeaf, composed: ComposedIndexing) -> OperandMaps:
    place = (output, operand.operand, operand.name)
    if isinstance(composed.maps, Undefined):
        return OperandMaps(*place, composed.maps, operand_index=operand.index)
    return OperandMaps(
        *place,
        tuple(c.map for c in composed.maps),
        tuple(c.multiplicity for c in composed.maps),
        operand_index=operand.index,
    )


def load(path: str | Path) -> Analysis:
    """The module of an HLO text file."""
    return Analysis(parse_module_file(str(path)), str(path))


def loads(text: str, file: str = "<input>") -> Analysis:
    """The module of HLO text (`file` names it in messages and tables)."""
    return Analysis(parse_module(text, file), file)


def jax_hlo_text(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The optimized HLO text XLA compiles ``jax.jit(fn)`` to for these
    arguments: ``jax.jit(fn).lower(*args, **kwargs).compile().as_text()``
    (needs the ``jax`` extra)."""
    try:
        import jax
    except ImportError:
        raise UsageError("from_jax needs jax: pip install 'hlo-verifier[jax]'") from None
    # Typed here: without jax installed, the type checker reads it as Any.
    text: str | None = jax.jit(fn).lower(*args, **kwargs).compile().as_text()
    if text is None:  # jax's types allow it: a backend that keeps no text
        raise UnsupportedError("jax gave no HLO text for this function on this backend")
    return text


def from_jax(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Analysis:
    """The module XLA compiles ``jax.jit(fn)`` to for these arguments
    (`jax_hlo_text`), as `load` gives it::

        m = verifier.from_jax(lambda x: x[::2] * 2.0, jnp.ones((16,), jnp.float32))
        m.utilization_rows()   # the fusion reads 8 of the parameter's 16 elements
    """
    name = getattr(fn, "__name__", "fn")
    return loads(jax_hlo_text(fn, *args, **kwargs), f"<jax.jit({name})>")


def read_corpus(directory: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tables `verifier corpus` wrote to `directory`, as DataFrames
    ``(modules, operands)`` with nullable numeric dtypes (needs the
    ``research`` extra)."""
    from verifier.corpus.tables import read_frames

    return read_frames(Path(directory))


__all__ = [
    "Analysis",
    "OperandMaps",
    "from_jax",
    "load",
    "loads",
    "read_corpus",
]
