"""The worked examples in the docstrings of verifier.hlo are correct."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "verifier.hlo",
    "verifier.hlo.lexer",
    "verifier.hlo.shape",
    "verifier.hlo.attributes",
    "verifier.hlo.module",
    "verifier.hlo.parser",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
