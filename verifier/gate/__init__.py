"""The CI gate: every registered check on every instruction of a module, the
findings, the proof caches, and the run's status (which decides the exit
code).  Import from the modules: `catalog` names the checks without
importing the analysis or a solver, `suite` runs them."""
