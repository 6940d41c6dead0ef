"""A solver question's answer does not depend on the questions asked before
it in the process: each runs in an isl context of its own.

The inverse check of a reverse cumsum's fused scan needs close to the
gate's isl budget; with one context per process it was proved, or ran out
of operations (`unknown`), by which questions had run before it."""

from __future__ import annotations

from pathlib import Path

from verifier.analysis import ModuleMaps
from verifier.bridges import isl_questions, isl_sets
from verifier.hlo import parse_module_file

_MODULE = Path(__file__).parents[2] / "examples" / "real_ops" / "cumsum_reverse_scan.hlo"


def test_a_question_answers_the_same_after_other_questions() -> None:
    module = parse_module_file(_MODULE)
    view = ModuleMaps(module).instruction(module.entry, module.entry.root)
    ((_, o2i),) = view.o2i(view.outputs[0])
    ((_, i2o),) = view.i2o(view.operands[0])
    assert isinstance(o2i.maps, tuple) and isinstance(i2o.maps, tuple)
    first, second = [c.map for c in o2i.maps], [c.map for c in i2o.maps]

    def inverse() -> bool | None:
        comparison = isl_sets.compare_unions(first, second, num_in=2, num_out=2, invert_second=True)
        return comparison.differs

    answers = [inverse()]
    for indexing_map in second:  # other questions, on the same maps
        isl_questions.is_empty(indexing_map)
    answers.append(inverse())
    answers.append(inverse())
    assert answers == [False, False, False]
