"""Solver bridges: the only modules that import islpy (`verifier.bridges.isl`)
and z3 (`verifier.bridges.z3`).

Both bridges translate `IndexingMap`s exactly and answer solver questions in
plain Python data (ints, names, three-valued ``bool | None`` facts), so the
checks above never handle an untyped solver object.  Budgets are
deterministic (isl's operation count, z3's ``rlimit``); an exhausted budget is
the answer "can't tell" (`None`), never a hang or an exception.
"""
