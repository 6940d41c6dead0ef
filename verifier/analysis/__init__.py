"""A module's indexing maps, composed, simplified and merged once per run:
where every map that checks, counts and reports use comes from; and the
isolation of one instruction's work from the others'."""

from verifier.analysis.isolation import InstructionError, isolated
from verifier.analysis.module_maps import ModuleMaps

__all__ = ["InstructionError", "ModuleMaps", "isolated"]
