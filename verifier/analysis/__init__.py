"""A module's indexing maps, composed, simplified and merged once per run:
where every map that checks, counts and reports use comes from; and the
isolation of one instruction's work from the others'.

This package is the one door of the floors above it (checks, counting,
gate, report, corpus, the API and the CLI) to maps: they ask
`ModuleMaps.instruction` for an `InstructionMaps` — every map paired with
the output and operand leaves it relates — and read what else they need of
the floors below from `verifier.analysis.dataflow` and `.layout` (and the
opcode facts from `verifier.hlo`'s one opcode table); none of them imports `verifier.fusion` or `verifier.indexing`
(an import contract in pyproject.toml).

`ModuleMaps` is imported on first use: it pulls in the composer, the
simplifier and isl, which a gate run answered wholly from the findings
cache (it needs only `InstructionError`) never touches."""

from typing import TYPE_CHECKING, Any

from verifier.analysis.instruction_errors import InstructionError, isolated

if TYPE_CHECKING:
    from verifier.analysis.instruction_maps import InstructionMaps
    from verifier.analysis.module_maps import ModuleMaps

__all__ = ["InstructionError", "InstructionMaps", "ModuleMaps", "isolated"]


def __getattr__(name: str) -> Any:
    if name == "ModuleMaps":
        from verifier.analysis.module_maps import ModuleMaps

        return ModuleMaps
    if name == "InstructionMaps":
        from verifier.analysis.instruction_maps import InstructionMaps

        return InstructionMaps
    raise AttributeError(f"module 'verifier.analysis' has no attribute {name!r}")
