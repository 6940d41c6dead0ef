"""The bundled example modules, as the tests that sweep them all ask for
them: every `.hlo` file under `examples/`, and the real dumps small enough
for the default tier."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.errors import VerifierError
from verifier.hlo import Module, parse_module_file

EXAMPLES = Path(__file__).parents[1] / "examples"
EVERY_EXAMPLE = sorted(EXAMPLES.rglob("*.hlo"))
# The real dumps whose per-place comparisons take seconds: slow tier only.
_LARGE = {"transformer_train_step.hlo", "mlp_train_step.hlo", "cnn_step.hlo"}
SMALL_REAL_DUMPS = [p for p in sorted((EXAMPLES / "real").glob("*.hlo")) if p.name not in _LARGE]


def example_id(path: Path) -> str:
    """``real/softmax.hlo``: a test id."""
    return str(path.relative_to(EXAMPLES))


def valid_module(path: Path) -> Module:
    """The module in `path`, or the test skipped for a module broken on
    purpose (`examples/checks/`, the hostile names)."""
    try:
        return parse_module_file(path)
    except VerifierError:
        pytest.skip("not a valid module")
