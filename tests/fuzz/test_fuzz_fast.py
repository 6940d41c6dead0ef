"""The fast fuzz tier (default run, a few hundred inputs): hostile map texts
and modules through both parsers and the CLI end in an answer or a
`VerifierError` (the CLI: an exit code), never another exception, each
under a time guard.  The ≥ 100,000-input tier is test_fuzz_slow.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.campaign import CLI_BASE, CLI_TARGETS, run_campaign
from tests.fuzz.harness import (
    PARSER_SECONDS,
    Ending,
    Result,
    cli,
    cli_on_map,
    guarded,
    parse_map_text,
)
from tests.fuzz.mutations import hlo_inputs, map_inputs, mutate
from tests.strategies import indexing_maps
from verifier.expr.indexing_map import IndexingMap
from verifier.expr.printer import print_map
from verifier.hlo.parser import parse_module

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def assert_no_failure(result: Result) -> None:
    assert result.ending in (Ending.ANSWER, Ending.ERROR), result


@FAST
@given(map_inputs())
def test_mutated_map_texts_parse_or_fail_located(data: bytes) -> None:
    assert_no_failure(parse_map_text(data))


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(indexing_maps(), st.randoms(use_true_random=False))
def test_generated_maps_round_trip_and_their_mutants_fail_located(
    indexing_map: IndexingMap, r: random.Random
) -> None:
    text = print_map(indexing_map, one_line=True)
    assert parse_map_text(text.encode()).ending is Ending.ANSWER
    assert_no_failure(parse_map_text(mutate(text.encode(), r)))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(hlo_inputs())
def test_mutated_modules_parse_or_fail_located(data: bytes) -> None:
    # Text, not a file: bytes that are not UTF-8 reach the lexer as lone
    # surrogates (a file of such bytes is #12's: see test_regressions.py).
    text = data.decode("utf-8", "surrogateescape")
    assert_no_failure(guarded(lambda: parse_module(text, "fuzz.hlo"), PARSER_SECONDS))


def test_the_cli_on_mutated_maps_and_modules() -> None:
    # Deterministic inputs (the campaign's first ones, each command in turn);
    # modules whose bytes are not UTF-8 are left to #12's regression tests.
    tally = run_campaign(range(CLI_BASE, CLI_BASE + 40))
    assert tally.inputs == 40
    failures = {k: v for k, v in tally.failures.items() if "UnicodeDecodeError" not in k}
    assert failures == {}
    assert {target for target, _ in tally.endings} == set(CLI_TARGETS)


@pytest.mark.parametrize(
    "argv",
    [
        ["simplify", "(d0) -> (" + "9" * 5000 + "), domain: d0 in [0, 9]"],
        ["equiv", "(d0) -> (" + "(" * 5000 + "d0", "(d0) -> (d0)"],
        ["simplify", "--prove", "(d0) -> (d0)" + ", domain: d0 in [0, 9]" + " " * 100_000],
    ],
)
def test_the_cli_on_hostile_map_arguments(argv: list[str]) -> None:
    assert_no_failure(cli(argv))


def test_hostile_simplify_and_equiv_end_in_an_exit_code() -> None:
    for command in ("simplify", "equiv"):
        assert_no_failure(cli_on_map(command, b"(d0) -> (d0 mod 0), domain: d0 in [0, 3]"))
