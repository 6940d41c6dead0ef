"""Test-wide settings: Hypothesis profiles.

* ``dev`` (default): random examples, no deadline (the machine is shared;
  a test's speed is measured by `benchmarks/`, never asserted).
* ``ci`` (selected when ``CI`` is set, as `.ci/run` runs): the same, derandomised,
  so a red CI run replays exactly.

``HYPOTHESIS_PROFILE=NAME`` chooses one explicitly.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("dev", deadline=None, suppress_health_check=_QUIET)
settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True, suppress_health_check=_QUIET
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
