"""The CI gate: every registered check on every instruction of a module, the
findings, the proof caches, and the run's status (which decides the exit
code)."""

from verifier.gate.suite import CHECKS, INFORMATIONAL_CHECKS, run_checks

__all__ = ["CHECKS", "INFORMATIONAL_CHECKS", "run_checks"]
