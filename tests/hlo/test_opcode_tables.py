"""The one opcode table (`verifier.hlo.OPCODE_TABLE`) and the per-opcode
rule tables of the floors agree.

Every opcode set of the package is derived from the table; what is left
keyed by opcode names elsewhere is a table of *rules* (the shape inference
and validation functions, the indexing rules, the partition check's pieces)
or a set the composer still spells out.  Each must name only opcodes of the
table and agree with what the table says of them: a rule added for a
misspelled opcode, an elementwise op given another rule, a calling op the
composer does not compose through, all fail here."""

from __future__ import annotations

import pytest

from verifier.checks.partition import PIECES
from verifier.hlo import (
    CHECKED_OPCODES,
    COMPUTATION_ATTRIBUTES,
    ELEMENTWISE_OPCODES,
    OPCODE_TABLE,
    OPCODES,
    PLUMBING_OPCODES,
)
from verifier.hlo.inference import CONSTRUCTED, INFERENCE, VALIDATION
from verifier.hlo.validation import RULES
from verifier.indexing.registry import VALUE_OPCODES, registered_opcodes, rule_for

_RULE_TABLES = {
    "shape inference": frozenset(INFERENCE),
    "shape validation": frozenset(VALIDATION),
    "constructed shapes": frozenset(CONSTRUCTED),
    "producer and callee rules": frozenset(RULES),
    "the indexing rules": registered_opcodes(),
    "the partition check's pieces": frozenset(PIECES),
    "the operands a rule reads the value of": VALUE_OPCODES,
}


@pytest.mark.parametrize("table", sorted(_RULE_TABLES))
def test_every_opcode_a_table_names_is_in_the_opcode_table(table: str) -> None:
    assert _RULE_TABLES[table] <= OPCODES, sorted(_RULE_TABLES[table] - OPCODES)


def test_the_elementwise_rule_maps_exactly_the_elementwise_ops() -> None:
    rule = rule_for("add")
    assert rule is not None
    mapped = frozenset(op for op in registered_opcodes() if rule_for(op) is rule)
    assert mapped == ELEMENTWISE_OPCODES


def test_an_elementwise_op_reads_at_least_one_operand_and_its_shape_is_checked() -> None:
    # Output element d reads element d of every operand: with no operand
    # there would be nothing to read, and the shape follows the operands'
    # (inferred, or the written one checked against them).
    assert all(OPCODE_TABLE[op].least >= 1 for op in ELEMENTWISE_OPCODES)
    assert ELEMENTWISE_OPCODES <= CHECKED_OPCODES, sorted(ELEMENTWISE_OPCODES - CHECKED_OPCODES)


def test_operand_counts_are_a_range() -> None:
    for opcode, facts in OPCODE_TABLE.items():
        assert facts.least >= 0, opcode
        assert facts.most is None or facts.most >= facts.least, opcode


def test_facts_that_imply_others() -> None:
    for opcode, facts in OPCODE_TABLE.items():
        # Plumbing moves tuple elements: it takes tuples.
        assert not facts.plumbing or facts.tuple_operands, opcode
        # Running a callee once is a fact about ops that run one.
        assert not facts.callees_run_once or facts.calls, opcode
        assert not (facts.elementwise and facts.calls), opcode
        # The computation whose root is its value is one it calls, named
        # by an attribute the parser reads as a computation.
        assert facts.callee is None or facts.calls, opcode
        assert facts.callee is None or facts.callee in COMPUTATION_ATTRIBUTES, opcode


def test_the_ops_a_table_gives_maps_to_have_an_indexing_rule() -> None:
    ruled = registered_opcodes()
    for name, opcodes in (
        ("elementwise", ELEMENTWISE_OPCODES),
        ("partition pieces", frozenset(PIECES)),
        ("plumbing", PLUMBING_OPCODES),
    ):
        assert opcodes <= ruled, (name, sorted(opcodes - ruled))


def test_partition_pieces_name_operands_the_op_has() -> None:
    for opcode, pieces in PIECES.items():
        least = OPCODE_TABLE[opcode].least
        assert pieces is None or max(pieces) < least, (opcode, pieces, least)
