"""Maps memoised on structure (`Signatures`) are the maps of each place.

Every test compares a module's maps from one `ModuleMaps` (memoised on
structure) with those a `ModuleMaps(by_structure=False)` computes for each
place alone: a key that missed a detail the maps depend on would give one
place another's maps.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from verifier.analysis import ModuleMaps
from verifier.errors import VerifierError
from verifier.fusion.compose import ComposedIndexing
from verifier.hlo import Module, decode_hlo, parse_module
from verifier.indexing.leaves import instruction_operand_leaves, output_leaves

EXAMPLES = Path(__file__).parents[2] / "examples"

_Place = tuple[str, str, str, bool, int]
_Answer = tuple[ComposedIndexing, ...] | str


def _answer(compute: Callable[[], tuple[ComposedIndexing, ...]]) -> _Answer:
    """The maps, or the error they could not be computed with."""
    try:
        return compute()
    except VerifierError as error:
        return f"{type(error).__name__}: {error}"


def every_map(maps: ModuleMaps) -> dict[_Place, _Answer]:
    """Every map `maps` gives, each direction, simplified, raw and reads, per
    (computation, instruction, direction, simplified, output or operand)."""
    found: dict[_Place, _Answer] = {}
    for computation in maps.module.computations:
        for instruction in computation.instructions:
            where = (computation.name, instruction.name)
            for output in output_leaves(instruction.shape):
                for simplified in (True, False):
                    found[(*where, "o2i", simplified, output.number)] = _answer(
                        partial(
                            maps.output_to_input,
                            computation,
                            instruction,
                            output.number,
                            simplified=simplified,
                        )
                    )
                found[(*where, "reads", True, output.number)] = _answer(
                    partial(maps.reads, computation, instruction, output.number)
                )
            for operand in instruction_operand_leaves(computation, instruction):
                for simplified in (True, False):
                    found[(*where, "i2o", simplified, operand.number)] = _answer(
                        partial(
                            maps.input_to_output,
                            computation,
                            instruction,
                            operand.number,
                            simplified=simplified,
                        )
                    )
    return found


def assert_same_maps_as_per_place(module: Module) -> None:
    memoised = every_map(ModuleMaps(module))
    per_place = every_map(ModuleMaps(module, by_structure=False))
    assert memoised.keys() == per_place.keys()
    for place, composed in per_place.items():
        assert memoised[place] == composed, place


def _module(path: Path) -> Module:
    return parse_module(decode_hlo(path.read_bytes(), str(path)), str(path))


_REAL = sorted((EXAMPLES / "real").glob("*.hlo"))
_LARGE = {"transformer_train_step.hlo", "mlp_train_step.hlo", "cnn_step.hlo"}


@pytest.mark.parametrize("path", [p for p in _REAL if p.name not in _LARGE], ids=lambda p: p.name)
def test_real_dumps_get_their_own_maps(path: Path) -> None:
    assert_same_maps_as_per_place(_module(path))


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    sorted(EXAMPLES.rglob("*.hlo")),
    ids=lambda p: str(p.relative_to(EXAMPLES)),
)
def test_every_example_gets_its_own_maps(path: Path) -> None:
    try:
        module = _module(path)
    except VerifierError:  # a module broken on purpose
        pytest.skip("not a valid module")
    assert_same_maps_as_per_place(module)
