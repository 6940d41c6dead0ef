"""The subcommands of ``verifier``, one module per command.

Each module has ``add_parser(commands)``, which adds the subcommand and its
arguments to the parser's subcommands (and sets ``run`` as its default), and
``run(args, out) -> int``, which runs it and returns the exit code
(`verifier.cli` states them).  `COMMANDS` lists them in ``--help`` order;
`verifier.cli` builds the parser from it and handles every error the same
way.  With `verifier.cli` they are the command-line floor: the only code
that prints.  What they share is in `verifier.commands.common`.

>>> [command.__name__.rsplit(".", 1)[1] for command in COMMANDS][:4]
['maps', 'tile', 'simplify', 'equiv']
"""

from verifier.commands import (
    check,
    coalescing,
    corpus,
    equiv,
    layout,
    maps,
    plot,
    prove_rules,
    simplify,
    tile,
    utilization,
    xla_tests,
)

COMMANDS = (
    maps,
    tile,
    simplify,
    equiv,
    layout,
    prove_rules,
    utilization,
    coalescing,
    check,
    corpus,
    plot,
    xla_tests,
)
"""Every subcommand's module, in the order ``verifier --help`` lists them."""
