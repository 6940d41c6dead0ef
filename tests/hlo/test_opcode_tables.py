"""The opcode tables of the floors agree with each other: every opcode a
table names is one the parser knows (`verifier.hlo.opcodes.OPCODES`), and
what a table says of an opcode's operands matches the parser's arity.

The tables still live with the floors that own each fact (the parser's
arity, the elementwise rule, the composer's calling ops, the partition
check's pieces, counting's plumbing); this test is what keeps them one
table in effect: a new opcode added to one and misspelled or missing in
another fails here."""

from __future__ import annotations

import pytest

from verifier.analysis.opcodes import ELEMENTWISE_OPCODES
from verifier.checks.partition import PIECES
from verifier.counting.utilization import PLUMBING
from verifier.fusion.compose import CALLING_OPCODES
from verifier.hlo.opcodes import ARITY, MINIMUM_ARITY, OPCODES
from verifier.indexing.registry import VALUE_OPCODES, registered_opcodes

_TABLES = {
    "ARITY": frozenset(ARITY),
    "MINIMUM_ARITY": frozenset(MINIMUM_ARITY),
    "ELEMENTWISE_OPCODES": frozenset(ELEMENTWISE_OPCODES),
    "CALLING_OPCODES": CALLING_OPCODES,
    "partition.PIECES": frozenset(PIECES),
    "PLUMBING": PLUMBING,
    "VALUE_OPCODES": VALUE_OPCODES,
    "the indexing rules": registered_opcodes(),
}


@pytest.mark.parametrize("table", sorted(_TABLES))
def test_every_opcode_a_table_names_is_one_the_parser_knows(table: str) -> None:
    assert _TABLES[table] <= OPCODES, sorted(_TABLES[table] - OPCODES)


def test_no_opcode_has_both_an_exact_and_a_minimum_arity() -> None:
    assert not frozenset(ARITY) & frozenset(MINIMUM_ARITY)


def test_an_elementwise_op_takes_as_many_operands_as_the_parser_allows() -> None:
    # Elementwise: output element d reads element d of every operand, so any
    # operand count the parser accepts is one the rule maps; the parser must
    # know each one's count (exactly, or `map`'s at least one).
    unknown = [op for op in ELEMENTWISE_OPCODES if op not in ARITY and op not in MINIMUM_ARITY]
    assert unknown == [], "elementwise ops with no arity in the parser"
    assert all(ARITY.get(op, 1) >= 1 for op in ELEMENTWISE_OPCODES)


def test_the_ops_a_table_gives_maps_to_have_an_indexing_rule() -> None:
    # Not the calling ops: a fusion has no rule of its own, its maps are
    # composed through its computation.
    ruled = registered_opcodes()
    for table in ("ELEMENTWISE_OPCODES", "partition.PIECES", "PLUMBING"):
        assert _TABLES[table] <= ruled, (table, sorted(_TABLES[table] - ruled))


def test_partition_pieces_name_operands_the_op_has() -> None:
    for opcode, pieces in PIECES.items():
        least = ARITY.get(opcode, MINIMUM_ARITY.get(opcode))
        assert least is not None, opcode
        assert pieces is None or max(pieces) < least, (opcode, pieces, least)
