"""The indexing document's golden cases (`examples/spec/`), compared as relations.

Every case is compared exactly with isl (relations of the unions of maps,
symbols existential), and by brute force as well when the relation is small
(see `golden.BRUTE_FORCE_LIMIT`); the big cases (gather f32[1806,7,8,4],
transpose with 12288, dot, reduce-window) rely on isl alone, and their
scaled-down variants are judged by brute force against the reference
interpreter in test_rules_vs_oracle.py.  Small cases are additionally
checked in every direction against the reference interpreter, including
the directions the document leaves blank.
"""

from __future__ import annotations

import pytest

from tests.oracle import SUPPORTED_OPCODES as ORACLE_OPCODES
from tests.oracle.compound import SUPPORTED_OPCODES as COMPOUND_OPCODES
from verifier.expr.indexing_map import Undefined
from verifier.hlo import parse_module_file
from verifier.indexing.analysis import own_input_to_output, own_output_to_input
from verifier.indexing.registry import registered_opcodes

from .compound_checks import check as check_compound
from .golden import GoldenCase, all_cases, compare_section, isl_in_bounds
from .hlo_strategies import STRATEGIES
from .relations import check_instruction, operand_dims

CASES = all_cases()
# Brute-force relations enumerate every point of each map's variable box:
# only cases this small are compared with the reference interpreter.
ORACLE_LIMIT = 60_000


def _case_id(case: GoldenCase) -> str:
    return case.name


def test_every_spec_case_has_a_file() -> None:
    names = {case.name for case in CASES}
    assert {
        "add", "broadcast", "constant", "iota", "dynamic_slice", "dynamic_update_slice",
        "gather", "transpose", "reverse", "reduce", "slice", "reshape_collapse",
        "reshape_expand", "reshape_general", "reshape_mixed", "bitcast", "concatenate",
        "dot", "pad", "reduce_window",
    } <= names  # fmt: skip
    for case in CASES:
        assert case.hlo.exists(), f"{case.name}.expected has no {case.hlo.name}"
        assert case.sections or case.no_operands, f"{case.name}.expected is empty"


# Transformer Engine's attention (a 4-dim softmax of two matmuls) takes
# 2.5 CPU-s to compare: the slow tier judges it.
_SLOW_CASES = frozenset({"te_fused_attention_forward"})


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.slow) if c.name in _SLOW_CASES else c for c in CASES],
    ids=_case_id,
)
def test_spec_case(case: GoldenCase) -> None:
    module = parse_module_file(str(case.hlo))
    computation, instruction = module.entry, module.entry.root
    if case.no_operands:
        assert instruction.operands == ()
        assert own_output_to_input(computation, instruction) == ()
    problems: list[str] = []
    for section in case.sections:
        if section.direction == "o2i":
            actual = own_output_to_input(computation, instruction, section.output)[section.operand]
            target = operand_dims(computation, instruction, section.operand)
        else:
            actual = own_input_to_output(computation, instruction, section.operand)[section.output]
            shape = instruction.shape
            target = (
                shape.tuple_shapes[section.output] if shape.tuple_shapes else shape
            ).dimensions
        where = f"{section.direction} operand {section.operand} output {section.output}"
        problems += [f"{where}: {p}" for p in compare_section(section, actual)]
        if not isinstance(actual, Undefined):
            for indexing_map in actual:
                if not isl_in_bounds(indexing_map, target):
                    problems.append(f"{where}: image leaves {target}:\n{indexing_map}")
    assert not problems, f"{case.name}:\n" + "\n".join(problems)


def _brute_force_cost(case: GoldenCase) -> int:
    """Points the brute-force relations of every map of the case enumerate."""
    module = parse_module_file(str(case.hlo))
    computation, root = module.entry, module.entry.root
    outputs = len(root.shape.tuple_shapes or (root.shape,))
    results = [own_output_to_input(computation, root, k) for k in range(outputs)]
    results += [own_input_to_output(computation, root, i) for i in range(len(root.operands))]
    return sum(
        m.domain_size_bound()
        for per_operand in results
        for indexing in per_operand
        if not isinstance(indexing, Undefined)
        for m in indexing
    )


def _judged(case: GoldenCase) -> bool:
    """Small enough to enumerate, and not UNDEFINED by design (an opaque
    custom-call has no semantics to judge it by)."""
    return _brute_force_cost(case) <= ORACLE_LIMIT and not any(
        section.kind == "undefined" for section in case.sections
    )


def _output_elements(case: GoldenCase) -> int:
    """Elements of the root's outputs, each of which the oracle interprets."""
    root = parse_module_file(str(case.hlo)).entry.root
    return sum(shape.num_elements for shape in root.shape.tuple_shapes or (root.shape,))


def _judged_case(case: GoldenCase) -> object:
    """The case, in the slow tier when the oracle interprets millions of
    output elements (a cuBLAS call's 4 MiB workspace, as XLA writes it)."""
    slow = _output_elements(case) > ORACLE_LIMIT
    return pytest.param(case, marks=pytest.mark.slow) if slow else case


@pytest.mark.parametrize("case", [_judged_case(c) for c in CASES if _judged(c)], ids=_case_id)
def test_spec_case_matches_oracle(case: GoldenCase) -> None:
    """Judged by the reference interpreter that knows the opcode: the
    per-element one, else the compound one (collectives, convolution, …)."""
    module = parse_module_file(str(case.hlo))
    if module.entry.root.opcode in ORACLE_OPCODES:
        check_instruction(module.entry, module.entry.root, case.hlo.read_text())
    else:
        undefined = check_compound(case.hlo.read_text())
        assert not undefined, undefined


# Opcodes whose relation lives in another computation or outside HLO: the
# rule must answer UNDEFINED (never a map); test_opaque_ops.py checks that.
OPAQUE_OPCODES = frozenset({"call", "custom-call", "while", "conditional", "async-start"})


def test_every_registered_opcode_is_covered() -> None:
    """A registered opcode needs a golden case or an oracle property test."""
    golden = {parse_module_file(str(case.hlo)).entry.root.opcode for case in CASES}
    covered = golden | set(STRATEGIES) | COMPOUND_OPCODES | OPAQUE_OPCODES
    uncovered = registered_opcodes() - covered
    assert not uncovered, (
        f"opcodes with an indexing rule but no golden case or oracle test: {sorted(uncovered)}"
    )
