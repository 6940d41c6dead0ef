"""A module's indexing maps, composed, simplified and merged once per run:
where every map that checks, counts and reports use comes from."""

from verifier.analysis.module_maps import ModuleMaps

__all__ = ["ModuleMaps"]
