"""``python -m verifier`` is the ``verifier`` command."""

from verifier.cli import main

raise SystemExit(main())
