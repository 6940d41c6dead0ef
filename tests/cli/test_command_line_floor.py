"""The command-line floor: only `verifier/cli.py` and `verifier/commands/`
print, only `verifier/cli.py` exits, and every module of
`verifier/commands/` is a subcommand `verifier.cli` builds its parser from.

An import contract cannot say who prints; this reads every module's syntax
tree for the calls that print or end the process."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import verifier
from verifier import commands
from verifier.commands import COMMANDS

_PACKAGE = Path(verifier.__file__).parent
_PRINTS = {"print"}
_EXITS = {"exit", "quit", "sys.exit", "os._exit", "SystemExit"}


def _calls(path: Path) -> set[str]:
    """The names of what `path` calls or raises among prints and exits."""
    text = path.read_text(encoding="utf-8")
    if not any(word in text for word in ("print(", "exit", "quit(")):
        return set()  # most modules: no tree to walk
    found = set()
    for node in ast.walk(ast.parse(text)):
        target = node.func if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        match target:
            case ast.Name(id=name):
                found.add(name)
            case ast.Attribute(value=ast.Name(id=owner), attr=attr):
                found.add(f"{owner}.{attr}")
    return found & (_PRINTS | _EXITS)


def test_only_the_command_line_prints_and_only_cli_exits() -> None:
    offenders = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        relative = path.relative_to(_PACKAGE)
        allowed = (
            _PRINTS | _EXITS
            if relative == Path("cli.py")
            else _PRINTS
            if relative.parts[0] == "commands"
            else set()
        )
        if wrong := _calls(path) - allowed:
            offenders[str(relative)] = sorted(wrong)
    assert offenders == {}


def test_the_scan_sees_a_print_and_an_exit() -> None:
    # The test above passes only if the scan can fail: it sees both kinds.
    assert _calls(_PACKAGE / "cli.py") >= {"print", "SystemExit"}


def test_every_command_module_is_a_subcommand() -> None:
    modules = {info.name for info in pkgutil.iter_modules(commands.__path__)} - {"common"}
    assert {module.__name__.rsplit(".", 1)[1] for module in COMMANDS} == modules
    for module in COMMANDS:
        assert callable(module.add_parser) and callable(module.run), module.__name__
