"""``python -m verifier`` is the ``verifier`` command."""

from verifier.cli import command

command()
