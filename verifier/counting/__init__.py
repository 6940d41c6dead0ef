"""Counting elements exactly: distinct elements read, reads with
multiplicity and utilization per operand (SPEC §6), beside XLA's cost-model
heuristic."""
