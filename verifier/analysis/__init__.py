"""A module's indexing maps, composed, simplified and merged once per run:
where every map that checks, counts and reports use comes from; and the
isolation of one instruction's work from the others'.

`ModuleMaps` is imported on first use: it pulls in the composer, the
simplifier and isl, which a gate run answered wholly from the findings
cache (it needs only `InstructionError`) never touches."""

from typing import TYPE_CHECKING, Any

from verifier.analysis.isolation import InstructionError, isolated

if TYPE_CHECKING:
    from verifier.analysis.module_maps import ModuleMaps

__all__ = ["InstructionError", "ModuleMaps", "isolated"]


def __getattr__(name: str) -> Any:
    if name == "ModuleMaps":
        from verifier.analysis.module_maps import ModuleMaps

        return ModuleMaps
    raise AttributeError(f"module 'verifier.analysis' has no attribute {name!r}")
