"""Test-wide settings: Hypothesis profiles, and the research extra's modules.

* ``dev`` (default): random examples, no deadline (the machine is shared;
  a test's speed is measured by `benchmarks/`, never asserted).
* ``ci`` (selected when ``CI`` is set, as `.ci/run` runs): the same, derandomised,
  so a red CI run replays exactly.

``HYPOTHESIS_PROFILE=NAME`` chooses one explicitly.

Test tiers: the default run (``pytest``) skips the ``slow`` tier;
``pytest -m quick`` runs the **quick** tier, the inner loop: every doctest
of the package and the tests listed in `QUICK` — at least one test module
of every package, none of them a long property search (≤ 30 CPU-s in all).

The modules of `verifier.corpus` that import the research extra (pandas,
matplotlib) are collected for their doctests only where it is installed, as
the corpus tests are skipped without it: ``pip install -e '.[test]'`` alone
runs the rest of the tier.
"""

from __future__ import annotations

import importlib.util
import os

import pytest
from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("dev", deadline=None, suppress_health_check=_QUIET)
settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True, suppress_health_check=_QUIET
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

_RESEARCH = ("dask", "distributed", "pandas", "pyarrow", "tqdm", "matplotlib")
collect_ignore = (
    []
    if all(importlib.util.find_spec(name) for name in _RESEARCH)
    else ["verifier/corpus/plot.py", "verifier/corpus/run.py", "verifier/corpus/tables.py"]
)

QUICK = (
    # verifier.expr, verifier.hlo
    "tests/expr/test_hostile_map_text.py",
    "tests/expr/test_parser_errors.py",
    "tests/hlo/test_hlo_attributes.py",
    "tests/hlo/test_hlo_lexer.py",
    "tests/hlo/test_hlo_parser.py",
    "tests/hlo/test_hlo_shape.py",
    "tests/hlo/test_opcode_tables.py",
    "tests/hlo/test_xla_syntax.py",
    # verifier.simplify, verifier.indexing, proofs
    "tests/simplify/test_golden.py",
    "tests/simplify/test_rules.py",
    "tests/indexing/test_corner_cases.py",
    "tests/indexing/test_errata.py",
    "tests/indexing/test_opaque_ops.py",
    "tests/indexing/test_oracle.py",
    "tests/proofs/test_lemmas.py::test_every_lemma_belongs_to_a_rule_of_its_family",
    "tests/proofs/test_lemmas.py::test_a_lemma_missing_its_side_condition_is_refuted",
    # verifier.bridges, verifier.fusion, verifier.analysis
    "tests/bridges/test_question_isolation.py",
    "tests/bridges/test_z3.py",
    "tests/fusion/test_chains.py",
    "tests/fusion/test_spec_fusions.py",
    "tests/analysis/test_signatures.py",
    "tests/analysis/test_wide.py",
    # verifier.checks, verifier.counting
    "tests/checks/test_bitcast.py",
    "tests/checks/test_bounds.py",
    "tests/checks/test_pathological.py",
    "tests/counting/test_heuristic.py",
    "tests/counting/test_progressions.py",
    "tests/counting/test_runtime.py",
    # verifier.gate, verifier.report
    "tests/gate/test_answers_by_signature.py",
    "tests/gate/test_cache_never_decides.py",
    "tests/gate/test_question_memo.py",
    "tests/gate/test_sqlite_cache.py",
    "tests/gate/test_suite.py",
    "tests/gate/test_tuples.py",
    "tests/report/",
    # verifier.cli, verifier.api, verifier.corpus
    "tests/cli/test_check_inputs.py",
    "tests/cli/test_instruction_isolation.py",
    "tests/cli/test_layout_command.py",
    "tests/cli/test_maps_command.py",
    "tests/cli/test_utilization_command.py",
    "tests/api/test_api.py",
    "tests/api/test_research_api.py",
    "tests/corpus/test_supervisor.py",
    "tests/fuzz/test_regressions.py",
    "tests/golden/test_cli_outputs.py::test_output_equals_golden[maps__examples__indexing_doc.hlo.json]",
    "tests/golden/test_cli_outputs.py::test_output_equals_golden[check__examples__indexing_doc.hlo.json]",
)
"""The quick tier besides the package's doctests: test files, directories
(ending in ``/``) and single tests, by node id."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the quick tier: every doctest of the package, and the tests of
    `QUICK` that are not in the slow tier."""
    for item in items:
        if item.get_closest_marker("slow") is not None:
            continue
        nodeid = item.nodeid
        path = nodeid.split("::", 1)[0]
        doctest = isinstance(item, pytest.DoctestItem) and not path.startswith("tests/")
        listed = any(
            nodeid == entry or path == entry or (entry.endswith("/") and path.startswith(entry))
            for entry in QUICK
        )
        if doctest or listed:
            item.add_marker(pytest.mark.quick)
