"""Test-wide settings: Hypothesis profiles, and the research extra's modules.

* ``dev`` (default): random examples, no deadline (the machine is shared;
  a test's speed is measured by `benchmarks/`, never asserted).
* ``ci`` (selected when ``CI`` is set, as `.ci/run` runs): the same, derandomised,
  so a red CI run replays exactly.

``HYPOTHESIS_PROFILE=NAME`` chooses one explicitly.

The modules of `verifier.corpus` that import the research extra (pandas,
matplotlib) are collected for their doctests only where it is installed, as
the corpus tests are skipped without it: ``pip install -e '.[test]'`` alone
runs the rest of the tier.
"""

from __future__ import annotations

import importlib.util
import os

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
