"""A computation's dataflow, for consumers above `verifier.analysis`: the
graph the composer walks (`verifier.fusion.graph`), exposed here so that
analysis stays their one door to the floors below.

* `users_first_order`: every instruction after all of its users (XLA's
  utilization heuristic walks it);
* `computation_graph`: the dataflow as a networkx multigraph (the research
  API's ``fusion_graph``).

>>> from verifier.hlo import parse_module
>>> entry = parse_module('''
... HloModule m
... ENTRY e {
...   p = f32[2] parameter(0)
...   ROOT r = f32[2] negate(p)
... }''').entry
>>> [i.name for i in users_first_order(entry)]
['r', 'p']
"""

from verifier.fusion.graph import computation_graph, users_first_order

__all__ = ["computation_graph", "users_first_order"]
