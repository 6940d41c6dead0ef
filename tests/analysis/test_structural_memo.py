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

from tests.examples import EVERY_EXAMPLE, SMALL_REAL_DUMPS, example_id, valid_module
from verifier.analysis import ModuleMaps
from verifier.analysis.instruction_maps import ToOperand, ToOutput
from verifier.errors import VerifierError
from verifier.hlo import Module, parse_module_file

_Place = tuple[str, str, str, bool, int]
_Answer = tuple[ToOperand, ...] | tuple[ToOutput, ...] | str


def _answer(compute: Callable[[], tuple[ToOperand, ...] | tuple[ToOutput, ...]]) -> _Answer:
    """The labelled maps, or the error they could not be computed with."""
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
            view = maps.instruction(computation, instruction)
            for output in view.outputs:
                for simplified in (True, False):
                    found[(*where, "o2i", simplified, output.number)] = _answer(
                        partial(view.o2i, output, simplified=simplified)
                    )
                found[(*where, "reads", True, output.number)] = _answer(partial(view.reads, output))
            for operand in view.operands:
                for simplified in (True, False):
                    found[(*where, "i2o", simplified, operand.number)] = _answer(
                        partial(view.i2o, operand, simplified=simplified)
                    )
    return found


def assert_same_maps_as_per_place(module: Module) -> None:
    memoised = every_map(ModuleMaps(module))
    per_place = every_map(ModuleMaps(module, by_structure=False))
    assert memoised.keys() == per_place.keys()
    for place, composed in per_place.items():
        assert memoised[place] == composed, place


@pytest.mark.parametrize("path", SMALL_REAL_DUMPS, ids=example_id)
def test_real_dumps_get_their_own_maps(path: Path) -> None:
    assert_same_maps_as_per_place(parse_module_file(path))


@pytest.mark.slow
@pytest.mark.parametrize("path", EVERY_EXAMPLE, ids=example_id)
def test_every_example_gets_its_own_maps(path: Path) -> None:
    assert_same_maps_as_per_place(valid_module(path))
